//! Gaussian process regression on a 1-D toy set, as examples/gp_regression.py:
//! an RBF kernel (lengthscale, variance) plus noise, its Cholesky factor
//! K = L L^T, alpha = K^-1 y by two triangular solves, log det K = 2 sum log
//! diag L, and the negative log marginal likelihood
//! NLL = 1/2 y^T alpha + 1/2 log det K + n/2 log(2 pi), minimized by Adam over
//! the three hyperparameters in log space. The data is deterministic
//! (sin(x) plus a cosine wiggle on 40 points of [-3, 3]), so the printed
//! losses match the Python example's to float64 rounding
//! (tests/rust/gp_regression.sh compares them).
//!
//! ```text
//! cargo run --release --example gp_regression -- [--steps N] [--lr X] [--every N]
//! ```
//!
//! Exits with status 1 on any error or when the NLL did not decrease.
use std::process::ExitCode;

use tc::{Adam, AdamOptions, DType, Device, Tensor};

const N: i64 = 40;

struct Args {
    steps: usize,
    lr: f64,
    every: usize,
}

fn usage() -> ! {
    eprintln!("usage: gp_regression [--steps N] [--lr X] [--every N]");
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut args = Args {
        steps: 100,
        lr: 0.05,
        every: 10,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_else(|| usage());
        match flag.as_str() {
            "--steps" => args.steps = value.parse().unwrap_or_else(|_| usage()),
            "--lr" => args.lr = value.parse().unwrap_or_else(|_| usage()),
            "--every" => args.every = value.parse().unwrap_or_else(|_| usage()),
            _ => usage(),
        }
    }
    if args.steps == 0 || args.every == 0 || args.lr <= 0.0 || args.lr.is_nan() {
        usage();
    }
    args
}

/// x on [-3, 3] and y = sin(x) + 0.1 cos(7x + 0.3).
fn toy_data() -> tc::Result<(Tensor, Tensor)> {
    let x = Tensor::linspace(-3.0, 3.0, N, DType::Float64, Device::Cpu)?;
    let wiggle = (((&x * 7.0)? + 0.3)?.cos()? * 0.1)?;
    let y = (x.sin()? + wiggle)?;
    Ok((x, y))
}

/// variance * exp(-(a_i - b_j)^2 / (2 lengthscale^2)).
fn rbf(a: &Tensor, b: &Tensor, log_ls: &Tensor, log_var: &Tensor) -> tc::Result<Tensor> {
    let d = ((a.unsqueeze(-1)? - b.unsqueeze(-2)?)? / log_ls.exp()?)?;
    log_var.exp()? * ((&d * &d)? * -0.5)?.exp()?
}

/// The NLL of y at x under the GP with params (log lengthscale, log
/// variance, log noise).
fn nll(x: &Tensor, y: &Tensor, params: &[Tensor; 3]) -> tc::Result<Tensor> {
    let eye = Tensor::eye(N, None, DType::Float64, Device::Cpu)?;
    let noise = (params[2].exp()? + 1e-6)?;
    let k = (rbf(x, x, &params[0], &params[1])? + (eye * noise)?)?;
    let l = k.cholesky()?;
    let yc = y.unsqueeze(-1)?;
    let z = l.solve_triangular(&yc, false, true, false)?; // L^-1 y
    let alpha = l.transpose(-2, -1)?.solve_triangular(&z, true, true, false)?; // L^-T L^-1 y
    let fit = ((&yc * &alpha)?.sum(&[], false)? * 0.5)?;
    let logdet = (l.diagonal(0, -2, -1)?.log()?.sum(&[], false)? * 2.0)?;
    let constant = 0.5 * N as f64 * (2.0 * std::f64::consts::PI).ln();
    (fit + (logdet * 0.5)?)? + constant
}

fn run(args: &Args) -> tc::Result<(f64, f64)> {
    let (x, y) = toy_data()?;
    let init = [0.0f64, 0.0, 0.1f64.ln()];
    let params = [
        Tensor::scalar(init[0])?.requires_grad(true)?,
        Tensor::scalar(init[1])?.requires_grad(true)?,
        Tensor::scalar(init[2])?.requires_grad(true)?,
    ];
    let mut opt = Adam::new(
        &[&params[0], &params[1], &params[2]],
        AdamOptions {
            lr: args.lr,
            ..AdamOptions::default()
        },
    )?;
    let (mut first, mut last) = (f64::NAN, f64::NAN);
    for step in 0..args.steps {
        opt.zero_grad()?;
        let loss = nll(&x, &y, &params)?;
        loss.backward()?;
        opt.step()?;
        last = loss.item()?;
        if step == 0 {
            first = last;
        }
        if step % args.every == 0 || step + 1 == args.steps {
            println!("step {step:3}  nll {last:.12}");
        }
    }
    let p: Vec<f64> = params
        .iter()
        .map(|t| t.item().map(f64::exp))
        .collect::<tc::Result<_>>()?;
    println!("lengthscale {:.6}  variance {:.6}  noise {:.6}", p[0], p[1], p[2]);
    println!("final nll {last:.12}");
    Ok((first, last))
}

fn main() -> ExitCode {
    let args = parse_args();
    let _tc = match tc::init() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("gp_regression: {e}");
            return ExitCode::from(1);
        }
    };
    match run(&args) {
        Ok((first, last)) if last < first => ExitCode::SUCCESS,
        Ok(_) => {
            eprintln!("gp_regression: the NLL did not decrease");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("gp_regression: {e}");
            ExitCode::from(1)
        }
    }
}
