//! Fails when src/bindings.rs is stale: regenerates the bindings from
//! include/tc.h with regen.sh into a temporary file and compares. Skipped
//! (with a message) where the `bindgen` CLI or rustfmt is not installed
//! (regen.sh needs both).
use std::path::PathBuf;
use std::process::Command;

fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

#[test]
fn committed_bindings_match_tc_h() {
    let bindgen = std::env::var("BINDGEN").unwrap_or_else(|_| "bindgen".into());
    for tool in [bindgen.as_str(), "rustfmt"] {
        if !runs(tool) {
            eprintln!("SKIPPED: {tool} not found; cannot check src/bindings.rs against include/tc.h");
            return;
        }
    }
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::temp_dir().join(format!("tc-sys-bindings-{}.rs", std::process::id()));
    let status = Command::new("sh")
        .arg(crate_dir.join("regen.sh"))
        .arg(&out)
        .status()
        .expect("run regen.sh");
    assert!(status.success(), "regen.sh failed: {status}");
    let fresh = std::fs::read_to_string(&out).expect("read regenerated bindings");
    let _ = std::fs::remove_file(&out);
    let committed = std::fs::read_to_string(crate_dir.join("src/bindings.rs")).expect("read src/bindings.rs");
    if fresh != committed {
        let line = fresh
            .lines()
            .zip(committed.lines())
            .position(|(a, b)| a != b)
            .map_or_else(
                || "length differs".to_string(),
                |i| format!("first difference at line {}", i + 1),
            );
        panic!(
            "bindings/rust/tc-sys/src/bindings.rs is stale ({line}): run bindings/rust/tc-sys/regen.sh and commit"
        );
    }
}
