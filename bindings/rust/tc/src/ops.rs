//! Ops: elementwise, reductions, matmul, shape ops, in-place ops and
//! initializers, and the `std::ops` operators.
use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::error::{check, Error, Result};
use crate::ffi::{len_i64, new_tensor};
use crate::Tensor;
use tc_sys as sys;

type BinaryFn = unsafe extern "C" fn(sys::tc_tensor, sys::tc_tensor, *mut sys::tc_tensor) -> i32;
type ScalarFn = unsafe extern "C" fn(sys::tc_tensor, f64, *mut sys::tc_tensor) -> i32;
type UnaryFn = unsafe extern "C" fn(sys::tc_tensor, *mut sys::tc_tensor) -> i32;
type InplaceFn = unsafe extern "C" fn(sys::tc_tensor, sys::tc_tensor) -> i32;

include!("ops_generated.rs");

impl Tensor {
    fn binary(&self, other: &Tensor, f: BinaryFn) -> Result<Tensor> {
        new_tensor(|out| unsafe { f(self.as_raw(), other.as_raw(), out) })
    }
    fn scalar_op(&self, s: f64, f: ScalarFn) -> Result<Tensor> {
        new_tensor(|out| unsafe { f(self.as_raw(), s, out) })
    }
    fn unary(&self, f: UnaryFn) -> Result<Tensor> {
        new_tensor(|out| unsafe { f(self.as_raw(), out) })
    }
    fn inplace(&mut self, other: &Tensor, f: InplaceFn) -> Result<()> {
        check(unsafe { f(self.as_raw(), other.as_raw()) })
    }
}

/// Elementwise ops with broadcasting and PyTorch's type promotion. Addition,
/// subtraction, multiplication, division and negation are the `+ - * /`
/// and unary `-` operators (see [`Tensor`]).
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::Tensor;
/// let _tc = tc::init()?;
/// let a = Tensor::from_slice(&[1.0f32, -2.0, 3.0], &[3])?;
/// let b = Tensor::from_slice(&[2.0f32, 2.0, 2.0], &[3])?;
/// assert_eq!(a.pow(&b)?.to_vec::<f32>()?, vec![1.0, 4.0, 9.0]);
/// assert_eq!(a.maximum(&b)?.to_vec::<f32>()?, vec![2.0, 2.0, 3.0]);
/// assert_eq!(a.gt(&b)?.to_vec_bool()?, vec![false, false, true]);
/// assert_eq!(a.abs()?.to_vec::<f32>()?, vec![1.0, 2.0, 3.0]);
/// assert_eq!(a.relu()?.to_vec::<f32>()?, vec![1.0, 0.0, 3.0]);
/// assert_eq!(a.clamp(Some(0.0), Some(2.0))?.to_vec::<f32>()?, vec![1.0, 0.0, 2.0]);
/// assert_eq!((10.0 - &a)?.to_vec::<f32>()?, vec![9.0, 12.0, 7.0]);
/// # Ok(()) }
/// ```
///
/// The methods of the elementwise families (`pow`, `maximum`, `eq`, `abs`,
/// `exp`, ...) are generated from ops/ops.toml into `ops_generated.rs`.
impl Tensor {
    /// `cond ? a : b` elementwise, broadcasting all three; `cond` is bool.
    pub fn where_cond(cond: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_where(cond.as_raw(), a.as_raw(), b.as_raw(), out) })
    }
    /// Clamps to `[lo, hi]`; `None` leaves that side unbounded.
    pub fn clamp(&self, lo: Option<f64>, hi: Option<f64>) -> Result<Tensor> {
        let (lo, hi) = (lo.unwrap_or(f64::NAN), hi.unwrap_or(f64::NAN));
        new_tensor(|out| unsafe { sys::tc_clamp(self.as_raw(), lo, hi, out) })
    }
}

/// Reductions. `dims` empty means every dim; `keepdim` keeps reduced dims
/// with size 1.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::Tensor;
/// let _tc = tc::init()?;
/// let x = Tensor::from_slice(&[1.0f64, 5.0, 3.0, 4.0, 2.0, 6.0], &[2, 3])?;
/// assert_eq!(x.sum(&[1], false)?.to_vec::<f64>()?, vec![9.0, 12.0]);
/// assert_eq!(x.mean(&[0], true)?.shape()?, vec![1, 3]);
/// assert_eq!(x.max()?.item()?, 6.0);
/// let (values, indices) = x.max_dim(1, false)?;
/// assert_eq!(values.to_vec::<f64>()?, vec![5.0, 6.0]);
/// assert_eq!(indices.to_vec::<i64>()?, vec![1, 2]);
/// assert_eq!(x.argmax(None, false)?.item()?, 5.0);
/// # Ok(()) }
/// ```
impl Tensor {
    /// Sum of every element (a 0-dim tensor).
    pub fn sum_all(&self) -> Result<Tensor> {
        self.sum(&[], false)
    }
    /// Mean of every element (a 0-dim tensor).
    pub fn mean_all(&self) -> Result<Tensor> {
        self.mean(&[], false)
    }
    /// int64 index of the maximum along `dim`, or over the flattened tensor
    /// for `None`.
    pub fn argmax(&self, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
        let dim = dim.unwrap_or(sys::TC_DIM_ALL);
        new_tensor(|out| unsafe { sys::tc_argmax(self.as_raw(), dim, i32::from(keepdim), out) })
    }
    /// int64 index of the minimum along `dim`, or over the flattened tensor
    /// for `None`.
    pub fn argmin(&self, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
        let dim = dim.unwrap_or(sys::TC_DIM_ALL);
        new_tensor(|out| unsafe { sys::tc_argmin(self.as_raw(), dim, i32::from(keepdim), out) })
    }
}

/// Linear algebra.
impl Tensor {
}

/// How a loss reduces over the batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Reduction {
    /// One loss per element.
    None,
    /// Their mean.
    #[default]
    Mean,
    /// Their sum.
    Sum,
}

impl Reduction {
    pub(crate) fn code(self) -> i32 {
        match self {
            Reduction::None => sys::TC_REDUCTION_NONE,
            Reduction::Mean => sys::TC_REDUCTION_MEAN,
            Reduction::Sum => sys::TC_REDUCTION_SUM,
        }
    }
}

/// Neural-network ops.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::{Reduction, Tensor};
/// let _tc = tc::init()?;
/// let logits = Tensor::from_slice(&[0.0f32, 0.0, 0.0, 0.0], &[2, 2])?;
/// let target = Tensor::from_slice(&[0i64, 1], &[2])?;
/// let loss = logits.cross_entropy(&target, Reduction::Mean)?;
/// assert!((loss.item()? - std::f64::consts::LN_2).abs() < 1e-6);
/// assert_eq!(logits.softmax(1)?.to_vec::<f32>()?, vec![0.5; 4]);
/// # Ok(()) }
/// ```
impl Tensor {
    /// 2-D max pooling of `[N, C, H, W]`; `stride` `None` means `kernel`.
    pub fn max_pool2d(
        &self,
        kernel: [i64; 2],
        stride: Option<[i64; 2]>,
        padding: [i64; 2],
    ) -> Result<Tensor> {
        let stride_ptr = stride.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
        new_tensor(|out| unsafe {
            sys::tc_max_pool2d(self.as_raw(), kernel.as_ptr(), stride_ptr, padding.as_ptr(), out)
        })
    }
    /// 2-D average pooling (padding counts in the divisor, like PyTorch).
    pub fn avg_pool2d(
        &self,
        kernel: [i64; 2],
        stride: Option<[i64; 2]>,
        padding: [i64; 2],
    ) -> Result<Tensor> {
        let stride_ptr = stride.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
        new_tensor(|out| unsafe {
            sys::tc_avg_pool2d(self.as_raw(), kernel.as_ptr(), stride_ptr, padding.as_ptr(), out)
        })
    }
    /// Rows of `weight` `[num, dim]` at int64 `indices`: shape
    /// `indices.shape + [dim]`.
    pub fn embedding(weight: &Tensor, indices: &Tensor) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_embedding(weight.as_raw(), indices.as_raw(), out) })
    }
}

fn raw_list(tensors: &[&Tensor]) -> Vec<sys::tc_tensor> {
    tensors.iter().map(|t| t.as_raw()).collect()
}

/// Shape ops.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::Tensor;
/// let _tc = tc::init()?;
/// let a = Tensor::from_slice(&[1i64, 2], &[2])?;
/// let b = Tensor::from_slice(&[3i64, 4], &[2])?;
/// assert_eq!(Tensor::cat(&[&a, &b], 0)?.to_vec::<i64>()?, vec![1, 2, 3, 4]);
/// assert_eq!(Tensor::stack(&[&a, &b], 0)?.shape()?, vec![2, 2]);
/// let parts = Tensor::arange(0.0, 5.0, 1.0, tc::DType::Int64, tc::Device::Cpu)?.split(2, 0)?;
/// assert_eq!(parts.len(), 3);
/// assert_eq!(parts[2].to_vec::<i64>()?, vec![4]);
/// assert_eq!(b.one_hot(Some(5))?.shape()?, vec![2, 5]);
/// # Ok(()) }
/// ```
impl Tensor {
    /// Concatenates along `dim`.
    pub fn cat(tensors: &[&Tensor], dim: i64) -> Result<Tensor> {
        let raw = raw_list(tensors);
        new_tensor(|out| unsafe { sys::tc_cat(raw.as_ptr(), len_i64(raw.len()), dim, out) })
    }
    /// Stacks along a new dim `dim`.
    pub fn stack(tensors: &[&Tensor], dim: i64) -> Result<Tensor> {
        let raw = raw_list(tensors);
        new_tensor(|out| unsafe { sys::tc_stack(raw.as_ptr(), len_i64(raw.len()), dim, out) })
    }
    fn pieces(&self, mut f: impl FnMut(*mut sys::tc_tensor, i64, *mut i64) -> i32) -> Result<Vec<Tensor>> {
        // A guess first; tc.h: a too small cap fails with *count set and no
        // handles made, so retry once with the exact count.
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
            let owned: Vec<Result<Tensor>> = raw[..count.clamp(0, cap) as usize]
                .iter()
                .map(|&h| Tensor::from_owned_raw(h))
                .collect();
            return owned.into_iter().collect();
        }
    }
    /// Splits along `dim` into views of `split_size` (the last may be smaller).
    pub fn split(&self, split_size: i64, dim: i64) -> Result<Vec<Tensor>> {
        self.pieces(|outs, cap, count| unsafe {
            sys::tc_split(self.as_raw(), split_size, dim, outs, cap, count)
        })
    }
    /// Splits along `dim` into `chunks` views.
    pub fn chunk(&self, chunks: i64, dim: i64) -> Result<Vec<Tensor>> {
        self.pieces(|outs, cap, count| unsafe { sys::tc_chunk(self.as_raw(), chunks, dim, outs, cap, count) })
    }
    /// int64 one-hot of int64 indices; `None` classes: max index + 1.
    pub fn one_hot(&self, num_classes: Option<i64>) -> Result<Tensor> {
        let n = num_classes.unwrap_or(-1);
        new_tensor(|out| unsafe { sys::tc_one_hot(self.as_raw(), n, out) })
    }
}

/// In-place ops: they change `self`'s data (and bump its version), so they
/// take `&mut self` (see "Threads" on [`Tensor`]). `other` broadcasts to
/// `self`'s shape; the result dtype must be `self`'s.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::{DType, Device, Tensor};
/// let _tc = tc::init()?;
/// let mut x = Tensor::zeros(&[3], DType::Float32, Device::Cpu)?;
/// x.fill_(2.0)?;
/// x.mul_(&Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3])?)?;
/// assert_eq!(x.to_vec::<f32>()?, vec![2.0, 4.0, 6.0]);
/// assert!(x.version()? >= 2);
/// # Ok(()) }
/// ```
impl Tensor {
    /// `self += other`.
    pub fn add_(&mut self, other: &Tensor) -> Result<()> {
        self.inplace(other, sys::tc_add_)
    }
    /// `self -= other`.
    pub fn sub_(&mut self, other: &Tensor) -> Result<()> {
        self.inplace(other, sys::tc_sub_)
    }
    /// `self *= other`.
    pub fn mul_(&mut self, other: &Tensor) -> Result<()> {
        self.inplace(other, sys::tc_mul_)
    }
    /// `self /= other`.
    pub fn div_(&mut self, other: &Tensor) -> Result<()> {
        self.inplace(other, sys::tc_div_)
    }
    /// Copies `src`'s values into `self` (broadcasting, converting dtype).
    pub fn copy_(&mut self, src: &Tensor) -> Result<()> {
        self.inplace(src, sys::tc_copy_)
    }
    /// Sets every element to zero.
    pub fn zero_(&mut self) -> Result<()> {
        check(unsafe { sys::tc_zero_(self.as_raw()) })
    }
    /// Sets every element to `value`.
    pub fn fill_(&mut self, value: f64) -> Result<()> {
        check(unsafe { sys::tc_fill_(self.as_raw(), value) })
    }
    /// Fills with uniform samples in `[low, high)` (never recorded).
    pub fn uniform_(&mut self, low: f64, high: f64) -> Result<()> {
        check(unsafe { sys::tc_uniform_(self.as_raw(), low, high) })
    }
    /// Fills with normal samples (never recorded).
    pub fn normal_(&mut self, mean: f64, std: f64) -> Result<()> {
        check(unsafe { sys::tc_normal_(self.as_raw(), mean, std) })
    }
    /// `torch.nn.init.kaiming_uniform_(t, a, mode='fan_in', nonlinearity='leaky_relu')`.
    pub fn kaiming_uniform_(&mut self, a: f64) -> Result<()> {
        check(unsafe { sys::tc_kaiming_uniform_(self.as_raw(), a) })
    }
    /// `torch.nn.init.xavier_uniform_(t, gain)`.
    pub fn xavier_uniform_(&mut self, gain: f64) -> Result<()> {
        check(unsafe { sys::tc_xavier_uniform_(self.as_raw(), gain) })
    }
}

// ---- std::ops --------------------------------------------------------------
//
// Every operator returns Result<Tensor>: libtc checks shapes and dtypes at run
// time, and a panicking operator would hide that. Write `(&a + &b)?`.

macro_rules! binary_operator {
    ($trait:ident, $method:ident, $tensor_fn:path, $scalar_fn:path, $rscalar:expr) => {
        impl $trait<&Tensor> for &Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                self.binary(rhs, $tensor_fn)
            }
        }
        impl $trait<Tensor> for &Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Tensor) -> Result<Tensor> {
                self.binary(&rhs, $tensor_fn)
            }
        }
        impl $trait<&Tensor> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                self.binary(rhs, $tensor_fn)
            }
        }
        impl $trait<Tensor> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Tensor) -> Result<Tensor> {
                self.binary(&rhs, $tensor_fn)
            }
        }
        impl $trait<f64> for &Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: f64) -> Result<Tensor> {
                self.scalar_op(rhs, $scalar_fn)
            }
        }
        impl $trait<f64> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: f64) -> Result<Tensor> {
                self.scalar_op(rhs, $scalar_fn)
            }
        }
        impl $trait<&Tensor> for f64 {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                let f: fn(&Tensor, f64) -> Result<Tensor> = $rscalar;
                f(rhs, self)
            }
        }
        impl $trait<Tensor> for f64 {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Tensor) -> Result<Tensor> {
                let f: fn(&Tensor, f64) -> Result<Tensor> = $rscalar;
                f(&rhs, self)
            }
        }
    };
}

binary_operator!(Add, add, sys::tc_add, sys::tc_add_scalar, |t, s| t
    .scalar_op(s, sys::tc_add_scalar));
binary_operator!(Sub, sub, sys::tc_sub, sys::tc_sub_scalar, |t, s| t
    .scalar_op(s, sys::tc_rsub_scalar));
binary_operator!(Mul, mul, sys::tc_mul, sys::tc_mul_scalar, |t, s| t
    .scalar_op(s, sys::tc_mul_scalar));
binary_operator!(Div, div, sys::tc_div, sys::tc_div_scalar, |t, s| t
    .scalar_op(s, sys::tc_rdiv_scalar));

impl Neg for &Tensor {
    type Output = Result<Tensor>;
    fn neg(self) -> Result<Tensor> {
        self.unary(sys::tc_neg)
    }
}

impl Neg for Tensor {
    type Output = Result<Tensor>;
    fn neg(self) -> Result<Tensor> {
        self.unary(sys::tc_neg)
    }
}
