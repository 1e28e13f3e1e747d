//! A safe, idiomatic Rust API for libtc, a tensor library with automatic
//! differentiation behind a C ABI (`include/tc.h`, bound by [`tc_sys`]).
//!
//! * [`init`] returns an [`InitGuard`]: libtc stays initialized while a
//!   guard lives (libtc counts them).
//! * [`Tensor`] owns one handle: drop frees it, `clone` retains it.
//! * Every fallible call returns [`Result<T, tc::Error>`](Error), whose
//!   [`ErrorKind`] is libtc's status code and whose message is libtc's.
//! * Operators `+ - * /` and unary `-` work between tensors (owned or
//!   borrowed) and `f64`, returning `Result<Tensor>`.
//! * Autograd ([`Tensor::backward`], [`Tensor::grad`], [`NoGradGuard`]),
//!   optimizers ([`Sgd`], [`Adam`], [`AdamW`]), flags ([`get_flag`],
//!   [`set_flag`], [`flags()`]) and the init report ([`init_report`]).
//!
//! ```
//! use tc::{Adam, AdamOptions, DType, Device, Reduction, Tensor};
//!
//! fn main() -> Result<(), tc::Error> {
//!     let _tc = tc::init_with(&tc::InitOptions { seed: Some(0), ..Default::default() })?;
//!     // Fit y = 2x + 1 with one linear layer.
//!     let x = Tensor::from_slice(&[0.0f32, 1.0, 2.0, 3.0], &[4, 1])?;
//!     let y = ((&x * 2.0)? + 1.0)?;
//!     let w = Tensor::zeros(&[1, 1], DType::Float32, Device::Cpu)?.requires_grad(true)?;
//!     let b = Tensor::zeros(&[1], DType::Float32, Device::Cpu)?.requires_grad(true)?;
//!     let mut opt = Adam::new(&[&w, &b], AdamOptions { lr: 0.1, ..Default::default() })?;
//!     for _ in 0..500 {
//!         let loss = x.linear(&w, Some(&b))?.mse_loss(&y, Reduction::Mean)?;
//!         opt.zero_grad()?;
//!         loss.backward()?;
//!         opt.step()?;
//!     }
//!     assert!((w.item()? - 2.0).abs() < 0.05 && (b.item()? - 1.0).abs() < 0.05);
//!     Ok(())
//! }
//! ```
#![warn(missing_docs)]

pub mod autograd;
mod binary_ext;
mod cuda;
mod dist;
mod dtype;
mod error;
mod ffi;
mod flag;
mod hooks;
mod indexing;
mod init;
mod io;
mod losses;
pub mod nn;
mod nn_layers;
mod op_library;
mod ops;
mod optim;
mod saved_hooks;
mod sort_reduce;
mod shape_creation;
mod shared_memory;
mod tensor;
mod transformer;
mod linalg;
mod views;

pub use autograd::{is_grad_enabled, no_grad, set_grad_enabled, NoGradGuard};
pub use cuda::{
    cuda_empty_cache, cuda_memory_stats, float32_matmul_precision, set_float32_matmul_precision,
    CudaMemoryStats, MatmulPrecision,
};
pub use dist::{backend_available, ProcessGroup, ProcessGroupOptions, ReduceOp, Work};
pub use dtype::{DType, Device, Element};
pub use error::{last_error, status_name, Error, ErrorKind, Result};
pub use flag::{flags, get_flag, set_flag, FlagInfo};
pub use hooks::{apply_function, BackwardFn, Fill, ForwardFn, HookHandle, Node, TensorOptions};
pub use indexing::ScatterReduce;
pub use init::{
    abi_version, backend_init, config, init, init_report, init_stages, init_with, initial_seed,
    is_initialized, manual_seed, version, InitGuard, InitOptions, StageInfo, StageState,
};
pub use io::{get_rng_state, load_parameters, load_safetensors, save_safetensors, set_rng_state, TensorDict};
pub use nn_layers::InterpMode;
pub use op_library::{call_op, load_library, op_names, Library, Op};
pub use ops::Reduction;
pub use optim::{
    Adagrad, AdagradOptions, Adam, AdamOptions, AdamW, AdamWOptions, Optimizer, RmsProp, RmsPropOptions, Sgd,
    SgdOptions,
};
pub use saved_hooks::{saved_tensors_hooks, saved_tensors_hooks_depth, SavedTensorsHooks};
pub use shape_creation::PadMode;
pub use shared_memory::{
    set_sharing_strategy, shared_memory_release, shared_memory_retain, sharing_strategy, SharedHandle,
    SharingStrategy,
};
pub use tensor::Tensor;

/// The flag names tc.h documents, for [`get_flag`] and [`set_flag`].
pub mod flags {
    pub use crate::flag::names::*;
}

/// The raw FFI crate, for what this API does not cover.
pub use tc_sys;

/// The README's examples, run as doc tests.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
