//! Tensors across threads: moved, shared for concurrent reads, freed
//! elsewhere; grad mode is per thread.
use std::sync::Arc;
use std::thread;

use tc::{DType, Device, Tensor};

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn handle_types_are_send_and_sync() {
    assert_send_sync::<Tensor>();
    assert_send_sync::<tc::InitGuard>();
    assert_send_sync::<tc::Sgd>();
    assert_send_sync::<tc::Adam>();
    assert_send_sync::<tc::AdamW>();
    assert_send_sync::<tc::Error>();
}

#[test]
fn tensor_moves_to_another_thread_and_back() {
    let _tc = tc::init().unwrap();
    let t = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    let doubled = thread::spawn(move || {
        let d = (&t * 2.0).unwrap();
        drop(t); // freed on this thread
        d
    })
    .join()
    .unwrap();
    assert_eq!(doubled.to_vec::<f32>().unwrap(), vec![2.0, 4.0, 6.0]);
}

#[test]
fn concurrent_reads_of_shared_tensors() {
    let _tc = tc::init().unwrap();
    let a = Tensor::randn(&[64, 64], DType::Float64, Device::Cpu).unwrap();
    let b = Tensor::randn(&[64, 64], DType::Float64, Device::Cpu).unwrap();
    let expected = a.matmul(&b).unwrap().sum_all().unwrap().item().unwrap();
    let results: Vec<f64> = thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    let mut last = 0.0;
                    for _ in 0..20 {
                        let c = a.matmul(&b).unwrap();
                        let _view = a.transpose(0, 1).unwrap();
                        let _clone = a.clone();
                        last = c.sum_all().unwrap().item().unwrap();
                    }
                    last
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in results {
        // Same inputs, same result; allow for a different reduction order
        // when the OpenMP teams of concurrent callers differ in size.
        assert!(
            (r - expected).abs() <= 1e-9 * expected.abs().max(1.0),
            "{r} vs {expected}"
        );
    }
}

#[test]
fn arc_shared_tensor_and_per_thread_errors() {
    let _tc = tc::init().unwrap();
    let t = Arc::new(Tensor::ones(&[8], DType::Float32, Device::Cpu).unwrap());
    let workers: Vec<_> = (0..4)
        .map(|i| {
            let t = Arc::clone(&t);
            thread::spawn(move || {
                // Each thread's failure keeps its own message.
                let wrong = Tensor::zeros(&[i + 2], DType::Float32, Device::Cpu).unwrap();
                let err = (&*t + &wrong).unwrap_err();
                assert_eq!(err.kind(), tc::ErrorKind::Shape);
                assert!(err.message().contains(&format!("{}", i + 2)), "{err}");
                t.sum_all().unwrap().item().unwrap()
            })
        })
        .collect();
    for w in workers {
        assert_eq!(w.join().unwrap(), 8.0);
    }
}

#[test]
fn grad_mode_is_per_thread() {
    let _tc = tc::init().unwrap();
    let w = Tensor::ones(&[2], DType::Float32, Device::Cpu)
        .unwrap()
        .requires_grad(true)
        .unwrap();
    let _off = tc::NoGradGuard::new().unwrap();
    assert!(!(&w * 2.0).unwrap().is_requires_grad().unwrap());
    let recorded = thread::scope(|s| {
        s.spawn(|| (&w * 2.0).unwrap().is_requires_grad().unwrap())
            .join()
            .unwrap()
    });
    assert!(recorded, "another thread still records");
}

#[test]
fn independent_training_on_many_threads() {
    let _tc = tc::init().unwrap();
    let finals: Vec<f64> = (0..3)
        .map(|_| {
            thread::spawn(|| {
                let w = Tensor::zeros(&[1], DType::Float64, Device::Cpu)
                    .unwrap()
                    .requires_grad(true)
                    .unwrap();
                let mut opt = tc::Sgd::new(
                    &[&w],
                    tc::SgdOptions {
                        lr: 0.1,
                        ..Default::default()
                    },
                )
                .unwrap();
                for _ in 0..100 {
                    // (w - 3)^2
                    let loss = ((&w - 3.0).unwrap().pow_scalar(2.0)).unwrap().sum_all().unwrap();
                    opt.zero_grad().unwrap();
                    loss.backward().unwrap();
                    opt.step().unwrap();
                }
                w.item().unwrap()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .collect();
    for f in finals {
        assert!((f - 3.0).abs() < 1e-6, "{f}");
    }
}
