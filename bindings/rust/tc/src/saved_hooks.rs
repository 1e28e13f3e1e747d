//! Saved-tensor hooks (tc.h: `tc_saved_tensors_hooks_push` / `_pop`;
//! PyTorch's `torch.autograd.graph.saved_tensors_hooks`).
//!
//! While a [`SavedTensorsHooks`] guard lives, every tensor an op on this
//! thread saves for backward goes through `pack`, and the graph keeps what it
//! returned instead; backward gets the tensor back from `unpack`. The guard
//! pops the pair when dropped; graphs recorded meanwhile keep using it.
use std::collections::HashMap;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use crate::error::{check, Error, ErrorKind, Result};
use crate::hooks::{borrow, drop_box, give, guarded};
use crate::Tensor;
use tc_sys as sys;

type PackFn<T> = Box<dyn FnMut(&Tensor) -> Result<T> + Send>;
type UnpackFn<T> = Box<dyn FnMut(&T) -> Result<Tensor> + Send>;

/// What libtc holds as the pair's context: the closures and, per token, the
/// packed value (in an Arc, so that unpack runs without the map's lock).
struct HookPair<T> {
    pack: Mutex<PackFn<T>>,
    unpack: Mutex<UnpackFn<T>>,
    kept: Mutex<HashMap<u64, Arc<T>>>,
    next: Mutex<u64>,
}

fn poisoned() -> Error {
    Error::new(ErrorKind::Callback, "a saved-tensor hook panicked earlier")
}

unsafe extern "C" fn pack_tramp<T: Send + 'static>(
    ctx: *mut c_void,
    t: sys::tc_tensor,
    token: *mut u64,
) -> i32 {
    guarded(|| {
        let pair = &*ctx.cast::<HookPair<T>>();
        let value = {
            let mut f = pair.pack.lock().map_err(|_| poisoned())?;
            f(&borrow(t)?)?
        };
        let id = {
            let mut next = pair.next.lock().map_err(|_| poisoned())?;
            *next += 1;
            *next
        };
        pair.kept
            .lock()
            .map_err(|_| poisoned())?
            .insert(id, Arc::new(value));
        *token = id;
        Ok(())
    })
}

unsafe extern "C" fn unpack_tramp<T: Send + 'static>(
    ctx: *mut c_void,
    token: u64,
    out: *mut sys::tc_tensor,
) -> i32 {
    guarded(|| {
        let pair = &*ctx.cast::<HookPair<T>>();
        let value = pair
            .kept
            .lock()
            .map_err(|_| poisoned())?
            .get(&token)
            .cloned()
            .ok_or_else(|| Error::new(ErrorKind::Internal, "unknown saved-tensor token"))?;
        let t = {
            let mut f = pair.unpack.lock().map_err(|_| poisoned())?;
            f(&value)?
        };
        *out = give(&t)?;
        Ok(())
    })
}

unsafe extern "C" fn free_tramp<T: Send + 'static>(ctx: *mut c_void, token: u64) {
    let pair = &*ctx.cast::<HookPair<T>>();
    // The value dies outside the lock (it may hold tensors).
    let value = match pair.kept.lock() {
        Ok(mut kept) => kept.remove(&token),
        Err(_) => None,
    };
    drop(value);
}

/// A pushed pair of saved-tensor hooks; dropping it pops the pair. Not
/// `Send`: the stack it is on is the creating thread's.
#[derive(Debug)]
#[must_use = "the hooks are popped as soon as the guard is dropped"]
pub struct SavedTensorsHooks {
    _thread_bound: PhantomData<*const ()>,
}

impl Drop for SavedTensorsHooks {
    fn drop(&mut self) {
        unsafe { sys::tc_saved_tensors_hooks_pop() };
    }
}

/// Pushes `pack` / `unpack` as this thread's saved-tensor hooks until the
/// returned guard drops (torch.autograd.graph.saved_tensors_hooks). `pack`
/// runs with grad mode off on each tensor an op saves and may return any
/// value; `unpack` turns it back into a tensor when backward needs it. An
/// `Err` (or panic) in `pack` fails the op that saved; in `unpack`, the backward.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::Tensor;
/// let _tc = tc::init()?;
/// let x = Tensor::from_slice(&[1.0f64, 2.0], &[2])?.requires_grad(true)?;
/// let y = {
///     let _hooks = tc::saved_tensors_hooks(|t| t.to_vec::<f64>(), |v| Tensor::from_slice(v, &[2]))?;
///     (&x * &x)?.sum_all()?
/// };
/// y.backward()?;
/// assert_eq!(x.grad()?.unwrap().to_vec::<f64>()?, vec![2.0, 4.0]);
/// # Ok(()) }
/// ```
pub fn saved_tensors_hooks<T, P, U>(pack: P, unpack: U) -> Result<SavedTensorsHooks>
where
    T: Send + 'static,
    P: FnMut(&Tensor) -> Result<T> + Send + 'static,
    U: FnMut(&T) -> Result<Tensor> + Send + 'static,
{
    let pair = HookPair::<T> {
        pack: Mutex::new(Box::new(pack)),
        unpack: Mutex::new(Box::new(unpack)),
        kept: Mutex::new(HashMap::new()),
        next: Mutex::new(0),
    };
    let ctx = Box::into_raw(Box::new(pair)).cast::<c_void>();
    // libtc calls drop_box exactly once, also when this fails.
    check(unsafe {
        sys::tc_saved_tensors_hooks_push(
            Some(pack_tramp::<T>),
            Some(unpack_tramp::<T>),
            Some(free_tramp::<T>),
            ctx,
            Some(drop_box::<HookPair<T>>),
        )
    })?;
    Ok(SavedTensorsHooks {
        _thread_bound: PhantomData,
    })
}

/// How many pairs of saved-tensor hooks this thread has pushed.
pub fn saved_tensors_hooks_depth() -> Result<i64> {
    let mut d = 0i64;
    check(unsafe { sys::tc_saved_tensors_hooks_depth(&mut d) })?;
    Ok(d)
}
