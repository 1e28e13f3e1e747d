//! Gradients (checked against finite differences), grad mode, detach.
use tc::{DType, Device, NoGradGuard, Reduction, Tensor};

fn f64s(v: &[f64], shape: &[i64]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}

/// Central finite differences of a scalar function of x's elements.
fn numeric_grad(f: &dyn Fn(&Tensor) -> f64, x: &[f64], shape: &[i64]) -> Vec<f64> {
    let h = 1e-6;
    (0..x.len())
        .map(|i| {
            let mut plus = x.to_vec();
            let mut minus = x.to_vec();
            plus[i] += h;
            minus[i] -= h;
            (f(&f64s(&plus, shape)) - f(&f64s(&minus, shape))) / (2.0 * h)
        })
        .collect()
}

#[test]
fn gradients_match_finite_differences() {
    let _tc = tc::init().unwrap();
    let x0 = [0.3, -1.2, 2.0, 0.7, -0.1, 1.5];
    let w = f64s(&[0.5, -0.3, 0.8, 0.1, 0.2, -0.7], &[2, 3]);
    let target = Tensor::from_slice(&[1i64, 0], &[2]).unwrap();
    // A small network: cross_entropy(tanh(x) @ w^T * sigmoid(x).sum) + mean(gelu(x)^2)
    let f = |x: &Tensor| -> tc::Result<Tensor> {
        let h = x.tanh()?.linear(&w, None)?;
        let scale = x.sigmoid()?.sum_all()?;
        let ce = (&h * &scale)?.cross_entropy(&target, Reduction::Mean)?;
        ce + x.gelu()?.pow_scalar(2.0)?.mean_all()?
    };
    let x = f64s(&x0, &[2, 3]).requires_grad(true).unwrap();
    let loss = f(&x).unwrap();
    loss.backward().unwrap();
    let analytic = x.grad().unwrap().expect("x has a grad").to_vec::<f64>().unwrap();
    let numeric = numeric_grad(&|t| f(t).unwrap().item().unwrap(), &x0, &[2, 3]);
    for (a, n) in analytic.iter().zip(&numeric) {
        assert!(
            (a - n).abs() < 1e-5 * (1.0 + n.abs()),
            "analytic {analytic:?} numeric {numeric:?}"
        );
    }
}

#[test]
fn graph_bookkeeping() {
    let _tc = tc::init().unwrap();
    let x = f64s(&[1.0, 2.0], &[2]).requires_grad(true).unwrap();
    assert!(x.is_leaf().unwrap() && x.is_requires_grad().unwrap());
    assert_eq!(x.grad_fn_name().unwrap(), "");
    assert!(x.grad().unwrap().is_none());
    let y = (&x * 3.0).unwrap();
    assert!(!y.is_leaf().unwrap() && y.is_requires_grad().unwrap());
    assert!(
        y.grad_fn_name().unwrap().ends_with("Backward"),
        "{}",
        y.grad_fn_name().unwrap()
    );
    y.retain_grad().unwrap();
    let z = y.sum_all().unwrap();
    z.backward_with(None, true).unwrap();
    assert_eq!(
        y.grad().unwrap().unwrap().to_vec::<f64>().unwrap(),
        vec![1.0, 1.0]
    );
    assert_eq!(
        x.grad().unwrap().unwrap().to_vec::<f64>().unwrap(),
        vec![3.0, 3.0]
    );
    // retain_graph: a second backward accumulates.
    z.backward().unwrap();
    assert_eq!(
        x.grad().unwrap().unwrap().to_vec::<f64>().unwrap(),
        vec![6.0, 6.0]
    );
    x.clear_grad().unwrap();
    assert!(x.grad().unwrap().is_none());
    // set_grad: .grad is the given tensor itself, and backward accumulates into it.
    let buf = f64s(&[10.0, 20.0], &[2]);
    x.set_grad(&buf).unwrap();
    (&x * 3.0).unwrap().sum_all().unwrap().backward().unwrap();
    assert_eq!(buf.to_vec::<f64>().unwrap(), vec![13.0, 23.0]);
    assert!(x.set_grad(&f64s(&[1.0], &[1])).is_err()); // another shape
    x.clear_grad().unwrap();
    // An explicit output gradient.
    let y = (&x * &x).unwrap();
    y.backward_with(Some(&f64s(&[1.0, 0.5], &[2])), false).unwrap();
    assert_eq!(
        x.grad().unwrap().unwrap().to_vec::<f64>().unwrap(),
        vec![2.0, 2.0]
    );
    // detach cuts the graph but shares data.
    let d = x.detach().unwrap();
    assert!(!d.is_requires_grad().unwrap());
    assert_eq!(d.to_vec::<f64>().unwrap(), vec![1.0, 2.0]);
    x.set_requires_grad(false).unwrap();
    assert!(!(&x * 2.0).unwrap().is_requires_grad().unwrap());
}

#[test]
fn no_grad_guard_restores_the_mode() {
    let _tc = tc::init().unwrap();
    let w = Tensor::ones(&[2], DType::Float32, Device::Cpu)
        .unwrap()
        .requires_grad(true)
        .unwrap();
    assert!(tc::is_grad_enabled().unwrap());
    {
        let _g = NoGradGuard::new().unwrap();
        assert!(!tc::is_grad_enabled().unwrap());
        assert!(!(&w * 2.0).unwrap().is_requires_grad().unwrap());
        {
            let _nested = NoGradGuard::new().unwrap();
        }
        assert!(!tc::is_grad_enabled().unwrap(), "the nested guard restores 'off'");
    }
    assert!(tc::is_grad_enabled().unwrap());
    let y = tc::no_grad(|| (&w * 2.0).unwrap()).unwrap();
    assert!(!y.is_requires_grad().unwrap());
    assert!(tc::set_grad_enabled(false).unwrap());
    assert!(!tc::set_grad_enabled(true).unwrap());
}
