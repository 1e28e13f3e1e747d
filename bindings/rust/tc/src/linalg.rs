//! Linear algebra (torch.linalg on LAPACK): inverse, determinants, solves,
//! Cholesky, LU, QR, SVD, symmetric and general eigendecomposition, least
//! squares and Householder products of (batches of) float32/float64 CPU
//! matrices, each differentiable but the general eigendecomposition.
use crate::error::{check, Result};
use crate::ffi::new_tensor;
use crate::Tensor;
use tc_sys as sys;

/// Linear algebra.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::Tensor;
/// let _tc = tc::init()?;
/// let a = Tensor::from_slice(&[4.0f64, 2.0, 2.0, 3.0], &[2, 2])?;
/// assert!((a.det()?.to_vec::<f64>()?[0] - 8.0).abs() < 1e-12);
/// let b = Tensor::from_slice(&[2.0f64, 1.0], &[2])?;
/// let x = a.solve(&b)?.to_vec::<f64>()?;
/// assert!((x[0] - 0.5).abs() < 1e-12 && x[1].abs() < 1e-12);
/// let l = a.cholesky()?.to_vec::<f64>()?;
/// assert!((l[0] - 2.0).abs() < 1e-12 && l[1] == 0.0);
/// let (_u, s, _vh) = a.svd(false)?;
/// assert_eq!(s.shape()?, vec![2]);
/// let (w, _v) = a.eigh(false)?;
/// assert_eq!(w.shape()?, vec![2]);
/// let (lu, piv, _info) = a.lu_factor()?;
/// let y = lu.lu_solve(&piv, &Tensor::from_slice(&[2.0f64, 1.0], &[2, 1])?, true, false)?;
/// assert!((y.to_vec::<f64>()?[0] - 0.5).abs() < 1e-12);
/// let (_q, r) = a.qr(0)?;
/// assert_eq!(r.shape()?, vec![2, 2]);
/// assert!(Tensor::from_slice(&[1.0f64, 2.0, 2.0, 4.0], &[2, 2])?.inv().is_err());
/// # Ok(()) }
/// ```
impl Tensor {
    /// The inverse of square matrices; an error names a singular one.
    pub fn inv(&self) -> Result<Tensor> {
        let mut inverse: sys::tc_tensor = std::ptr::null_mut();
        let mut info: sys::tc_tensor = std::ptr::null_mut();
        check(unsafe { sys::tc_linalg_inv_ex(self.as_raw(), 1, &mut inverse, &mut info) })?;
        let info = Tensor::from_owned_raw(info);
        let inverse = Tensor::from_owned_raw(inverse);
        drop(info?);
        inverse
    }
    /// The determinant of square matrices.
    pub fn det(&self) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_linalg_det(self.as_raw(), out) })
    }
    /// The solution X of `self X = b` (b a matrix or a vector, as in PyTorch).
    pub fn solve(&self, b: &Tensor) -> Result<Tensor> {
        let mut result: sys::tc_tensor = std::ptr::null_mut();
        let mut info: sys::tc_tensor = std::ptr::null_mut();
        check(unsafe { sys::tc_linalg_solve_ex(self.as_raw(), b.as_raw(), 1, 1, &mut result, &mut info) })?;
        let info = Tensor::from_owned_raw(info);
        let result = Tensor::from_owned_raw(result);
        drop(info?);
        result
    }
    /// The lower Cholesky factor of symmetric positive-definite matrices.
    pub fn cholesky(&self) -> Result<Tensor> {
        let mut l: sys::tc_tensor = std::ptr::null_mut();
        let mut info: sys::tc_tensor = std::ptr::null_mut();
        check(unsafe { sys::tc_linalg_cholesky_ex(self.as_raw(), 0, 1, &mut l, &mut info) })?;
        let info = Tensor::from_owned_raw(info);
        let l = Tensor::from_owned_raw(l);
        drop(info?);
        l
    }
    /// `(U, S, Vh)` with `self = U diag(S) Vh`, S descending.
    pub fn svd(&self, full_matrices: bool) -> Result<(Tensor, Tensor, Tensor)> {
        let mut u: sys::tc_tensor = std::ptr::null_mut();
        let mut s: sys::tc_tensor = std::ptr::null_mut();
        let mut vh: sys::tc_tensor = std::ptr::null_mut();
        check(unsafe {
            sys::tc_linalg_svd(self.as_raw(), i32::from(full_matrices), &mut u, &mut s, &mut vh)
        })?;
        let (u, s, vh) = (
            Tensor::from_owned_raw(u),
            Tensor::from_owned_raw(s),
            Tensor::from_owned_raw(vh),
        );
        Ok((u?, s?, vh?))
    }

    /// `(sign, logabsdet)` of the determinant.
    pub fn slogdet(&self) -> Result<(Tensor, Tensor)> {
        outs2(|a, b| unsafe { sys::tc_linalg_slogdet(self.as_raw(), a, b) })
    }
    /// The solution of `self X = b` (`X self = b` when not `left`) for triangular `self`.
    pub fn solve_triangular(
        &self,
        b: &Tensor,
        upper: bool,
        left: bool,
        unitriangular: bool,
    ) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_linalg_solve_triangular(
                self.as_raw(),
                b.as_raw(),
                i32::from(upper),
                i32::from(left),
                i32::from(unitriangular),
                out,
            )
        })
    }
    /// `(Q, R)`; mode 0: reduced, 1: complete, 2: R only (Q empty).
    pub fn qr(&self, mode: i32) -> Result<(Tensor, Tensor)> {
        outs2(|q, r| unsafe { sys::tc_linalg_qr(self.as_raw(), mode, q, r) })
    }
    /// The singular values, descending.
    pub fn svdvals(&self) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_linalg_svdvals(self.as_raw(), out) })
    }
    /// `(eigenvalues ascending, eigenvectors)` of symmetric matrices (`upper`: read the upper triangle).
    pub fn eigh(&self, upper: bool) -> Result<(Tensor, Tensor)> {
        outs2(|w, v| unsafe { sys::tc_linalg_eigh(self.as_raw(), i32::from(upper), w, v) })
    }
    /// The eigenvalues (ascending) of symmetric matrices.
    pub fn eigvalsh(&self, upper: bool) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_linalg_eigvalsh(self.as_raw(), i32::from(upper), out) })
    }
    /// The packed LU factorization with partial pivoting: `(LU, int32 pivots, int32 info)`.
    pub fn lu_factor(&self) -> Result<(Tensor, Tensor, Tensor)> {
        outs3(|lu, p, info| unsafe { sys::tc_linalg_lu_factor_ex(self.as_raw(), 1, 0, lu, p, info) })
    }
    /// `(P, L, U)` with `self = P L U`.
    pub fn lu(&self) -> Result<(Tensor, Tensor, Tensor)> {
        outs3(|p, l, u| unsafe { sys::tc_linalg_lu(self.as_raw(), 1, p, l, u) })
    }
    /// Solves `A X = b` from `self` = the packed LU of A and its pivots.
    pub fn lu_solve(&self, pivots: &Tensor, b: &Tensor, left: bool, adjoint: bool) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_linalg_lu_solve(
                self.as_raw(),
                pivots.as_raw(),
                b.as_raw(),
                i32::from(left),
                i32::from(adjoint),
                out,
            )
        })
    }
    /// The first n columns of the product of the Householder reflectors
    /// stored below the diagonal of `self` [.., m, n] with their `tau` [.., k] (LAPACK's orgqr).
    pub fn householder_product(&self, tau: &Tensor) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_linalg_householder_product(self.as_raw(), tau.as_raw(), out) })
    }
    /// `(eigenvalues [.., n, 2], eigenvectors [.., n, n, 2])` of general square
    /// matrices: complex numbers as (real, imaginary) pairs in the last dim
    /// (eigenvectors are unit-norm columns). Not differentiable.
    pub fn eig(&self) -> Result<(Tensor, Tensor)> {
        outs2(|w, v| unsafe { sys::tc_linalg_eig(self.as_raw(), 1, w, v) })
    }
    /// The eigenvalues [.., n, 2] of general square matrices as (real, imaginary) pairs.
    pub fn eigvals(&self) -> Result<Tensor> {
        outs2(|w, v| unsafe { sys::tc_linalg_eig(self.as_raw(), 0, w, v) }).map(|(w, _)| w)
    }
    /// Least squares `min ||self X - b||`: `(solution, residuals, rank,
    /// singular_values)` as torch.linalg.lstsq fills them for `driver`
    /// ("gels", "gelsy", "gelsd" or "gelss"); `rcond` None: eps * max(m, n).
    pub fn lstsq(
        &self,
        b: &Tensor,
        rcond: Option<f64>,
        driver: &str,
    ) -> Result<(Tensor, Tensor, Tensor, Tensor)> {
        let code = match driver {
            "gels" => 0,
            "gelsy" => 1,
            "gelsd" => 2,
            "gelss" => 3,
            _ => -1, // refused by libtc with its message
        };
        let mut o: [sys::tc_tensor; 4] = [std::ptr::null_mut(); 4];
        let [o0, o1, o2, o3] = &mut o;
        check(unsafe {
            sys::tc_linalg_lstsq(
                self.as_raw(),
                b.as_raw(),
                rcond.unwrap_or(-1.0),
                code,
                o0,
                o1,
                o2,
                o3,
            )
        })?;
        let [x, r, k, s] = o.map(Tensor::from_owned_raw);
        Ok((x?, r?, k?, s?))
    }
}

// Two or three handle out-params, each owned before any error is returned.
fn outs2(f: impl FnOnce(*mut sys::tc_tensor, *mut sys::tc_tensor) -> i32) -> Result<(Tensor, Tensor)> {
    let (mut a, mut b): (sys::tc_tensor, sys::tc_tensor) = (std::ptr::null_mut(), std::ptr::null_mut());
    check(f(&mut a, &mut b))?;
    let (a, b) = (Tensor::from_owned_raw(a), Tensor::from_owned_raw(b));
    Ok((a?, b?))
}
fn outs3(
    f: impl FnOnce(*mut sys::tc_tensor, *mut sys::tc_tensor, *mut sys::tc_tensor) -> i32,
) -> Result<(Tensor, Tensor, Tensor)> {
    let (mut a, mut b, mut c): (sys::tc_tensor, sys::tc_tensor, sys::tc_tensor) =
        (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
    check(f(&mut a, &mut b, &mut c))?;
    let (a, b, c) = (
        Tensor::from_owned_raw(a),
        Tensor::from_owned_raw(b),
        Tensor::from_owned_raw(c),
    );
    Ok((a?, b?, c?))
}
