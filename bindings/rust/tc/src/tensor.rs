//! [`Tensor`]: one owned libtc handle; creation, accessors and conversions.
use std::ffi::c_void;
use std::fmt;

use crate::dtype::{unknown_dtype, DType, Device, Element};
use crate::error::{check, Error, ErrorKind, Result};
use crate::ffi::{copy_string, len_i64, new_tensor};
use tc_sys as sys;

/// A tensor: one owned libtc handle (`tc_tensor`).
///
/// * Drop frees the handle (`tc_tensor_free`); [`Clone`] makes a second
///   handle to the *same* tensor (`tc_tensor_retain`: same data, same
///   autograd identity), like `Arc::clone`. [`deep_clone`](Tensor::deep_clone)
///   copies the data.
/// * Every fallible operation returns [`Result`](crate::Result); the
///   arithmetic operators (`+ - * /` and unary `-`, between tensors,
///   references and `f64`) return `Result<Tensor>` too, since shapes and
///   dtypes are checked by libtc at run time.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::{Device, DType, Tensor};
/// let _tc = tc::init()?;
/// let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// let y = ((&x * 2.0)? + 1.0)?;
/// assert_eq!(y.to_vec::<f32>()?, vec![3.0, 5.0, 7.0, 9.0]);
/// assert_eq!(y.shape()?, vec![2, 2]);
/// assert_eq!(y.dtype()?, DType::Float32);
/// assert_eq!(y.device()?, Device::Cpu);
/// # Ok(()) }
/// ```
///
/// # Threads
///
/// `Tensor` is [`Send`] and [`Sync`], exactly as tc.h's thread rules allow:
///
/// * "every function may be called from any thread": a handle is not tied
///   to the thread that made it, so a tensor may move to another thread and be
///   freed there (`Send`);
/// * "a tensor may be read from many threads at once": every method taking
///   `&self` only reads the tensor's data (ops make new tensors), so shared
///   references may be used concurrently (`Sync`);
/// * "writing to a tensor (in-place ops, backward into its grad) while another
///   thread uses it is a data race on the tensor's data (never on libtc's own
///   bookkeeping)": the in-place methods (`add_`, `fill_`, `uniform_`, ...)
///   therefore take `&mut self`, so the borrow checker rules out writing
///   through this value while it is shared. Handles made by [`Clone`], views
///   and [`grad`](Tensor::grad) share data with the original, like `Arc`
///   clones of one buffer: Rust cannot see that aliasing, so do not write
///   through one of them while another thread reads another one, and do not
///   run [`backward`](Tensor::backward) on graphs sharing leaves from two
///   threads at once. Such a race can give wrong numbers, never a crash or
///   corruption of libtc's handles and graph.
pub struct Tensor {
    raw: sys::tc_tensor,
}

// SAFETY: see "Threads" above: libtc's handle table and bookkeeping are
// thread-safe; `&self` methods only read tensor data; writes need `&mut self`.
unsafe impl Send for Tensor {}
unsafe impl Sync for Tensor {}

impl Drop for Tensor {
    fn drop(&mut self) {
        if !self.raw.is_null() {
            // A stale handle (after the last tc_shutdown) gives
            // TC_ERR_INVALID_HANDLE: nothing is left to free then.
            let _ = unsafe { sys::tc_tensor_free(self.raw) };
        }
    }
}

impl Tensor {
    /// Frees many tensors' handles in one call (`tc_tensor_free_many`), as
    /// dropping each would one by one: for a loop that drops many small
    /// tensors at once. Every tensor is freed whatever the result.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidHandle`] when a handle was already stale (after the
    /// last `tc_shutdown`); the other handles are freed all the same.
    ///
    /// ```
    /// # fn main() -> Result<(), tc::Error> {
    /// use tc::Tensor;
    /// let _tc = tc::init()?;
    /// let x = Tensor::from_slice(&[1.0f32, 2.0], &[2])?;
    /// let parts = vec![(&x + 1.0)?, (&x * 2.0)?, x.clone()];
    /// Tensor::drop_many(parts)?;
    /// assert_eq!(x.to_vec::<f32>()?, vec![1.0, 2.0]);
    /// # Ok(()) }
    /// ```
    pub fn drop_many(tensors: Vec<Tensor>) -> Result<()> {
        let raws: Vec<sys::tc_tensor> = tensors
            .into_iter()
            .map(std::mem::ManuallyDrop::new) // the call below frees them
            .map(|t| t.raw)
            .filter(|raw| !raw.is_null()) // a clone of a stale tensor holds nothing
            .collect();
        check(unsafe { sys::tc_tensor_free_many(raws.as_ptr(), len_i64(raws.len())) })
    }
}

impl Clone for Tensor {
    /// A second handle to the same tensor (`tc_tensor_retain`). Cloning a
    /// stale tensor (after the last shutdown) gives another stale tensor,
    /// whose every use is an [`ErrorKind::InvalidHandle`] error.
    fn clone(&self) -> Tensor {
        let mut out: sys::tc_tensor = std::ptr::null_mut();
        if unsafe { sys::tc_tensor_retain(self.raw, &mut out) } != sys::TC_OK {
            out = std::ptr::null_mut();
        }
        Tensor { raw: out }
    }
}

fn shape_len(shape: &[i64]) -> i64 {
    len_i64(shape.len())
}

fn numel_of(shape: &[i64]) -> Result<usize> {
    shape.iter().try_fold(1usize, |acc, &d| {
        let d = usize::try_from(d)
            .map_err(|_| Error::new(ErrorKind::Shape, format!("negative size in {shape:?}")))?;
        acc.checked_mul(d)
            .ok_or_else(|| Error::new(ErrorKind::OutOfMemory, format!("shape {shape:?} too large")))
    })
}

/// Drops a boxed `Vec<T>` that `tc_from_blob` no longer needs.
unsafe extern "C" fn drop_boxed_vec<T>(_data: *mut c_void, context: *mut c_void) {
    drop(Box::from_raw(context.cast::<Vec<T>>()));
}

/// Creation.
impl Tensor {
    /// Wraps a handle this crate owns (from an out-param).
    pub(crate) fn from_owned_raw(raw: sys::tc_tensor) -> Result<Tensor> {
        if raw.is_null() {
            return Err(Error::new(
                ErrorKind::Internal,
                "libtc returned TC_OK and a NULL tensor",
            ));
        }
        Ok(Tensor { raw })
    }

    /// Takes ownership of a raw handle (one reference), e.g. from `tc_sys`.
    ///
    /// # Safety
    /// `raw` must be a handle the caller owns and does not free itself.
    pub unsafe fn from_raw(raw: sys::tc_tensor) -> Result<Tensor> {
        Tensor::from_owned_raw(raw)
    }

    /// The raw handle, still owned by `self` (for calls through `tc_sys`).
    pub fn as_raw(&self) -> sys::tc_tensor {
        self.raw
    }

    /// Gives up ownership of the handle; the caller must free it.
    pub fn into_raw(self) -> sys::tc_tensor {
        let raw = self.raw;
        std::mem::forget(self);
        raw
    }

    /// Uninitialized data (`tc_empty`).
    pub fn empty(shape: &[i64], dtype: DType, device: Device) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_empty(shape.as_ptr(), shape_len(shape), dtype.code(), device.raw(), out)
        })
    }

    /// Zeros (`tc_zeros`).
    ///
    /// ```
    /// # fn main() -> Result<(), tc::Error> {
    /// let _tc = tc::init()?;
    /// let z = tc::Tensor::zeros(&[2, 3], tc::DType::Int64, tc::Device::Cpu)?;
    /// assert_eq!(z.to_vec::<i64>()?, vec![0; 6]);
    /// # Ok(()) }
    /// ```
    pub fn zeros(shape: &[i64], dtype: DType, device: Device) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_zeros(shape.as_ptr(), shape_len(shape), dtype.code(), device.raw(), out)
        })
    }

    /// Ones (`tc_ones`).
    pub fn ones(shape: &[i64], dtype: DType, device: Device) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_ones(shape.as_ptr(), shape_len(shape), dtype.code(), device.raw(), out)
        })
    }

    /// Every element `value` (`tc_full`).
    pub fn full(shape: &[i64], value: f64, dtype: DType, device: Device) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_full(
                shape.as_ptr(),
                shape_len(shape),
                value,
                dtype.code(),
                device.raw(),
                out,
            )
        })
    }

    /// `[start, end)` by `step`, like `torch.arange` (`tc_arange`).
    ///
    /// ```
    /// # fn main() -> Result<(), tc::Error> {
    /// let _tc = tc::init()?;
    /// let r = tc::Tensor::arange(0.0, 5.0, 2.0, tc::DType::Int64, tc::Device::Cpu)?;
    /// assert_eq!(r.to_vec::<i64>()?, vec![0, 2, 4]);
    /// # Ok(()) }
    /// ```
    pub fn arange(start: f64, end: f64, step: f64, dtype: DType, device: Device) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_arange(start, end, step, dtype.code(), device.raw(), out) })
    }

    /// Uniform samples in [0, 1) from the default generator (`tc_rand`).
    pub fn rand(shape: &[i64], dtype: DType, device: Device) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_rand(shape.as_ptr(), shape_len(shape), dtype.code(), device.raw(), out)
        })
    }

    /// Standard normal samples from the default generator (`tc_randn`).
    pub fn randn(shape: &[i64], dtype: DType, device: Device) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_randn(shape.as_ptr(), shape_len(shape), dtype.code(), device.raw(), out)
        })
    }

    /// A CPU tensor of `shape` holding a copy of `data` (`tc_from_data`).
    /// `data.len()` must equal the product of `shape`
    /// ([`ErrorKind::Shape`] otherwise).
    ///
    /// ```
    /// # fn main() -> Result<(), tc::Error> {
    /// let _tc = tc::init()?;
    /// let t = tc::Tensor::from_slice(&[1i64, 2, 3, 4, 5, 6], &[2, 3])?;
    /// assert_eq!(t.dtype()?, tc::DType::Int64);
    /// let err = tc::Tensor::from_slice(&[1.0f64, 2.0], &[3]).unwrap_err();
    /// assert_eq!(err.kind(), tc::ErrorKind::Shape);
    /// # Ok(()) }
    /// ```
    pub fn from_slice<T: Element>(data: &[T], shape: &[i64]) -> Result<Tensor> {
        let n = numel_of(shape)?;
        if n != data.len() {
            return Err(Error::new(
                ErrorKind::Shape,
                format!(
                    "{} elements do not fill shape {shape:?} ({n} elements)",
                    data.len()
                ),
            ));
        }
        let nbytes = std::mem::size_of_val(data) as i64;
        new_tensor(|out| unsafe {
            sys::tc_from_data(
                data.as_ptr().cast(),
                nbytes,
                shape.as_ptr(),
                shape_len(shape),
                T::DTYPE.code(),
                out,
            )
        })
    }

    /// A CPU tensor of `shape` over `data`'s buffer without copying
    /// (`tc_from_blob`): libtc drops the `Vec` when the last tensor using it
    /// dies. `data.len()` must equal the product of `shape`.
    ///
    /// ```
    /// # fn main() -> Result<(), tc::Error> {
    /// let _tc = tc::init()?;
    /// let t = tc::Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3])?;
    /// assert_eq!(t.sum_all()?.item()?, 6.0);
    /// # Ok(()) }
    /// ```
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[i64]) -> Result<Tensor> {
        let n = numel_of(shape)?;
        if n != data.len() {
            return Err(Error::new(
                ErrorKind::Shape,
                format!(
                    "{} elements do not fill shape {shape:?} ({n} elements)",
                    data.len()
                ),
            ));
        }
        if data.is_empty() {
            // No buffer to lend: an empty Vec's pointer is dangling.
            return Tensor::from_slice(&data, shape);
        }
        let mut boxed = Box::new(data);
        let ptr = boxed.as_mut_ptr().cast::<c_void>();
        let context = Box::into_raw(boxed).cast::<c_void>();
        // SAFETY: libtc calls the deleter exactly once (also when this call
        // fails), so the Vec is dropped exactly once and outlives every use.
        new_tensor(|out| unsafe {
            sys::tc_from_blob(
                ptr,
                shape.as_ptr(),
                std::ptr::null(),
                shape_len(shape),
                T::DTYPE.code(),
                Some(drop_boxed_vec::<T>),
                context,
                out,
            )
        })
    }

    /// A 0-dim tensor holding `value`.
    pub fn scalar<T: Element>(value: T) -> Result<Tensor> {
        Tensor::from_slice(&[value], &[])
    }
}

/// Accessors.
impl Tensor {
    /// The element type.
    pub fn dtype(&self) -> Result<DType> {
        let mut code = 0i32;
        check(unsafe { sys::tc_tensor_dtype(self.raw, &mut code) })?;
        DType::from_code(code).ok_or_else(|| unknown_dtype(code))
    }

    /// The device.
    pub fn device(&self) -> Result<Device> {
        let mut raw = 0i32;
        check(unsafe { sys::tc_tensor_device(self.raw, &mut raw) })?;
        Device::from_raw(raw)
            .ok_or_else(|| Error::new(ErrorKind::Device, format!("unknown device {raw:#x} from libtc")))
    }

    /// The number of dims.
    pub fn ndim(&self) -> Result<usize> {
        let mut n = 0i64;
        check(unsafe { sys::tc_tensor_ndim(self.raw, &mut n) })?;
        Ok(n as usize)
    }

    /// The sizes of the dims.
    pub fn shape(&self) -> Result<Vec<i64>> {
        let mut buf = [0i64; sys::TC_MAX_DIMS as usize];
        let n = self.ndim()?;
        check(unsafe { sys::tc_tensor_shape(self.raw, buf.as_mut_ptr(), buf.len() as i64) })?;
        Ok(buf[..n].to_vec())
    }

    /// The size of dim `dim` (negative counts from the end).
    pub fn size(&self, dim: i64) -> Result<i64> {
        let shape = self.shape()?;
        let n = shape.len() as i64;
        let d = if dim < 0 { dim + n } else { dim };
        if !(0..n).contains(&d) {
            return Err(Error::new(
                ErrorKind::Index,
                format!("dim {dim} out of range for {n} dims"),
            ));
        }
        Ok(shape[d as usize])
    }

    /// The strides, in elements.
    pub fn strides(&self) -> Result<Vec<i64>> {
        let mut buf = [0i64; sys::TC_MAX_DIMS as usize];
        let n = self.ndim()?;
        check(unsafe { sys::tc_tensor_strides(self.raw, buf.as_mut_ptr(), buf.len() as i64) })?;
        Ok(buf[..n].to_vec())
    }

    /// The number of elements.
    pub fn numel(&self) -> Result<usize> {
        let mut n = 0i64;
        check(unsafe { sys::tc_tensor_numel(self.raw, &mut n) })?;
        Ok(n as usize)
    }

    /// The offset of element `[0, 0, ...]` in the storage, in elements.
    pub fn storage_offset(&self) -> Result<i64> {
        let mut n = 0i64;
        check(unsafe { sys::tc_tensor_storage_offset(self.raw, &mut n) })?;
        Ok(n)
    }

    /// Whether the elements are contiguous in row-major order.
    pub fn is_contiguous(&self) -> Result<bool> {
        let mut b = 0i32;
        check(unsafe { sys::tc_tensor_is_contiguous(self.raw, &mut b) })?;
        Ok(b != 0)
    }

    /// Bytes per element.
    pub fn element_size(&self) -> Result<usize> {
        let mut n = 0i64;
        check(unsafe { sys::tc_tensor_element_size(self.raw, &mut n) })?;
        Ok(n as usize)
    }

    /// The address of element `[0, 0, ...]` (NULL for an empty tensor), valid
    /// while the tensor (and libtc) lives. Reading or writing through it is
    /// up to the caller (`unsafe`); [`to_vec`](Tensor::to_vec) is the safe way.
    pub fn data_ptr(&self) -> Result<*mut c_void> {
        let mut p: *mut c_void = std::ptr::null_mut();
        check(unsafe { sys::tc_tensor_data_ptr(self.raw, &mut p) })?;
        Ok(p)
    }

    /// The value of a one-element tensor, as `f64`.
    pub fn item(&self) -> Result<f64> {
        let mut v = 0f64;
        check(unsafe { sys::tc_tensor_item(self.raw, &mut v) })?;
        Ok(v)
    }

    /// The version counter, bumped by every in-place change (shared by views).
    pub fn version(&self) -> Result<i64> {
        let mut v = 0i64;
        check(unsafe { sys::tc_tensor_version(self.raw, &mut v) })?;
        Ok(v)
    }

    /// Whether `self` and `other` are handles of the same tensor.
    pub fn is_same(&self, other: &Tensor) -> Result<bool> {
        let mut b = 0i32;
        check(unsafe { sys::tc_tensor_same(self.raw, other.raw, &mut b) })?;
        Ok(b != 0)
    }

    /// Marks the tensor's memory (every view of it) read-only for good:
    /// writes into it (in-place ops, initializers, optimizer steps) then fail
    /// with `ErrorKind::InvalidArgument`, as writing a read-only numpy array does.
    pub fn set_readonly(&self) -> Result<()> {
        check(unsafe { sys::tc_tensor_set_readonly(self.raw) })
    }

    /// Whether the tensor's memory is read-only (`set_readonly`, or a DLPack
    /// import its producer flagged read-only).
    pub fn is_readonly(&self) -> Result<bool> {
        let mut b = 0i32;
        check(unsafe { sys::tc_tensor_is_readonly(self.raw, &mut b) })?;
        Ok(b != 0)
    }

    /// A printout like PyTorch's (`tc_tensor_to_string`); `Display` shows it.
    pub fn to_text(&self) -> Result<String> {
        copy_string(|buf, cap, needed| unsafe { sys::tc_tensor_to_string(self.raw, buf, cap, needed) })
    }
}

/// Conversions to Rust data.
impl Tensor {
    fn check_dtype<T: Element>(&self, what: &str) -> Result<()> {
        let dtype = self.dtype()?;
        if dtype != T::DTYPE {
            return Err(Error::new(
                ErrorKind::Dtype,
                format!(
                    "tensor is {dtype}, {what} needs {} (convert with to_dtype first)",
                    T::DTYPE
                ),
            ));
        }
        Ok(())
    }

    /// Copies the elements in row-major order into `out` (`tc_tensor_copy_to`),
    /// for any strides and device. `T` must be the tensor's dtype
    /// ([`ErrorKind::Dtype`]) and `out.len()` its numel ([`ErrorKind::Shape`]).
    pub fn copy_to_slice<T: Element>(&self, out: &mut [T]) -> Result<()> {
        self.check_dtype::<T>("copy_to_slice")?;
        let n = self.numel()?;
        if n != out.len() {
            return Err(Error::new(
                ErrorKind::Shape,
                format!("tensor has {n} elements, slice has {}", out.len()),
            ));
        }
        let nbytes = std::mem::size_of_val(out) as i64;
        check(unsafe { sys::tc_tensor_copy_to(self.raw, out.as_mut_ptr().cast(), nbytes) })
    }

    /// The elements in row-major order. `T` must be the tensor's dtype:
    /// no silent conversion ([`ErrorKind::Dtype`] otherwise).
    ///
    /// ```
    /// # fn main() -> Result<(), tc::Error> {
    /// let _tc = tc::init()?;
    /// let t = tc::Tensor::from_slice(&[1.5f64, 2.5], &[2])?;
    /// assert_eq!(t.to_vec::<f64>()?, vec![1.5, 2.5]);
    /// assert_eq!(t.to_vec::<f32>().unwrap_err().kind(), tc::ErrorKind::Dtype);
    /// # Ok(()) }
    /// ```
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        self.check_dtype::<T>("to_vec")?;
        let n = self.numel()?;
        let mut out = Vec::<T>::with_capacity(n);
        let nbytes = (n * std::mem::size_of::<T>()) as i64;
        check(unsafe { sys::tc_tensor_copy_to(self.raw, out.as_mut_ptr().cast(), nbytes) })?;
        // SAFETY: libtc wrote all n elements.
        unsafe { out.set_len(n) };
        Ok(out)
    }

    /// The elements of a bool tensor (comparisons make them).
    pub fn to_vec_bool(&self) -> Result<Vec<bool>> {
        let dtype = self.dtype()?;
        if dtype != DType::Bool {
            return Err(Error::new(
                ErrorKind::Dtype,
                format!("tensor is {dtype}, to_vec_bool needs bool"),
            ));
        }
        let n = self.numel()?;
        let mut bytes = vec![0u8; n];
        check(unsafe { sys::tc_tensor_copy_to(self.raw, bytes.as_mut_ptr().cast(), n as i64) })?;
        Ok(bytes.into_iter().map(|b| b != 0).collect())
    }
}

macro_rules! vec_conversions {
    ($($t:ty),*) => {$(
        impl TryFrom<Vec<$t>> for Tensor {
            type Error = Error;
            /// A 1-D tensor over the vector (no copy).
            fn try_from(v: Vec<$t>) -> Result<Tensor> {
                let n = v.len() as i64;
                Tensor::from_vec(v, &[n])
            }
        }
        impl TryFrom<&[$t]> for Tensor {
            type Error = Error;
            /// A 1-D tensor holding a copy of the slice.
            fn try_from(v: &[$t]) -> Result<Tensor> {
                Tensor::from_slice(v, &[v.len() as i64])
            }
        }
        impl TryFrom<&Tensor> for Vec<$t> {
            type Error = Error;
            /// The elements, with a dtype check (see [`Tensor::to_vec`]).
            fn try_from(t: &Tensor) -> Result<Vec<$t>> {
                t.to_vec::<$t>()
            }
        }
        impl TryFrom<Tensor> for Vec<$t> {
            type Error = Error;
            /// The elements, with a dtype check (see [`Tensor::to_vec`]).
            fn try_from(t: Tensor) -> Result<Vec<$t>> {
                t.to_vec::<$t>()
            }
        }
    )*};
}
vec_conversions!(f32, f64, i8, i16, i32, i64, u8);

impl fmt::Display for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_text() {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(f, "<tensor: {e}>"),
        }
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.shape(), self.dtype(), self.device()) {
            (Ok(shape), Ok(dtype), Ok(device)) => {
                write!(
                    f,
                    "Tensor {{ shape: {shape:?}, dtype: {dtype}, device: {device} }}"
                )
            }
            _ => write!(f, "Tensor {{ invalid handle {:p} }}", self.raw),
        }
    }
}
