//! Optimizers: [`Sgd`], [`Adam`] and [`AdamW`] over parameter tensors.
use crate::error::{check, Error, ErrorKind, Result};
use crate::{Tensor, TensorDict};
use tc_sys as sys;

/// Options of [`Sgd`] (torch.optim.SGD's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SgdOptions {
    /// Learning rate.
    pub lr: f64,
    /// Momentum factor (0: plain SGD).
    pub momentum: f64,
    /// Dampening of the momentum.
    pub dampening: f64,
    /// L2 penalty.
    pub weight_decay: f64,
    /// Nesterov momentum.
    pub nesterov: bool,
}

impl Default for SgdOptions {
    /// lr 1e-3 (torch's default), no momentum, no weight decay.
    fn default() -> Self {
        SgdOptions {
            lr: 1e-3,
            momentum: 0.0,
            dampening: 0.0,
            weight_decay: 0.0,
            nesterov: false,
        }
    }
}

/// Options of [`Adam`] (torch.optim.Adam's defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamOptions {
    /// Learning rate (1e-3).
    pub lr: f64,
    /// First-moment decay (0.9).
    pub beta1: f64,
    /// Second-moment decay (0.999).
    pub beta2: f64,
    /// Added to the denominator (1e-8).
    pub eps: f64,
    /// L2 penalty added to the gradient (0).
    pub weight_decay: f64,
}

impl Default for AdamOptions {
    fn default() -> Self {
        AdamOptions {
            lr: 1e-3,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.0,
        }
    }
}

/// Options of [`AdamW`] (torch.optim.AdamW's defaults: weight decay 0.01,
/// decoupled from the gradient).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamWOptions {
    /// Learning rate (1e-3).
    pub lr: f64,
    /// First-moment decay (0.9).
    pub beta1: f64,
    /// Second-moment decay (0.999).
    pub beta2: f64,
    /// Added to the denominator (1e-8).
    pub eps: f64,
    /// Decoupled weight decay (0.01).
    pub weight_decay: f64,
}

impl Default for AdamWOptions {
    fn default() -> Self {
        AdamWOptions {
            lr: 1e-3,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 1e-2,
        }
    }
}

/// The owned `tc_optimizer` handle shared by the three optimizers.
#[derive(Debug)]
struct Handle(sys::tc_optimizer);

// SAFETY: libtc's handles may be used from any thread. step, zero_grad and
// set_lr write (parameters, state), and take `&mut self`; lr only reads.
unsafe impl Send for Handle {}
unsafe impl Sync for Handle {}

impl Drop for Handle {
    fn drop(&mut self) {
        let _ = unsafe { sys::tc_optimizer_free(self.0) };
    }
}

fn make(
    params: &[&Tensor],
    f: impl FnOnce(*const sys::tc_tensor, i64, *mut sys::tc_optimizer) -> i32,
) -> Result<Handle> {
    let raw: Vec<sys::tc_tensor> = params.iter().map(|t| t.as_raw()).collect();
    let mut out: sys::tc_optimizer = std::ptr::null_mut();
    check(f(raw.as_ptr(), raw.len() as i64, &mut out))?;
    if out.is_null() {
        return Err(Error::new(
            ErrorKind::Internal,
            "libtc returned TC_OK and a NULL optimizer",
        ));
    }
    Ok(Handle(out))
}

impl Handle {
    fn step(&mut self) -> Result<()> {
        check(unsafe { sys::tc_optimizer_step(self.0) })
    }
    fn zero_grad(&mut self) -> Result<()> {
        check(unsafe { sys::tc_optimizer_zero_grad(self.0) })
    }
    fn lr(&self) -> Result<f64> {
        let mut lr = 0f64;
        check(unsafe { sys::tc_optimizer_get_lr(self.0, &mut lr) })?;
        Ok(lr)
    }
    fn set_lr(&mut self, lr: f64) -> Result<()> {
        check(unsafe { sys::tc_optimizer_set_lr(self.0, lr) })
    }
    fn state_dict(&self) -> Result<TensorDict> {
        let mut out: sys::tc_tensor_dict = std::ptr::null_mut();
        check(unsafe { sys::tc_optimizer_state_dict(self.0, &mut out) })?;
        TensorDict::from_owned_raw(out)
    }
    fn load_state_dict(&mut self, d: &TensorDict) -> Result<()> {
        check(unsafe { sys::tc_optimizer_load_state_dict(self.0, d.as_raw()) })
    }
}

/// What every optimizer does; implemented by [`Sgd`], [`Adam`], [`AdamW`]
/// (whose inherent methods are the same, so the trait is only needed for
/// generic code).
pub trait Optimizer {
    /// One update from the parameters' current gradients (parameters without
    /// a gradient are skipped).
    fn step(&mut self) -> Result<()>;
    /// Clears every parameter's gradient (set to none).
    fn zero_grad(&mut self) -> Result<()>;
    /// The learning rate.
    fn lr(&self) -> Result<f64>;
    /// Changes the learning rate (for schedules).
    fn set_lr(&mut self, lr: f64) -> Result<()>;
}

macro_rules! optimizer {
    ($name:ident) => {
        impl $name {
            /// One update from the parameters' current gradients (parameters
            /// without a gradient are skipped).
            pub fn step(&mut self) -> Result<()> {
                self.handle.step()
            }
            /// Clears every parameter's gradient (set to none).
            pub fn zero_grad(&mut self) -> Result<()> {
                self.handle.zero_grad()
            }
            /// The learning rate.
            pub fn lr(&self) -> Result<f64> {
                self.handle.lr()
            }
            /// Changes the learning rate (for schedules).
            pub fn set_lr(&mut self, lr: f64) -> Result<()> {
                self.handle.set_lr(lr)
            }
            /// The optimizer's state as named tensors (copies): see
            /// `tc_optimizer_state_dict` in tc.h for the names.
            pub fn state_dict(&self) -> Result<TensorDict> {
                self.handle.state_dict()
            }
            /// Restores a [`state_dict`](Self::state_dict), all or nothing.
            pub fn load_state_dict(&mut self, d: &TensorDict) -> Result<()> {
                self.handle.load_state_dict(d)
            }
        }
        impl Optimizer for $name {
            fn step(&mut self) -> Result<()> {
                self.handle.step()
            }
            fn zero_grad(&mut self) -> Result<()> {
                self.handle.zero_grad()
            }
            fn lr(&self) -> Result<f64> {
                self.handle.lr()
            }
            fn set_lr(&mut self, lr: f64) -> Result<()> {
                self.handle.set_lr(lr)
            }
        }
    };
}

/// Stochastic gradient descent with momentum, dampening, weight decay and
/// Nesterov (`tc_optimizer_sgd`). libtc keeps its own handle of every
/// parameter; each must be a floating leaf that requires grad.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::{Sgd, SgdOptions, Tensor};
/// let _tc = tc::init()?;
/// let w = Tensor::from_slice(&[1.0f32], &[1])?.requires_grad(true)?;
/// let mut opt = Sgd::new(&[&w], SgdOptions { lr: 0.5, ..Default::default() })?;
/// (&w * 4.0)?.sum_all()?.backward()?; // d/dw = 4
/// opt.step()?;
/// assert_eq!(w.to_vec::<f32>()?, vec![-1.0]); // 1 - 0.5 * 4
/// opt.zero_grad()?;
/// assert!(w.grad()?.is_none());
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Sgd {
    handle: Handle,
}

impl Sgd {
    /// SGD over `params`.
    pub fn new(params: &[&Tensor], options: SgdOptions) -> Result<Sgd> {
        let raw = sys::tc_sgd_options {
            size: std::mem::size_of::<sys::tc_sgd_options>() as u32,
            nesterov: i32::from(options.nesterov),
            lr: options.lr,
            momentum: options.momentum,
            dampening: options.dampening,
            weight_decay: options.weight_decay,
        };
        let handle = make(params, |p, n, out| unsafe {
            sys::tc_optimizer_sgd(p, n, &raw, out)
        })?;
        Ok(Sgd { handle })
    }
}
optimizer!(Sgd);

fn adam_raw(
    lr: f64,
    beta1: f64,
    beta2: f64,
    eps: f64,
    weight_decay: f64,
    decoupled: bool,
) -> sys::tc_adam_options {
    sys::tc_adam_options {
        size: std::mem::size_of::<sys::tc_adam_options>() as u32,
        decoupled_weight_decay: i32::from(decoupled),
        lr,
        beta1,
        beta2,
        eps,
        weight_decay,
    }
}

/// Adam (`tc_optimizer_adam`), weight decay added to the gradient.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::{Adam, AdamOptions, Tensor};
/// let _tc = tc::init()?;
/// let w = Tensor::from_slice(&[1.0f64], &[1])?.requires_grad(true)?;
/// let mut opt = Adam::new(&[&w], AdamOptions { lr: 0.1, ..Default::default() })?;
/// (&w * 3.0)?.sum_all()?.backward()?;
/// opt.step()?; // Adam's first step moves by lr * sign(grad)
/// assert!((w.item()? - 0.9).abs() < 1e-6);
/// assert_eq!(opt.lr()?, 0.1);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Adam {
    handle: Handle,
}

impl Adam {
    /// Adam over `params`.
    pub fn new(params: &[&Tensor], o: AdamOptions) -> Result<Adam> {
        let raw = adam_raw(o.lr, o.beta1, o.beta2, o.eps, o.weight_decay, false);
        let handle = make(params, |p, n, out| unsafe {
            sys::tc_optimizer_adam(p, n, &raw, out)
        })?;
        Ok(Adam { handle })
    }
}
optimizer!(Adam);

/// AdamW: Adam with decoupled weight decay (`tc_optimizer_adam` with
/// `decoupled_weight_decay = 1`).
#[derive(Debug)]
pub struct AdamW {
    handle: Handle,
}

impl AdamW {
    /// AdamW over `params`.
    pub fn new(params: &[&Tensor], o: AdamWOptions) -> Result<AdamW> {
        let raw = adam_raw(o.lr, o.beta1, o.beta2, o.eps, o.weight_decay, true);
        let handle = make(params, |p, n, out| unsafe {
            sys::tc_optimizer_adam(p, n, &raw, out)
        })?;
        Ok(AdamW { handle })
    }
}
optimizer!(AdamW);

/// Options of [`RmsProp`] (torch.optim.RMSprop's defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RmsPropOptions {
    /// Learning rate.
    pub lr: f64,
    /// Smoothing constant of the square average.
    pub alpha: f64,
    /// Added to the denominator.
    pub eps: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// Momentum factor.
    pub momentum: f64,
    /// Normalize by an estimate of the gradient's variance.
    pub centered: bool,
}

impl Default for RmsPropOptions {
    fn default() -> Self {
        RmsPropOptions {
            lr: 1e-2,
            alpha: 0.99,
            eps: 1e-8,
            weight_decay: 0.0,
            momentum: 0.0,
            centered: false,
        }
    }
}

/// RMSprop (`tc_optimizer_rmsprop`).
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::{RmsProp, RmsPropOptions, Tensor};
/// let _tc = tc::init()?;
/// let w = Tensor::from_slice(&[1.0f64], &[1])?.requires_grad(true)?;
/// let mut opt = RmsProp::new(&[&w], RmsPropOptions { lr: 0.1, alpha: 0.0, eps: 0.0, ..Default::default() })?;
/// (&w * 3.0)?.sum_all()?.backward()?;
/// opt.step()?; // alpha 0: the step is lr * g / |g|
/// assert!((w.item()? - 0.9).abs() < 1e-12);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct RmsProp {
    handle: Handle,
}

impl RmsProp {
    /// RMSprop over `params`.
    pub fn new(params: &[&Tensor], o: RmsPropOptions) -> Result<RmsProp> {
        let raw = sys::tc_rmsprop_options {
            size: std::mem::size_of::<sys::tc_rmsprop_options>() as u32,
            centered: i32::from(o.centered),
            lr: o.lr,
            alpha: o.alpha,
            eps: o.eps,
            weight_decay: o.weight_decay,
            momentum: o.momentum,
        };
        let handle = make(params, |p, n, out| unsafe {
            sys::tc_optimizer_rmsprop(p, n, &raw, out)
        })?;
        Ok(RmsProp { handle })
    }
}
optimizer!(RmsProp);

/// Options of [`Adagrad`] (torch.optim.Adagrad's defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdagradOptions {
    /// Learning rate.
    pub lr: f64,
    /// The learning rate is lr / (1 + (step - 1) lr_decay).
    pub lr_decay: f64,
    /// L2 penalty added to the gradient.
    pub weight_decay: f64,
    /// The starting value of the squared-gradient sums.
    pub initial_accumulator_value: f64,
    /// Added to the denominator.
    pub eps: f64,
}

impl Default for AdagradOptions {
    fn default() -> Self {
        AdagradOptions {
            lr: 1e-2,
            lr_decay: 0.0,
            weight_decay: 0.0,
            initial_accumulator_value: 0.0,
            eps: 1e-10,
        }
    }
}

/// Adagrad (`tc_optimizer_adagrad`).
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::{Adagrad, AdagradOptions, Tensor};
/// let _tc = tc::init()?;
/// let w = Tensor::from_slice(&[1.0f64], &[1])?.requires_grad(true)?;
/// let mut opt = Adagrad::new(&[&w], AdagradOptions { lr: 0.1, eps: 0.0, ..Default::default() })?;
/// (&w * 2.0)?.sum_all()?.backward()?;
/// opt.step()?; // sum = g^2: the first step is lr * sign(g)
/// assert!((w.item()? - 0.9).abs() < 1e-12);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Adagrad {
    handle: Handle,
}

impl Adagrad {
    /// Adagrad over `params`.
    pub fn new(params: &[&Tensor], o: AdagradOptions) -> Result<Adagrad> {
        let raw = sys::tc_adagrad_options {
            size: std::mem::size_of::<sys::tc_adagrad_options>() as u32,
            reserved: 0,
            lr: o.lr,
            lr_decay: o.lr_decay,
            weight_decay: o.weight_decay,
            initial_accumulator_value: o.initial_accumulator_value,
            eps: o.eps,
        };
        let handle = make(params, |p, n, out| unsafe {
            sys::tc_optimizer_adagrad(p, n, &raw, out)
        })?;
        Ok(Adagrad { handle })
    }
}
optimizer!(Adagrad);
