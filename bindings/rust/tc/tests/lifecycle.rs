//! Init guards, stale handles and leaks. The tests here change global
//! state (init count, live_tensors), so they run one at a time.
use std::sync::Mutex;

use tc::{Adam, AdamOptions, DType, Device, ErrorKind, Reduction, Tensor};

static SERIAL: Mutex<()> = Mutex::new(());

fn live_tensors() -> i64 {
    tc::get_flag(tc::flags::LIVE_TENSORS).unwrap()
}

#[test]
fn not_initialized_then_stale_after_shutdown() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    assert!(!tc::is_initialized());
    let err = Tensor::zeros(&[1], DType::Float32, Device::Cpu).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotInitialized);
    assert_eq!(
        tc::get_flag(tc::flags::NUM_THREADS).unwrap_err().kind(),
        ErrorKind::NotInitialized
    );
    assert!(!err.message().is_empty());

    let guard = tc::init().unwrap();
    let t = Tensor::ones(&[2], DType::Float32, Device::Cpu).unwrap();
    drop(guard);
    assert!(!tc::is_initialized());
    // The handle is stale now: errors, no crash; clone and drop are quiet.
    let again = tc::init().unwrap();
    assert_eq!(t.numel().unwrap_err().kind(), ErrorKind::InvalidHandle);
    let c = t.clone();
    assert_eq!(c.dtype().unwrap_err().kind(), ErrorKind::InvalidHandle);
    assert!(format!("{c:?}").contains("invalid handle"));
    drop(c);
    drop(t);
    assert_eq!(live_tensors(), 0);
    drop(again);
}

#[test]
fn guards_are_counted() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let a = tc::init().unwrap();
    let b = tc::init_with(&tc::InitOptions {
        seed: Some(1),
        ..Default::default()
    })
    .unwrap();
    let t = Tensor::zeros(&[3], DType::Float32, Device::Cpu).unwrap();
    drop(a);
    assert!(tc::is_initialized());
    assert_eq!(t.numel().unwrap(), 3, "still valid while a guard lives");
    // Guards may be dropped on another thread.
    std::thread::spawn(move || drop(b)).join().unwrap();
    assert!(!tc::is_initialized());
}

#[test]
fn drop_brings_live_tensors_back_to_zero() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _tc = tc::init_with(&tc::InitOptions {
        seed: Some(3),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(live_tensors(), 0);
    {
        let a = Tensor::randn(&[4, 3], DType::Float32, Device::Cpu).unwrap();
        assert_eq!(live_tensors(), 1);
        let b = a.clone();
        let view = a.transpose(0, 1).unwrap();
        assert!(live_tensors() >= 2);
        let owned = Tensor::from_vec(vec![1.0f64, 2.0, 3.0], &[3]).unwrap();
        let parts = owned.split(1, 0).unwrap();
        assert_eq!(parts.len(), 3);
        drop((b, view, parts, owned));
        assert_eq!(live_tensors(), 1);
    }
    assert_eq!(live_tensors(), 0);

    // A training step: graph, gradients, optimizer state.
    {
        let w = Tensor::randn(&[3, 4], DType::Float32, Device::Cpu)
            .unwrap()
            .requires_grad(true)
            .unwrap();
        let bias = Tensor::zeros(&[3], DType::Float32, Device::Cpu)
            .unwrap()
            .requires_grad(true)
            .unwrap();
        let mut opt = Adam::new(&[&w, &bias], AdamOptions::default()).unwrap();
        for _ in 0..3 {
            let x = Tensor::randn(&[5, 4], DType::Float32, Device::Cpu).unwrap();
            let y = Tensor::from_slice(&[0i64, 1, 2, 0, 1], &[5]).unwrap();
            let loss = x
                .linear(&w, Some(&bias))
                .unwrap()
                .cross_entropy(&y, Reduction::Mean)
                .unwrap();
            opt.zero_grad().unwrap();
            loss.backward().unwrap();
            opt.step().unwrap();
        }
        let (values, indices) = w.max_dim(1, false).unwrap();
        let _ = (values, indices, w.grad().unwrap());
    }
    assert_eq!(live_tensors(), 0);
    assert_eq!(tc::get_flag(tc::flags::LIVE_HANDLES).unwrap(), 0);
}

#[test]
fn from_vec_buffer_is_released_once() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _tc = tc::init().unwrap();
    // The Vec's buffer lives exactly as long as the last tensor using it.
    let data: Vec<f32> = (0..16).map(|i| i as f32).collect();
    let t = Tensor::from_vec(data, &[4, 4]).unwrap();
    let view = t.select(0, 3).unwrap();
    drop(t);
    assert_eq!(view.to_vec::<f32>().unwrap(), vec![12.0, 13.0, 14.0, 15.0]);
    drop(view);
    assert_eq!(live_tensors(), 0);
    // libtc refuses more than TC_MAX_DIMS dims after taking the buffer: it
    // calls the deleter then (under ASan a leak or double free would show).
    let err = Tensor::from_vec(vec![1i64], &[1; 17]).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidArgument | ErrorKind::Shape),
        "{err}"
    );
    assert_eq!(live_tensors(), 0);
}
