//! Reductions, scans, sort and search: values computed with PyTorch 1.13 on
//! x = [[3, 1, 2], [0, 5, 5]].
use tc::{DType, Tensor};

fn vals(t: &Tensor) -> Vec<f64> {
    t.to_dtype(DType::Float64).unwrap().to_vec::<f64>().unwrap()
}

#[test]
fn reductions_scans_sort_and_search_match_pytorch() {
    let _tc = tc::init().unwrap();
    let x = Tensor::from_slice(&[3.0f64, 1.0, 2.0, 0.0, 5.0, 5.0], &[2, 3]).unwrap();
    assert_eq!(vals(&x.prod(&[1], false).unwrap()), vec![6.0, 0.0]);
    assert_eq!(vals(&x.amax(&[1], false).unwrap()), vec![3.0, 5.0]);
    assert_eq!(vals(&x.all(&[1], false).unwrap()), vec![1.0, 0.0]);
    assert_eq!(vals(&x.count_nonzero(&[]).unwrap()), vec![5.0]);
    assert_eq!(vals(&x.norm(f64::INFINITY, &[], false).unwrap()), vec![5.0]);
    assert_eq!(vals(&x.median().unwrap()), vec![2.0]);
    let (v, i) = x.sort(1, false).unwrap();
    assert_eq!(vals(&v), vec![1.0, 2.0, 3.0, 0.0, 5.0, 5.0]);
    assert_eq!(vals(&i), vec![1.0, 2.0, 0.0, 0.0, 1.0, 2.0]);
    let (v, i) = x.cummax(1).unwrap();
    assert_eq!(vals(&v), vec![3.0, 3.0, 3.0, 0.0, 5.0, 5.0]);
    assert_eq!(vals(&i), vec![0.0, 0.0, 0.0, 0.0, 1.0, 2.0]);
    assert_eq!(vals(&x.cumprod(1).unwrap()), vec![3.0, 3.0, 6.0, 0.0, 0.0, 0.0]);
    let (v, i) = x.kthvalue(2, 1, false).unwrap();
    assert_eq!((vals(&v), vals(&i)), (vec![2.0, 5.0], vec![2.0, 1.0]));
    let (v, i) = x.mode(1, false).unwrap();
    assert_eq!((vals(&v), vals(&i)), (vec![1.0, 5.0], vec![1.0, 2.0]));
    let (u, inv, counts) = x.unique().unwrap();
    assert_eq!(vals(&u), vec![0.0, 1.0, 2.0, 3.0, 5.0]);
    assert_eq!(vals(&inv), vec![3.0, 1.0, 2.0, 0.0, 4.0, 4.0]);
    assert_eq!(vals(&counts), vec![1.0, 1.0, 1.0, 1.0, 2.0]);
    let q = Tensor::from_slice(&[2.5f64, 5.0], &[2]).unwrap();
    assert_eq!(vals(&u.searchsorted(&q, true, false).unwrap()), vec![3.0, 5.0]);
    // A reduced dim of size 0 has no maximum.
    let e = Tensor::from_slice::<f64>(&[], &[0, 3]).unwrap();
    assert!(e.amax(&[0], false).is_err());
}
