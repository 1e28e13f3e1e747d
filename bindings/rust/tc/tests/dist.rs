//! Process groups of one process (cargo test runs without mpirun: MPI makes
//! a singleton world); tests/dist/ runs the collectives across processes.
use tc::{ErrorKind, ProcessGroup, ProcessGroupOptions, ReduceOp, Tensor};

fn group() -> Option<ProcessGroup> {
    match ProcessGroup::new("mpi") {
        Ok(pg) => Some(pg),
        Err(e) if matches!(e.kind(), ErrorKind::NotCompiled | ErrorKind::Unavailable) => {
            eprintln!("skipped: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn a_group_of_one_runs_every_collective() {
    let _tc = tc::init().unwrap();
    let Some(pg) = group() else { return };
    assert_eq!((pg.rank(), pg.size()), (0, 1));
    assert_eq!(pg.backend().unwrap(), "mpi");
    assert!(tc::backend_available("mpi").unwrap());
    let t = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    pg.all_reduce(&t, ReduceOp::Sum).unwrap();
    pg.all_reduce(&t, ReduceOp::Avg).unwrap();
    assert_eq!(t.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0]);
    let w = pg.all_reduce_async(&t, ReduceOp::Max).unwrap();
    w.wait(None).unwrap();
    assert!(w.is_completed().unwrap());
    pg.broadcast(&t, 0).unwrap();
    pg.broadcast_async(&t, 0).unwrap().wait(None).unwrap();
    let out = Tensor::zeros(&[3], tc::DType::Float32, tc::Device::Cpu).unwrap();
    pg.all_gather(&out, &t).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0]);
    pg.reduce_scatter(&out, &t, ReduceOp::Product).unwrap();
    pg.barrier().unwrap();
    // No peer in a group of one.
    assert_eq!(pg.send(&t, 0, 0).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(pg.recv(&t, 1, 0).unwrap_err().kind(), ErrorKind::InvalidArgument);
    let opts = ProcessGroupOptions {
        skip_checks: true,
        timeout: Some(std::time::Duration::from_secs(5)),
    };
    let quick = ProcessGroup::with_options("mpi", opts).unwrap();
    quick.barrier().unwrap();
}

#[test]
fn nccl_without_a_gpu_and_unknown_backends_are_refused() {
    let _tc = tc::init().unwrap();
    if !tc::backend_available("nccl").unwrap() {
        // Not built (CPU-only libtc, or a CUDA module without NCCL), or no GPU.
        let kind = ProcessGroup::new("nccl").err().unwrap().kind();
        assert!(
            kind == ErrorKind::NotCompiled || kind == ErrorKind::Device,
            "{kind:?}"
        );
    }
    assert_eq!(
        ProcessGroup::new("gloo").err().unwrap().kind(),
        ErrorKind::InvalidArgument
    );
}
