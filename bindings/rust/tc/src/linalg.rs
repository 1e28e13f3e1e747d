//! Linear algebra (torch.linalg on LAPACK): inverse, determinant, solve,
//! Cholesky and SVD of (batches of) float32/float64 CPU matrices, each
//! differentiable.
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
}
