//! Views (sharing storage with the original), dtype and device conversions,
//! and copies.
use crate::dtype::{DType, Device};
use crate::error::Result;
use crate::ffi::{len_i64, new_tensor};
use crate::Tensor;
use tc_sys as sys;

/// Views and conversions. Negative dims count from the end everywhere.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::{DType, Device, Tensor};
/// let _tc = tc::init()?;
/// let x = Tensor::arange(0.0, 6.0, 1.0, DType::Float32, Device::Cpu)?.reshape(&[2, 3])?;
/// assert_eq!(x.transpose(0, 1)?.shape()?, vec![3, 2]);
/// assert_eq!(x.select(1, -1)?.to_vec::<f32>()?, vec![2.0, 5.0]);
/// assert_eq!(x.narrow(1, 1, 2)?.to_vec::<f32>()?, vec![1.0, 2.0, 4.0, 5.0]);
/// assert_eq!(x.slice(1, 0, 3, 2)?.to_vec::<f32>()?, vec![0.0, 2.0, 3.0, 5.0]);
/// assert_eq!(x.unsqueeze(0)?.shape()?, vec![1, 2, 3]);
/// assert_eq!(x.unsqueeze(0)?.squeeze(None)?.shape()?, vec![2, 3]);
/// assert_eq!(x.select(0, 0)?.expand(&[4, 3])?.shape()?, vec![4, 3]);
/// assert_eq!(x.permute(&[1, 0])?.contiguous()?.to_vec::<f32>()?, vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
/// # Ok(()) }
/// ```
impl Tensor {
    /// A copy converted to `dtype`, or `self` again (a new handle) when it
    /// is already of `dtype`, like torch's `.to()`.
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_to_dtype(self.as_raw(), dtype.code(), out) })
    }

    /// A copy on `device`, or `self` again when it is there already.
    pub fn to_device(&self, device: Device) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_to_device(self.as_raw(), device.raw(), out) })
    }

    /// The same elements in `shape` (one size may be -1); a view when
    /// possible, else a copy.
    pub fn reshape(&self, shape: &[i64]) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_reshape(self.as_raw(), shape.as_ptr(), len_i64(shape.len()), out) })
    }

    /// Like [`reshape`](Tensor::reshape) but always a view:
    /// [`ErrorKind::Shape`](crate::ErrorKind::Shape) when none is possible.
    pub fn view(&self, shape: &[i64]) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_view(self.as_raw(), shape.as_ptr(), len_i64(shape.len()), out) })
    }

    /// Swaps two dims.
    pub fn transpose(&self, dim0: i64, dim1: i64) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_transpose(self.as_raw(), dim0, dim1, out) })
    }

    /// The matrix transpose of a 2-D tensor (`transpose(0, 1)`).
    pub fn t(&self) -> Result<Tensor> {
        self.transpose(0, 1)
    }

    /// Reorders the dims.
    pub fn permute(&self, dims: &[i64]) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_permute(self.as_raw(), dims.as_ptr(), len_i64(dims.len()), out) })
    }

    /// `length` elements of `dim` from `start`.
    pub fn narrow(&self, dim: i64, start: i64, length: i64) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_narrow(self.as_raw(), dim, start, length, out) })
    }

    /// Python's `t[start:end:step]` along `dim` (step > 0; start and end are
    /// clamped; negative ones count from the end).
    pub fn slice(&self, dim: i64, start: i64, end: i64, step: i64) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_slice(self.as_raw(), dim, start, end, step, out) })
    }

    /// `t[..., index, ...]` along `dim`, removing that dim.
    pub fn select(&self, dim: i64, index: i64) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_select(self.as_raw(), dim, index, out) })
    }

    /// Removes `dim` if its size is 1; `None` removes every size-1 dim.
    pub fn squeeze(&self, dim: Option<i64>) -> Result<Tensor> {
        let dim = dim.unwrap_or(sys::TC_DIM_ALL);
        new_tensor(|out| unsafe { sys::tc_squeeze(self.as_raw(), dim, out) })
    }

    /// Inserts a size-1 dim at `dim`.
    pub fn unsqueeze(&self, dim: i64) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_unsqueeze(self.as_raw(), dim, out) })
    }

    /// Broadcasts size-1 dims to `shape` (-1 keeps a size) without copying.
    pub fn expand(&self, shape: &[i64]) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_expand(self.as_raw(), shape.as_ptr(), len_i64(shape.len()), out) })
    }

    /// `self` (a new handle) when contiguous, else a contiguous copy.
    pub fn contiguous(&self) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_contiguous(self.as_raw(), out) })
    }

    /// A contiguous copy with its own storage, differentiable: torch's
    /// `clone()` (`tc_clone`). [`Clone::clone`] only makes a second handle.
    pub fn deep_clone(&self) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_clone(self.as_raw(), out) })
    }
}
