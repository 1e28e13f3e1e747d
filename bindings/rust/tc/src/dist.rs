//! Process groups and collectives (tc.h's distributed section), like
//! `torch.distributed`: a [`ProcessGroup`] of the processes `mpirun` started
//! (backend `"mpi"`, CPU tensors), collectives that block (with the group's
//! timeout: a lost peer is [`ErrorKind::Timeout`](crate::ErrorKind::Timeout),
//! not a hang) or return a [`Work`] to wait on.
//!
//! ```no_run
//! # fn main() -> tc::Result<()> {
//! let _tc = tc::init()?;
//! let pg = tc::ProcessGroup::new("mpi")?;
//! let t = tc::Tensor::from_slice(&[pg.rank() as f32; 4], &[4])?;
//! pg.all_reduce(&t, tc::ReduceOp::Sum)?;
//! # Ok(())
//! # }
//! ```
use std::ffi::CString;
use std::time::Duration;

use crate::error::{check, Error, ErrorKind, Result};
use crate::ffi::copy_string;
use crate::tensor::Tensor;
use tc_sys as sys;

/// How `all_reduce` and `reduce_scatter` combine the ranks' tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    /// The sum.
    Sum,
    /// The sum divided by the group's size (floating dtypes).
    Avg,
    /// The largest value.
    Max,
    /// The smallest value.
    Min,
    /// The product.
    Product,
}

impl ReduceOp {
    fn code(self) -> i32 {
        match self {
            ReduceOp::Sum => sys::TC_REDUCE_SUM,
            ReduceOp::Avg => sys::TC_REDUCE_AVG,
            ReduceOp::Max => sys::TC_REDUCE_MAX,
            ReduceOp::Min => sys::TC_REDUCE_MIN,
            ReduceOp::Product => sys::TC_REDUCE_PRODUCT,
        }
    }
}

/// Options of [`ProcessGroup::with_options`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ProcessGroupOptions {
    /// Skip the descriptor check that catches ranks disagreeing on a
    /// collective's dtype or shape (saves one small round trip each).
    pub skip_checks: bool,
    /// Every blocking call's limit; `None`: `$TC_DIST_TIMEOUT`, else 300 s.
    pub timeout: Option<Duration>,
}

/// Whether `backend` can make groups here (built in, its module loads).
pub fn backend_available(backend: &str) -> Result<bool> {
    let name = c_name(backend)?;
    let mut out = 0i32;
    check(unsafe { sys::tc_dist_backend_available(name.as_ptr(), &mut out) })?;
    Ok(out != 0)
}

fn c_name(s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::new(ErrorKind::InvalidArgument, "a NUL inside a backend name"))
}

/// A process group: this process's rank among the group's processes, and
/// the collectives they run together (every rank calls each one, in the
/// same order). Creating one is collective too.
pub struct ProcessGroup {
    raw: sys::tc_process_group,
}

// The handle is checked and libtc serializes what needs it.
unsafe impl Send for ProcessGroup {}
unsafe impl Sync for ProcessGroup {}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        unsafe { sys::tc_process_group_free(self.raw) };
    }
}

/// A collective in flight. Its tensors must not be used until it completes.
#[must_use = "a Work should be waited for"]
pub struct Work {
    raw: sys::tc_work,
}

unsafe impl Send for Work {}

impl Drop for Work {
    fn drop(&mut self) {
        unsafe { sys::tc_work_free(self.raw) };
    }
}

impl Work {
    /// Blocks until the collective completes (its error, if it failed), at
    /// most `timeout` (`None`: the group's), then [`ErrorKind::Timeout`].
    pub fn wait(&self, timeout: Option<Duration>) -> Result<()> {
        let s = timeout.map_or(0.0, |d| d.as_secs_f64());
        check(unsafe { sys::tc_work_wait(self.raw, s) })
    }

    /// Whether it has completed (drives it on; never blocks).
    pub fn is_completed(&self) -> Result<bool> {
        let mut out = 0i32;
        check(unsafe { sys::tc_work_test(self.raw, &mut out) })?;
        Ok(out != 0)
    }
}

impl ProcessGroup {
    /// A group for `backend` (`"mpi"`) with the default options.
    pub fn new(backend: &str) -> Result<ProcessGroup> {
        ProcessGroup::with_options(backend, ProcessGroupOptions::default())
    }

    /// A group for `backend` with `options`.
    pub fn with_options(backend: &str, options: ProcessGroupOptions) -> Result<ProcessGroup> {
        let name = c_name(backend)?;
        let opts = sys::tc_process_group_options {
            size: std::mem::size_of::<sys::tc_process_group_options>() as u32,
            skip_checks: options.skip_checks as i32,
            timeout_seconds: options.timeout.map_or(0.0, |d| d.as_secs_f64()),
        };
        let mut raw: sys::tc_process_group = std::ptr::null_mut();
        check(unsafe { sys::tc_process_group_create(name.as_ptr(), &opts, &mut raw) })?;
        Ok(ProcessGroup { raw })
    }

    /// This process's rank in `[0, size)`.
    pub fn rank(&self) -> i32 {
        let mut out = 0i32;
        check(unsafe { sys::tc_process_group_rank(self.raw, &mut out) }).expect("a live process group");
        out
    }

    /// The number of processes in the group.
    pub fn size(&self) -> i32 {
        let mut out = 0i32;
        check(unsafe { sys::tc_process_group_size(self.raw, &mut out) }).expect("a live process group");
        out
    }

    /// The backend's name (`"mpi"`).
    pub fn backend(&self) -> Result<String> {
        copy_string(|buf, cap, needed| unsafe { sys::tc_process_group_backend(self.raw, buf, cap, needed) })
    }

    fn run(&self, start: impl FnOnce(*mut sys::tc_work) -> i32, asynchronous: bool) -> Result<Option<Work>> {
        if asynchronous {
            let mut raw: sys::tc_work = std::ptr::null_mut();
            check(start(&mut raw))?;
            Ok(Some(Work { raw }))
        } else {
            check(start(std::ptr::null_mut()))?;
            Ok(None)
        }
    }

    fn blocking(&self, start: impl FnOnce(*mut sys::tc_work) -> i32) -> Result<()> {
        self.run(start, false).map(|_| ())
    }

    fn started(&self, start: impl FnOnce(*mut sys::tc_work) -> i32) -> Result<Work> {
        Ok(self.run(start, true)?.expect("a work"))
    }

    /// `t` = `op` over every rank's `t`, in place.
    pub fn all_reduce(&self, t: &Tensor, op: ReduceOp) -> Result<()> {
        self.blocking(|w| unsafe { sys::tc_all_reduce(self.raw, t.as_raw(), op.code(), w) })
    }

    /// [`all_reduce`](Self::all_reduce), started and returned as a [`Work`].
    pub fn all_reduce_async(&self, t: &Tensor, op: ReduceOp) -> Result<Work> {
        self.started(|w| unsafe { sys::tc_all_reduce(self.raw, t.as_raw(), op.code(), w) })
    }

    /// `t` = rank `root`'s `t`, on every rank.
    pub fn broadcast(&self, t: &Tensor, root: i32) -> Result<()> {
        self.blocking(|w| unsafe { sys::tc_broadcast(self.raw, t.as_raw(), root, w) })
    }

    /// [`broadcast`](Self::broadcast), asynchronously.
    pub fn broadcast_async(&self, t: &Tensor, root: i32) -> Result<Work> {
        self.started(|w| unsafe { sys::tc_broadcast(self.raw, t.as_raw(), root, w) })
    }

    /// `out` (size x numel(t) elements) = every rank's `t`, in rank order.
    pub fn all_gather(&self, out: &Tensor, t: &Tensor) -> Result<()> {
        self.blocking(|w| unsafe { sys::tc_all_gather(self.raw, out.as_raw(), t.as_raw(), w) })
    }

    /// `out` = `op` over every rank's block number `rank` of `t` (size
    /// blocks of numel(out) elements).
    pub fn reduce_scatter(&self, out: &Tensor, t: &Tensor, op: ReduceOp) -> Result<()> {
        self.blocking(|w| unsafe { sys::tc_reduce_scatter(self.raw, out.as_raw(), t.as_raw(), op.code(), w) })
    }

    /// Returns once every rank has called it.
    pub fn barrier(&self) -> Result<()> {
        self.blocking(|w| unsafe { sys::tc_barrier(self.raw, w) })
    }

    /// Sends `t` to rank `peer` (matched by `tag`, 0..=32767).
    pub fn send(&self, t: &Tensor, peer: i32, tag: i32) -> Result<()> {
        self.blocking(|w| unsafe { sys::tc_send(self.raw, t.as_raw(), peer, tag, w) })
    }

    /// Receives rank `peer`'s tensor sent with `tag` into `t`.
    pub fn recv(&self, t: &Tensor, peer: i32, tag: i32) -> Result<()> {
        self.blocking(|w| unsafe { sys::tc_recv(self.raw, t.as_raw(), peer, tag, w) })
    }
}
