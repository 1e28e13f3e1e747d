//! Finds libtc.so and links it with an rpath, so `cargo test` and
//! `cargo run` work without LD_LIBRARY_PATH.
//!
//! Where: `TC_LIB_DIR` when set (ctest sets it to the CMake target's dir);
//! otherwise the newest `libtc.so` in the repository's build trees
//! (`<repo>/build*/`, the layout scripts/setup.sh and DEVELOPERS.md use),
//! leaving out sanitizer builds (TC_SANITIZE in their CMakeCache.txt).
//!
//! The directory is also exported as `DEP_TC_LIB_DIR` (this crate has
//! `links = "tc"`) so the `tc` crate's build script can put the rpath on
//! its own tests, examples and doc tests: `rustc-link-arg` never crosses
//! crates.
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Whether the CMake build in `dir` was configured with TC_SANITIZE.
fn sanitized(dir: &Path) -> bool {
    fs::read_to_string(dir.join("CMakeCache.txt")).is_ok_and(|cache| {
        cache
            .lines()
            .any(|l| l.starts_with("TC_SANITIZE:") && !l.ends_with('='))
    })
}

fn newest_build_lib(repo: &Path) -> Option<PathBuf> {
    let mut best: Option<(SystemTime, PathBuf)> = None;
    for entry in fs::read_dir(repo).ok()?.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().starts_with("build") || !entry.path().is_dir() {
            continue;
        }
        if sanitized(&entry.path()) {
            // An ASan/TSan libtc needs its runtime loaded first: not for cargo.
            continue;
        }
        let lib = entry.path().join("libtc.so");
        // metadata() follows the libtc.so -> libtc.so.0 -> libtc.so.0.1.0 links.
        if let Ok(modified) = fs::metadata(&lib).and_then(|m| m.modified()) {
            if best.as_ref().map_or(true, |(t, _)| modified > *t) {
                best = Some((modified, entry.path()));
            }
        }
    }
    best.map(|(_, dir)| dir)
}

fn main() {
    println!("cargo:rerun-if-env-changed=TC_LIB_DIR");
    println!("cargo:rerun-if-changed=build.rs");
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    // bindings/rust/tc-sys -> the repository root.
    let repo = manifest.join("../../..");

    let dir = match env::var_os("TC_LIB_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => match newest_build_lib(&repo) {
            Some(d) => d,
            None => {
                println!(
                    "cargo:warning=libtc.so not found: set TC_LIB_DIR or build libtc into <repo>/build*/ \
                     (scripts/setup.sh); linking will fail"
                );
                println!("cargo:rustc-link-lib=dylib=tc");
                return;
            }
        },
    };
    let dir = dir.canonicalize().unwrap_or(dir);
    if !dir.join("libtc.so").exists() {
        println!("cargo:warning=TC_LIB_DIR={} has no libtc.so", dir.display());
    }
    // Relink when the library is rebuilt (symbols may have been added).
    println!("cargo:rerun-if-changed={}", dir.join("libtc.so").display());
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=dylib=tc");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    println!("cargo:lib_dir={}", dir.display());
}
