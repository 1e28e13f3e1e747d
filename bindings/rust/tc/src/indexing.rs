//! Advanced indexing (`index`, `index_put`, `index_put_`) and the scatter
//! family: nonzero, take, masked_select, scatter, scatter_add,
//! scatter_reduce, index_add, index_copy, index_fill.
use crate::error::{check, Result};
use crate::ffi::{len_i64, new_tensor};
use crate::Tensor;
use tc_sys as sys;

/// How [`Tensor::scatter_reduce`] combines values (PyTorch's `reduce` strings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterReduce {
    /// "sum"
    Sum,
    /// "prod"
    Prod,
    /// "mean" (integers: floor division)
    Mean,
    /// "amax"
    Amax,
    /// "amin"
    Amin,
}

impl ScatterReduce {
    fn code(self) -> i32 {
        match self {
            ScatterReduce::Sum => sys::TC_SCATTER_SUM,
            ScatterReduce::Prod => sys::TC_SCATTER_PROD,
            ScatterReduce::Mean => sys::TC_SCATTER_MEAN,
            ScatterReduce::Amax => sys::TC_SCATTER_AMAX,
            ScatterReduce::Amin => sys::TC_SCATTER_AMIN,
        }
    }
}

// One entry per leading dim: `None` is a full slice (NULL in tc.h).
fn raw_indices(indices: &[Option<&Tensor>]) -> Vec<sys::tc_tensor> {
    indices
        .iter()
        .map(|t| t.map_or(std::ptr::null_mut(), |t| t.as_raw()))
        .collect()
}

/// Advanced indexing, as PyTorch's `aten::index` / `index_put_`.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::{ScatterReduce, Tensor};
/// let _tc = tc::init()?;
/// let a = Tensor::from_slice(&[0.0f64, 1.0, 2.0, 3.0, 4.0, 5.0], &[2, 3])?;
/// let cols = Tensor::from_slice(&[2i64, 0], &[2])?;
/// // a[:, [2, 0]]
/// assert_eq!(a.index(&[None, Some(&cols)])?.to_vec::<f64>()?, vec![2.0, 0.0, 5.0, 3.0]);
/// let mut b = a.deep_clone()?;
/// b.index_put_(&[None, Some(&cols)], &Tensor::from_slice(&[9.0f64], &[1])?, false)?;
/// assert_eq!(b.to_vec::<f64>()?, vec![9.0, 1.0, 9.0, 9.0, 4.0, 9.0]);
/// let idx = Tensor::from_slice(&[1i64, 1, 0], &[1, 3])?;
/// let r = a.scatter_reduce(0, &idx, &a, ScatterReduce::Amax, true)?;
/// assert_eq!(r.to_vec::<f64>()?, vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
/// assert_eq!(a.nonzero()?.shape()?, vec![5, 2]);
/// # Ok(())
/// # }
/// ```
impl Tensor {
    /// `self[indices]`: each entry an int64/int32 tensor, a bool mask or `None` (`:`).
    pub fn index(&self, indices: &[Option<&Tensor>]) -> Result<Tensor> {
        let raw = raw_indices(indices);
        new_tensor(|out| unsafe { sys::tc_index(self.as_raw(), raw.as_ptr(), len_i64(raw.len()), out) })
    }
    /// A copy of self with `self[indices] = values` (or `+=` with `accumulate`).
    pub fn index_put(&self, indices: &[Option<&Tensor>], values: &Tensor, accumulate: bool) -> Result<Tensor> {
        let raw = raw_indices(indices);
        new_tensor(|out| unsafe {
            sys::tc_index_put(
                self.as_raw(),
                raw.as_ptr(),
                len_i64(raw.len()),
                values.as_raw(),
                i32::from(accumulate),
                out,
            )
        })
    }
    /// `self[indices] = values` (or `+=` with `accumulate`), in place.
    pub fn index_put_(&mut self, indices: &[Option<&Tensor>], values: &Tensor, accumulate: bool) -> Result<()> {
        let raw = raw_indices(indices);
        check(unsafe {
            sys::tc_index_put_(
                self.as_raw(),
                raw.as_ptr(),
                len_i64(raw.len()),
                values.as_raw(),
                i32::from(accumulate),
            )
        })
    }
    /// The int64 coordinates `[count, ndim]` of the non-zero elements.
    pub fn nonzero(&self) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_nonzero(self.as_raw(), out) })
    }
    /// The flattened elements at the int64 `index` (negative wraps).
    pub fn take(&self, index: &Tensor) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_take(self.as_raw(), index.as_raw(), out) })
    }
    /// The elements where the bool `mask` (broadcasting) is true, 1-D.
    pub fn masked_select(&self, mask: &Tensor) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_masked_select(self.as_raw(), mask.as_raw(), out) })
    }
    /// A copy with `src` written along `dim` at int64 `index`.
    pub fn scatter(&self, dim: i64, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_scatter(self.as_raw(), dim, index.as_raw(), src.as_raw(), out) })
    }
    /// A copy with `value` written along `dim` at int64 `index`.
    pub fn scatter_value(&self, dim: i64, index: &Tensor, value: f64) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_scatter_value(self.as_raw(), dim, index.as_raw(), value, out) })
    }
    /// A copy with `src` added along `dim` at int64 `index`.
    pub fn scatter_add(&self, dim: i64, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_scatter_add(self.as_raw(), dim, index.as_raw(), src.as_raw(), out) })
    }
    /// A copy with `src` reduced along `dim` at int64 `index`.
    pub fn scatter_reduce(
        &self,
        dim: i64,
        index: &Tensor,
        src: &Tensor,
        reduce: ScatterReduce,
        include_self: bool,
    ) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_scatter_reduce(
                self.as_raw(),
                dim,
                index.as_raw(),
                src.as_raw(),
                reduce.code(),
                i32::from(include_self),
                out,
            )
        })
    }
    /// A copy with `alpha * source` added at the entries `index` (1-D) of `dim`.
    pub fn index_add(&self, dim: i64, index: &Tensor, source: &Tensor, alpha: f64) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_index_add(self.as_raw(), dim, index.as_raw(), source.as_raw(), alpha, out)
        })
    }
    /// A copy with `source` copied to the entries `index` (1-D) of `dim`.
    pub fn index_copy(&self, dim: i64, index: &Tensor, source: &Tensor) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_index_copy(self.as_raw(), dim, index.as_raw(), source.as_raw(), out) })
    }
    /// A copy with `value` at the entries `index` (1-D, negative wraps) of `dim`.
    pub fn index_fill(&self, dim: i64, index: &Tensor, value: f64) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_index_fill(self.as_raw(), dim, index.as_raw(), value, out) })
    }
}
