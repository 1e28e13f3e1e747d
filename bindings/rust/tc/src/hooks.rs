//! Custom autograd functions with closures, tensor hooks, the graph's nodes
//! and the general constructor (tc.h: `tc_function_apply`,
//! `tc_tensor_register_*hook`, `tc_node_*`, `tc_tensor_new`).
//!
//! Closures run inside libtc calls (backward, apply). An `Err` they return,
//! or a panic (caught: it never unwinds into C), fails the libtc call with
//! the closure's message (`TC_ERR_CALLBACK` for panics).
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::{check, Error, ErrorKind, Result};
use crate::ffi::{copy_string, len_i64, new_tensor};
use crate::{DType, Device, Tensor};
use tc_sys as sys;

/// A handle lent by libtc for the duration of a callback, as a Tensor of our own.
pub(crate) fn borrow(h: sys::tc_tensor) -> Result<Tensor> {
    new_tensor(|out| unsafe { sys::tc_tensor_retain(h, out) })
}

/// A new handle to `t` for libtc to own.
pub(crate) fn give(t: &Tensor) -> Result<sys::tc_tensor> {
    let mut out: sys::tc_tensor = std::ptr::null_mut();
    check(unsafe { sys::tc_tensor_retain(t.as_raw(), &mut out) })?;
    Ok(out)
}

/// Runs a callback body; turns its error or panic into a status for libtc.
pub(crate) fn guarded(body: impl FnOnce() -> Result<()>) -> i32 {
    let (code, message) = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => return 0,
        Ok(Err(e)) => (e.code(), e.message().to_string()),
        Err(_) => (sys::TC_ERR_CALLBACK, "a Rust callback panicked".to_string()),
    };
    let text = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
    let code = if code > 0 && code < sys::TC_STATUS_COUNT {
        code
    } else {
        sys::TC_ERR_CALLBACK
    };
    unsafe { sys::tc_set_last_error(code, text.as_ptr()) };
    code
}

/// Drops the boxed closure libtc held (its release callback).
pub(crate) unsafe extern "C" fn drop_box<T>(_data: *mut c_void, context: *mut c_void) {
    drop(Box::from_raw(context.cast::<T>()));
}

// ---------------------------------------------------------------- hooks

/// A registered tensor hook; [`remove`](Self::remove) it once (removing
/// twice is an error). Dropping the handle keeps the hook.
#[derive(Debug)]
pub struct HookHandle {
    raw: sys::tc_hook,
}

impl HookHandle {
    /// Removes the hook.
    pub fn remove(&self) -> Result<()> {
        check(unsafe { sys::tc_hook_remove(self.raw) })
    }
}

type GradHook = Box<dyn FnMut(&Tensor) -> Result<Option<Tensor>> + Send>;
type PostHook = Box<dyn FnMut(&Tensor) -> Result<()> + Send>;

unsafe extern "C" fn grad_hook_tramp(
    ctx: *mut c_void,
    grad: sys::tc_tensor,
    replacement: *mut sys::tc_tensor,
) -> i32 {
    guarded(|| {
        let f = &mut *ctx.cast::<GradHook>();
        if let Some(r) = f(&borrow(grad)?)? {
            *replacement = give(&r)?;
        }
        Ok(())
    })
}

unsafe extern "C" fn post_hook_tramp(ctx: *mut c_void, t: sys::tc_tensor) -> i32 {
    guarded(|| {
        let f = &mut *ctx.cast::<PostHook>();
        f(&borrow(t)?)
    })
}

/// The node that made a tensor (PyTorch's `grad_fn`).
#[derive(Debug)]
pub struct Node {
    raw: sys::tc_node,
}

impl Drop for Node {
    fn drop(&mut self) {
        unsafe { sys::tc_node_free(self.raw) };
    }
}

impl PartialEq for Node {
    fn eq(&self, other: &Node) -> bool {
        let mut same = 0i32;
        check(unsafe { sys::tc_node_same(self.raw, other.raw, &mut same) }).is_ok() && same != 0
    }
}

impl Node {
    /// Its name ("MulBackward", "AccumulateGrad").
    pub fn name(&self) -> Result<String> {
        copy_string(|buf, cap, needed| unsafe { sys::tc_node_name(self.raw, buf, cap, needed) })
    }

    /// Its next functions: for each input, the node its gradient goes to
    /// (`None` when it needs none) and which output of that node it is.
    pub fn next_functions(&self) -> Result<Vec<(Option<Node>, i64)>> {
        let mut n = 0i64;
        check(unsafe { sys::tc_node_next_count(self.raw, &mut n) })?;
        let mut out = Vec::new();
        for i in 0..n {
            let mut next: sys::tc_node = std::ptr::null_mut();
            let mut nr = 0i64;
            check(unsafe { sys::tc_node_next(self.raw, i, &mut next, &mut nr) })?;
            out.push(((!next.is_null()).then_some(Node { raw: next }), nr));
        }
        Ok(out)
    }
}

impl Tensor {
    /// Registers `hook(grad)`, run when this tensor's gradient is computed;
    /// `Ok(Some(g))` replaces the gradient.
    pub fn register_hook<F>(&self, hook: F) -> Result<HookHandle>
    where
        F: FnMut(&Tensor) -> Result<Option<Tensor>> + Send + 'static,
    {
        let ctx = Box::into_raw(Box::new(Box::new(hook) as GradHook)).cast::<c_void>();
        let mut raw: sys::tc_hook = std::ptr::null_mut();
        // libtc calls drop_box exactly once, also when this fails.
        check(unsafe {
            sys::tc_tensor_register_hook(
                self.as_raw(),
                Some(grad_hook_tramp),
                ctx,
                Some(drop_box::<GradHook>),
                &mut raw,
            )
        })?;
        Ok(HookHandle { raw })
    }

    /// Registers `hook(leaf)`, run after this leaf's `.grad` was accumulated.
    pub fn register_post_accumulate_grad_hook<F>(&self, hook: F) -> Result<HookHandle>
    where
        F: FnMut(&Tensor) -> Result<()> + Send + 'static,
    {
        let ctx = Box::into_raw(Box::new(Box::new(hook) as PostHook)).cast::<c_void>();
        let mut raw: sys::tc_hook = std::ptr::null_mut();
        check(unsafe {
            sys::tc_tensor_register_post_accumulate_grad_hook(
                self.as_raw(),
                Some(post_hook_tramp),
                ctx,
                Some(drop_box::<PostHook>),
                &mut raw,
            )
        })?;
        Ok(HookHandle { raw })
    }

    /// The node that made this tensor, `None` for a leaf.
    pub fn grad_fn(&self) -> Result<Option<Node>> {
        let mut raw: sys::tc_node = std::ptr::null_mut();
        check(unsafe { sys::tc_tensor_grad_fn(self.as_raw(), &mut raw) })?;
        Ok((!raw.is_null()).then_some(Node { raw }))
    }

    /// The general constructor (`tc_tensor_new`).
    pub fn new_with(options: &TensorOptions) -> Result<Tensor> {
        let shape = options.shape.clone();
        let mut o: sys::tc_tensor_options = unsafe { std::mem::zeroed() };
        o.size = std::mem::size_of::<sys::tc_tensor_options>() as u32;
        o.dtype = options.dtype.code();
        o.shape = shape.as_ptr();
        o.ndim = len_i64(shape.len());
        o.device = options.device.raw();
        o.requires_grad = i32::from(options.requires_grad);
        match &options.fill {
            Fill::Uninitialized => o.fill = sys::TC_FILL_UNINITIALIZED,
            Fill::Zeros => o.fill = sys::TC_FILL_ZEROS,
            Fill::Ones => o.fill = sys::TC_FILL_ONES,
            Fill::Value(v) => {
                o.fill = sys::TC_FILL_VALUE;
                o.value = *v;
            }
            Fill::Data(bytes) => {
                o.fill = sys::TC_FILL_DATA;
                o.data = bytes.as_ptr().cast();
                o.nbytes = len_i64(bytes.len());
            }
            Fill::Uniform { low, high } => {
                o.fill = sys::TC_FILL_UNIFORM;
                o.low = *low;
                o.high = *high;
            }
            Fill::Normal { mean, std } => {
                o.fill = sys::TC_FILL_NORMAL;
                o.mean = *mean;
                o.std = *std;
            }
        }
        new_tensor(|out| unsafe { sys::tc_tensor_new(&o, out) })
    }
}

/// What fills a tensor made by [`Tensor::new_with`].
#[derive(Debug, Clone, PartialEq)]
pub enum Fill {
    /// Whatever the memory holds.
    Uninitialized,
    /// 0.
    Zeros,
    /// 1.
    Ones,
    /// One value (checked like `tc_full`).
    Value(f64),
    /// A copy of the raw bytes (numel times the element size).
    Data(Vec<u8>),
    /// Uniform in `[low, high)` (floating dtypes).
    Uniform {
        /// Inclusive lower bound.
        low: f64,
        /// Exclusive upper bound.
        high: f64,
    },
    /// Normal (floating dtypes).
    Normal {
        /// The mean.
        mean: f64,
        /// The standard deviation (>= 0).
        std: f64,
    },
}

/// Shape, dtype, device, requires_grad and fill of a new tensor.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorOptions {
    /// The sizes.
    pub shape: Vec<i64>,
    /// The dtype.
    pub dtype: DType,
    /// The device.
    pub device: Device,
    /// A leaf that requires grad (floating dtypes).
    pub requires_grad: bool,
    /// What fills it.
    pub fill: Fill,
}

// ---------------------------------------------------------------- functions

/// A custom function's forward: given the inputs and which need a gradient,
/// the outputs and the tensors backward will need.
pub type ForwardFn = Box<dyn FnOnce(&[Tensor], &[bool]) -> Result<(Vec<Tensor>, Vec<Tensor>)> + Send>;
/// A custom function's backward: given the saved tensors, the outputs'
/// gradients and which inputs need one, a gradient (or `None`) per input.
pub type BackwardFn = Box<dyn FnMut(&[Tensor], &[Tensor], &[bool]) -> Result<Vec<Option<Tensor>>> + Send>;

struct FunctionCtx {
    forward: Option<ForwardFn>,
    backward: Option<BackwardFn>,
}

unsafe extern "C" fn forward_tramp(
    ctx: *mut c_void,
    inputs: *const sys::tc_tensor,
    n_inputs: i64,
    needs: *const i32,
    outputs: *mut sys::tc_tensor,
    n_outputs: *mut i64,
    saved: *mut sys::tc_tensor,
    n_saved: *mut i64,
) -> i32 {
    guarded(|| {
        let c = &mut *ctx.cast::<FunctionCtx>();
        let f = c
            .forward
            .take()
            .ok_or_else(|| Error::new(ErrorKind::Callback, "forward ran twice"))?;
        let n = n_inputs as usize;
        let ins = (0..n)
            .map(|i| borrow(*inputs.add(i)))
            .collect::<Result<Vec<_>>>()?;
        let need: Vec<bool> = (0..n).map(|i| *needs.add(i) != 0).collect();
        let (outs, keep) = f(&ins, &need)?;
        if outs.len() > sys::TC_FUNCTION_MAX_OUTPUTS as usize
            || keep.len() > sys::TC_FUNCTION_MAX_SAVED as usize
        {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                "too many outputs or saved tensors",
            ));
        }
        for (i, t) in outs.iter().enumerate() {
            *outputs.add(i) = give(t)?;
        }
        *n_outputs = len_i64(outs.len());
        for (i, t) in keep.iter().enumerate() {
            *saved.add(i) = give(t)?;
        }
        *n_saved = len_i64(keep.len());
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn backward_tramp(
    ctx: *mut c_void,
    saved: *const sys::tc_tensor,
    n_saved: i64,
    grads: *const sys::tc_tensor,
    n_grads: i64,
    needs: *const i32,
    grad_inputs: *mut sys::tc_tensor,
    n_inputs: i64,
) -> i32 {
    guarded(|| {
        let c = &mut *ctx.cast::<FunctionCtx>();
        let b = c
            .backward
            .as_mut()
            .ok_or_else(|| Error::new(ErrorKind::Callback, "no backward"))?;
        let s = (0..n_saved as usize)
            .map(|i| borrow(*saved.add(i)))
            .collect::<Result<Vec<_>>>()?;
        let g = (0..n_grads as usize)
            .map(|i| borrow(*grads.add(i)))
            .collect::<Result<Vec<_>>>()?;
        let need: Vec<bool> = (0..n_inputs as usize).map(|i| *needs.add(i) != 0).collect();
        let result = b(&s, &g, &need)?;
        for (i, gi) in result.iter().enumerate().take(n_inputs as usize) {
            if let Some(t) = gi {
                *grad_inputs.add(i) = give(t)?;
            }
        }
        Ok(())
    })
}

/// Applies a custom function (torch.autograd.Function with closures): runs
/// `forward` now (grad mode off); when an input requires grad and
/// `backward` is given, the floating outputs get a node named `name` that
/// runs `backward` during backward passes.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::Tensor;
/// let _tc = tc::init()?;
/// let x = Tensor::from_slice(&[1.0f64, 2.0], &[2])?.requires_grad(true)?;
/// let y = tc::apply_function(
///     "SquareBackward",
///     &[&x],
///     Box::new(|xs, _| Ok((vec![(&xs[0] * &xs[0])?], vec![xs[0].clone()]))),
///     Some(Box::new(|saved, g, _| Ok(vec![Some((&(&saved[0] * &g[0])? * 2.0)?)]))),
/// )?;
/// y[0].sum_all()?.backward()?;
/// assert_eq!(x.grad()?.unwrap().to_vec::<f64>()?, vec![2.0, 4.0]);
/// # Ok(()) }
/// ```
pub fn apply_function(
    name: &str,
    inputs: &[&Tensor],
    forward: ForwardFn,
    backward: Option<BackwardFn>,
) -> Result<Vec<Tensor>> {
    let cname = crate::ffi::c_string(name)?;
    let has_backward = backward.is_some();
    let ctx = Box::into_raw(Box::new(FunctionCtx {
        forward: Some(forward),
        backward,
    }))
    .cast::<c_void>();
    let mut def: sys::tc_function_def = unsafe { std::mem::zeroed() };
    def.size = std::mem::size_of::<sys::tc_function_def>() as u32;
    def.name = cname.as_ptr();
    def.forward = Some(forward_tramp);
    def.backward = if has_backward { Some(backward_tramp) } else { None };
    def.context = ctx;
    def.release = Some(drop_box::<FunctionCtx>);
    let raw: Vec<sys::tc_tensor> = inputs.iter().map(|t| t.as_raw()).collect();
    let mut outs = vec![std::ptr::null_mut(); sys::TC_FUNCTION_MAX_OUTPUTS as usize];
    let mut count = 0i64;
    check(unsafe {
        sys::tc_function_apply(
            &def,
            raw.as_ptr(),
            len_i64(raw.len()),
            outs.as_mut_ptr(),
            len_i64(outs.len()),
            &mut count,
        )
    })?;
    outs.truncate(count as usize);
    outs.into_iter().map(Tensor::from_owned_raw).collect()
}
