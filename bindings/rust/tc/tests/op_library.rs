//! Custom op libraries: the example library (examples/op_library,
//! myops::scaled_square = alpha * x^2), whose path ctest passes in
//! TC_EXAMPLE_OP_LIBRARY, and the broken ones of tests/op_libraries
//! (TC_TEST_OP_LIBRARY_DIR). Skipped when run outside ctest.
use tc::{ErrorKind, Op, Tensor};

fn example() -> Option<String> {
    std::env::var("TC_EXAMPLE_OP_LIBRARY").ok()
}

#[test]
fn scaled_square_forward_and_backward() -> Result<(), tc::Error> {
    let Some(path) = example() else {
        eprintln!("skipped: TC_EXAMPLE_OP_LIBRARY is not set (ctest sets it)");
        return Ok(());
    };
    let _tc = tc::init()?;
    let lib = tc::load_library(&path)?;
    assert_eq!(lib.path()?, path);
    assert!(tc::op_names()?.contains(&"myops::scaled_square".to_string()));
    let op = Op::find("myops::scaled_square")?;
    assert_eq!(
        op.schema()?,
        "myops::scaled_square(Tensor x, float alpha) -> Tensor"
    );
    assert_eq!(op.library_path()?, path);
    let x = Tensor::from_slice(&[1.0f64, -2.0, 3.0], &[3])?.requires_grad(true)?;
    let y = op.call(&[&x], &[2.0])?;
    assert_eq!(y.len(), 1);
    assert_eq!(y[0].to_vec::<f64>()?, vec![2.0, 8.0, 18.0]);
    assert_eq!(y[0].grad_fn()?.unwrap().name()?, "myops::scaled_squareBackward");
    y[0].sum_all()?.backward()?;
    assert_eq!(x.grad()?.unwrap().to_vec::<f64>()?, vec![4.0, -8.0, 12.0]);
    let z = tc::call_op("myops::scaled_square", &[&x], &[0.5])?;
    assert_eq!(z[0].to_vec::<f64>()?, vec![0.5, 2.0, 4.5]);
    let err = op.call(&[&x], &[]).expect_err("a missing scalar is an error");
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    lib.unload()?;
    // The op handle still works after the unload; lookups by name do not.
    assert_eq!(op.call(&[&x], &[1.0])?[0].to_vec::<f64>()?, vec![1.0, 4.0, 9.0]);
    assert_eq!(
        Op::find("myops::scaled_square").expect_err("unregistered").kind(),
        ErrorKind::Index
    );
    Ok(())
}

#[test]
fn broken_libraries_are_errors() -> Result<(), tc::Error> {
    let Ok(dir) = std::env::var("TC_TEST_OP_LIBRARY_DIR") else {
        eprintln!("skipped: TC_TEST_OP_LIBRARY_DIR is not set (ctest sets it)");
        return Ok(());
    };
    let _tc = tc::init()?;
    let err = tc::load_library(format!("{dir}/libbad_halfway.so")).expect_err("must fail");
    assert_eq!(err.kind(), ErrorKind::Io);
    assert!(
        err.message().contains("bad_halfway cannot find its data file"),
        "{}",
        err.message()
    );
    assert!(Op::find("bad::one").is_err());
    let err = tc::load_library(format!("{dir}/libbad_abi.so")).expect_err("must fail");
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    let err = tc::load_library("/nonexistent/libnothing.so").expect_err("must fail");
    assert_eq!(err.kind(), ErrorKind::Io);
    Ok(())
}
