//! CUDA through the safe API, where a GPU is usable; skipped (with the
//! reason) elsewhere.
use tc::{DType, Device, ErrorKind, Tensor};

#[test]
fn cuda_round_trip_and_memory_stats() {
    let _tc = tc::init().unwrap();
    if let Err(e) = tc::backend_init("cuda") {
        assert!(
            matches!(e.kind(), ErrorKind::NotCompiled | ErrorKind::Unavailable),
            "{e}"
        );
        assert_eq!(tc::get_flag(tc::flags::CUDA_INITIALIZED).unwrap(), 0);
        eprintln!("SKIPPED: no usable CUDA: {e}");
        return;
    }
    assert!(tc::get_flag(tc::flags::CUDA_DEVICE_COUNT).unwrap() >= 1);
    let host = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let gpu = host.to_device(Device::Cuda(0)).unwrap();
    assert_eq!(gpu.device().unwrap(), Device::Cuda(0));
    // copy_to works for any device.
    assert_eq!(gpu.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
    let back = gpu.to_device(Device::Cpu).unwrap();
    assert_eq!(back.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
    let stats = tc::cuda_memory_stats(Device::Cuda(0)).unwrap();
    assert!(
        stats.allocated > 0 && stats.peak_allocated >= stats.allocated && stats.reserved >= stats.allocated
    );
    let z = Tensor::zeros(&[1024], DType::Float32, Device::Cuda(0)).unwrap();
    drop((z, gpu));
    tc::cuda_empty_cache().unwrap();
}

#[test]
fn memory_stats_of_the_cpu_is_an_error() {
    let _tc = tc::init().unwrap();
    assert!(tc::cuda_memory_stats(Device::Cpu).is_err());
}
