//! Optimizers against hand-computed updates.
use tc::{Adam, AdamOptions, AdamW, AdamWOptions, Optimizer, Sgd, SgdOptions, Tensor};

fn param(v: &[f64]) -> Tensor {
    Tensor::from_slice(v, &[v.len() as i64])
        .unwrap()
        .requires_grad(true)
        .unwrap()
}

/// loss = sum(c * p): gradient c.
fn linear_loss(p: &Tensor, c: f64) {
    (p * c).unwrap().sum_all().unwrap().backward().unwrap();
}

#[test]
fn sgd_with_momentum_and_weight_decay() {
    let _tc = tc::init().unwrap();
    let p = param(&[1.0, -1.0]);
    let opts = SgdOptions {
        lr: 0.1,
        momentum: 0.9,
        weight_decay: 0.5,
        ..Default::default()
    };
    let mut opt = Sgd::new(&[&p], opts).unwrap();
    // torch: g = grad + wd * p; buf = g (first step), then buf = m*buf + g; p -= lr * buf
    let mut expect = [1.0f64, -1.0];
    let mut buf = [0.0f64; 2];
    for step in 0..3 {
        opt.zero_grad().unwrap();
        linear_loss(&p, 2.0);
        opt.step().unwrap();
        for i in 0..2 {
            let g = 2.0 + 0.5 * expect[i];
            buf[i] = if step == 0 { g } else { 0.9 * buf[i] + g };
            expect[i] -= 0.1 * buf[i];
        }
    }
    let got = p.to_vec::<f64>().unwrap();
    assert!(
        got.iter().zip(&expect).all(|(a, b)| (a - b).abs() < 1e-12),
        "{got:?} vs {expect:?}"
    );
    assert_eq!(opt.lr().unwrap(), 0.1);
    opt.set_lr(0.01).unwrap();
    assert_eq!(opt.lr().unwrap(), 0.01);
}

#[test]
fn adam_and_adamw() {
    let _tc = tc::init().unwrap();
    let a = param(&[1.0]);
    let w = param(&[1.0]);
    let mut adam = Adam::new(
        &[&a],
        AdamOptions {
            lr: 0.1,
            ..Default::default()
        },
    )
    .unwrap();
    let mut adamw = AdamW::new(
        &[&w],
        AdamWOptions {
            lr: 0.1,
            weight_decay: 0.5,
            ..Default::default()
        },
    )
    .unwrap();
    for opt in [&mut adam as &mut dyn Optimizer, &mut adamw] {
        opt.zero_grad().unwrap();
    }
    linear_loss(&a, 3.0);
    linear_loss(&w, 3.0);
    adam.step().unwrap();
    adamw.step().unwrap();
    // First Adam step: m_hat = g, v_hat = g^2, update lr * g / (|g| + eps).
    let step = 0.1 * 3.0 / (3.0 + 1e-8);
    assert!((a.item().unwrap() - (1.0 - step)).abs() < 1e-9);
    // AdamW decays first: p *= 1 - lr * wd.
    assert!((w.item().unwrap() - (1.0 * (1.0 - 0.1 * 0.5) - step)).abs() < 1e-9);
    // Parameters without a gradient are skipped.
    adam.zero_grad().unwrap();
    let before = a.item().unwrap();
    adam.step().unwrap();
    assert_eq!(a.item().unwrap(), before);
}

#[test]
fn parameters_must_be_float_leaves_requiring_grad() {
    let _tc = tc::init().unwrap();
    let no_grad = Tensor::from_slice(&[1.0f32], &[1]).unwrap();
    assert!(Sgd::new(&[&no_grad], SgdOptions::default()).is_err());
    let non_leaf = (&param(&[1.0]) * 2.0).unwrap();
    assert!(Adam::new(&[&non_leaf], AdamOptions::default()).is_err());
    let err = Sgd::new(
        &[&param(&[1.0])],
        SgdOptions {
            lr: -1.0,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.kind(), tc::ErrorKind::InvalidArgument);
}
