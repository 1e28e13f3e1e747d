//! Tensors in POSIX shared memory, to pass them between processes without
//! copying (tc.h's "tensors in shared memory"; PyTorch's `share_memory_`).
//!
//! [`Tensor::share_memory`] moves a CPU tensor's storage into a shared
//! segment in place; [`Tensor::shared_handle`] describes it for another
//! process; [`Tensor::from_shared`] maps it there. With
//! [`SharingStrategy::FileDescriptor`] (the default) the segment has no name:
//! send [`SharedHandle::fd`] over a Unix socket (SCM_RIGHTS), or let a child
//! inherit it. With [`SharingStrategy::FileSystem`] the segment is named
//! ([`SharedHandle::name`]) and reference-counted across processes.
use std::ffi::c_char;

use crate::dtype::DType;
use crate::error::{check, Error, ErrorKind, Result};
use crate::ffi::{c_string, copy_string, len_i64, new_tensor};
use crate::Tensor;
use tc_sys as sys;

/// How this process's new shared segments are reached from other processes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharingStrategy {
    /// Unlinked at once; reached through file descriptors only (`TC_SHARE_FILE_DESCRIPTOR`).
    FileDescriptor,
    /// Named in /dev/shm, reference-counted across processes (`TC_SHARE_FILE_SYSTEM`).
    FileSystem,
}

impl SharingStrategy {
    fn code(self) -> i32 {
        match self {
            SharingStrategy::FileDescriptor => sys::TC_SHARE_FILE_DESCRIPTOR,
            SharingStrategy::FileSystem => sys::TC_SHARE_FILE_SYSTEM,
        }
    }
    fn from_code(code: i32) -> Result<SharingStrategy> {
        match code {
            c if c == sys::TC_SHARE_FILE_DESCRIPTOR => Ok(SharingStrategy::FileDescriptor),
            c if c == sys::TC_SHARE_FILE_SYSTEM => Ok(SharingStrategy::FileSystem),
            _ => Err(Error::new(ErrorKind::Internal, format!("unknown sharing strategy {code} from libtc"))),
        }
    }
}

/// Sets the strategy [`Tensor::share_memory`] uses from now on in this process.
pub fn set_sharing_strategy(strategy: SharingStrategy) -> Result<()> {
    check(unsafe { sys::tc_set_sharing_strategy(strategy.code()) })
}

/// The strategy [`Tensor::share_memory`] uses in this process.
pub fn sharing_strategy() -> Result<SharingStrategy> {
    let mut code = 0i32;
    check(unsafe { sys::tc_get_sharing_strategy(&mut code) })?;
    SharingStrategy::from_code(code)
}

/// Adds the reference a message in flight holds to the file_system segment
/// `name` (`tc_shared_memory_retain`): the sender may then drop its tensor
/// before the receiver maps it; the receiver calls
/// [`shared_memory_release`] once it has.
pub fn shared_memory_retain(name: &str) -> Result<()> {
    let c = c_string(name)?;
    check(unsafe { sys::tc_shared_memory_retain(c.as_ptr()) })
}

/// Drops one reference to the file_system segment `name`; the last unlinks it.
pub fn shared_memory_release(name: &str) -> Result<()> {
    let c = c_string(name)?;
    check(unsafe { sys::tc_shared_memory_release(c.as_ptr()) })
}

/// What another process needs to map a shared tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedHandle {
    /// How the segment is reached.
    pub strategy: SharingStrategy,
    /// FileDescriptor: the exporting process's descriptor (owned by the
    /// storage: valid while the tensor lives); -1 for FileSystem.
    pub fd: i32,
    /// FileSystem: the segment's name ("/tc_..."); empty for FileDescriptor.
    pub name: String,
    /// The storage's bytes.
    pub nbytes: i64,
    /// The tensor's sizes.
    pub shape: Vec<i64>,
    /// The tensor's strides, in elements.
    pub strides: Vec<i64>,
    /// The tensor's storage offset, in elements.
    pub offset: i64,
    /// The element type.
    pub dtype: DType,
}

/// Shared memory.
impl Tensor {
    /// Moves the storage into shared memory in place (`tc_tensor_share_memory_`):
    /// this tensor and every view of its storage then live in a segment other
    /// processes can map. Nothing happens when it is shared already or not on
    /// the CPU. A full /dev/shm is an [`ErrorKind::OutOfMemory`] error naming
    /// the size.
    pub fn share_memory(&self) -> Result<()> {
        check(unsafe { sys::tc_tensor_share_memory_(self.as_raw()) })
    }

    /// Whether the storage is in shared memory (moved or mapped).
    pub fn is_shared(&self) -> Result<bool> {
        let mut b = 0i32;
        check(unsafe { sys::tc_tensor_is_shared(self.as_raw(), &mut b) })?;
        Ok(b != 0)
    }

    /// Describes the shared storage and this view of it for another process
    /// ([`ErrorKind::InvalidArgument`] when it is not shared).
    pub fn shared_handle(&self) -> Result<SharedHandle> {
        let (mut kind, mut fd, mut nbytes) = (0i32, -1i32, 0i64);
        let name = copy_string(|buf: *mut c_char, cap, needed| unsafe {
            sys::tc_tensor_shared_handle(self.as_raw(), &mut kind, &mut fd, &mut nbytes, buf, cap, needed)
        })?;
        Ok(SharedHandle {
            strategy: SharingStrategy::from_code(kind)?,
            fd,
            name,
            nbytes,
            shape: self.shape()?,
            strides: self.strides()?,
            offset: self.storage_offset()?,
            dtype: self.dtype()?,
        })
    }

    /// Maps a storage another process exported (`tc_tensor_from_shared`).
    /// For FileDescriptor, `handle.fd` must be a descriptor of this process
    /// (received or inherited; it is duplicated, the caller still owns it).
    /// A segment that does not exist, was released, or is smaller than
    /// `nbytes` is an [`ErrorKind::Io`] error.
    pub fn from_shared(handle: &SharedHandle) -> Result<Tensor> {
        if handle.shape.len() != handle.strides.len() {
            return Err(Error::new(ErrorKind::InvalidArgument, "shape and strides differ in length"));
        }
        let name = c_string(&handle.name)?;
        let name_ptr = if handle.strategy == SharingStrategy::FileSystem { name.as_ptr() } else { std::ptr::null() };
        new_tensor(|out| unsafe {
            sys::tc_tensor_from_shared(
                handle.strategy.code(),
                handle.fd,
                name_ptr,
                handle.nbytes,
                handle.shape.as_ptr(),
                handle.strides.as_ptr(),
                len_i64(handle.shape.len()),
                handle.offset,
                handle.dtype.code(),
                out,
            )
        })
    }
}
