//! Saved-tensor hooks through the safe crate: the guard pushes and pops,
//! packed values of any type, gradients, errors, and every token freed.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tc::{ErrorKind, Tensor};

fn cube_sin(x: &Tensor) -> Result<Tensor, tc::Error> {
    (&(&(x * x)? * x)? * &x.sin()?)?.sum_all()
}

#[test]
fn hooks_round_trip_and_the_guard_pops() -> Result<(), tc::Error> {
    let _tc = tc::init()?;
    let v = [0.5f64, -1.25, 2.0];
    let plain = Tensor::from_slice(&v, &[3])?.requires_grad(true)?;
    cube_sin(&plain)?.backward()?;

    let x = Tensor::from_slice(&v, &[3])?.requires_grad(true)?;
    let (packs, unpacks) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (p, u) = (packs.clone(), unpacks.clone());
    let y = {
        // Packs into a plain Vec<f64> (any value will do), unpacks from it.
        let _hooks = tc::saved_tensors_hooks(
            move |t| {
                p.fetch_add(1, Ordering::SeqCst);
                Ok((t.to_vec::<f64>()?, t.shape()?))
            },
            move |(data, shape): &(Vec<f64>, Vec<i64>)| {
                u.fetch_add(1, Ordering::SeqCst);
                Tensor::from_slice(data, shape)
            },
        )?;
        assert_eq!(tc::saved_tensors_hooks_depth()?, 1);
        cube_sin(&x)?
    };
    assert_eq!(tc::saved_tensors_hooks_depth()?, 0);
    let n = packs.load(Ordering::SeqCst);
    assert!(n >= 4, "{n} packs");
    assert_eq!(unpacks.load(Ordering::SeqCst), 0);
    y.backward()?;
    assert_eq!(unpacks.load(Ordering::SeqCst), n);
    let (a, b) = (
        x.grad()?.unwrap().to_vec::<f64>()?,
        plain.grad()?.unwrap().to_vec::<f64>()?,
    );
    for (g, h) in a.iter().zip(&b) {
        assert!((g - h).abs() < 1e-12, "{a:?} vs {b:?}");
    }
    // Backward freed the tokens: a second one fails as without hooks.
    assert_eq!(y.backward().unwrap_err().kind(), ErrorKind::Autograd);
    Ok(())
}

#[test]
fn a_changed_pack_changes_the_gradient_and_errors_come_back() -> Result<(), tc::Error> {
    let _tc = tc::init()?;
    let x = Tensor::from_slice(&[1.0f64, 2.0], &[2])?.requires_grad(true)?;
    let w = Tensor::from_slice(&[3.0f64, -1.0], &[2])?.requires_grad(true)?;
    let y = {
        let _hooks = tc::saved_tensors_hooks(|t| t * 2.0, |t: &Tensor| Ok(t.clone()))?;
        (&x * &w)?.sum_all()?
    };
    y.backward()?;
    assert_eq!(x.grad()?.unwrap().to_vec::<f64>()?, vec![6.0, -2.0]);
    assert_eq!(w.grad()?.unwrap().to_vec::<f64>()?, vec![2.0, 4.0]);

    // A failing pack fails the op that saved, with the closure's kind and message.
    {
        let _hooks = tc::saved_tensors_hooks(
            |_t| -> Result<(), tc::Error> { Err(tc::Error::new(ErrorKind::Shape, "cannot pack")) },
            |_: &()| Tensor::from_slice(&[0.0f64], &[1]),
        )?;
        let err = (&x * &w).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Shape);
        assert!(err.message().contains("cannot pack"), "{}", err.message());
    }
    // A failing unpack fails the backward, naming the node.
    let y = {
        let _hooks = tc::saved_tensors_hooks(
            |t| Ok(t.clone()),
            |_: &Tensor| -> Result<Tensor, tc::Error> { Err(tc::Error::new(ErrorKind::Io, "cannot unpack")) },
        )?;
        (&x * &w)?.sum_all()?
    };
    let err = y.backward().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io);
    assert!(err.message().contains("MulBackward"), "{}", err.message());
    Ok(())
}

#[test]
fn packed_values_die_with_the_graph() -> Result<(), tc::Error> {
    let _tc = tc::init()?;
    struct Counted(Arc<Mutex<i64>>);
    impl Drop for Counted {
        fn drop(&mut self) {
            *self.0.lock().unwrap() -= 1;
        }
    }
    let live = Arc::new(Mutex::new(0i64));
    let l = live.clone();
    let x = Tensor::from_slice(&[1.0f64, 2.0], &[2])?.requires_grad(true)?;
    let y = {
        let _hooks = tc::saved_tensors_hooks(
            move |t| {
                *l.lock().unwrap() += 1;
                Ok((Counted(l.clone()), t.clone()))
            },
            |(_, t): &(Counted, Tensor)| Ok(t.clone()),
        )?;
        (&x * &x)?.exp()?.sum_all()?
    };
    assert!(*live.lock().unwrap() >= 2);
    drop(y); // no backward: the graph dies with its root
    assert_eq!(*live.lock().unwrap(), 0);
    Ok(())
}
