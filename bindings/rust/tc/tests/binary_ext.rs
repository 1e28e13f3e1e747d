//! The binary ops of src/ops/binary_ext.cpp through the safe crate (values from PyTorch 1.13).
use tc::{DType, Tensor};

fn f64s(v: &[f64], shape: &[i64]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}
fn i64s(v: &[i64]) -> Tensor {
    Tensor::from_slice(v, &[v.len() as i64]).unwrap()
}
fn vals(t: &Tensor) -> Vec<f64> {
    t.to_dtype(DType::Float64).unwrap().to_vec::<f64>().unwrap()
}

#[test]
fn binary_rows_scalar_comparisons_and_composed_ops() {
    let _tc = tc::init().unwrap();
    let a = i64s(&[-7, 7, -7, 7]);
    let b = i64s(&[2, -2, -2, 2]);
    assert_eq!(vals(&a.remainder(&b).unwrap()), vec![1.0, -1.0, -1.0, 1.0]);
    assert_eq!(vals(&a.fmod(&b).unwrap()), vec![-1.0, 1.0, -1.0, 1.0]);
    assert_eq!(vals(&a.floor_divide(&b).unwrap()), vec![-4.0, -4.0, 3.0, 3.0]);
    assert_eq!(vals(&a.div_trunc(&b).unwrap()), vec![-3.0, -3.0, 3.0, 3.0]);
    assert_eq!(vals(&a.bitwise_and(&b).unwrap()), vec![0.0, 6.0, -8.0, 2.0]);
    assert_eq!(vals(&i64s(&[1, -8]).bitwise_left_shift(&i64s(&[3, 1])).unwrap()), vec![8.0, -16.0]);
    // Integer division by zero is PyTorch's ZeroDivisionError.
    let err = a.floor_divide(&i64s(&[1, 0, 1, 1])).unwrap_err();
    assert!(err.to_string().contains("ZeroDivisionError"), "{err}");
    let x = f64s(&[1.0, 2.0, 3.0], &[3]);
    assert_eq!(x.eq_scalar(2.0).unwrap().to_vec_bool().unwrap(), vec![false, true, false]);
    assert_eq!(x.lt_scalar(2.5).unwrap().to_vec_bool().unwrap(), vec![true, true, false]);
    assert_eq!(x.ge_scalar(2.0).unwrap().to_vec_bool().unwrap(), vec![false, true, true]);
    let y = f64s(&[3.0, 4.0, 0.0], &[3]);
    assert_eq!(vals(&x.hypot(&y).unwrap())[..2], [3.1622776601683795, 4.47213595499958]);
    let l = x.logical_and(&y).unwrap();
    assert_eq!(l.to_vec_bool().unwrap(), vec![true, true, false]);
    let g = f64s(&[1.0, -2.0, 0.5, 3.0], &[1, 4]);
    assert!((vals(&g.glu(1).unwrap())[0] - 0.6224593312018546).abs() < 1e-12);
    let w = f64s(&[0.25, 0.75, -0.5], &[3]);
    assert_eq!(vals(&x.lerp(&y, &w).unwrap()), vec![1.5, 3.5, 4.5]);
    assert_eq!(vals(&x.addcdiv(&x, &f64s(&[2.0], &[1]), 2.0).unwrap()), vec![2.0, 4.0, 6.0]);
    assert_eq!(vals(&x.clamp_max_tensor(&y).unwrap()), vec![1.0, 2.0, 0.0]);
}
