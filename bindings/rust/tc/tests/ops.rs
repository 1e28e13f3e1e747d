//! Operators, elementwise ops, reductions, linear algebra, nn and shape ops.
use tc::{DType, Device, Reduction, Tensor};

fn f64s(v: &[f64], shape: &[i64]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}
fn vals(t: &Tensor) -> Vec<f64> {
    t.to_dtype(DType::Float64).unwrap().to_vec::<f64>().unwrap()
}
fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-6 * (1.0 + y.abs()))
}

#[test]
fn operators_on_every_combination() {
    let _tc = tc::init().unwrap();
    let a = f64s(&[1.0, 2.0, 3.0], &[3]);
    let b = f64s(&[4.0, 5.0, 6.0], &[3]);
    assert_eq!(vals(&(&a + &b).unwrap()), vec![5.0, 7.0, 9.0]);
    assert_eq!(vals(&(&a - &b).unwrap()), vec![-3.0, -3.0, -3.0]);
    assert_eq!(vals(&(&a * &b).unwrap()), vec![4.0, 10.0, 18.0]);
    assert_eq!(vals(&(&b / &a).unwrap()), vec![4.0, 2.5, 2.0]);
    assert_eq!(vals(&(-&a).unwrap()), vec![-1.0, -2.0, -3.0]);
    assert_eq!(vals(&(&a + 1.0).unwrap()), vec![2.0, 3.0, 4.0]);
    assert_eq!(vals(&(&a - 1.0).unwrap()), vec![0.0, 1.0, 2.0]);
    assert_eq!(vals(&(&a * 2.0).unwrap()), vec![2.0, 4.0, 6.0]);
    assert_eq!(vals(&(&a / 2.0).unwrap()), vec![0.5, 1.0, 1.5]);
    assert_eq!(vals(&(1.0 + &a).unwrap()), vec![2.0, 3.0, 4.0]);
    assert_eq!(vals(&(1.0 - &a).unwrap()), vec![0.0, -1.0, -2.0]);
    assert_eq!(vals(&(2.0 * &a).unwrap()), vec![2.0, 4.0, 6.0]);
    assert_eq!(vals(&(6.0 / &a).unwrap()), vec![6.0, 3.0, 2.0]);
    // Owned operands (consumed).
    assert_eq!(vals(&(a.clone() + b.clone()).unwrap()), vec![5.0, 7.0, 9.0]);
    assert_eq!(vals(&(a.clone() - &b).unwrap()), vec![-3.0, -3.0, -3.0]);
    assert_eq!(vals(&(&a * b.clone()).unwrap()), vec![4.0, 10.0, 18.0]);
    assert_eq!(vals(&(a.clone() / 2.0).unwrap()), vec![0.5, 1.0, 1.5]);
    assert_eq!(vals(&(3.0 - a.clone()).unwrap()), vec![2.0, 1.0, 0.0]);
    assert_eq!(vals(&(-a.clone()).unwrap()), vec![-1.0, -2.0, -3.0]);
    // Chaining with ?.
    let chain = || -> tc::Result<Tensor> { ((&a * 2.0)? + &b)? / 2.0 };
    assert_eq!(vals(&chain().unwrap()), vec![3.0, 4.5, 6.0]);
    // Broadcasting.
    let col = f64s(&[1.0, 2.0], &[2, 1]);
    assert_eq!((&col + &a).unwrap().shape().unwrap(), vec![2, 3]);
    // Scalars never widen a float32 tensor; integer / gives the default dtype.
    let f = Tensor::ones(&[2], DType::Float32, Device::Cpu).unwrap();
    assert_eq!((&f * 0.5).unwrap().dtype().unwrap(), DType::Float32);
    let i = Tensor::from_slice(&[1i64, 2], &[2]).unwrap();
    assert_eq!((&i / &i).unwrap().dtype().unwrap(), DType::Float32);
    assert_eq!((&i + &i).unwrap().dtype().unwrap(), DType::Int64);
}

#[test]
fn elementwise() {
    let _tc = tc::init().unwrap();
    let x = f64s(&[-1.0, 0.0, 2.0], &[3]);
    let ex: Vec<f64> = [-1.0f64, 0.0, 2.0].iter().map(|v| v.exp()).collect();
    assert!(close(&vals(&x.exp().unwrap()), &ex));
    assert!(close(&vals(&x.exp().unwrap().log().unwrap()), &[-1.0, 0.0, 2.0]));
    assert!(close(
        &vals(&x.abs().unwrap().sqrt().unwrap()),
        &[1.0, 0.0, 2f64.sqrt()]
    ));
    assert!(close(
        &vals(&x.tanh().unwrap()),
        &[(-1f64).tanh(), 0.0, 2f64.tanh()]
    ));
    assert!(close(
        &vals(&x.sigmoid().unwrap()),
        &[1.0 / (1.0 + 1f64.exp()), 0.5, 1.0 / (1.0 + (-2f64).exp())]
    ));
    assert_eq!(vals(&x.relu().unwrap()), vec![0.0, 0.0, 2.0]);
    let g = vals(&x.gelu().unwrap());
    assert!(
        (g[0] - -0.15865525393145707).abs() < 1e-6 && g[1] == 0.0 && (g[2] - 1.9544997361036416).abs() < 1e-6
    );
    assert_eq!(vals(&x.clamp(Some(-0.5), None).unwrap()), vec![-0.5, 0.0, 2.0]);
    assert_eq!(vals(&x.clamp(None, Some(1.0)).unwrap()), vec![-1.0, 0.0, 1.0]);
    assert_eq!(vals(&x.pow_scalar(2.0).unwrap()), vec![1.0, 0.0, 4.0]);
    let y = f64s(&[0.0, 0.0, 3.0], &[3]);
    assert_eq!(vals(&x.minimum(&y).unwrap()), vec![-1.0, 0.0, 2.0]);
    assert_eq!(x.eq(&y).unwrap().to_vec_bool().unwrap(), vec![false, true, false]);
    assert_eq!(x.ne(&y).unwrap().to_vec_bool().unwrap(), vec![true, false, true]);
    assert_eq!(x.lt(&y).unwrap().to_vec_bool().unwrap(), vec![true, false, true]);
    assert_eq!(x.le(&y).unwrap().to_vec_bool().unwrap(), vec![true, true, true]);
    assert_eq!(x.ge(&y).unwrap().to_vec_bool().unwrap(), vec![false, true, false]);
    let cond = x.gt(&y).unwrap();
    assert_eq!(cond.dtype().unwrap(), DType::Bool);
    assert_eq!(
        vals(&Tensor::where_cond(&x.lt(&y).unwrap(), &x, &y).unwrap()),
        vec![-1.0, 0.0, 2.0]
    );
}

#[test]
fn reductions() {
    let _tc = tc::init().unwrap();
    let x = f64s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    assert_eq!(x.sum_all().unwrap().item().unwrap(), 21.0);
    assert_eq!(vals(&x.sum(&[0], false).unwrap()), vec![5.0, 7.0, 9.0]);
    assert_eq!(x.sum(&[1], true).unwrap().shape().unwrap(), vec![2, 1]);
    assert_eq!(x.mean_all().unwrap().item().unwrap(), 3.5);
    assert_eq!(vals(&x.mean(&[1], false).unwrap()), vec![2.0, 5.0]);
    assert_eq!(vals(&x.var(&[1], 1, false).unwrap()), vec![1.0, 1.0]);
    assert!(close(
        &vals(&x.std(&[1], 0, false).unwrap()),
        &[(2f64 / 3.0).sqrt(); 2]
    ));
    let lse = (1f64.exp() + 2f64.exp() + 3f64.exp()).ln();
    assert!(close(&vals(&x.logsumexp(&[1], false).unwrap())[..1], &[lse]));
    assert_eq!(x.min().unwrap().item().unwrap(), 1.0);
    let (v, i) = x.min_dim(0, true).unwrap();
    assert_eq!(
        (vals(&v), i.to_vec::<i64>().unwrap()),
        (vec![1.0, 2.0, 3.0], vec![0, 0, 0])
    );
    assert_eq!(x.argmin(None, false).unwrap().item().unwrap(), 0.0);
    assert_eq!(
        x.argmax(Some(0), false).unwrap().to_vec::<i64>().unwrap(),
        vec![1, 1, 1]
    );
    let ints = Tensor::from_slice(&[1i32, 2, 3], &[3]).unwrap();
    assert_eq!(ints.sum_all().unwrap().dtype().unwrap(), DType::Int64);
}

#[test]
fn linear_algebra() {
    let _tc = tc::init().unwrap();
    let a = f64s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let b = f64s(&[1.0, 0.0, 0.0, 1.0, 1.0, 1.0], &[3, 2]);
    assert_eq!(vals(&a.matmul(&b).unwrap()), vec![4.0, 5.0, 10.0, 11.0]);
    let v = f64s(&[1.0, 1.0, 1.0], &[3]);
    assert_eq!(vals(&a.matmul(&v).unwrap()), vec![6.0, 15.0]);
    assert_eq!(v.matmul(&v).unwrap().item().unwrap(), 3.0);
    let batch = a.unsqueeze(0).unwrap().expand(&[4, 2, 3]).unwrap();
    assert_eq!(batch.matmul(&b).unwrap().shape().unwrap(), vec![4, 2, 2]);
    let w = f64s(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0], &[2, 3]);
    let bias = f64s(&[10.0, 20.0], &[2]);
    assert_eq!(
        vals(&a.linear(&w, Some(&bias)).unwrap()),
        vec![11.0, 22.0, 14.0, 25.0]
    );
    assert_eq!(vals(&a.linear(&w, None).unwrap()), vec![1.0, 2.0, 4.0, 5.0]);
}

#[test]
fn nn_ops() {
    let _tc = tc::init().unwrap();
    let logits = f64s(&[1.0, 2.0, 3.0, 1.0, 1.0, 1.0], &[2, 3]);
    let sm = vals(&logits.softmax(1).unwrap());
    assert!((sm[..3].iter().sum::<f64>() - 1.0).abs() < 1e-12);
    let lsm = vals(&logits.log_softmax(1).unwrap());
    assert!(close(&lsm, &sm.iter().map(|p| p.ln()).collect::<Vec<_>>()));
    let target = Tensor::from_slice(&[2i64, 0], &[2]).unwrap();
    let per = vals(&logits.cross_entropy(&target, Reduction::None).unwrap());
    assert!(close(&per, &[-lsm[2], -lsm[3]]));
    let mean = logits
        .cross_entropy(&target, Reduction::Mean)
        .unwrap()
        .item()
        .unwrap();
    assert!((mean - (per[0] + per[1]) / 2.0).abs() < 1e-12);
    let sum = logits
        .log_softmax(1)
        .unwrap()
        .nll_loss(&target, Reduction::Sum)
        .unwrap()
        .item()
        .unwrap();
    assert!((sum - (per[0] + per[1])).abs() < 1e-12);
    let mse = logits
        .mse_loss(&logits.deep_clone().unwrap(), Reduction::Mean)
        .unwrap()
        .item()
        .unwrap();
    assert_eq!(mse, 0.0);
    assert_eq!(vals(&logits.dropout(0.5, false).unwrap()), vals(&logits));
    let dropped = vals(
        &Tensor::ones(&[1000], DType::Float64, Device::Cpu)
            .unwrap()
            .dropout(0.5, true)
            .unwrap(),
    );
    assert!(dropped.iter().all(|&v| v == 0.0 || v == 2.0));
    // conv2d with a 1x1 identity kernel, pooling, embedding.
    let img = Tensor::arange(0.0, 16.0, 1.0, DType::Float32, Device::Cpu)
        .unwrap()
        .reshape(&[1, 1, 4, 4])
        .unwrap();
    let k = Tensor::ones(&[1, 1, 1, 1], DType::Float32, Device::Cpu).unwrap();
    let conv = img.conv2d(&k, None, [1, 1], [0, 0], [1, 1], 1).unwrap();
    assert_eq!(conv.to_vec::<f32>().unwrap(), img.to_vec::<f32>().unwrap());
    let k3 = Tensor::ones(&[2, 1, 3, 3], DType::Float32, Device::Cpu).unwrap();
    let bias = Tensor::from_slice(&[0.0f32, 100.0], &[2]).unwrap();
    let conv = img.conv2d(&k3, Some(&bias), [1, 1], [1, 1], [1, 1], 1).unwrap();
    assert_eq!(conv.shape().unwrap(), vec![1, 2, 4, 4]);
    assert_eq!(conv.to_vec::<f32>().unwrap()[0], 0.0 + 1.0 + 4.0 + 5.0);
    let mp = img.max_pool2d([2, 2], None, [0, 0]).unwrap();
    assert_eq!(mp.to_vec::<f32>().unwrap(), vec![5.0, 7.0, 13.0, 15.0]);
    let ap = img.avg_pool2d([2, 2], Some([2, 2]), [0, 0]).unwrap();
    assert_eq!(ap.to_vec::<f32>().unwrap(), vec![2.5, 4.5, 10.5, 12.5]);
    let table = f64s(&[0.0, 0.5, 1.0, 1.5, 2.0, 2.5], &[3, 2]);
    let idx = Tensor::from_slice(&[2i64, 0, 2, 1], &[2, 2]).unwrap();
    let emb = Tensor::embedding(&table, &idx).unwrap();
    assert_eq!(emb.shape().unwrap(), vec![2, 2, 2]);
    assert_eq!(vals(&emb)[..4], [2.0, 2.5, 0.0, 0.5]);
}

#[test]
fn shape_ops() {
    let _tc = tc::init().unwrap();
    let a = f64s(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    let b = f64s(&[5.0, 6.0], &[1, 2]);
    assert_eq!(
        vals(&Tensor::cat(&[&a, &b], 0).unwrap()),
        vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    );
    assert_eq!(
        Tensor::stack(&[&a, &a, &a], 1).unwrap().shape().unwrap(),
        vec![2, 3, 2]
    );
    let long = Tensor::arange(0.0, 20.0, 1.0, DType::Int64, Device::Cpu).unwrap();
    let pieces = long.split(2, 0).unwrap(); // 10 pieces: more than the first guess
    assert_eq!(pieces.len(), 10);
    assert_eq!(pieces[9].to_vec::<i64>().unwrap(), vec![18, 19]);
    let chunks = long.chunk(3, 0).unwrap();
    assert_eq!(
        chunks.iter().map(|c| c.numel().unwrap()).collect::<Vec<_>>(),
        vec![7, 7, 6]
    );
    let idx = Tensor::from_slice(&[1i64, 0, 0, 1], &[2, 2]).unwrap();
    assert_eq!(vals(&a.gather(0, &idx).unwrap()), vec![3.0, 2.0, 1.0, 4.0]);
    let rows = Tensor::from_slice(&[1i64, 1, 0], &[3]).unwrap();
    assert_eq!(
        vals(&a.index_select(0, &rows).unwrap()),
        vec![3.0, 4.0, 3.0, 4.0, 1.0, 2.0]
    );
    let oh = rows.one_hot(None).unwrap();
    assert_eq!(oh.to_vec::<i64>().unwrap(), vec![0, 1, 0, 1, 1, 0]);
}

#[test]
fn in_place_ops_and_initializers() {
    let _tc = tc::init().unwrap();
    let mut x = f64s(&[1.0, 2.0], &[2]);
    let v0 = x.version().unwrap();
    x.add_(&f64s(&[1.0, 1.0], &[2])).unwrap();
    x.sub_(&f64s(&[0.5], &[1])).unwrap();
    x.mul_(&f64s(&[2.0, 4.0], &[2])).unwrap();
    x.div_(&f64s(&[3.0, 5.0], &[2])).unwrap();
    assert!(close(&vals(&x), &[1.0, 2.0]));
    x.copy_(&Tensor::from_slice(&[7i64, 8], &[2]).unwrap()).unwrap();
    assert_eq!(vals(&x), vec![7.0, 8.0]);
    x.zero_().unwrap();
    assert_eq!(vals(&x), vec![0.0, 0.0]);
    assert!(x.version().unwrap() >= v0 + 6);
    let mut w = Tensor::empty(&[64, 32], DType::Float32, Device::Cpu).unwrap();
    w.uniform_(-0.25, 0.25).unwrap();
    assert!(vals(&w).iter().all(|v| (-0.25..0.25).contains(v)));
    w.normal_(3.0, 0.1).unwrap();
    assert!((w.mean_all().unwrap().item().unwrap() - 3.0).abs() < 0.05);
    w.kaiming_uniform_(5f64.sqrt()).unwrap();
    let bound = 1.0 / 32f64.sqrt(); // gain sqrt(2/(1+5)) * sqrt(3/fan_in)
    assert!(vals(&w).iter().all(|v| v.abs() <= bound + 1e-6));
    w.xavier_uniform_(1.0).unwrap();
    let bound = (6.0f64 / (64.0 + 32.0)).sqrt();
    assert!(vals(&w).iter().all(|v| v.abs() <= bound + 1e-6));
}

#[test]
fn unary_math_and_activations() {
    let _tc = tc::init().unwrap();
    let x = f64s(&[-2.0, -0.5, 0.0, 1.5], &[4]);
    assert!(close(
        &vals(&x.sin().unwrap()),
        &[(-2f64).sin(), (-0.5f64).sin(), 0.0, 1.5f64.sin()]
    ));
    assert!(close(&vals(&x.floor().unwrap()), &[-2.0, -1.0, 0.0, 1.0]));
    assert!(close(
        &vals(&x.leaky_relu(0.1).unwrap()),
        &[-0.2, -0.05, 0.0, 1.5]
    ));
    assert!(close(
        &vals(&x.hardtanh(-1.0, 1.0).unwrap()),
        &[-1.0, -0.5, 0.0, 1.0]
    ));
    assert!(close(
        &vals(&x.elu(1.0).unwrap()),
        &[(-2f64).exp_m1(), (-0.5f64).exp_m1(), 0.0, 1.5]
    ));
    assert_eq!(
        x.isfinite().unwrap().to_vec_bool().unwrap(),
        vec![true, true, true, true]
    );
    let i = Tensor::from_slice(&[5i64, -1], &[2]).unwrap();
    assert_eq!(i.bitwise_not().unwrap().to_vec::<i64>().unwrap(), vec![-6, 0]);
}
