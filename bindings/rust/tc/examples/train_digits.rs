//! Trains the MLP 64 -> 128 -> ReLU -> 10 on the 8x8 handwritten digits
//! (examples/data/digits.csv.gz), like examples/train_digits.c: the same
//! fixed-seed 80/20 split and batch order (Knuth's MMIX LCG), the same
//! initialization (torch.nn.Linear's), softmax cross-entropy and Adam.
//!
//! ```text
//! cargo run --release --example train_digits -- [--epochs N] [--batch N] [--lr X]
//!     [--threads N] [--seed N] [--data PATH]
//! ```
//!
//! The data is gzip: it is read through `gzip -dc` (no crates here).
//! Exits with status 1 on any error, and when the final test accuracy is
//! below 95% or a tensor leaked.
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use tc::{Adam, AdamOptions, DType, Device, Reduction, Tensor};

const NUM_PIXELS: usize = 64;
const NUM_CLASSES: usize = 10;
const HIDDEN: i64 = 128;

struct Args {
    epochs: usize,
    batch: usize,
    lr: f64,
    threads: Option<u32>,
    seed: u64,
    data: Option<PathBuf>,
}

fn usage() -> ! {
    eprintln!("usage: train_digits [--epochs N] [--batch N] [--lr X] [--threads N] [--seed N] [--data PATH]");
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut args = Args {
        epochs: 20,
        batch: 32,
        lr: 3e-3,
        threads: None,
        seed: 42,
        data: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "-h" || flag == "--help" {
            usage();
        }
        let value = it.next().unwrap_or_else(|| usage());
        match flag.as_str() {
            "--epochs" => args.epochs = value.parse().unwrap_or_else(|_| usage()),
            "--batch" => args.batch = value.parse().unwrap_or_else(|_| usage()),
            "--lr" => args.lr = value.parse().unwrap_or_else(|_| usage()),
            "--threads" => args.threads = Some(value.parse().unwrap_or_else(|_| usage())),
            "--seed" => args.seed = value.parse().unwrap_or_else(|_| usage()),
            "--data" => args.data = Some(PathBuf::from(value)),
            _ => usage(),
        }
    }
    if args.epochs == 0 || args.batch == 0 || args.lr <= 0.0 {
        usage();
    }
    args
}

/// Pixels scaled to [0, 1] and labels 0..9.
struct Digits {
    x: Vec<[f32; NUM_PIXELS]>,
    y: Vec<i64>,
}

/// Decompresses with `gzip -dc` and parses "p0,...,p63,label" lines.
fn load_digits(path: &Path) -> Result<Digits, String> {
    let out = Command::new("gzip")
        .arg("-dc")
        .arg(path)
        .output()
        .map_err(|e| format!("cannot run gzip: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "gzip -dc {}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8(out.stdout).map_err(|e| format!("{}: not text: {e}", path.display()))?;
    let mut d = Digits {
        x: Vec::new(),
        y: Vec::new(),
    };
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let malformed = || format!("{}: malformed line {}", path.display(), n + 1);
        let values: Vec<i64> = line
            .split(',')
            .map(|v| v.trim().parse::<i64>())
            .collect::<Result<_, _>>()
            .map_err(|_| malformed())?;
        if values.len() != NUM_PIXELS + 1 || !(0..NUM_CLASSES as i64).contains(&values[NUM_PIXELS]) {
            return Err(malformed());
        }
        let mut pixels = [0f32; NUM_PIXELS];
        for (p, v) in pixels.iter_mut().zip(&values) {
            *p = *v as f32 / 16.0; // pixels 0..16 -> [0, 1]
        }
        d.x.push(pixels);
        d.y.push(values[NUM_PIXELS]);
    }
    Ok(d)
}

/// The C example's fixed-seed LCG (Knuth's MMIX constants), so the split
/// and batch order are the same on every machine.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    fn shuffle(&mut self, idx: &mut [usize]) {
        for i in (1..idx.len()).rev() {
            let j = (self.next() % (i as u32 + 1)) as usize;
            idx.swap(i, j);
        }
    }
}

/// A parameter initialized like torch.nn.Linear's: kaiming_uniform(a =
/// sqrt(5)) weights, uniform(+-1/sqrt(fan_in)) biases.
fn param(shape: &[i64], fan_in: i64, is_bias: bool) -> tc::Result<Tensor> {
    let mut t = Tensor::empty(shape, DType::Float32, Device::Cpu)?;
    if is_bias {
        let bound = 1.0 / (fan_in as f64).sqrt();
        t.uniform_(-bound, bound)?;
    } else {
        t.kaiming_uniform_(5f64.sqrt())?;
    }
    t.requires_grad(true)
}

struct Mlp {
    w1: Tensor,
    b1: Tensor,
    w2: Tensor,
    b2: Tensor,
}

impl Mlp {
    fn new() -> tc::Result<Mlp> {
        let (inp, out) = (NUM_PIXELS as i64, NUM_CLASSES as i64);
        Ok(Mlp {
            w1: param(&[HIDDEN, inp], inp, false)?,
            b1: param(&[HIDDEN], inp, true)?,
            w2: param(&[out, HIDDEN], HIDDEN, false)?,
            b2: param(&[out], HIDDEN, true)?,
        })
    }
    fn params(&self) -> [&Tensor; 4] {
        [&self.w1, &self.b1, &self.w2, &self.b2]
    }
    /// logits [B, 10] for x [B, 64].
    fn forward(&self, x: &Tensor) -> tc::Result<Tensor> {
        x.linear(&self.w1, Some(&self.b1))?
            .relu()?
            .linear(&self.w2, Some(&self.b2))
    }
}

/// x [n, 64] float32 and y [n] int64 for the samples `idx`.
fn batch(d: &Digits, idx: &[usize]) -> tc::Result<(Tensor, Tensor)> {
    let x: Vec<f32> = idx.iter().flat_map(|&i| d.x[i]).collect();
    let y: Vec<i64> = idx.iter().map(|&i| d.y[i]).collect();
    let n = idx.len() as i64;
    Ok((
        Tensor::from_vec(x, &[n, NUM_PIXELS as i64])?,
        Tensor::from_vec(y, &[n])?,
    ))
}

/// Test accuracy in [0, 1], without recording a graph.
fn evaluate(model: &Mlp, d: &Digits, idx: &[usize]) -> tc::Result<f64> {
    let _no_grad = tc::NoGradGuard::new()?;
    let (x, y) = batch(d, idx)?;
    let predicted = model.forward(&x)?.argmax(Some(1), false)?;
    let correct = predicted
        .eq(&y)?
        .to_vec_bool()?
        .into_iter()
        .filter(|&c| c)
        .count();
    Ok(correct as f64 / idx.len() as f64)
}

fn progress(done: usize, total: usize, loss: f64) {
    const WIDTH: usize = 30;
    let filled = done * WIDTH / total;
    let bar: String = (0..WIDTH).map(|i| if i < filled { '#' } else { '.' }).collect();
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "\r  [{bar}] {done:4}/{total}  loss {loss:.4}");
    if done == total {
        let _ = write!(err, "\r{:width$}\r", "", width = WIDTH + 40);
    }
    let _ = err.flush();
}

fn find_data(arg: Option<PathBuf>) -> Result<PathBuf, String> {
    if let Some(p) = arg {
        return Ok(p);
    }
    // From the current dir (the repo root), else next to this crate.
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/data/digits.csv.gz");
    [PathBuf::from("examples/data/digits.csv.gz"), here]
        .into_iter()
        .find(|p| p.is_file())
        .map(|p| p.canonicalize().unwrap_or(p))
        .ok_or_else(|| "cannot find examples/data/digits.csv.gz; pass --data PATH".to_string())
}

fn run(args: Args) -> Result<f64, Box<dyn std::error::Error>> {
    let path = find_data(args.data)?;
    let data = load_digits(&path)?;
    if data.y.len() < 100 {
        return Err(format!("{}: only {} samples", path.display(), data.y.len()).into());
    }

    let guard = tc::init_with(&tc::InitOptions {
        num_threads: args.threads,
        seed: Some(args.seed),
        ..Default::default()
    })?;
    print!("{}", tc::init_report()?);
    let threads = tc::get_flag(tc::flags::NUM_THREADS)?;

    // The fixed 80/20 split.
    let mut lcg = Lcg(args.seed);
    let mut order: Vec<usize> = (0..data.y.len()).collect();
    lcg.shuffle(&mut order);
    let n_train = data.y.len() * 8 / 10;
    let (train_idx, test_idx) = order.split_at_mut(n_train);
    println!(
        "data: {}, {} samples ({} train, {} test); model mlp 64-128-10; {} epochs, batch {}, Adam lr {}, {} threads",
        path.display(),
        data.y.len(),
        n_train,
        test_idx.len(),
        args.epochs,
        args.batch,
        args.lr,
        threads
    );

    let accuracy = {
        let model = Mlp::new()?;
        let mut opt = Adam::new(
            &model.params(),
            AdamOptions {
                lr: args.lr,
                ..Default::default()
            },
        )?;
        let tty = std::io::stderr().is_terminal();
        let steps = n_train.div_ceil(args.batch);
        let start = Instant::now();
        let mut accuracy = 0.0;
        for epoch in 1..=args.epochs {
            let t0 = Instant::now();
            lcg.shuffle(train_idx);
            let mut loss_sum = 0.0;
            for (s, idx) in train_idx.chunks(args.batch).enumerate() {
                let (x, y) = batch(&data, idx)?;
                let loss = model.forward(&x)?.cross_entropy(&y, Reduction::Mean)?;
                opt.zero_grad()?;
                loss.backward()?;
                opt.step()?;
                loss_sum += loss.item()? * idx.len() as f64;
                if tty {
                    progress(s + 1, steps, loss_sum / (s * args.batch + idx.len()) as f64);
                }
            }
            accuracy = evaluate(&model, &data, test_idx)?;
            println!(
                "epoch {epoch:2}  train_loss {:.4}  test_acc {:6.2}%  time {:.3}s",
                loss_sum / n_train as f64,
                100.0 * accuracy,
                t0.elapsed().as_secs_f64()
            );
        }
        println!(
            "final test accuracy {:.2}% after {} epochs in {:.2}s",
            100.0 * accuracy,
            args.epochs,
            start.elapsed().as_secs_f64()
        );
        accuracy
    }; // model and optimizer dropped here
    let live = tc::get_flag(tc::flags::LIVE_TENSORS)?;
    println!("live_tensors {live}");
    drop(guard);
    if live != 0 {
        return Err(format!("{live} tensors leaked").into());
    }
    Ok(accuracy)
}

fn main() -> ExitCode {
    match run(parse_args()) {
        Ok(accuracy) if accuracy >= 0.95 => ExitCode::SUCCESS,
        Ok(accuracy) => {
            eprintln!(
                "train_digits: test accuracy {:.2}% is below 95%",
                100.0 * accuracy
            );
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("train_digits: {e}");
            ExitCode::FAILURE
        }
    }
}
