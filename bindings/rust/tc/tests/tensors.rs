//! Creation, accessors, conversions and views.
use tc::{DType, Device, Tensor};

#[test]
fn creation_and_accessors() {
    let _tc = tc::init().unwrap();
    let z = Tensor::zeros(&[2, 3], DType::Float64, Device::Cpu).unwrap();
    assert_eq!(z.shape().unwrap(), vec![2, 3]);
    assert_eq!(z.strides().unwrap(), vec![3, 1]);
    assert_eq!(z.ndim().unwrap(), 2);
    assert_eq!(z.numel().unwrap(), 6);
    assert_eq!(z.dtype().unwrap(), DType::Float64);
    assert_eq!(z.device().unwrap(), Device::Cpu);
    assert_eq!(z.element_size().unwrap(), 8);
    assert_eq!(z.storage_offset().unwrap(), 0);
    assert!(z.is_contiguous().unwrap());
    assert!(!z.data_ptr().unwrap().is_null());
    assert_eq!(z.to_vec::<f64>().unwrap(), vec![0.0; 6]);
    let o = Tensor::ones(&[4], DType::Int32, Device::Cpu).unwrap();
    assert_eq!(o.to_vec::<i32>().unwrap(), vec![1; 4]);
    let f = Tensor::full(&[2], 2.5, DType::Float32, Device::Cpu).unwrap();
    assert_eq!(f.to_vec::<f32>().unwrap(), vec![2.5, 2.5]);
    let s = Tensor::scalar(7i64).unwrap();
    assert_eq!(s.ndim().unwrap(), 0);
    assert_eq!(s.item().unwrap(), 7.0);
    let e = Tensor::empty(&[0, 3], DType::Float32, Device::Cpu).unwrap();
    assert_eq!(e.numel().unwrap(), 0);
    assert_eq!(e.to_vec::<f32>().unwrap(), Vec::<f32>::new());
    for dtype in DType::ALL {
        let t = Tensor::zeros(&[1], dtype, Device::Cpu).unwrap();
        assert_eq!(t.dtype().unwrap(), dtype);
        assert_eq!(t.element_size().unwrap(), dtype.size(), "{dtype}");
    }
}

#[test]
fn dtype_and_device_names_match_libtc() {
    let _tc = tc::init().unwrap();
    for dtype in DType::ALL {
        assert_eq!(DType::from_name(dtype.name()).unwrap(), dtype);
        let mut name: *const std::ffi::c_char = std::ptr::null();
        assert_eq!(unsafe { tc_sys::tc_dtype_name(dtype.code(), &mut name) }, 0);
        assert_eq!(
            unsafe { std::ffi::CStr::from_ptr(name) }.to_str().unwrap(),
            dtype.name()
        );
        let mut size = 0i64;
        assert_eq!(unsafe { tc_sys::tc_dtype_size(dtype.code(), &mut size) }, 0);
        assert_eq!(size as usize, dtype.size(), "{dtype}");
    }
    assert_eq!(DType::from_name("float").unwrap(), DType::Float32);
    assert_eq!(DType::from_name("long").unwrap(), DType::Int64);
    assert_eq!(
        DType::promote(DType::Int64, DType::Float32).unwrap(),
        DType::Float32
    );
    assert_eq!(DType::promote(DType::Bool, DType::UInt8).unwrap(), DType::UInt8);
    assert_eq!(Device::Cpu.name().unwrap(), "cpu");
    assert_eq!(Device::from_name("cpu").unwrap(), Device::Cpu);
    assert_eq!(Device::from_name("cuda:1").unwrap(), Device::Cuda(1));
    assert_eq!(Device::Cuda(1).to_string(), "cuda:1");
}

#[test]
fn vec_and_slice_conversions() {
    let _tc = tc::init().unwrap();
    let t = Tensor::try_from(vec![1.0f32, 2.0, 3.0]).unwrap();
    assert_eq!(t.shape().unwrap(), vec![3]);
    assert_eq!(Vec::<f32>::try_from(&t).unwrap(), vec![1.0, 2.0, 3.0]);
    let t = Tensor::try_from(&[4i64, 5][..]).unwrap();
    assert_eq!(Vec::<i64>::try_from(t).unwrap(), vec![4, 5]);
    let t = Tensor::try_from(vec![0.5f64; 4]).unwrap();
    let mut out = [0f64; 4];
    t.copy_to_slice(&mut out).unwrap();
    assert_eq!(out, [0.5; 4]);
    for (v, dtype) in [
        (Tensor::try_from(vec![1i8]).unwrap(), DType::Int8),
        (Tensor::try_from(vec![1u8]).unwrap(), DType::UInt8),
    ] {
        assert_eq!(v.dtype().unwrap(), dtype);
    }
    // Non-contiguous data comes out in row-major order.
    let m = Tensor::from_slice(&[1i64, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    assert_eq!(m.t().unwrap().to_vec::<i64>().unwrap(), vec![1, 4, 2, 5, 3, 6]);
    // to_dtype converts explicitly.
    assert_eq!(
        m.to_dtype(DType::Float64).unwrap().to_vec::<f64>().unwrap(),
        vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    );
    let same = m.to_dtype(DType::Int64).unwrap();
    assert!(
        same.is_same(&m).unwrap(),
        "to_dtype to the same dtype is the same tensor"
    );
    assert!(m.to_device(Device::Cpu).unwrap().is_same(&m).unwrap());
}

#[test]
fn clone_is_a_handle_deep_clone_is_a_copy() {
    let _tc = tc::init().unwrap();
    let a = Tensor::zeros(&[2], DType::Float32, Device::Cpu).unwrap();
    let mut b = a.clone();
    assert!(b.is_same(&a).unwrap());
    b.fill_(3.0).unwrap();
    assert_eq!(a.to_vec::<f32>().unwrap(), vec![3.0, 3.0], "clone shares data");
    let mut c = a.deep_clone().unwrap();
    assert!(!c.is_same(&a).unwrap());
    c.fill_(1.0).unwrap();
    assert_eq!(a.to_vec::<f32>().unwrap(), vec![3.0, 3.0], "deep_clone does not");
    // into_raw / from_raw round trip keeps one reference.
    let raw = c.into_raw();
    let c = unsafe { Tensor::from_raw(raw) }.unwrap();
    assert_eq!(c.to_vec::<f32>().unwrap(), vec![1.0, 1.0]);
}

#[test]
fn views_share_storage() {
    let _tc = tc::init().unwrap();
    let x = Tensor::arange(0.0, 12.0, 1.0, DType::Float32, Device::Cpu).unwrap();
    let m = x.view(&[3, 4]).unwrap();
    let mut row = m.select(0, 1).unwrap();
    row.fill_(-1.0).unwrap();
    assert_eq!(&x.to_vec::<f32>().unwrap()[4..8], &[-1.0; 4]);
    assert!(x.version().unwrap() >= 1, "views share the version counter");
    assert_eq!(m.reshape(&[-1, 6]).unwrap().shape().unwrap(), vec![2, 6]);
    assert_eq!(m.permute(&[1, 0]).unwrap().strides().unwrap(), vec![1, 4]);
    assert!(!m.t().unwrap().is_contiguous().unwrap());
    assert!(m.t().unwrap().contiguous().unwrap().is_contiguous().unwrap());
    let narrow = m.narrow(1, 1, 2).unwrap();
    assert_eq!(narrow.shape().unwrap(), vec![3, 2]);
    assert_eq!(narrow.storage_offset().unwrap(), 1);
    assert_eq!(m.slice(0, -2, 100, 1).unwrap().shape().unwrap(), vec![2, 4]);
    let u = m.unsqueeze(1).unwrap();
    assert_eq!(u.shape().unwrap(), vec![3, 1, 4]);
    assert_eq!(u.squeeze(Some(1)).unwrap().shape().unwrap(), vec![3, 4]);
    assert_eq!(u.expand(&[3, 5, 4]).unwrap().shape().unwrap(), vec![3, 5, 4]);
    assert_eq!(u.expand(&[-1, 2, -1]).unwrap().strides().unwrap()[1], 0);
}

#[test]
fn display_and_debug() {
    let _tc = tc::init().unwrap();
    let t = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    assert_eq!(t.to_string(), "tensor([[1., 2.],\n        [3., 4.]])");
    assert_eq!(
        format!("{t:?}"),
        "Tensor { shape: [2, 2], dtype: float32, device: cpu }"
    );
}

#[test]
fn random_tensors_follow_the_seed() {
    let _tc = tc::init().unwrap();
    // Other tests draw from the same default generator concurrently; compare
    // statistics rather than exact reruns here (lifecycle tests reruns).
    let r = Tensor::rand(&[1000], DType::Float64, Device::Cpu)
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert!(r.iter().all(|&v| (0.0..1.0).contains(&v)));
    let n = Tensor::randn(&[4000], DType::Float64, Device::Cpu).unwrap();
    let mean = n.mean_all().unwrap().item().unwrap();
    let std = n.std(&[], 1, false).unwrap().item().unwrap();
    assert!(
        mean.abs() < 0.1 && (std - 1.0).abs() < 0.1,
        "mean {mean} std {std}"
    );
}

#[test]
fn read_only_tensors_refuse_writes_and_keep_their_values() {
    let _tc = tc::init().unwrap();
    let mut a = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    assert!(!a.is_readonly().unwrap());
    a.set_readonly().unwrap();
    assert!(a.is_readonly().unwrap());
    let err = a.fill_(0.0).unwrap_err();
    assert_eq!(err.kind(), tc::ErrorKind::InvalidArgument);
    assert!(err.to_string().contains("read-only"), "{}", err);
    assert_eq!(a.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0]);
    // Views share the storage; out-of-place ops still work.
    assert!(a.clone().is_readonly().unwrap());
    let b = a.deep_clone().unwrap();
    assert!(!b.is_readonly().unwrap());
}
