//! tc::autograd::functional::{vjp, hvp} against closed forms: the products,
//! zeros for an unused input, differentiable results with create_graph, the
//! inputs' .grad untouched, and the errors for a bad v.
use tc::autograd::functional::{hvp, vjp};
use tc::{ErrorKind, Tensor};

fn f64s(v: &[f64]) -> Tensor {
    Tensor::from_slice(v, &[v.len() as i64]).unwrap()
}

fn close(a: &Tensor, b: &[f64]) {
    let a = a.to_vec::<f64>().unwrap();
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() < 1e-12, "{a:?} vs {b:?}");
    }
}

#[test]
fn vjp_of_two_outputs_and_an_unused_input() {
    let _tc = tc::init().unwrap();
    let (x0, y0) = ([1.0, -2.0], [0.5, 3.0]);
    let (x, y, z) = (f64s(&x0), f64s(&y0), f64s(&[7.0]));
    let (v1, v2) = (f64s(&[1.0, 2.0]), f64s(&[-1.0]));
    // f(x, y, z) = (x * y, sum(x^2)); z unused
    let (outs, g) = vjp(
        |a| Ok(vec![(&a[0] * &a[1])?, (&a[0] * &a[0])?.sum_all()?.reshape(&[1])?]),
        &[&x, &y, &z],
        Some(&[&v1, &v2]),
        false,
    )
    .unwrap();
    close(&outs[0], &[0.5, -6.0]);
    // d/dx: v1 * y + v2 * 2x; d/dy: v1 * x; d/dz: 0
    close(&g[0], &[1.0 * 0.5 - 2.0 * 1.0, 2.0 * 3.0 - 2.0 * -2.0]);
    close(&g[1], &[1.0, -4.0]);
    close(&g[2], &[0.0]);
    assert!(!g[0].is_requires_grad().unwrap());
    assert!(x.grad().unwrap().is_none());
}

#[test]
fn hvp_of_a_cubic_with_a_cross_term() {
    let _tc = tc::init().unwrap();
    let (x0, y0) = ([1.0, 2.0], [3.0, -1.0]);
    let (x, y) = (f64s(&x0), f64s(&y0));
    let (vx, vy) = (f64s(&[1.0, 0.5]), f64s(&[2.0, -1.0]));
    // f = sum(x^3) + sum(x * y): H = [[diag(6x), I], [I, 0]]
    let (out, hv) = hvp(
        |a| (&(&a[0] * &a[0])? * &a[0])?.sum_all()? + (&a[0] * &a[1])?.sum_all()?,
        &[&x, &y],
        Some(&[&vx, &vy]),
        false,
    )
    .unwrap();
    close(&out, &[1.0 + 8.0 + 3.0 - 2.0]);
    close(&hv[0], &[6.0 * 1.0 * 1.0 + 2.0, 6.0 * 2.0 * 0.5 - 1.0]);
    close(&hv[1], &[1.0, 0.5]);
}

#[test]
fn create_graph_gives_a_differentiable_product() {
    let _tc = tc::init().unwrap();
    let x = f64s(&[1.0, 2.0]).requires_grad(true).unwrap();
    let v = f64s(&[1.0, 1.0]);
    // f = sum(x^4): H v = 12 x^2 (v = 1); d/dx sum(12 x^2) = 24 x
    let (_, hv) = hvp(
        |a| ((&a[0] * &a[0])? * (&a[0] * &a[0])?)?.sum_all(),
        &[&x],
        Some(&[&v]),
        true,
    )
    .unwrap();
    close(&hv[0], &[12.0, 48.0]);
    hv[0].sum_all().unwrap().backward().unwrap();
    close(&x.grad().unwrap().unwrap(), &[24.0, 48.0]);
}

#[test]
fn bad_v_is_an_error() {
    let _tc = tc::init().unwrap();
    let x = f64s(&[1.0, 2.0]);
    let e = vjp(|a| Ok(vec![(&a[0] * 2.0)?]), &[&x], None, false).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    let bad = f64s(&[1.0]);
    let e = hvp(|a| a[0].sum_all(), &[&x], Some(&[&bad]), false).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
}
