//! Staged initialization: the RAII [`InitGuard`], its options, the init
//! report and the build configuration.
use std::ffi::c_char;

use crate::error::{check, Error, ErrorKind, Result};
use crate::ffi::{c_string, copy_string, static_str};
use tc_sys as sys;

/// Options for [`init_with`]. `Default` gives libtc's defaults everywhere.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InitOptions {
    /// Intra-op threads; `None`: `TC_NUM_THREADS` from the environment,
    /// else the number of cores.
    pub num_threads: Option<u32>,
    /// Seed of the default generator; `None`: from entropy (or `TC_SEED`).
    pub seed: Option<u64>,
    /// Initialize optional backends (CUDA) now instead of lazily. Their
    /// failure never fails init; see [`init_stages`].
    pub eager_backends: bool,
}

/// Keeps libtc initialized: made by [`init`] or [`init_with`] (`tc_init`),
/// and its drop calls `tc_shutdown`.
///
/// libtc counts these: every guard holds one reference, and only when the
/// last guard drops does libtc free every object. Tensors and optimizers that
/// outlive that moment become stale: using them gives
/// [`ErrorKind::InvalidHandle`] (never a crash), and dropping them does
/// nothing. Guards may be made, sent and dropped on any thread.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// let guard = tc::init()?;
/// assert!(tc::is_initialized());
/// let second = tc::init()?; // only counts
/// drop(second);
/// assert!(tc::is_initialized());
/// drop(guard);
/// # Ok(()) }
/// ```
#[must_use = "libtc shuts down again when the guard is dropped"]
#[derive(Debug)]
pub struct InitGuard {
    _private: (),
}

// SAFETY: tc_init and tc_shutdown are thread-safe and counted; which thread
// drops the guard does not matter.
unsafe impl Send for InitGuard {}
unsafe impl Sync for InitGuard {}

impl Drop for InitGuard {
    fn drop(&mut self) {
        // Fails only without a matching tc_init, which a guard always has.
        let _ = unsafe { sys::tc_shutdown() };
    }
}

/// Initializes libtc with default options (`tc_init(NULL)`); see
/// [`InitGuard`]. Fails with [`ErrorKind::AbiMismatch`] when the loaded
/// library's ABI version differs from the header this crate was built from.
pub fn init() -> Result<InitGuard> {
    init_with(&InitOptions::default())
}

/// Initializes libtc with `options` (ignored when libtc is initialized
/// already: the call then only counts).
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// let _tc = tc::init_with(&tc::InitOptions { seed: Some(7), ..Default::default() })?;
/// # Ok(()) }
/// ```
pub fn init_with(options: &InitOptions) -> Result<InitGuard> {
    let abi = abi_version()?;
    if abi != sys::TC_ABI_VERSION {
        return Err(Error::new(
            ErrorKind::AbiMismatch,
            format!(
                "libtc has ABI version {abi}; this crate was generated for {}",
                sys::TC_ABI_VERSION
            ),
        ));
    }
    let raw = sys::tc_init_options {
        size: std::mem::size_of::<sys::tc_init_options>() as u32,
        num_threads: options.num_threads.map_or(0, |n| n.min(i32::MAX as u32) as i32),
        use_seed: i32::from(options.seed.is_some()),
        reserved0: 0,
        seed: options.seed.unwrap_or(0),
        eager_backends: i32::from(options.eager_backends),
        reserved1: 0,
    };
    check(unsafe { sys::tc_init(&raw) })?;
    Ok(InitGuard { _private: () })
}

/// Whether libtc is initialized now (some guard is alive somewhere).
pub fn is_initialized() -> bool {
    let mut out = 0i32;
    let status = unsafe { sys::tc_is_initialized(&mut out) };
    status == sys::TC_OK && out != 0
}

/// The library's version: `(major*10000 + minor*100 + patch, "0.1.0")`.
pub fn version() -> (i32, &'static str) {
    let mut number = 0i32;
    let mut text: *const c_char = std::ptr::null();
    unsafe {
        sys::tc_version(&mut number, &mut text);
        (number, static_str(text))
    }
}

/// The ABI version of the loaded library.
pub fn abi_version() -> Result<i32> {
    let mut out = 0i32;
    check(unsafe { sys::tc_abi_version(&mut out) })?;
    Ok(out)
}

/// The state of one initialization stage.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StageState {
    /// Not run yet.
    Pending,
    /// Ran successfully.
    Ok,
    /// Failed (see the message).
    Failed,
    /// Skipped (see the message).
    Skipped,
    /// Registered; runs on first use (CUDA).
    Lazy,
    /// A state this crate does not know.
    Unknown(i32),
}

impl StageState {
    fn from_code(code: i32) -> StageState {
        match code {
            sys::TC_STAGE_PENDING => StageState::Pending,
            sys::TC_STAGE_OK => StageState::Ok,
            sys::TC_STAGE_FAILED => StageState::Failed,
            sys::TC_STAGE_SKIPPED => StageState::Skipped,
            sys::TC_STAGE_LAZY => StageState::Lazy,
            other => StageState::Unknown(other),
        }
    }
}

/// One stage of initialization ("core", "cpu", "random", "autograd", "cuda").
#[derive(Clone, Debug, PartialEq)]
pub struct StageInfo {
    /// The stage's name.
    pub name: String,
    /// Its state.
    pub state: StageState,
    /// Why it failed or was skipped, else "".
    pub message: String,
    /// Time it took, in milliseconds.
    pub duration_ms: f64,
    /// Whether its failure fails init.
    pub required: bool,
}

/// Every initialization stage, in run order.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// let _tc = tc::init()?;
/// let stages = tc::init_stages()?;
/// assert_eq!(stages[0].name, "core");
/// assert_eq!(stages[0].state, tc::StageState::Ok);
/// # Ok(()) }
/// ```
pub fn init_stages() -> Result<Vec<StageInfo>> {
    let mut count = 0i64;
    check(unsafe { sys::tc_init_stage_count(&mut count) })?;
    (0..count)
        .map(|i| {
            // SAFETY: all-zero is a valid tc_stage_info (NULL strings, numbers 0).
            let mut raw: sys::tc_stage_info = unsafe { std::mem::zeroed() };
            raw.size = std::mem::size_of::<sys::tc_stage_info>() as u32;
            check(unsafe { sys::tc_init_stage(i, &mut raw) })?;
            // The strings live until tc_shutdown; copy them now.
            let text = |p: *const c_char| unsafe { static_str(p) }.to_owned();
            Ok(StageInfo {
                name: text(raw.name),
                state: StageState::from_code(raw.state),
                message: text(raw.message),
                duration_ms: raw.duration_ms,
                required: raw.required != 0,
            })
        })
        .collect()
}

/// A text report of every stage with its state, time and message
/// (`tc_init_report`).
pub fn init_report() -> Result<String> {
    copy_string(|buf, cap, needed| unsafe { sys::tc_init_report(buf, cap, needed) })
}

/// A build and runtime report like `torch.__config__.show()` (`tc_config`).
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// let _tc = tc::init()?;
/// assert!(tc::config()?.contains(tc::version().1));
/// # Ok(()) }
/// ```
pub fn config() -> Result<String> {
    copy_string(|buf, cap, needed| unsafe { sys::tc_config(buf, cap, needed) })
}

/// Runs a lazy backend's stage now (`"cuda"`): `Ok`, or
/// [`ErrorKind::NotCompiled`] / [`ErrorKind::Unavailable`] with the reason.
pub fn backend_init(name: &str) -> Result<()> {
    let name = c_string(name)?;
    check(unsafe { sys::tc_backend_init(name.as_ptr()) })
}

/// Reseeds the default generator (`tc_manual_seed`).
pub fn manual_seed(seed: u64) -> Result<()> {
    check(unsafe { sys::tc_manual_seed(seed) })
}

/// The seed the default generator was last seeded with.
pub fn initial_seed() -> Result<u64> {
    let mut out = 0u64;
    check(unsafe { sys::tc_initial_seed(&mut out) })?;
    Ok(out)
}
