//! Autograd: requires-grad, gradients, backward and the no-grad scope.
use std::marker::PhantomData;

use crate::error::{check, Result};
use crate::ffi::{copy_string, new_tensor};
use crate::Tensor;
use tc_sys as sys;

/// Autograd.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::Tensor;
/// let _tc = tc::init()?;
/// let x = Tensor::from_slice(&[1.0f64, 2.0, 3.0], &[3])?.requires_grad(true)?;
/// let y = (&x * &x)?.sum_all()?; // sum(x^2)
/// assert_eq!(y.grad_fn_name()?, "SumBackward");
/// y.backward()?;
/// assert_eq!(x.grad()?.unwrap().to_vec::<f64>()?, vec![2.0, 4.0, 6.0]);
/// # Ok(()) }
/// ```
impl Tensor {
    /// Marks this leaf as requiring grad (floating dtypes only) and returns
    /// it, for chaining after creation.
    pub fn requires_grad(self, requires_grad: bool) -> Result<Tensor> {
        self.set_requires_grad(requires_grad)?;
        Ok(self)
    }

    /// Marks this leaf as requiring grad, or not.
    pub fn set_requires_grad(&self, requires_grad: bool) -> Result<()> {
        check(unsafe { sys::tc_tensor_set_requires_grad(self.as_raw(), i32::from(requires_grad)) })
    }

    /// Whether gradients flow to this tensor.
    pub fn is_requires_grad(&self) -> Result<bool> {
        let mut b = 0i32;
        check(unsafe { sys::tc_tensor_requires_grad(self.as_raw(), &mut b) })?;
        Ok(b != 0)
    }

    /// Whether the user made this tensor (not a recorded op).
    pub fn is_leaf(&self) -> Result<bool> {
        let mut b = 0i32;
        check(unsafe { sys::tc_tensor_is_leaf(self.as_raw(), &mut b) })?;
        Ok(b != 0)
    }

    /// The accumulated gradient, `None` when there is none. It shares data
    /// with the gradient libtc keeps (see "Threads" on [`Tensor`]).
    pub fn grad(&self) -> Result<Option<Tensor>> {
        let mut out: sys::tc_tensor = std::ptr::null_mut();
        check(unsafe { sys::tc_tensor_grad(self.as_raw(), &mut out) })?;
        if out.is_null() {
            Ok(None)
        } else {
            Tensor::from_owned_raw(out).map(Some)
        }
    }

    /// Sets the gradient to none.
    pub fn clear_grad(&self) -> Result<()> {
        check(unsafe { sys::tc_tensor_clear_grad(self.as_raw()) })
    }

    /// Makes `grad` this tensor's gradient (PyTorch's `t.grad = grad`): the
    /// same tensor, not a copy, so later backward passes accumulate into it in
    /// place. It must match this tensor's shape, dtype and device, be
    /// writable and not require grad.
    pub fn set_grad(&self, grad: &Tensor) -> Result<()> {
        check(unsafe { sys::tc_tensor_set_grad(self.as_raw(), grad.as_raw()) })
    }

    /// Makes this tensor a tensor over `data`'s elements (PyTorch's
    /// `t.data = data`), keeping its identity: every handle to it, its
    /// requires_grad and hooks, and the optimizers holding it see the new
    /// data. A gradient that no longer matches is dropped; a graph recorded
    /// before that saved this tensor refuses it at backward. No other thread
    /// may use this tensor during the call.
    pub fn set_data(&self, data: &Tensor) -> Result<()> {
        check(unsafe { sys::tc_tensor_set_data(self.as_raw(), data.as_raw()) })
    }

    /// Keeps `.grad` for this non-leaf tensor during backward.
    pub fn retain_grad(&self) -> Result<()> {
        check(unsafe { sys::tc_tensor_retain_grad(self.as_raw()) })
    }

    /// The name of the node that made this tensor ("AddBackward"), or ""
    /// for a leaf.
    pub fn grad_fn_name(&self) -> Result<String> {
        copy_string(|buf, cap, needed| unsafe {
            sys::tc_tensor_grad_fn_name(self.as_raw(), buf, cap, needed)
        })
    }

    /// A view of the data cut from the graph (requires_grad false).
    pub fn detach(&self) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_detach(self.as_raw(), out) })
    }

    /// Backpropagates from this one-element tensor and frees the graph's
    /// saved tensors (a second backward through it is an
    /// [`ErrorKind::Autograd`](crate::ErrorKind::Autograd) error).
    pub fn backward(&self) -> Result<()> {
        self.backward_with(None, false)
    }

    /// Backpropagates with an explicit `grad` (same shape and dtype as
    /// `self`; `None` for a one-element tensor), keeping the graph when
    /// `retain_graph`.
    pub fn backward_with(&self, grad: Option<&Tensor>, retain_graph: bool) -> Result<()> {
        let grad = grad.map_or(std::ptr::null_mut(), Tensor::as_raw);
        check(unsafe { sys::tc_backward(self.as_raw(), grad, i32::from(retain_graph)) })
    }
}

/// Sets this thread's grad mode and returns the previous one.
pub fn set_grad_enabled(enabled: bool) -> Result<bool> {
    let mut prev = 0i32;
    check(unsafe { sys::tc_set_grad_enabled(i32::from(enabled), &mut prev) })?;
    Ok(prev != 0)
}

/// Whether autograd records graphs on this thread.
pub fn is_grad_enabled() -> Result<bool> {
    crate::get_flag(crate::flags::GRAD_ENABLED).map(|v| v != 0)
}

/// A scope in which this thread records no graphs (like `torch.no_grad()`):
/// made by [`NoGradGuard::new`], its drop restores the previous mode.
///
/// Grad mode is per thread, so the guard is neither `Send` nor `Sync`: it
/// must be dropped on the thread that made it.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::Tensor;
/// let _tc = tc::init()?;
/// let w = Tensor::ones(&[2], tc::DType::Float32, tc::Device::Cpu)?.requires_grad(true)?;
/// {
///     let _no_grad = tc::NoGradGuard::new()?;
///     let y = (&w * 2.0)?;
///     assert!(!y.is_requires_grad()?);
/// }
/// assert!((&w * 2.0)?.is_requires_grad()?);
/// # Ok(()) }
/// ```
///
/// Moving the guard to another thread does not compile:
///
/// ```compile_fail
/// let guard = tc::NoGradGuard::new().unwrap();
/// std::thread::spawn(move || drop(guard));
/// ```
#[must_use = "grad mode comes back when the guard is dropped"]
#[derive(Debug)]
pub struct NoGradGuard {
    previous: bool,
    // Per-thread state: keep the guard on its thread.
    _not_send: PhantomData<*const ()>,
}

impl NoGradGuard {
    /// Turns grad mode off for this thread until the guard drops.
    pub fn new() -> Result<NoGradGuard> {
        let previous = set_grad_enabled(false)?;
        Ok(NoGradGuard {
            previous,
            _not_send: PhantomData,
        })
    }
}

impl Drop for NoGradGuard {
    fn drop(&mut self) {
        let _ = set_grad_enabled(self.previous);
    }
}

/// Runs `f` with grad mode off on this thread.
pub fn no_grad<R>(f: impl FnOnce() -> R) -> Result<R> {
    let _guard = NoGradGuard::new()?;
    Ok(f())
}

/// Options of [`grad`] (torch.autograd.grad's keyword arguments).
#[derive(Clone, Copy, Debug, Default)]
pub struct GradOptions {
    /// Keep the graph for another pass; `None`: the same as `create_graph`.
    pub retain_graph: Option<bool>,
    /// Record the gradients' own graph, so they can be differentiated again.
    pub create_graph: bool,
    /// An input the outputs do not use gets `None` instead of an error.
    pub allow_unused: bool,
    /// An unused input gets zeros instead of `None` (implies `allow_unused`).
    pub materialize_grads: bool,
}

fn retain_code(retain_graph: Option<bool>) -> i32 {
    retain_graph.map_or(-1, i32::from)
}

fn raw_list(ts: &[&Tensor]) -> Vec<sys::tc_tensor> {
    ts.iter().map(|t| t.as_raw()).collect()
}

fn optional_list(gs: Option<&[Option<&Tensor>]>, n: usize) -> Result<Option<Vec<sys::tc_tensor>>> {
    match gs {
        None => Ok(None),
        Some(gs) if gs.len() != n => Err(crate::Error::new(
            crate::ErrorKind::InvalidArgument,
            "one gradient (or None) per output is needed",
        )),
        Some(gs) => Ok(Some(
            gs.iter().map(|g| g.map_or(std::ptr::null_mut(), Tensor::as_raw)).collect(),
        )),
    }
}

/// The gradients of the sum of `outputs[i] * grad_outputs[i]` with respect
/// to `inputs` (torch.autograd.grad), one per input (`None` for an unused
/// input with `allow_unused`). `grad_outputs` `None` (or a `None` entry):
/// ones, for one-element outputs. Nothing is accumulated into any `.grad`.
///
/// ```
/// use tc::Tensor;
/// # fn main() -> tc::Result<()> {
/// let _tc = tc::init()?;
/// let x = Tensor::from_slice(&[1.0f64, 2.0], &[2])?.requires_grad(true)?;
/// let y = ((&x * &x)? * &x)?.sum_all()?;
/// let opts = tc::autograd::GradOptions { create_graph: true, ..Default::default() };
/// let g = tc::autograd::grad(&[&y], &[&x], None, opts)?.remove(0).unwrap();
/// let h = tc::autograd::grad(&[&g.sum_all()?], &[&x], None, Default::default())?.remove(0).unwrap();
/// assert_eq!(h.to_vec::<f64>()?, vec![6.0, 12.0]);
/// # Ok(())
/// # }
/// ```
pub fn grad(
    outputs: &[&Tensor],
    inputs: &[&Tensor],
    grad_outputs: Option<&[Option<&Tensor>]>,
    options: GradOptions,
) -> Result<Vec<Option<Tensor>>> {
    let outs = raw_list(outputs);
    let ins = raw_list(inputs);
    let gs = optional_list(grad_outputs, outputs.len())?;
    let opts = sys::tc_grad_options {
        size: std::mem::size_of::<sys::tc_grad_options>() as u32,
        retain_graph: retain_code(options.retain_graph),
        create_graph: i32::from(options.create_graph),
        allow_unused: i32::from(options.allow_unused),
        materialize_grads: i32::from(options.materialize_grads),
    };
    let mut result: Vec<sys::tc_tensor> = vec![std::ptr::null_mut(); inputs.len()];
    check(unsafe {
        sys::tc_autograd_grad(
            outs.as_ptr(),
            outs.len() as i64,
            gs.as_ref().map_or(std::ptr::null(), |v| v.as_ptr()),
            ins.as_ptr(),
            ins.len() as i64,
            &opts,
            result.as_mut_ptr(),
        )
    })?;
    result
        .into_iter()
        .map(|h| if h.is_null() { Ok(None) } else { Tensor::from_owned_raw(h).map(Some) })
        .collect()
}

/// Options of [`backward`] (torch.autograd.backward's keyword arguments).
#[derive(Clone, Copy, Debug, Default)]
pub struct BackwardOptions<'a> {
    /// Keep the graph for another pass; `None`: the same as `create_graph`.
    pub retain_graph: Option<bool>,
    /// Record the gradients' own graph (the accumulated `.grad` keeps it).
    pub create_graph: bool,
    /// Accumulate only into these tensors' `.grad`; `None`: every leaf's.
    pub inputs: Option<&'a [&'a Tensor]>,
}

/// Backpropagates from several tensors at once into the leaves' `.grad`
/// (or only into `options.inputs`), as torch.autograd.backward.
/// `grad_tensors` as [`grad`]'s `grad_outputs`.
pub fn backward(
    tensors: &[&Tensor],
    grad_tensors: Option<&[Option<&Tensor>]>,
    options: BackwardOptions<'_>,
) -> Result<()> {
    let roots = raw_list(tensors);
    let gs = optional_list(grad_tensors, tensors.len())?;
    let ins = options.inputs.map(raw_list);
    let opts = sys::tc_backward_options {
        size: std::mem::size_of::<sys::tc_backward_options>() as u32,
        retain_graph: retain_code(options.retain_graph),
        create_graph: i32::from(options.create_graph),
        inputs: ins.as_ref().map_or(std::ptr::null(), |v| v.as_ptr()),
        n_inputs: ins.as_ref().map_or(0, |v| v.len() as i64),
    };
    check(unsafe {
        sys::tc_backward_ex(
            roots.as_ptr(),
            roots.len() as i64,
            gs.as_ref().map_or(std::ptr::null(), |v| v.as_ptr()),
            &opts,
        )
    })
}

// ---- tc::autograd::functional (vjp, hvp): autograd/functional.rs ----
pub mod functional;
// ---- end of functional ----

/// Turns anomaly mode on or off for the whole process, as
/// torch.autograd.set_detect_anomaly(enabled, check_nan): with `check_nan`, a
/// backward node whose gradient holds a NaN fails with TC_ERR_AUTOGRAD naming
/// the node ("Function 'XBackward0' returned nan values ..."). The forward
/// traceback hook of the C ABI is left unset here (Rust has no stack to hand over).
pub fn set_anomaly_mode(enabled: bool, check_nan: bool) -> Result<()> {
    check(unsafe {
        sys::tc_set_anomaly_mode(i32::from(enabled), i32::from(check_nan), None, std::ptr::null_mut())
    })
}

/// The current anomaly mode: (enabled, check_nan).
pub fn anomaly_mode() -> Result<(bool, bool)> {
    let (mut enabled, mut check_nan) = (0i32, 0i32);
    check(unsafe { sys::tc_anomaly_mode(&mut enabled, &mut check_nan) })?;
    Ok((enabled != 0, check_nan != 0))
}
