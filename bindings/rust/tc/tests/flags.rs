//! Flags and the init report. Global settings change here, so this binary
//! runs its tests one at a time.
use std::sync::Mutex;

use tc::{DType, Device, Tensor};

static SERIAL: Mutex<()> = Mutex::new(());

#[test]
fn flag_list_and_values() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _tc = tc::init().unwrap();
    let all = tc::flags().unwrap();
    for name in [
        tc::flags::HAS_CUDA,
        tc::flags::HAS_ONEDNN,
        tc::flags::HAS_OPENMP,
        tc::flags::CUDA_AVAILABLE,
        tc::flags::NUM_THREADS,
        tc::flags::GRAD_ENABLED,
        tc::flags::DETERMINISTIC,
        tc::flags::DEFAULT_DTYPE,
        tc::flags::LIVE_TENSORS,
        tc::flags::LIVE_HANDLES,
    ] {
        let info = all
            .iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("flag {name} listed"));
        let value = tc::get_flag(name).unwrap();
        let settable = [
            tc::flags::NUM_THREADS,
            tc::flags::GRAD_ENABLED,
            tc::flags::DETERMINISTIC,
            tc::flags::DEFAULT_DTYPE,
        ]
        .contains(&name);
        assert_eq!(info.settable, settable, "{name}");
        if !settable {
            assert!(tc::set_flag(name, value).is_err(), "{name} is read-only");
        }
    }
    assert_eq!(tc::get_flag(tc::flags::HAS_ONEDNN).unwrap(), 1);
}

#[test]
fn settable_flags_change_behaviour() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _tc = tc::init().unwrap();
    let threads = tc::get_flag(tc::flags::NUM_THREADS).unwrap();
    tc::set_flag(tc::flags::NUM_THREADS, 1).unwrap();
    assert_eq!(tc::get_flag(tc::flags::NUM_THREADS).unwrap(), 1);
    assert!(tc::set_flag(tc::flags::NUM_THREADS, 0).is_err());
    tc::set_flag(tc::flags::NUM_THREADS, threads).unwrap();

    let ints = Tensor::from_slice(&[1i64, 2], &[2]).unwrap();
    assert_eq!((&ints * 0.5).unwrap().dtype().unwrap(), DType::Float32);
    tc::set_flag(tc::flags::DEFAULT_DTYPE, i64::from(DType::Float64.code())).unwrap();
    let r = (&ints * 0.5).map(|t| t.dtype());
    tc::set_flag(tc::flags::DEFAULT_DTYPE, i64::from(DType::Float32.code())).unwrap();
    assert_eq!(
        r.unwrap().unwrap(),
        DType::Float64,
        "int * scalar gives the default dtype"
    );
    assert!(tc::set_flag(tc::flags::DEFAULT_DTYPE, i64::from(DType::Int32.code())).is_err());

    tc::set_flag(tc::flags::DETERMINISTIC, 1).unwrap();
    assert_eq!(tc::get_flag(tc::flags::DETERMINISTIC).unwrap(), 1);
    tc::set_flag(tc::flags::DETERMINISTIC, 0).unwrap();
    assert!(tc::set_flag(tc::flags::DETERMINISTIC, 2).is_err());
}

#[test]
fn init_report_stages_config_and_seed() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _tc = tc::init_with(&tc::InitOptions {
        seed: Some(1234),
        ..Default::default()
    })
    .unwrap();
    let stages = tc::init_stages().unwrap();
    let names: Vec<&str> = stages.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["core", "cpu", "random", "autograd", "cuda"]);
    for s in &stages[..4] {
        assert_eq!(s.state, tc::StageState::Ok, "{s:?}");
        assert!(s.required);
    }
    assert!(!stages[4].required);
    let report = tc::init_report().unwrap();
    for name in names {
        assert!(report.contains(name), "report names stage {name}:\n{report}");
    }
    let config = tc::config().unwrap();
    assert!(config.contains(tc::version().1), "{config}");
    let (number, text) = tc::version();
    assert_eq!(
        number,
        100 * tc_sys::TC_VERSION_MINOR + 10000 * tc_sys::TC_VERSION_MAJOR + tc_sys::TC_VERSION_PATCH
    );
    assert_eq!(
        text,
        format!(
            "{}.{}.{}",
            tc_sys::TC_VERSION_MAJOR,
            tc_sys::TC_VERSION_MINOR,
            tc_sys::TC_VERSION_PATCH
        )
    );
    assert_eq!(tc::abi_version().unwrap(), tc_sys::TC_ABI_VERSION);

    // The same seed gives the same samples.
    tc::manual_seed(99).unwrap();
    assert_eq!(tc::initial_seed().unwrap(), 99);
    let a = Tensor::randn(&[16], DType::Float32, Device::Cpu)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    tc::manual_seed(99).unwrap();
    let b = Tensor::randn(&[16], DType::Float32, Device::Cpu)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(a, b);
}
