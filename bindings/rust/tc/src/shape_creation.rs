//! Shape, creation and matrix ops after PyTorch: flip, roll, repeat, tile,
//! repeat_interleave, diag, diagonal, pad, movedim, flatten, unflatten,
//! broadcast_to, unbind, outer, dot, bernoulli as `Tensor` methods; eye,
//! linspace, logspace, meshgrid, einsum, randint and randperm as associated
//! functions.
use std::ffi::CString;

use crate::error::{Error, ErrorKind, Result};
use crate::ffi::{len_i64, new_tensor};
use crate::{DType, Device, Tensor};
use tc_sys as sys;

/// How [`Tensor::pad`] fills the border (`torch.nn.functional.pad`'s modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    /// A constant value; negative pads crop.
    Constant,
    /// Mirrored without the edge (each pad smaller than its dim).
    Reflect,
    /// The edge repeated.
    Replicate,
    /// Wrapped around (each pad at most its dim).
    Circular,
}

impl PadMode {
    fn code(self) -> i32 {
        match self {
            PadMode::Constant => sys::TC_PAD_CONSTANT,
            PadMode::Reflect => sys::TC_PAD_REFLECT,
            PadMode::Replicate => sys::TC_PAD_REPLICATE,
            PadMode::Circular => sys::TC_PAD_CIRCULAR,
        }
    }
}

fn raw_handles(tensors: &[&Tensor]) -> Vec<sys::tc_tensor> {
    tensors.iter().map(|t| t.as_raw()).collect()
}

/// Several tensors out: retries once with the exact count when `cap` was too small.
fn handles_out(mut f: impl FnMut(*mut sys::tc_tensor, i64, *mut i64) -> i32) -> Result<Vec<Tensor>> {
    let mut cap = 8i64;
    loop {
        let mut raw: Vec<sys::tc_tensor> = vec![std::ptr::null_mut(); cap as usize];
        let mut count = 0i64;
        let status = f(raw.as_mut_ptr(), cap, &mut count);
        if status != sys::TC_OK {
            let err = Error::from_status(status);
            if count > cap {
                cap = count;
                continue;
            }
            return Err(err);
        }
        return raw[..count.clamp(0, cap) as usize]
            .iter()
            .map(|&h| Tensor::from_owned_raw(h))
            .collect();
    }
}

/// Shape and matrix ops.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::{DType, Device, PadMode, Tensor};
/// let _tc = tc::init()?;
/// let x = Tensor::from_slice(&[0.0f64, 1.0, 2.0, 3.0, 4.0, 5.0], &[2, 3])?;
/// assert_eq!(x.flip(&[1])?.to_vec::<f64>()?, vec![2.0, 1.0, 0.0, 5.0, 4.0, 3.0]);
/// assert_eq!(x.roll(&[1], &[1])?.to_vec::<f64>()?, vec![2.0, 0.0, 1.0, 5.0, 3.0, 4.0]);
/// assert_eq!(x.pad(&[1, 0], PadMode::Reflect, 0.0)?.to_vec::<f64>()?,
///            vec![1.0, 0.0, 1.0, 2.0, 4.0, 3.0, 4.0, 5.0]);
/// let y = Tensor::einsum("ij,kj->ik", &[&x, &x])?;
/// assert_eq!(y.to_vec::<f64>()?, vec![5.0, 14.0, 14.0, 50.0]);
/// assert_eq!(Tensor::eye(2, None, DType::Float32, Device::Cpu)?.to_vec::<f32>()?, vec![1.0, 0.0, 0.0, 1.0]);
/// # Ok(())
/// # }
/// ```
impl Tensor {
    /// Each element repeated `repeats` times along `dim` (`None`: of the flattened tensor).
    pub fn repeat_interleave(&self, repeats: i64, dim: Option<i64>) -> Result<Tensor> {
        let d = dim.unwrap_or(sys::TC_DIM_ALL);
        new_tensor(|out| unsafe { sys::tc_repeat_interleave(self.as_raw(), repeats, d, out) })
    }
    /// Element `i` along `dim` repeated `repeats[i]` times (an int64/int32 tensor).
    pub fn repeat_interleave_tensor(&self, repeats: &Tensor, dim: Option<i64>) -> Result<Tensor> {
        let d = dim.unwrap_or(sys::TC_DIM_ALL);
        new_tensor(|out| unsafe { sys::tc_repeat_interleave_tensor(self.as_raw(), repeats.as_raw(), d, out) })
    }
    /// `torch.nn.functional.pad`: `pad[0]`, `pad[1]` before and after the last dim, then the one before...
    pub fn pad(&self, pad: &[i64], mode: PadMode, value: f64) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_pad(
                self.as_raw(),
                pad.as_ptr(),
                len_i64(pad.len()),
                mode.code(),
                value,
                out,
            )
        })
    }
    /// The slices along `dim` (removed), as views.
    pub fn unbind(&self, dim: i64) -> Result<Vec<Tensor>> {
        handles_out(|outs, cap, count| unsafe { sys::tc_unbind(self.as_raw(), dim, outs, cap, count) })
    }
    /// 0/1 samples (default generator): with probability `self` (floating, in [0, 1]),
    /// or `p` in `self`'s shape and dtype.
    pub fn bernoulli(&self, p: Option<f64>) -> Result<Tensor> {
        match p {
            None => new_tensor(|out| unsafe { sys::tc_bernoulli(self.as_raw(), out) }),
            Some(p) => new_tensor(|out| unsafe { sys::tc_bernoulli_p(self.as_raw(), p, out) }),
        }
    }

    /// Einstein summation like `torch.einsum` ("ij,jk->ik", "...", repeated indices).
    pub fn einsum(equation: &str, operands: &[&Tensor]) -> Result<Tensor> {
        let eq = CString::new(equation).map_err(|_| {
            Error::new(
                ErrorKind::InvalidArgument,
                "einsum: the equation holds a NUL byte",
            )
        })?;
        let raw = raw_handles(operands);
        new_tensor(|out| unsafe { sys::tc_einsum(eq.as_ptr(), raw.as_ptr(), len_i64(raw.len()), out) })
    }
    /// Coordinate grids of 0-D/1-D tensors; `xy` swaps the first two dims (Cartesian indexing).
    pub fn meshgrid(tensors: &[&Tensor], xy: bool) -> Result<Vec<Tensor>> {
        let raw = raw_handles(tensors);
        let indexing = if xy {
            sys::TC_MESHGRID_XY
        } else {
            sys::TC_MESHGRID_IJ
        };
        handles_out(|outs, cap, count| unsafe {
            sys::tc_meshgrid(raw.as_ptr(), len_i64(raw.len()), indexing, outs, cap, count)
        })
    }
    /// An `n` x `m` (default `n`) matrix with ones on the diagonal.
    pub fn eye(n: i64, m: Option<i64>, dtype: DType, device: Device) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_eye(n, m.unwrap_or(-1), dtype.code(), device.raw(), out) })
    }
    /// `steps` values evenly spaced from `start` to `end` inclusive.
    pub fn linspace(start: f64, end: f64, steps: i64, dtype: DType, device: Device) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_linspace(start, end, steps, dtype.code(), device.raw(), out) })
    }
    /// `base ** linspace(start, end, steps)`.
    pub fn logspace(
        start: f64,
        end: f64,
        steps: i64,
        base: f64,
        dtype: DType,
        device: Device,
    ) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_logspace(start, end, steps, base, dtype.code(), device.raw(), out)
        })
    }
    /// Integers uniform in `[low, high)` from the default generator.
    pub fn randint(low: i64, high: i64, shape: &[i64], dtype: DType, device: Device) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_randint(
                low,
                high,
                shape.as_ptr(),
                len_i64(shape.len()),
                dtype.code(),
                device.raw(),
                out,
            )
        })
    }
    /// A random permutation of `0..n` from the default generator.
    pub fn randperm(n: i64, dtype: DType, device: Device) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_randperm(n, dtype.code(), device.raw(), out) })
    }
}
