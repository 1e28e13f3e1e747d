//! Every function of tc.h is wrapped by the safe crate: each `tc_*` name
//! declared in the header appears as `sys::tc_*` in tc/src. Fails when tc.h
//! grows a function the crate does not expose yet.
use std::path::Path;

/// Functions the crate deliberately does not call, and why.
const NOT_WRAPPED: &[(&str, &str)] = &[
    (
        "tc_last_error",
        "its pointer dies at the thread's next failure; tc_last_error_copy is used",
    ),
    (
        "tc_dtype_name",
        "DType::name is a static table; tests/tensors.rs checks it against libtc",
    ),
    (
        "tc_dtype_size",
        "DType::size is a static table; tests/tensors.rs checks it against libtc",
    ),
];

#[test]
fn every_tc_h_function_is_wrapped() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let include = manifest.join("../../../include");
    let mut header = std::fs::read_to_string(include.join("tc.h")).expect("read include/tc.h");
    // The headers tc.h includes from its folder (the elementwise families: tc_unary_ops.h, ...) are part of it.
    let parts: Vec<String> = header
        .lines()
        .filter_map(|l| l.strip_prefix("#include \"tc_").and_then(|r| r.strip_suffix('"')))
        .map(|rest| format!("tc_{rest}"))
        .collect();
    for part in parts {
        header += &std::fs::read_to_string(include.join(&part)).expect("read a header tc.h includes");
    }
    // src/ and its module folders (src/nn/).
    let mut sources = String::new();
    let mut dirs = vec![manifest.join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                sources += &std::fs::read_to_string(path).unwrap();
            }
        }
    }
    let declared: Vec<&str> = header
        .split("TC_API int32_t ")
        .skip(1)
        .map(|rest| &rest[..rest.find('(').expect("a declaration")])
        .collect();
    assert!(declared.len() > 150, "parsed {} declarations", declared.len());
    let missing: Vec<&&str> = declared
        .iter()
        .filter(|name| !NOT_WRAPPED.iter().any(|(n, _)| n == *name))
        .filter(|name| {
            let used = format!("sys::{name}(");
            let passed = format!("sys::{name},");
            let passed_last = format!("sys::{name})");
            !(sources.contains(&used) || sources.contains(&passed) || sources.contains(&passed_last))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "tc.h functions without a safe wrapper: {missing:?}"
    );
}
