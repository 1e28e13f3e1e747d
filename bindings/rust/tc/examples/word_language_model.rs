//! The word-level language model of pytorch/examples (word_language_model)
//! with the `tc::nn` layers: Embedding -> a multi-layer LSTM, GRU or Elman RNN
//! (one `tc_rnn` call per batch) -> a Linear decoder whose weight is the
//! embedding's (tied weights), trained with plain SGD, gradient clipping and
//! truncated back-propagation through time (the hidden state carried over,
//! detached, from batch to batch), on the words of tiny Shakespeare
//! (examples/data/tinyshakespeare.txt.gz, one `<eos>` per line, as the
//! original's data.py). Prints the training loss and the validation perplexity.
//! The recipe is checked step by step against PyTorch in tests/nn_modules.rs.
//!
//!     cargo run --release -p tc --example word_language_model -- [--model LSTM|GRU|RNN_TANH|RNN_RELU] [--steps N] ...
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

use tc::nn::{clip_grad_norm, Embedding, Module, Recurrent, RnnConfig, RnnMode};
use tc::{DType, Device, NoGradGuard, Reduction, Sgd, SgdOptions, Tensor};

const USAGE: &str = "usage: word_language_model [--model LSTM|GRU|RNN_TANH|RNN_RELU] [--steps N] [--lines N] \
[--nhid N] [--layers N] [--bptt N] [--batch N] [--lr X] [--clip X] [--dropout X] [--data PATH] [--require-decrease]";

struct Args {
    mode: RnnMode,
    steps: usize,
    lines: usize,
    nhid: i64,
    layers: i64,
    bptt: i64,
    batch: i64,
    lr: f64,
    clip: f64,
    dropout: f64,
    data: Option<PathBuf>,
    require_decrease: bool,
}

fn usage(msg: &str) -> ! {
    eprintln!("word_language_model: {msg}\n{USAGE}");
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut a = Args {
        mode: RnnMode::Lstm,
        steps: 100,
        lines: 4000,
        nhid: 64,
        layers: 2,
        bptt: 35,
        batch: 20,
        lr: 20.0,
        clip: 0.25,
        dropout: 0.0,
        data: None,
        require_decrease: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--require-decrease" {
            a.require_decrease = true;
            continue;
        }
        let value = it.next().unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        let num = |v: &str| v.parse::<f64>().unwrap_or_else(|_| usage(&format!("{flag}: not a number: {v}")));
        match flag.as_str() {
            "--model" => {
                a.mode = match value.as_str() {
                    "LSTM" => RnnMode::Lstm,
                    "GRU" => RnnMode::Gru,
                    "RNN_TANH" => RnnMode::Tanh,
                    "RNN_RELU" => RnnMode::Relu,
                    _ => usage(&format!("unknown model {value}")),
                }
            }
            "--steps" => a.steps = num(&value) as usize,
            "--lines" => a.lines = num(&value) as usize,
            "--nhid" => a.nhid = num(&value) as i64,
            "--layers" => a.layers = num(&value) as i64,
            "--bptt" => a.bptt = num(&value) as i64,
            "--batch" => a.batch = num(&value) as i64,
            "--lr" => a.lr = num(&value),
            "--clip" => a.clip = num(&value),
            "--dropout" => a.dropout = num(&value),
            "--data" => a.data = Some(PathBuf::from(value)),
            _ => usage(&format!("unknown flag {flag}")),
        }
    }
    if a.steps == 0 || a.nhid <= 0 || a.layers <= 0 || a.bptt <= 0 || a.batch <= 0 || a.lr.is_nan() || a.lr <= 0.0 {
        usage("--steps, --nhid, --layers, --bptt, --batch and --lr must be positive");
    }
    a
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Word ids of the first `lines` lines, `<eos>` after each (data.py's Corpus).
fn corpus(path: &PathBuf, lines: usize) -> Res<(Vec<i64>, usize)> {
    let out = Command::new("gzip").arg("-dc").arg(path).output().map_err(|e| format!("cannot run gzip: {e}"))?;
    if !out.status.success() {
        return Err(format!("gzip -dc {}: {}", path.display(), String::from_utf8_lossy(&out.stderr)).into());
    }
    let text = String::from_utf8(out.stdout)?;
    let mut vocab: HashMap<&str, i64> = HashMap::new();
    let mut ids = Vec::new();
    for line in text.lines().take(lines) {
        for w in line.split_whitespace().chain(std::iter::once("<eos>")) {
            let next = vocab.len() as i64;
            ids.push(*vocab.entry(w).or_insert(next));
        }
    }
    Ok((ids, vocab.len()))
}

/// Embedding -> recurrent layers -> decoder tied to the embedding.
struct WordLm {
    encoder: Embedding,
    rnn: Recurrent,
    decoder_bias: Tensor,
}

impl WordLm {
    fn parameters(&self) -> Vec<Tensor> {
        let mut p = vec![self.encoder.weight.clone()];
        p.extend(self.rnn.parameters());
        p.push(self.decoder_bias.clone());
        p
    }
}

fn run(a: Args) -> Res<bool> {
    let _tc = tc::init()?;
    let path = a.data.clone().unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../examples/data/tinyshakespeare.txt.gz")
    });
    let (ids, ntoken) = corpus(&path, a.lines)?;
    let ntoken = ntoken as i64;
    // batchify: (steps, batch) columns of the stream; the last tenth validates.
    let split = ids.len() * 9 / 10;
    let batchify = |v: &[i64]| -> tc::Result<Tensor> {
        let n = v.len() as i64 / a.batch;
        Tensor::from_slice(&v[..(n * a.batch) as usize], &[a.batch, n])?.transpose(0, 1)?.contiguous()
    };
    let (train, valid) = (batchify(&ids[..split])?, batchify(&ids[split..])?);
    let f = DType::Float32;
    // The original initializes the embedding and decoder uniformly in ±0.1.
    let mut encoder = Embedding::new(ntoken, a.nhid, f)?;
    encoder.weight.uniform_(-0.1, 0.1)?;
    let config = RnnConfig { num_layers: a.layers, dropout: a.dropout, ..RnnConfig::new(a.nhid, a.nhid) };
    let mut model = WordLm {
        encoder,
        rnn: Recurrent::new(a.mode, config, f)?,
        decoder_bias: Tensor::zeros(&[ntoken], f, Device::Cpu)?.requires_grad(true)?,
    };
    let params = model.parameters();
    let mut opt = Sgd::new(
        &params.iter().collect::<Vec<_>>(),
        SgdOptions { lr: a.lr, momentum: 0.0, dampening: 0.0, weight_decay: 0.0, nesterov: false },
    )?;
    let loss_of = |m: &WordLm, data: &Tensor, i: i64, h: Option<&Tensor>, c: Option<&Tensor>| -> tc::Result<_> {
        let len = a.bptt.min(data.shape()?[0] - 1 - i);
        let x = data.narrow(0, i, len)?;
        let y = data.narrow(0, i + 1, len)?.reshape(&[-1])?;
        let out = m.rnn.forward(&m.encoder.forward(&x)?, h, c)?;
        let logits = out.output.linear(&m.encoder.weight, Some(&m.decoder_bias))?;
        Ok((logits.reshape(&[-1, ntoken])?.cross_entropy(&y, Reduction::Mean)?, out))
    };
    println!("{} words, {} in the vocabulary; {:?}, {} layers of {}", ids.len(), ntoken, a.mode, a.layers, a.nhid);
    let (mut h, mut c): (Option<Tensor>, Option<Tensor>) = (None, None);
    let (mut first, mut last) = (f64::NAN, f64::NAN);
    let mut i = 0i64;
    for step in 1..=a.steps {
        if i + 1 >= train.shape()?[0] {
            i = 0;
            h = None;
            c = None;
        }
        opt.zero_grad()?;
        let (loss, out) = loss_of(&model, &train, i, h.as_ref(), c.as_ref())?;
        loss.backward()?;
        clip_grad_norm(&params, a.clip)?;
        opt.step()?;
        h = Some(out.h_n.detach()?);
        c = out.c_n.map(|t| t.detach()).transpose()?;
        i += a.bptt;
        last = loss.item()?;
        if step == 1 {
            first = last;
        }
        if step % 10 == 0 || step == 1 || step == a.steps {
            println!("step {step:5}  loss {last:.4}  ppl {:.1}", last.exp());
        }
    }
    model.rnn.train(false);
    let _ng = NoGradGuard::new()?;
    let (mut total, mut n, mut j) = (0.0, 0.0, 0i64);
    let (mut h, mut c): (Option<Tensor>, Option<Tensor>) = (None, None);
    while j + 1 < valid.shape()?[0] {
        let (loss, out) = loss_of(&model, &valid, j, h.as_ref(), c.as_ref())?;
        let len = a.bptt.min(valid.shape()?[0] - 1 - j) as f64;
        total += loss.item()? * len;
        n += len;
        h = Some(out.h_n);
        c = out.c_n;
        j += a.bptt;
    }
    println!("validation loss {:.4}  ppl {:.1}", total / n, (total / n).exp());
    Ok(!a.require_decrease || last < first)
}

fn main() {
    match run(parse_args()) {
        Ok(true) => {}
        Ok(false) => {
            eprintln!("word_language_model: the training loss did not decrease");
            std::process::exit(1)
        }
        Err(e) => {
            eprintln!("word_language_model: {e}");
            std::process::exit(1)
        }
    }
}
