//! Finds libtc.so and links it, so that `cargo test`, `cargo run` and a
//! user's crate work without LD_LIBRARY_PATH.
//!
//! Where, in order:
//!  1. `TC_LIB_DIR` when set (ctest sets it to the CMake target's dir);
//!  2. pkg-config (`tc.pc`, installed by `cmake --install`; `PKG_CONFIG_PATH`
//!     for a prefix pkg-config does not search by default);
//!  3. the newest `libtc.so` in the repository's build trees (`<repo>/build*/`,
//!     the layout scripts/setup.sh and DEVELOPERS.md use), leaving out
//!     sanitizer builds (TC_SANITIZE in their CMakeCache.txt).
//!
//! Run paths: this crate's own tests get `-Wl,-rpath` to the directory. A
//! dependency's `rustc-link-arg` never reaches another crate's binaries, so
//! for those the directory is also exported as `DEP_TC_LIB_DIR` (this crate
//! has `links = "tc"`; the `tc` crate's build script puts the rpath on its own
//! tests, examples and doc tests), and libtc's soname is linked into
//! `$OUT_DIR/lib`, which is on the link search path: cargo puts search paths
//! inside its target directory on the library path of `cargo run` and
//! `cargo test`, so a user's crate that depends on `tc` runs with `cargo run`
//! against an installed libtc. A binary run directly needs a run path of its
//! own (README: `-C link-arg=-Wl,-rpath,$(pkg-config --variable=libdir tc)`)
//! or libtc in a directory the dynamic loader searches.
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
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

/// libtc's directory according to pkg-config (None without pkg-config or tc.pc).
fn pkg_config_dir() -> Option<PathBuf> {
    let out = Command::new(env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".into()))
        .args(["--variable=libdir", "tc"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let dir = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    dir.join("libtc.so").exists().then_some(dir)
}

/// Symbolic links to the library (libtc.so and its soname) in `$OUT_DIR/lib`.
fn link_into_out_dir(dir: &Path) -> Option<PathBuf> {
    let out = PathBuf::from(env::var_os("OUT_DIR")?).join("lib");
    fs::create_dir_all(&out).ok()?;
    for entry in fs::read_dir(dir).ok()?.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name == "libtc.so" || name.starts_with("libtc.so.") {
            let target = entry.path().canonicalize().ok()?;
            let link = out.join(&*name);
            let _ = fs::remove_file(&link);
            std::os::unix::fs::symlink(&target, &link).ok()?;
        }
    }
    Some(out)
}

fn main() {
    println!("cargo:rerun-if-env-changed=TC_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG");
    println!("cargo:rerun-if-changed=build.rs");
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    // bindings/rust/tc-sys -> the repository root.
    let repo = manifest.join("../../..");

    let dir = match env::var_os("TC_LIB_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => match pkg_config_dir().or_else(|| newest_build_lib(&repo)) {
            Some(d) => d,
            None => {
                println!(
                    "cargo:warning=libtc.so not found: set TC_LIB_DIR, install libtc where pkg-config finds \
                     tc.pc (PKG_CONFIG_PATH), or build it into <repo>/build*/ (scripts/setup.sh); \
                     linking will fail"
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
    if let Some(out) = link_into_out_dir(&dir) {
        println!("cargo:rustc-link-search=native={}", out.display());
    }
    println!("cargo:rustc-link-lib=dylib=tc");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    println!("cargo:lib_dir={}", dir.display());
}
