//! The shape, creation and matrix ops through the safe crate: values (as
//! PyTorch 1.13 prints them for the same inputs), multi-output ops, the
//! random ops' bounds and determinism, and errors.
use tc::{DType, Device, ErrorKind, PadMode, Tensor};

fn iota(shape: &[i64]) -> Tensor {
    let n: i64 = shape.iter().product();
    let v: Vec<f64> = (0..n).map(|i| i as f64).collect();
    Tensor::from_slice(&v, shape).unwrap()
}
fn vals(t: &Tensor) -> Vec<f64> {
    t.to_dtype(DType::Float64).unwrap().to_vec::<f64>().unwrap()
}

#[test]
fn shape_ops_match_torch() {
    let _tc = tc::init().unwrap();
    let x = iota(&[2, 3]);
    assert_eq!(vals(&x.flip(&[1]).unwrap()), vec![2.0, 1.0, 0.0, 5.0, 4.0, 3.0]);
    assert_eq!(
        vals(&x.roll(&[-2], &[]).unwrap()),
        vec![2.0, 3.0, 4.0, 5.0, 0.0, 1.0]
    );
    assert_eq!(x.repeat(&[2, 2]).unwrap().shape().unwrap(), vec![4, 6]);
    assert_eq!(
        vals(&iota(&[3]).tile(&[2]).unwrap()),
        vec![0.0, 1.0, 2.0, 0.0, 1.0, 2.0]
    );
    assert_eq!(
        vals(&x.repeat_interleave(2, Some(0)).unwrap()),
        vec![0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 3.0, 4.0, 5.0]
    );
    let reps = Tensor::from_slice(&[2i64, 0, 1], &[3]).unwrap();
    assert_eq!(
        vals(&x.repeat_interleave_tensor(&reps, Some(1)).unwrap()),
        vec![0.0, 0.0, 2.0, 3.0, 3.0, 5.0]
    );
    assert_eq!(vals(&iota(&[3, 4]).diag(-1).unwrap()), vec![4.0, 9.0]);
    assert_eq!(
        vals(&iota(&[2, 3, 4]).diagonal(1, 1, 2).unwrap()),
        vec![1.0, 6.0, 11.0, 13.0, 18.0, 23.0]
    );
    let x3 = iota(&[1, 2, 3]);
    assert_eq!(
        vals(&x3.pad(&[2, 1], PadMode::Circular, 0.0).unwrap()),
        vec![1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 4.0, 5.0, 3.0, 4.0, 5.0, 3.0]
    );
    assert_eq!(
        vals(&x.pad(&[1, -1, 0, 1], PadMode::Constant, -1.0).unwrap()),
        vec![-1.0, 0.0, 1.0, -1.0, 3.0, 4.0, -1.0, -1.0, -1.0]
    );
    assert_eq!(
        iota(&[2, 3, 4]).movedim(&[0], &[2]).unwrap().shape().unwrap(),
        vec![3, 4, 2]
    );
    assert_eq!(
        iota(&[2, 3, 4]).flatten(1, -1).unwrap().shape().unwrap(),
        vec![2, 12]
    );
    assert_eq!(x.unflatten(1, &[3, 1]).unwrap().shape().unwrap(), vec![2, 3, 1]);
    assert_eq!(
        x.broadcast_to(&[4, 2, 3]).unwrap().shape().unwrap(),
        vec![4, 2, 3]
    );
    let cols = x.unbind(1).unwrap();
    assert_eq!(cols.len(), 3);
    assert_eq!(vals(&cols[2]), vec![2.0, 5.0]);
    let a = Tensor::from_slice(&[1.0f64, 2.0, 3.0], &[3]).unwrap();
    let b = Tensor::from_slice(&[4.0f64, 5.0, 6.0], &[3]).unwrap();
    assert_eq!(vals(&a.dot(&b).unwrap()), vec![32.0]);
    assert_eq!(a.outer(&b).unwrap().shape().unwrap(), vec![3, 3]);
    let y = Tensor::einsum("ij,kj->ik", &[&x, &(&x + 1.0).unwrap()]).unwrap();
    assert_eq!(vals(&y), vec![8.0, 17.0, 26.0, 62.0]);
    assert_eq!(
        vals(&Tensor::einsum("...i,...i->...", &[&x, &x]).unwrap()),
        vec![5.0, 50.0]
    );
}

#[test]
fn creation_and_random_ops() {
    let _tc = tc::init().unwrap();
    assert_eq!(
        vals(&Tensor::eye(2, Some(3), DType::Float32, Device::Cpu).unwrap()),
        vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    );
    assert_eq!(
        vals(&Tensor::linspace(-1.0, 2.0, 4, DType::Float32, Device::Cpu).unwrap()),
        vec![-1.0, 0.0, 1.0, 2.0]
    );
    assert_eq!(
        vals(&Tensor::logspace(0.0, 3.0, 4, 2.0, DType::Float64, Device::Cpu).unwrap()),
        vec![1.0, 2.0, 4.0, 8.0]
    );
    let g = Tensor::meshgrid(&[&iota(&[2]), &iota(&[3])], true).unwrap();
    assert_eq!(g.len(), 2);
    assert_eq!(g[0].shape().unwrap(), vec![3, 2]);
    tc::manual_seed(3).unwrap();
    let r = Tensor::randint(-2, 3, &[1000], DType::Int64, Device::Cpu).unwrap();
    let v = r.to_vec::<i64>().unwrap();
    assert!(v.iter().all(|&x| (-2..3).contains(&x)));
    for k in -2..3 {
        assert!(v.iter().filter(|&&x| x == k).count() > 100, "value {k} too rare");
    }
    tc::manual_seed(3).unwrap();
    assert_eq!(
        Tensor::randint(-2, 3, &[1000], DType::Int64, Device::Cpu)
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        v
    );
    let mut p = Tensor::randperm(100, DType::Int64, Device::Cpu)
        .unwrap()
        .to_vec::<i64>()
        .unwrap();
    p.sort_unstable();
    assert_eq!(p, (0..100).collect::<Vec<i64>>());
    let probs = Tensor::from_slice(&[0.0f64, 1.0], &[2]).unwrap();
    assert_eq!(vals(&probs.bernoulli(None).unwrap()), vec![0.0, 1.0]);
    assert_eq!(vals(&probs.bernoulli(Some(1.0)).unwrap()), vec![1.0, 1.0]);
}

#[test]
fn errors_name_the_problem() {
    let _tc = tc::init().unwrap();
    let x = iota(&[2, 3]);
    let e = Tensor::einsum("ij,jk->ik", &[&x, &x]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
    assert!(e.message().contains("tc_einsum"), "{}", e.message());
    let e = Tensor::einsum("i\0j", &[&x]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        x.pad(&[3, 3], PadMode::Reflect, 0.0).unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
    assert_eq!(
        Tensor::randint(3, 3, &[2], DType::Int64, Device::Cpu)
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidArgument
    );
}
