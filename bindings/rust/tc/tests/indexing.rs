//! Advanced indexing and the scatter family through the safe crate (values
//! computed by PyTorch 1.13: the expressions are quoted).
use tc::{ScatterReduce, Tensor};

fn f64s(v: &[f64], shape: &[i64]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}
fn i64s(v: &[i64], shape: &[i64]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}
fn arange12() -> Tensor {
    f64s(&(0..12).map(f64::from).collect::<Vec<_>>(), &[3, 4])
}

#[test]
fn index_and_index_put() {
    let _tc = tc::init().unwrap();
    let a = arange12();
    // torch: a[tensor([1, 0]), :][..., tensor([3])] via a[[1, 0]][:, [3]]
    let rows = i64s(&[1, 0], &[2]);
    let col = i64s(&[3], &[1]);
    let r = a.index(&[Some(&rows)]).unwrap().index(&[None, Some(&col)]).unwrap();
    assert_eq!(r.shape().unwrap(), vec![2, 1]);
    assert_eq!(r.to_vec::<f64>().unwrap(), vec![7.0, 3.0]);
    // torch: a.index_put((tensor([0, 0, 2]), tensor([1, 1, 3])), tensor([1., 2., 3.]), accumulate=True)
    let (i0, i1) = (i64s(&[0, 0, 2], &[3]), i64s(&[1, 1, 3], &[3]));
    let v = f64s(&[1.0, 2.0, 3.0], &[3]);
    let acc = a.index_put(&[Some(&i0), Some(&i1)], &v, true).unwrap();
    assert_eq!(
        acc.to_vec::<f64>().unwrap(),
        vec![0.0, 4.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 14.0]
    );
    let mut b = a.deep_clone().unwrap();
    b.index_put_(&[Some(&i0), Some(&i1)], &v, false).unwrap();
    assert_eq!(b.to_vec::<f64>().unwrap()[1], 2.0); // the last write wins
    let bad = i64s(&[3], &[1]);
    let err = a.index(&[Some(&bad)]).unwrap_err();
    assert!(err.to_string().contains("index 3 is out of bounds for dimension 0 with size 3"), "{err}");
}

#[test]
fn scatter_family() {
    let _tc = tc::init().unwrap();
    let a = arange12();
    let src = f64s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], &[2, 4]);
    let idx = i64s(&[0, 1, 2, 0, 2, 0, 0, 1], &[2, 4]);
    // torch: a.scatter_reduce(0, idx, src, "amax", include_self=True)
    let r = a.scatter_reduce(0, &idx, &src, ScatterReduce::Amax, true).unwrap();
    assert_eq!(
        r.to_vec::<f64>().unwrap(),
        vec![1.0, 6.0, 7.0, 4.0, 4.0, 5.0, 6.0, 8.0, 8.0, 9.0, 10.0, 11.0]
    );
    // torch: a.scatter_reduce(0, idx, src, "sum", include_self=True)
    let s = a.scatter_add(0, &idx, &src).unwrap();
    assert_eq!(
        s.to_vec::<f64>().unwrap(),
        vec![1.0, 7.0, 9.0, 7.0, 4.0, 7.0, 6.0, 15.0, 13.0, 9.0, 13.0, 11.0]
    );
    // torch: a.index_fill(1, tensor([-1, 1]), 7)
    let f = a.index_fill(1, &i64s(&[-1, 1], &[2]), 7.0).unwrap();
    assert_eq!(f.to_vec::<f64>().unwrap()[3], 7.0);
    // torch: a.take(tensor([[11, -12], [5, 5]]))
    let t = a.take(&i64s(&[11, -12, 5, 5], &[2, 2])).unwrap();
    assert_eq!(t.to_vec::<f64>().unwrap(), vec![11.0, 0.0, 5.0, 5.0]);
    assert_eq!(a.nonzero().unwrap().shape().unwrap(), vec![11, 2]);
    let ones = f64s(&[1.0; 6], &[3, 2]);
    let ia = a.index_add(1, &i64s(&[3, 3], &[2]), &ones, 2.0).unwrap();
    assert_eq!(ia.to_vec::<f64>().unwrap()[3], 7.0);
    let ic = a.index_copy(1, &i64s(&[0, 1], &[2]), &ones).unwrap();
    assert_eq!(ic.to_vec::<f64>().unwrap()[..2], [1.0, 1.0]);
    let sv = a.scatter_value(1, &i64s(&[2], &[1, 1]), -1.0).unwrap();
    assert_eq!(sv.to_vec::<f64>().unwrap()[2], -1.0);
    let sc = a.scatter(1, &i64s(&[2], &[1, 1]), &src).unwrap();
    assert_eq!(sc.to_vec::<f64>().unwrap()[2], 1.0);
}
