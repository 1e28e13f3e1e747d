//! Saving and loading through the safe crate: named tensors, a model's
//! parameters, optimizer state and the generator's state.
use tc::{DType, Device, Sgd, SgdOptions, Tensor, TensorDict};

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("tc_rust_io_{}_{name}", std::process::id()))
}

#[test]
fn named_tensors_round_trip_through_files_and_bytes() -> Result<(), tc::Error> {
    let _tc = tc::init()?;
    let w = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
    let i = Tensor::from_slice(&[7i64, -8], &[2])?;
    let path = temp("named.safetensors");
    tc::save_safetensors([("w", &w), ("i", &i)], &path)?;
    let loaded = tc::load_safetensors(&path)?;
    let names: Vec<&str> = loaded.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["i", "w"]); // file order: I64 before F32
    assert_eq!(loaded[1].1.to_vec::<f32>()?, vec![1.0, 2.0, 3.0, 4.0]);
    assert_eq!(loaded[1].1.shape()?, vec![2, 2]);
    assert_eq!(loaded[0].1.to_vec::<i64>()?, vec![7, -8]);
    assert!(!loaded[1].1.is_readonly()?); // mapped copy-on-write: writable
                                          // Bytes: the same as the file, and they parse back.
    let mut d = TensorDict::from_pairs([("w", &w), ("i", &i)])?;
    d.set_metadata("format", "pt")?;
    let bytes = d.to_bytes()?;
    let back = TensorDict::from_bytes(&bytes)?;
    assert_eq!(back.metadata("format")?, "pt");
    assert_eq!(back.metadata_keys()?, vec!["format".to_string()]);
    assert!(back.contains("w")? && !back.contains("nope")?);
    assert_eq!(back.get("nope").unwrap_err().kind(), tc::ErrorKind::Index);
    // A bad file is an I/O error.
    assert_eq!(
        TensorDict::from_bytes(&bytes[..bytes.len() - 1])
            .unwrap_err()
            .kind(),
        tc::ErrorKind::Io
    );
    std::fs::remove_file(&path).ok();
    Ok(())
}

#[test]
fn model_parameters_and_optimizer_state_resume() -> Result<(), tc::Error> {
    let _tc = tc::init()?;
    let w = Tensor::from_slice(&[0.5f32, -1.0], &[2])?.requires_grad(true)?;
    let mut opt = Sgd::new(
        &[&w],
        SgdOptions {
            lr: 0.1,
            momentum: 0.9,
            ..Default::default()
        },
    )?;
    (&w * &w)?.sum_all()?.backward()?;
    opt.step()?;
    let path = temp("model.safetensors");
    tc::save_safetensors([("w", &w)], &path)?;
    let state = opt.state_dict()?;
    assert!(state.contains("state.0.momentum_buffer")?);
    let rng = tc::get_rng_state()?;

    let w2 = Tensor::zeros(&[2], DType::Float32, Device::Cpu)?.requires_grad(true)?;
    tc::load_parameters([("w", &w2)], &path)?;
    assert_eq!(w2.to_vec::<f32>()?, w.to_vec::<f32>()?);
    let mut opt2 = Sgd::new(
        &[&w2],
        SgdOptions {
            lr: 0.5,
            ..Default::default()
        },
    )?;
    opt2.load_state_dict(&state)?;
    assert_eq!(opt2.lr()?, 0.1);
    for (o, p) in [(&mut opt, &w), (&mut opt2, &w2)] {
        o.zero_grad()?;
        (p * p)?.sum_all()?.backward()?;
        o.step()?;
    }
    assert_eq!(w2.to_vec::<f32>()?, w.to_vec::<f32>()?);
    tc::set_rng_state(&rng)?;
    let a = Tensor::rand(&[3], DType::Float32, Device::Cpu)?.to_vec::<f32>()?;
    tc::set_rng_state(&rng)?;
    assert_eq!(
        Tensor::rand(&[3], DType::Float32, Device::Cpu)?.to_vec::<f32>()?,
        a
    );
    let wrong = Tensor::zeros(&[3], DType::Float32, Device::Cpu)?;
    assert_eq!(
        tc::load_parameters([("w", &wrong)], &path).unwrap_err().kind(),
        tc::ErrorKind::Shape
    );
    std::fs::remove_file(&path).ok();
    Ok(())
}
