//! Every kind of misuse gives its ErrorKind, with libtc's message.
use tc::{DType, Device, ErrorKind, Reduction, Tensor};

fn f32s(v: &[f32], shape: &[i64]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}

#[test]
fn kinds_match_status_codes_and_names() {
    // tc_status_name is callable before tc_init.
    for code in 1..tc_sys::TC_STATUS_COUNT {
        let kind = ErrorKind::from_code(code);
        assert!(
            !matches!(kind, ErrorKind::Unknown(_)),
            "status {code} has no ErrorKind"
        );
        assert_eq!(kind.code(), code);
        let mut name: *const std::ffi::c_char = std::ptr::null();
        assert_eq!(unsafe { tc_sys::tc_status_name(code, &mut name) }, tc_sys::TC_OK);
        let name = unsafe { std::ffi::CStr::from_ptr(name) }.to_str().unwrap();
        assert_eq!(kind.name(), name, "name of status {code}");
        assert_eq!(tc::status_name(code), Some(name));
    }
    assert_eq!(ErrorKind::from_code(999), ErrorKind::Unknown(999));
    assert_eq!(ErrorKind::Unknown(999).code(), 999);
}

#[test]
fn shape_mismatch() {
    let _tc = tc::init().unwrap();
    let a = Tensor::zeros(&[2, 3], DType::Float32, Device::Cpu).unwrap();
    let b = Tensor::zeros(&[4], DType::Float32, Device::Cpu).unwrap();
    let err = (&a + &b).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Shape);
    assert_eq!(err.code(), tc_sys::TC_ERR_SHAPE);
    assert!(err.message().contains("tc_add"), "message names the call: {err}");
    assert!(err.to_string().starts_with("TC_ERR_SHAPE: "), "{err}");
    assert_eq!(a.matmul(&b).unwrap_err().kind(), ErrorKind::Shape);
    assert_eq!(a.view(&[5]).unwrap_err().kind(), ErrorKind::Shape);
    // Rust-side check before the call.
    assert_eq!(
        Tensor::from_slice(&[1.0f32; 5], &[2, 3]).unwrap_err().kind(),
        ErrorKind::Shape
    );
    let mut out = [0f32; 5];
    assert_eq!(a.copy_to_slice(&mut out).unwrap_err().kind(), ErrorKind::Shape);
}

#[test]
fn dtype_errors() {
    let _tc = tc::init().unwrap();
    let ints = Tensor::from_slice(&[1i64, 2, 3], &[3]).unwrap();
    // tc.h: integer inputs to exp promote to the default float dtype (as in
    // PyTorch); floating inputs to the integer-only bitwise_not are rejected.
    assert_eq!(ints.exp().unwrap().dtype().unwrap(), tc::DType::Float32);
    let floats = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    assert_eq!(floats.bitwise_not().unwrap_err().kind(), ErrorKind::Dtype);
    // No silent conversion to Rust types.
    let err = ints.to_vec::<f32>().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Dtype);
    assert!(err.message().contains("int64"), "{err}");
    assert_eq!(Vec::<f64>::try_from(&ints).unwrap_err().kind(), ErrorKind::Dtype);
    assert_eq!(ints.to_vec_bool().unwrap_err().kind(), ErrorKind::Dtype);
    // requires_grad only for floating dtypes.
    assert_eq!(ints.set_requires_grad(true).unwrap_err().kind(), ErrorKind::Dtype);
    // Arithmetic on bool tensors.
    let b = ints.gt(&ints).unwrap();
    assert_eq!((&b + &b).unwrap_err().kind(), ErrorKind::Dtype);
}

#[test]
fn index_errors() {
    let _tc = tc::init().unwrap();
    let x = Tensor::zeros(&[2, 3], DType::Float32, Device::Cpu).unwrap();
    assert_eq!(x.select(0, 2).unwrap_err().kind(), ErrorKind::Index);
    assert_eq!(x.transpose(0, 2).unwrap_err().kind(), ErrorKind::Index);
    assert_eq!(x.sum(&[5], false).unwrap_err().kind(), ErrorKind::Index);
    assert_eq!(x.size(2).unwrap_err().kind(), ErrorKind::Index);
    assert_eq!(x.size(-1).unwrap(), 3);
}

#[test]
fn invalid_argument() {
    let _tc = tc::init().unwrap();
    assert_eq!(
        tc::get_flag("no_such_flag").unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
    assert_eq!(
        tc::set_flag(tc::flags::LIVE_TENSORS, 3).unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
    assert_eq!(
        tc::get_flag("nul\0inside").unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
    assert_eq!(
        DType::from_name("complex1024").unwrap_err().kind(),
        ErrorKind::Dtype
    );
    let err = Tensor::arange(0.0, 1.0, 0.0, DType::Float32, Device::Cpu).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
}

#[test]
fn out_of_memory() {
    let _tc = tc::init().unwrap();
    let err = Tensor::empty(&[1 << 40, 1 << 20], DType::Float64, Device::Cpu).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutOfMemory);
}

#[test]
fn autograd_misuse() {
    let _tc = tc::init().unwrap();
    let x = f32s(&[1.0, 2.0], &[2]).requires_grad(true).unwrap();
    let y = (&x * &x).unwrap().sum_all().unwrap();
    y.backward().unwrap();
    // The graph's saved tensors are freed: a second backward fails.
    assert_eq!(y.backward().unwrap_err().kind(), ErrorKind::Autograd);
    // In-place on a leaf that requires grad.
    let mut leaf = x.clone();
    assert_eq!(leaf.fill_(0.0).unwrap_err().kind(), ErrorKind::Autograd);
    // backward from a non-scalar without a gradient.
    let z = (&x * 2.0).unwrap();
    assert!(z.backward().is_err());
}

#[test]
fn cuda_backend_unavailable_or_works() {
    let _tc = tc::init().unwrap();
    match tc::backend_init("cuda") {
        Ok(()) => assert_eq!(tc::get_flag(tc::flags::CUDA_INITIALIZED).unwrap(), 1),
        Err(e) => assert!(
            matches!(e.kind(), ErrorKind::NotCompiled | ErrorKind::Unavailable),
            "unexpected {e}"
        ),
    }
    if tc::get_flag(tc::flags::HAS_CUDA).unwrap() == 0 {
        let err = Tensor::zeros(&[2], DType::Float32, Device::Cuda(0)).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::NotCompiled | ErrorKind::Unavailable),
            "{err}"
        );
    }
}

#[test]
fn losses_check_their_targets() {
    let _tc = tc::init().unwrap();
    let logits = Tensor::zeros(&[2, 3], DType::Float32, Device::Cpu).unwrap();
    let float_target = f32s(&[0.0, 1.0], &[2]);
    assert!(logits.cross_entropy(&float_target, Reduction::Mean).is_err());
    let bad_class = Tensor::from_slice(&[0i64, 7], &[2]).unwrap();
    assert_eq!(
        logits
            .cross_entropy(&bad_class, Reduction::Mean)
            .unwrap_err()
            .kind(),
        ErrorKind::Index
    );
}
