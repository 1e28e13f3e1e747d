//! Puts libtc's directory (found by tc-sys, exported as DEP_TC_LIB_DIR) in
//! the rpath of this crate's tests, examples and doc tests: a dependency's
//! `rustc-link-arg` does not reach them.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_TC_LIB_DIR");
    if let Ok(dir) = std::env::var("DEP_TC_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
}
