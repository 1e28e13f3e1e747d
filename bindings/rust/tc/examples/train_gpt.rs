//! A character-level GPT on tiny Shakespeare (examples/data/tinyshakespeare.txt.gz),
//! the model and training of examples/train_gpt.py with the `tc::nn` layers:
//! token + position embeddings, pre-LayerNorm blocks (causal self-attention,
//! GELU MLP), a final LayerNorm and an untied linear head; GPT-2's
//! initialization; AdamW (betas 0.9/0.99, weight decay on the 2-D weights
//! only), a linear warm-up from 1% then a cosine schedule down to 10% of the
//! learning rate, gradient clipping by global norm. Prints the train and
//! validation losses and a generated sample.
//!
//! The data is gzip: it is read through `gzip -dc` (no crates here).
//!
//!     cargo run --release -p tc --example train_gpt -- [--steps N] [--data PATH] ...
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use tc::nn::{CausalSelfAttention, Embedding, LayerNorm, Linear, Module};
use tc::{AdamW, AdamWOptions, DType, Device, NoGradGuard, Reduction, Tensor};

const USAGE: &str = "usage: train_gpt [--steps N] [--data PATH] [--lr X] [--warmup N] [--weight-decay X] \
[--clip X] [--layers N] [--d N] [--heads N] [--context N] [--batch N] [--eval-every N] [--eval-iters N] \
[--sample N] [--seed N] [--require-decrease]";

struct Args {
    steps: usize,
    data: Option<PathBuf>,
    lr: f64,
    warmup: usize,
    weight_decay: f64,
    clip: f64,
    layers: usize,
    d: i64,
    heads: i64,
    context: i64,
    batch: i64,
    eval_every: usize,
    eval_iters: usize,
    sample: usize,
    seed: u64,
    require_decrease: bool,
}

fn usage(msg: &str) -> ! {
    eprintln!("train_gpt: {msg}\n{USAGE}");
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut a = Args {
        steps: 1000,
        data: None,
        lr: 3e-3,
        warmup: 100,
        weight_decay: 0.1,
        clip: 1.0,
        layers: 4,
        d: 128,
        heads: 4,
        context: 64,
        batch: 16,
        eval_every: 100,
        eval_iters: 20,
        sample: 400,
        seed: 1337,
        require_decrease: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--require-decrease" {
            a.require_decrease = true;
            continue;
        }
        if flag == "-h" || flag == "--help" {
            println!("{USAGE}");
            std::process::exit(0);
        }
        let value = it.next().unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        fn num<T: std::str::FromStr>(flag: &str, v: &str) -> T {
            v.parse().unwrap_or_else(|_| usage(&format!("{flag}: bad value {v:?}")))
        }
        match flag.as_str() {
            "--steps" => a.steps = num(&flag, &value),
            "--data" => a.data = Some(PathBuf::from(value)),
            "--lr" => a.lr = num(&flag, &value),
            "--warmup" => a.warmup = num(&flag, &value),
            "--weight-decay" => a.weight_decay = num(&flag, &value),
            "--clip" => a.clip = num(&flag, &value),
            "--layers" => a.layers = num(&flag, &value),
            "--d" => a.d = num(&flag, &value),
            "--heads" => a.heads = num(&flag, &value),
            "--context" => a.context = num(&flag, &value),
            "--batch" => a.batch = num(&flag, &value),
            "--eval-every" => a.eval_every = num(&flag, &value),
            "--eval-iters" => a.eval_iters = num(&flag, &value),
            "--sample" => a.sample = num(&flag, &value),
            "--seed" => a.seed = num(&flag, &value),
            _ => usage(&format!("unknown argument {flag}")),
        }
    }
    if a.steps == 0 || a.layers == 0 || a.d <= 0 || a.heads <= 0 || a.context <= 0 || a.batch <= 0 {
        usage("--steps, --layers, --d, --heads, --context and --batch must be positive");
    }
    if a.eval_every == 0 || a.eval_iters == 0 || a.lr.is_nan() || a.lr <= 0.0 || a.clip.is_nan() || a.clip <= 0.0 {
        usage("--eval-every, --eval-iters, --lr and --clip must be positive");
    }
    if a.d % a.heads != 0 {
        usage(&format!("--d ({}) must be a multiple of --heads ({})", a.d, a.heads));
    }
    if a.warmup >= a.steps {
        usage("--warmup must be in [0, --steps)");
    }
    a
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

// ------------------------------------------------------------------ the model

struct Block {
    ln1: LayerNorm,
    attn: CausalSelfAttention,
    ln2: LayerNorm,
    fc: Linear,
    proj: Linear,
}

struct Gpt {
    context: i64,
    tok: Embedding,
    pos: Embedding,
    blocks: Vec<Block>,
    ln_f: LayerNorm,
    head: Linear,
}

impl Gpt {
    fn new(vocab: i64, context: i64, layers: usize, d: i64, heads: i64) -> tc::Result<Gpt> {
        let f = DType::Float32;
        let mut blocks = Vec::new();
        for _ in 0..layers {
            blocks.push(Block {
                ln1: LayerNorm::new(&[d], 1e-5, f)?,
                attn: CausalSelfAttention::new(d, heads, f)?,
                ln2: LayerNorm::new(&[d], 1e-5, f)?,
                fc: Linear::new(d, 4 * d, true, f)?,
                proj: Linear::new(4 * d, d, true, f)?,
            });
        }
        let model = Gpt {
            context,
            tok: Embedding::new(vocab, d, f)?,
            pos: Embedding::new(context, d, f)?,
            blocks,
            ln_f: LayerNorm::new(&[d], 1e-5, f)?,
            head: Linear::new(d, vocab, false, f)?,
        };
        // GPT-2's initialization: N(0, 0.02) matrices, zero biases, the
        // residual projections scaled down by sqrt(2 * layers).
        let _ng = NoGradGuard::new()?;
        let proj_std = 0.02 / (2.0 * layers as f64).sqrt();
        let residual: Vec<Tensor> =
            model.blocks.iter().flat_map(|b| [b.attn.proj.weight.clone(), b.proj.weight.clone()]).collect();
        for b in &model.blocks {
            for lin in [&b.attn.qkv, &b.attn.proj, &b.fc, &b.proj] {
                if let Some(bias) = &lin.bias {
                    bias.clone().zero_()?;
                }
            }
        }
        for mut p in model.parameters() {
            if p.ndim()? == 2 {
                let is_residual = residual.iter().any(|r| r.is_same(&p).unwrap_or(false));
                p.normal_(0.0, if is_residual { proj_std } else { 0.02 })?;
            }
        }
        Ok(model)
    }

    /// Logits `[B, T, vocab]` of int64 tokens `[B, T]`.
    fn forward(&self, idx: &Tensor) -> tc::Result<Tensor> {
        let t = idx.size(1)?;
        let positions = Tensor::arange(0.0, t as f64, 1.0, DType::Int64, Device::Cpu)?;
        let mut x = (self.tok.forward(idx)? + self.pos.forward(&positions)?)?;
        for b in &self.blocks {
            x = (&x + b.attn.forward(&b.ln1.forward(&x)?)?)?;
            x = (&x + b.proj.forward(&b.fc.forward(&b.ln2.forward(&x)?)?.gelu()?)?)?;
        }
        self.head.forward(&self.ln_f.forward(&x)?)
    }

    fn loss(&self, x: &Tensor, y: &Tensor) -> tc::Result<Tensor> {
        let logits = self.forward(x)?;
        let s = logits.shape()?;
        logits.reshape(&[s[0] * s[1], s[2]])?.cross_entropy(&y.reshape(&[-1])?, Reduction::Mean)
    }
}

impl Module for Gpt {
    fn parameters(&self) -> Vec<Tensor> {
        let mut p = self.tok.parameters();
        p.extend(self.pos.parameters());
        for b in &self.blocks {
            p.extend(b.ln1.parameters());
            p.extend(b.attn.parameters());
            p.extend(b.ln2.parameters());
            p.extend(b.fc.parameters());
            p.extend(b.proj.parameters());
        }
        p.extend(self.ln_f.parameters());
        p.extend(self.head.parameters());
        p
    }
    fn train(&mut self, _mode: bool) {}
}

// ------------------------------------------------------------------- the data

fn find_data(arg: &Option<PathBuf>) -> Res<PathBuf> {
    if let Some(p) = arg {
        return if p.exists() { Ok(p.clone()) } else { Err(format!("no data file {}", p.display()).into()) };
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/data/tinyshakespeare.txt.gz");
    [PathBuf::from("examples/data/tinyshakespeare.txt.gz"), here]
        .into_iter()
        .find(|p| p.exists())
        .ok_or_else(|| "cannot find examples/data/tinyshakespeare.txt.gz; pass --data PATH".into())
}

fn load_text(path: &Path) -> Res<String> {
    let out = Command::new("gzip").arg("-dc").arg(path).output().map_err(|e| format!("cannot run gzip: {e}"))?;
    if !out.status.success() {
        return Err(format!("gzip -dc {}: {}", path.display(), String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(String::from_utf8(out.stdout)?)
}

/// A small deterministic generator (splitmix64) for the batch offsets.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// Random windows of `context + 1` tokens: inputs `[B, T]` and next tokens `[B, T]`.
fn batch(data: &[i64], context: i64, batch: i64, rng: &mut Rng) -> tc::Result<(Tensor, Tensor)> {
    let t = context as usize;
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..batch {
        let s = rng.below(data.len() - t - 1);
        x.extend_from_slice(&data[s..s + t]);
        y.extend_from_slice(&data[s + 1..s + t + 1]);
    }
    Ok((Tensor::from_vec(x, &[batch, context])?, Tensor::from_vec(y, &[batch, context])?))
}

fn estimate_loss(model: &Gpt, data: &[i64], a: &Args, rng: &mut Rng) -> tc::Result<f64> {
    let _ng = NoGradGuard::new()?;
    let mut total = 0.0;
    for _ in 0..a.eval_iters {
        let (x, y) = batch(data, a.context, a.batch, rng)?;
        total += model.loss(&x, &y)?.item()?;
    }
    Ok(total / a.eval_iters as f64)
}

// --------------------------------------------------------------- the training

/// Linear warm-up from 1% of `lr`, then cosine down to 10% of it (the
/// Python example's LinearLR + CosineAnnealingLR), at scheduler step `s`.
fn lr_at(s: usize, a: &Args) -> f64 {
    if s < a.warmup {
        return a.lr * (0.01 + 0.99 * s as f64 / a.warmup as f64);
    }
    let min = 0.1 * a.lr;
    let span = (a.steps - a.warmup).max(1) as f64;
    min + (a.lr - min) * (1.0 + (std::f64::consts::PI * (s - a.warmup) as f64 / span).cos()) / 2.0
}

fn generate(model: &Gpt, start: i64, length: usize) -> tc::Result<Vec<i64>> {
    let _ng = NoGradGuard::new()?;
    let mut idx = vec![start];
    for _ in 0..length {
        let from = idx.len().saturating_sub(model.context as usize);
        let ctx = Tensor::from_slice(&idx[from..], &[1, (idx.len() - from) as i64])?;
        let logits = model.forward(&ctx)?.select(1, -1)?; // [1, vocab]
        idx.push(logits.softmax(-1)?.multinomial(1, false)?.item()? as i64);
    }
    Ok(idx[1..].to_vec())
}

fn run(a: Args) -> Res<bool> {
    let _tc = tc::init_with(&tc::InitOptions { seed: Some(a.seed), ..Default::default() })?;
    let mut rng = Rng(a.seed);
    let text = load_text(&find_data(&a.data)?)?;
    let chars: Vec<char> = text.chars().collect::<BTreeSet<_>>().into_iter().collect();
    let data: Vec<i64> = text.chars().map(|c| chars.binary_search(&c).unwrap() as i64).collect();
    let n_train = data.len() * 9 / 10;
    let (train, val) = data.split_at(n_train);
    if val.len() <= a.context as usize + 1 {
        return Err(format!("--context {} is too long for {} characters of data", a.context, data.len()).into());
    }

    let model = Gpt::new(chars.len() as i64, a.context, a.layers, a.d, a.heads)?;
    let params = model.parameters();
    let n_params: usize = params.iter().map(|p| p.numel()).sum::<tc::Result<usize>>()?;
    let (decay, no_decay): (Vec<&Tensor>, Vec<&Tensor>) = params.iter().partition(|p| p.ndim().unwrap_or(0) >= 2);
    let o = |wd| AdamWOptions { lr: a.lr, beta1: 0.9, beta2: 0.99, weight_decay: wd, ..Default::default() };
    let mut opts = [AdamW::new(&decay, o(a.weight_decay))?, AdamW::new(&no_decay, o(0.0))?];
    println!(
        "data: {} characters ({} train, {} val), vocabulary {}; model: {} layers, d {}, {} heads, context {}, \
         {:.2}M parameters; batch {}, AdamW lr {}, {} steps",
        data.len(), n_train, data.len() - n_train, chars.len(), a.layers, a.d, a.heads, a.context,
        n_params as f64 / 1e6, a.batch, a.lr, a.steps
    );

    let initial_val = estimate_loss(&model, val, &a, &mut rng)?;
    println!("initial val_loss {initial_val:.4}");
    let start = Instant::now();
    let mut val_loss = initial_val;
    for step in 1..=a.steps {
        let lr = lr_at(step - 1, &a);
        for opt in &mut opts {
            opt.set_lr(lr)?;
        }
        let (x, y) = batch(train, a.context, a.batch, &mut rng)?;
        let loss = model.loss(&x, &y)?;
        for opt in &mut opts {
            opt.zero_grad()?;
        }
        loss.backward()?;
        tc::nn::clip_grad_norm(&params, a.clip)?;
        for opt in &mut opts {
            opt.step()?;
        }
        if step % a.eval_every == 0 || step == a.steps {
            let tl = estimate_loss(&model, train, &a, &mut rng)?;
            val_loss = estimate_loss(&model, val, &a, &mut rng)?;
            let secs = start.elapsed().as_secs_f64();
            println!(
                "step {step:5}/{}  train_loss {tl:.4}  val_loss {val_loss:.4}  lr {lr:.2e}  {secs:.1}s ({:.0} ms/step)",
                a.steps,
                1000.0 * secs / step as f64
            );
        }
    }
    println!("final val_loss {val_loss:.4} after {} steps (initial {initial_val:.4})", a.steps);
    if a.sample > 0 {
        let newline = chars.binary_search(&'\n').unwrap_or(0) as i64;
        let out: String = generate(&model, newline, a.sample)?.iter().map(|&i| chars[i as usize]).collect();
        println!("---- sample ----\n{out}\n----------------");
    }
    if a.require_decrease && (val_loss.is_nan() || val_loss >= initial_val) {
        println!("val_loss did not decrease: {initial_val:.4} -> {val_loss:.4}");
        return Ok(false);
    }
    Ok(true)
}

fn main() {
    match run(parse_args()) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("train_gpt: {e}");
            std::process::exit(1);
        }
    }
}
