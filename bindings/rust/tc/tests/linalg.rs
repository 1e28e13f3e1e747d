//! tc::linalg's LAPACK extras: householder_product (orgqr) rebuilds the Q of
//! a QR from its reflectors, eig finds the eigenvalues of a rotation and of
//! a triangular matrix, lstsq fits a line with each driver, and the errors
//! are errors.
use tc::{DType, Tensor};

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

#[test]
fn householder_product_of_one_reflector() -> tc::Result<()> {
    let _tc = tc::init()?;
    // v = (1, 1)^T (unit first entry, 1 below), tau = 1: H = I - v v^T.
    let a = Tensor::from_slice(&[9.0f64, 1.0], &[2, 1])?;
    let tau = Tensor::from_slice(&[1.0f64], &[1])?;
    let q = a.householder_product(&tau)?;
    assert_eq!(q.shape()?, vec![2, 1]);
    assert!(close(&q.to_vec::<f64>()?, &[0.0, -1.0], 1e-15));
    // tau with more reflectors than columns is refused.
    assert!(a
        .householder_product(&Tensor::from_slice(&[1.0f64, 1.0], &[2])?)
        .is_err());
    Ok(())
}

#[test]
fn eig_of_rotation_and_triangular() -> tc::Result<()> {
    let _tc = tc::init()?;
    // A 90-degree rotation: eigenvalues +-i.
    let r = Tensor::from_slice(&[0.0f64, -1.0, 1.0, 0.0], &[2, 2])?;
    let (w, v) = r.eig()?;
    assert_eq!(w.shape()?, vec![2, 2]);
    assert_eq!(v.shape()?, vec![2, 2, 2]);
    let w = w.to_vec::<f64>()?;
    assert!(close(&[w[0], w[2]], &[0.0, 0.0], 1e-12));
    assert!(close(&[w[1].abs(), w[3].abs()], &[1.0, 1.0], 1e-12) && w[1] == -w[3]);
    // Upper triangular: the eigenvalues are the diagonal, all real.
    let t = Tensor::from_slice(&[2.0f64, 5.0, 0.0, 3.0], &[2, 2])?;
    let mut ev: Vec<f64> = t.eigvals()?.to_vec::<f64>()?;
    assert!(ev[1] == 0.0 && ev[3] == 0.0);
    ev = vec![ev[0].min(ev[2]), ev[0].max(ev[2])];
    assert!(close(&ev, &[2.0, 3.0], 1e-12));
    assert!(Tensor::from_slice(&[1.0f64, 2.0, 3.0], &[3])?.eig().is_err());
    Ok(())
}

#[test]
fn lstsq_fits_a_line_with_every_driver() -> tc::Result<()> {
    let _tc = tc::init()?;
    // y = 2 + 3 x at x = 0..4 (exact): solution (2, 3), zero residuals.
    let a = Tensor::from_slice(&[1.0f64, 0.0, 1.0, 1.0, 1.0, 2.0, 1.0, 3.0, 1.0, 4.0], &[5, 2])?;
    let b = Tensor::from_slice(&[2.0f64, 5.0, 8.0, 11.0, 14.0], &[5, 1])?;
    for driver in ["gels", "gelsy", "gelsd", "gelss"] {
        let (x, res, rank, s) = a.lstsq(&b, None, driver)?;
        assert!(close(&x.to_vec::<f64>()?, &[2.0, 3.0], 1e-10), "{driver}");
        assert_eq!(
            res.shape()?,
            if driver == "gelsy" { vec![0] } else { vec![1] },
            "{driver}"
        );
        assert_eq!(rank.dtype()?, DType::Int64);
        if driver != "gels" {
            assert_eq!(rank.to_vec::<i64>()?, vec![2]);
        }
        let want_s = if driver == "gelsd" || driver == "gelss" {
            vec![2]
        } else {
            vec![0]
        };
        assert_eq!(s.shape()?, want_s, "{driver}");
    }
    assert!(a.lstsq(&b, None, "nope").is_err());
    assert!(a
        .lstsq(&Tensor::from_slice(&[1.0f64, 2.0], &[2, 1])?, None, "gelsd")
        .is_err());
    Ok(())
}
