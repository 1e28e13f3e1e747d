//! The float32 matmul precision (everywhere) and, where a GPU is usable,
//! matmul/linear on CUDA against the CPU and rand/randn equal on both
//! devices for one seed; the CUDA tests print SKIPPED with the reason
//! elsewhere.
use std::sync::Mutex;

use tc::{DType, Device, MatmulPrecision, Tensor};

/// The precision is process-wide and tests run on parallel threads: the test
/// that changes it and the one that checks float32 products take turns.
static PRECISION: Mutex<()> = Mutex::new(());

fn cuda_or_skip() -> bool {
    match tc::backend_init("cuda") {
        Ok(()) => true,
        Err(e) => {
            eprintln!("SKIPPED: no usable CUDA: {e}");
            false
        }
    }
}

fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol * (1.0 + w.abs()), "element {i}: {g} vs {w}");
    }
}

#[test]
fn matmul_precision_set_get() {
    let _lock = PRECISION.lock().unwrap_or_else(|e| e.into_inner());
    let _tc = tc::init().unwrap();
    assert_eq!(tc::float32_matmul_precision().unwrap(), MatmulPrecision::Highest);
    for p in [
        MatmulPrecision::High,
        MatmulPrecision::Medium,
        MatmulPrecision::Highest,
    ] {
        tc::set_float32_matmul_precision(p).unwrap();
        assert_eq!(tc::float32_matmul_precision().unwrap(), p);
    }
}

#[test]
fn cuda_matmul_and_linear_match_the_cpu() {
    let _lock = PRECISION.lock().unwrap_or_else(|e| e.into_inner());
    let _tc = tc::init().unwrap();
    if !cuda_or_skip() {
        return;
    }
    let gpu = Device::Cuda(0);
    for (dtype, tol) in [
        (DType::Float32, 2e-5),
        (DType::Float64, 1e-12),
        (DType::Float16, 2e-3),
        (DType::BFloat16, 1.6e-2),
    ] {
        let a = Tensor::rand(&[2, 3, 5], DType::Float64, Device::Cpu)
            .unwrap()
            .to_dtype(dtype)
            .unwrap();
        let b = Tensor::rand(&[5, 4], DType::Float64, Device::Cpu)
            .unwrap()
            .to_dtype(dtype)
            .unwrap();
        let want = a
            .to_dtype(DType::Float64)
            .unwrap()
            .matmul(&b.to_dtype(DType::Float64).unwrap())
            .unwrap();
        let want = want.to_dtype(dtype).unwrap().to_dtype(DType::Float64).unwrap();
        let got = a
            .to_device(gpu)
            .unwrap()
            .matmul(&b.to_device(gpu).unwrap())
            .unwrap();
        assert_eq!(got.device().unwrap(), gpu);
        let got = got.to_dtype(DType::Float64).unwrap();
        assert_close(&got.to_vec::<f64>().unwrap(), &want.to_vec::<f64>().unwrap(), tol);
    }
    let x = Tensor::randn(&[6, 7], DType::Float32, Device::Cpu).unwrap();
    let w = Tensor::randn(&[4, 7], DType::Float32, Device::Cpu).unwrap();
    let b = Tensor::randn(&[4], DType::Float32, Device::Cpu).unwrap();
    let want = x.linear(&w, Some(&b)).unwrap().to_dtype(DType::Float64).unwrap();
    let got = x
        .to_device(gpu)
        .unwrap()
        .linear(&w.to_device(gpu).unwrap(), Some(&b.to_device(gpu).unwrap()))
        .unwrap()
        .to_dtype(DType::Float64)
        .unwrap();
    assert_close(
        &got.to_vec::<f64>().unwrap(),
        &want.to_vec::<f64>().unwrap(),
        2e-5,
    );
}

#[test]
fn cuda_rand_equals_cpu_rand_for_one_seed() {
    let _tc = tc::init().unwrap();
    if !cuda_or_skip() {
        return;
    }
    for dtype in [DType::Float32, DType::Float64] {
        tc::manual_seed(11).unwrap();
        let c = Tensor::rand(&[1001], dtype, Device::Cpu).unwrap();
        tc::manual_seed(11).unwrap();
        let g = Tensor::rand(&[1001], dtype, Device::Cuda(0)).unwrap();
        let c = c.to_dtype(DType::Float64).unwrap().to_vec::<f64>().unwrap();
        let g = g.to_dtype(DType::Float64).unwrap().to_vec::<f64>().unwrap();
        assert_eq!(c, g);
    }
}
