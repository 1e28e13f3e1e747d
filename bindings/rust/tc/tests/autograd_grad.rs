//! tc::autograd::grad and tc::autograd::backward with options: second
//! derivatives (create_graph), nothing accumulated by grad, backward into
//! chosen inputs only, and the errors.
use tc::autograd::{backward, grad, BackwardOptions, GradOptions};
use tc::{ErrorKind, Tensor};

fn f64s(v: &[f64]) -> Tensor {
    Tensor::from_slice(v, &[v.len() as i64]).unwrap()
}

#[test]
fn second_derivative_of_sin_is_minus_sin() {
    let _tc = tc::init().unwrap();
    let x0 = [0.3, -1.2, 2.0];
    let x = f64s(&x0).requires_grad(true).unwrap();
    let y = x.sin().unwrap().sum_all().unwrap();
    let opts = GradOptions { create_graph: true, ..Default::default() };
    let g = grad(&[&y], &[&x], None, opts).unwrap().remove(0).unwrap();
    let h = grad(&[&g.sum_all().unwrap()], &[&x], None, GradOptions::default()).unwrap().remove(0).unwrap();
    for (got, v) in h.to_vec::<f64>().unwrap().iter().zip(x0) {
        assert!((got + v.sin()).abs() < 1e-12, "{got} vs {}", -v.sin());
    }
    assert!(x.grad().unwrap().is_none(), "grad must not accumulate into .grad");
}

#[test]
fn unused_inputs_and_backward_into_inputs() {
    let _tc = tc::init().unwrap();
    let x = f64s(&[1.0, 2.0]).requires_grad(true).unwrap();
    let z = f64s(&[3.0]).requires_grad(true).unwrap();
    let y = (&x * &x).unwrap().sum_all().unwrap();
    let keep = GradOptions { retain_graph: Some(true), ..Default::default() };
    let err = grad(&[&y], &[&x, &z], None, keep).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Autograd);
    let both = grad(&[&y], &[&x, &z], None, GradOptions { allow_unused: true, ..keep }).unwrap();
    assert!(both[1].is_none());
    assert_eq!(both[0].as_ref().unwrap().to_vec::<f64>().unwrap(), vec![2.0, 4.0]);
    // backward into z only: x's .grad stays empty
    let w = (&x * &z).unwrap().sum_all().unwrap();
    let only_z = [&z];
    backward(&[&w], None, BackwardOptions { inputs: Some(&only_z), ..Default::default() }).unwrap();
    assert_eq!(z.grad().unwrap().unwrap().to_vec::<f64>().unwrap(), vec![3.0]);
    assert!(x.grad().unwrap().is_none());
}

#[test]
fn anomaly_mode_round_trips() {
    let _tc = tc::init().unwrap();
    tc::autograd::set_anomaly_mode(true, true).unwrap();
    assert_eq!(tc::autograd::anomaly_mode().unwrap(), (true, true));
    tc::autograd::set_anomaly_mode(false, true).unwrap();
    assert_eq!(tc::autograd::anomaly_mode().unwrap(), (false, true));
}
