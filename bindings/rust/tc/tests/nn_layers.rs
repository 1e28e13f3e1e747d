//! The neural-network layers' safe methods: values on small inputs whose
//! results follow from the definitions, and the argument checks.
use tc::{DType, Device, InterpMode, Tensor};

fn f64s(v: &[f64], shape: &[i64]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}
fn vals(t: &Tensor) -> Vec<f64> {
    t.to_vec::<f64>().unwrap()
}

#[test]
fn batch_norm_updates_running_stats() {
    let _tc = tc::init().unwrap();
    // One channel, values 1, 3: mean 2, biased var 1, unbiased var 2.
    let x = f64s(&[1.0, 3.0], &[2, 1]);
    let rm = Tensor::zeros(&[1], DType::Float64, Device::Cpu).unwrap();
    let rv = Tensor::ones(&[1], DType::Float64, Device::Cpu).unwrap();
    let y = x
        .batch_norm(None, None, Some(&rm), Some(&rv), true, 0.5, 0.0)
        .unwrap();
    assert_eq!(vals(&y), vec![-1.0, 1.0]);
    assert_eq!(vals(&rm), vec![1.0]);
    assert_eq!(vals(&rv), vec![1.5]);
    assert!(x.batch_norm(None, None, None, None, false, 0.1, 1e-5).is_err());
}

#[test]
fn pooling_convolution_and_resampling_shapes() {
    let _tc = tc::init().unwrap();
    let v: Vec<f64> = (0..25).map(f64::from).collect();
    let x = f64s(&v, &[1, 1, 5, 5]);
    let (m, i) = x
        .max_pool2d_with_indices([2, 2], None, [0, 0], [1, 1], true)
        .unwrap();
    assert_eq!(m.shape().unwrap(), vec![1, 1, 3, 3]);
    assert_eq!(vals(&m), vec![6.0, 8.0, 9.0, 16.0, 18.0, 19.0, 21.0, 23.0, 24.0]);
    assert_eq!(i.to_vec::<i64>().unwrap(), vec![6, 8, 9, 16, 18, 19, 21, 23, 24]);
    let a = x.adaptive_avg_pool2d([1, 1]).unwrap();
    assert!((vals(&a)[0] - 12.0).abs() < 1e-12);
    let w = Tensor::ones(&[1, 2, 3, 3], DType::Float64, Device::Cpu).unwrap();
    let ct = x
        .conv_transpose2d(&w, None, [2, 2], [1, 1], [1, 1], [1, 1], 1)
        .unwrap();
    assert_eq!(ct.shape().unwrap(), vec![1, 2, 10, 10]);
    // 3-D: every 2x2x2 window of ones sums to 8; the stride-2 transposed
    // convolution of ones tiles the output without overlap (all ones).
    let cube = Tensor::ones(&[1, 1, 3, 3, 3], DType::Float64, Device::Cpu).unwrap();
    let k3 = Tensor::ones(&[1, 1, 2, 2, 2], DType::Float64, Device::Cpu).unwrap();
    let c3 = cube.conv3d(&k3, None, [1, 1, 1], [0, 0, 0], [1, 1, 1], 1).unwrap();
    assert_eq!(c3.shape().unwrap(), vec![1, 1, 2, 2, 2]);
    assert_eq!(vals(&c3), vec![8.0; 8]);
    let t3 = c3
        .conv_transpose3d(&k3, None, [2, 2, 2], [0, 0, 0], [0, 0, 0], [1, 1, 1], 1)
        .unwrap();
    assert_eq!(t3.shape().unwrap(), vec![1, 1, 4, 4, 4]);
    assert_eq!(vals(&t3), vec![8.0; 64]);
    assert!(cube.conv3d(&k3, None, [0, 1, 1], [0, 0, 0], [1, 1, 1], 1).is_err());
    let up = x
        .interpolate(&[10, 10], None, InterpMode::Nearest, false)
        .unwrap();
    assert_eq!(up.shape().unwrap(), vec![1, 1, 10, 10]);
    assert!(x.interpolate(&[10], None, InterpMode::Nearest, false).is_err());
    let s = Tensor::zeros(&[1, 4, 2, 3], DType::Float64, Device::Cpu).unwrap();
    assert_eq!(s.pixel_shuffle(2).unwrap().shape().unwrap(), vec![1, 1, 4, 6]);
    let l = f64s(&[1.0, 2.0, 3.0, 4.0], &[1, 1, 4]);
    assert_eq!(
        vals(&l.avg_pool1d(2, None, 0, false, true).unwrap()),
        vec![1.5, 3.5]
    );
    assert!((vals(&l.adaptive_avg_pool1d(1).unwrap())[0] - 2.5).abs() < 1e-12);
    // Windows of 5 inputs pooled to 3: [0, 2), [1, 4), [3, 5); unbatched [C, L].
    let r = f64s(&[3.0, 1.0, 4.0, 1.0, 5.0], &[1, 5]);
    assert_eq!(vals(&r.adaptive_avg_pool1d(3).unwrap()), vec![2.0, 2.0, 3.0]);
    let (mv, mi) = r.adaptive_max_pool1d(3).unwrap();
    assert_eq!(mv.shape().unwrap(), vec![1, 3]);
    assert_eq!(vals(&mv), vec![3.0, 4.0, 5.0]);
    assert_eq!(mi.to_vec::<i64>().unwrap(), vec![0, 2, 4]);
    assert!(r.adaptive_max_pool1d(-1).is_err());
    assert_eq!(r.adaptive_avg_pool1d(0).unwrap().shape().unwrap(), vec![1, 0]);
    let k = f64s(&[1.0, 1.0], &[1, 1, 2]);
    assert_eq!(
        vals(&l.conv1d(&k, None, 1, [0, 1], 1, 1).unwrap()),
        vec![3.0, 5.0, 7.0, 4.0]
    );
}
