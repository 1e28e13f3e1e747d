//! Tensors in shared memory through the safe crate, across two processes:
//! the test binary re-executes itself (one test, selected by name, in child
//! mode) to map a file_system segment by name, check what the parent wrote
//! and write back; the parent then sees the child's writes.
use std::process::Command;

use tc::{DType, ErrorKind, SharedHandle, SharingStrategy, Tensor};

const CHILD_ENV: &str = "TC_RUST_SHM_CHILD";

/// Child mode only (the parent sets CHILD_ENV to the segment's name): a no-op otherwise.
#[test]
fn child_maps_and_writes() -> Result<(), tc::Error> {
    let Ok(name) = std::env::var(CHILD_ENV) else { return Ok(()) };
    let _tc = tc::init()?;
    let handle = SharedHandle {
        strategy: SharingStrategy::FileSystem,
        fd: -1,
        name,
        nbytes: 6 * 4,
        shape: vec![3, 2],
        strides: vec![1, 3], // the parent's transposed view
        offset: 0,
        dtype: DType::Float32,
    };
    let mut t = Tensor::from_shared(&handle)?;
    assert!(t.is_shared()?);
    assert_eq!(t.to_vec::<f32>()?, vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    t.fill_(7.0)?;
    Ok(())
}

#[test]
fn another_process_maps_and_writes_the_same_memory() -> Result<(), tc::Error> {
    if std::env::var(CHILD_ENV).is_ok() {
        return Ok(());
    }
    let _tc = tc::init()?;
    tc::set_sharing_strategy(SharingStrategy::FileSystem)?;
    assert_eq!(tc::sharing_strategy()?, SharingStrategy::FileSystem);
    let a = Tensor::from_slice(&[0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0], &[2, 3])?;
    let view = a.transpose(0, 1)?;
    assert!(!a.is_shared()?);
    view.share_memory()?;
    tc::set_sharing_strategy(SharingStrategy::FileDescriptor)?;
    assert!(a.is_shared()?); // the storage moved: every view of it is shared
    let h = view.shared_handle()?;
    assert_eq!(h.strategy, SharingStrategy::FileSystem);
    assert_eq!((h.shape.clone(), h.strides.clone(), h.nbytes), (vec![3, 2], vec![1, 3], 24));
    let status = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_maps_and_writes", "--test-threads=1"])
        .env(CHILD_ENV, &h.name)
        .status()
        .expect("re-run the test binary");
    assert!(status.success());
    assert_eq!(a.to_vec::<f32>()?, vec![7.0; 6]);
    let path = format!("/dev/shm{}", h.name);
    assert!(std::path::Path::new(&path).exists());
    drop(view);
    drop(a); // the last user: the name goes
    assert!(!std::path::Path::new(&path).exists());
    let gone = Tensor::from_shared(&h).unwrap_err();
    assert_eq!(gone.kind(), ErrorKind::Io);
    Ok(())
}

#[test]
fn file_descriptor_segments_map_in_process_and_refuse_bad_views() -> Result<(), tc::Error> {
    if std::env::var(CHILD_ENV).is_ok() {
        return Ok(());
    }
    let _tc = tc::init()?;
    let a = Tensor::from_slice(&[1i64, 2, 3, 4], &[4])?;
    let err = a.shared_handle().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    a.share_memory()?;
    let h = a.shared_handle()?;
    assert_eq!(h.strategy, SharingStrategy::FileDescriptor);
    assert!(h.fd >= 0 && h.name.is_empty());
    let mut b = Tensor::from_shared(&h)?;
    b.fill_(9.0)?;
    assert_eq!(a.to_vec::<i64>()?, vec![9, 9, 9, 9]);
    let too_far = SharedHandle { shape: vec![5], strides: vec![1], ..h.clone() };
    assert_eq!(Tensor::from_shared(&too_far).unwrap_err().kind(), ErrorKind::InvalidArgument);
    let too_small = SharedHandle { nbytes: 1 << 20, ..h };
    assert_eq!(Tensor::from_shared(&too_small).unwrap_err().kind(), ErrorKind::Io);
    assert_eq!(tc::shared_memory_retain("/tc_no_such_segment").unwrap_err().kind(), ErrorKind::Io);
    Ok(())
}
