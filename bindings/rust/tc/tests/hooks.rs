//! Custom functions with closures, tensor hooks, grad_fn nodes, tensor options.
use std::sync::{Arc, Mutex};

use tc::{DType, Device, ErrorKind, Fill, Tensor, TensorOptions};

#[test]
fn custom_function_gradient_and_errors() -> Result<(), tc::Error> {
    let _tc = tc::init()?;
    let x = Tensor::from_slice(&[1.0f64, -2.0, 3.0], &[3])?.requires_grad(true)?;
    let alpha = 1.5;
    let y = tc::apply_function(
        "ScaledSquareBackward",
        &[&x],
        Box::new(move |xs, needs| {
            assert_eq!(needs, &[true]);
            Ok((vec![(&(&xs[0] * &xs[0])? * alpha)?], vec![xs[0].clone()]))
        }),
        Some(Box::new(move |saved, g, _| {
            Ok(vec![Some((&(&saved[0] * &g[0])? * (2.0 * alpha))?)])
        })),
    )?;
    assert_eq!(y[0].grad_fn()?.unwrap().name()?, "ScaledSquareBackward");
    y[0].sum_all()?.backward()?;
    assert_eq!(x.grad()?.unwrap().to_vec::<f64>()?, vec![3.0, -6.0, 9.0]);

    let z = tc::apply_function(
        "FailingBackward",
        &[&x],
        Box::new(|xs, _| Ok((vec![(&xs[0] * 2.0)?], vec![]))),
        Some(Box::new(|_, _, _| {
            Err(tc::Error::new(ErrorKind::Shape, "no gradient today"))
        })),
    )?;
    let err = z[0].sum_all()?.backward().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Shape);
    assert!(err.message().contains("no gradient today"), "{}", err.message());
    let err = tc::apply_function("Panics", &[&x], Box::new(|_, _| panic!("boom")), None).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Callback);
    Ok(())
}

#[test]
fn hooks_in_order_replace_and_remove_once() -> Result<(), tc::Error> {
    let _tc = tc::init()?;
    let x = Tensor::from_slice(&[1.0f32, 1.0], &[2])?.requires_grad(true)?;
    let log = Arc::new(Mutex::new(Vec::new()));
    let (l1, l2) = (log.clone(), log.clone());
    let h1 = x.register_hook(move |g| {
        l1.lock().unwrap().push(format!("h1 {:?}", g.to_vec::<f32>()?));
        Ok(Some((g * 2.0)?))
    })?;
    let post = x.register_post_accumulate_grad_hook(move |t| {
        l2.lock()
            .unwrap()
            .push(format!("post {:?}", t.grad()?.unwrap().to_vec::<f32>()?));
        Ok(())
    })?;
    (&x * 3.0)?.sum_all()?.backward()?;
    assert_eq!(*log.lock().unwrap(), vec!["h1 [3.0, 3.0]", "post [6.0, 6.0]"]);
    h1.remove()?;
    assert_eq!(h1.remove().unwrap_err().kind(), ErrorKind::InvalidHandle);
    post.remove()?;
    let y = (&x * 3.0)?.sum_all()?;
    let root = y.grad_fn()?.unwrap();
    let next = root.next_functions()?;
    assert_eq!(next.len(), 1);
    assert_eq!(next[0].0.as_ref().unwrap().name()?, "MulBackward");
    assert!(x.grad_fn()?.is_none());
    Ok(())
}

#[test]
fn tensor_options() -> Result<(), tc::Error> {
    let _tc = tc::init()?;
    let t = Tensor::new_with(&TensorOptions {
        shape: vec![2, 2],
        dtype: DType::Float64,
        device: Device::Cpu,
        requires_grad: true,
        fill: Fill::Value(2.5),
    })?;
    assert_eq!(t.to_vec::<f64>()?, vec![2.5; 4]);
    assert!(t.is_requires_grad()?);
    let bytes: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let d = Tensor::new_with(&TensorOptions {
        shape: vec![2],
        dtype: DType::Float32,
        device: Device::Cpu,
        requires_grad: false,
        fill: Fill::Data(bytes),
    })?;
    assert_eq!(d.to_vec::<f32>()?, vec![1.0, 2.0]);
    let bad = Tensor::new_with(&TensorOptions {
        shape: vec![2],
        dtype: DType::Int8,
        device: Device::Cpu,
        requires_grad: false,
        fill: Fill::Value(300.0),
    });
    assert_eq!(bad.unwrap_err().kind(), ErrorKind::InvalidArgument);
    Ok(())
}
