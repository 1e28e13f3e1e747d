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
}
