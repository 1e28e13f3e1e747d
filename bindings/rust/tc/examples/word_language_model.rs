//! The word-level language model of pytorch/examples (word_language_model)
//! with the `tc::nn` layers: Embedding -> a multi-layer LSTM, GRU or Elman RNN
//! (one `tc_rnn` call per batch) -> a Linear decoder whose weight is the
//! embedding's (tied weights); or, with `--model Transformer`, the recipe's
//! TransformerModel: Embedding scaled by sqrt(emsize) -> sinusoidal positions
//! -> a post-norm TransformerEncoder (causal mask, final LayerNorm) -> an
//! untied Linear decoder. Trained with plain SGD, gradient clipping and
//! truncated back-propagation through time (the hidden state carried over,
//! detached, from batch to batch), on the words of tiny Shakespeare
//! (examples/data/tinyshakespeare.txt.gz, one `<eos>` per line, as the
//! original's data.py). Prints the training loss and the validation perplexity.
//! The recipe is checked step by step against PyTorch in tests/nn_modules.rs.
//!
//!     cargo run --release -p tc --example word_language_model -- [--model LSTM|GRU|RNN_TANH|RNN_RELU|Transformer] [--steps N] ...
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

use tc::nn::{
    clip_grad_norm, square_subsequent_mask, Embedding, Linear, Module, PositionalEncoding, Recurrent, RnnConfig,
    RnnMode, TransformerEncoder,
};
use tc::{DType, Device, NoGradGuard, Reduction, Sgd, SgdOptions, Tensor};

const USAGE: &str = "usage: word_language_model [--model LSTM|GRU|RNN_TANH|RNN_RELU|Transformer] [--steps N] \
[--lines N] [--emsize N] [--nhid N] [--nhead N] [--layers N] [--bptt N] [--batch N] [--lr X] [--clip X] [--dropout X] [--data PATH] [--require-decrease]";

struct Args {
    /// None: the Transformer.
    mode: Option<RnnMode>,
    steps: usize,
    lines: usize,
    /// Embedding width (the recurrent models tie it to `nhid`).
    emsize: Option<i64>,
    nhid: i64,
    nhead: i64,
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
        mode: Some(RnnMode::Lstm),
        steps: 100,
        lines: 4000,
        emsize: None,
        nhid: 64,
        nhead: 2,
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
                    "LSTM" => Some(RnnMode::Lstm),
                    "GRU" => Some(RnnMode::Gru),
                    "RNN_TANH" => Some(RnnMode::Tanh),
                    "RNN_RELU" => Some(RnnMode::Relu),
                    "Transformer" => None,
                    _ => usage(&format!("unknown model {value}")),
                }
            }
            "--steps" => a.steps = num(&value) as usize,
            "--lines" => a.lines = num(&value) as usize,
            "--emsize" => a.emsize = Some(num(&value) as i64),
            "--nhid" => a.nhid = num(&value) as i64,
            "--nhead" => a.nhead = num(&value) as i64,
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
    match (a.mode, a.emsize) {
        (Some(_), Some(e)) if e != a.nhid => usage("the recurrent models tie the weights: --emsize must equal --nhid"),
        (None, e) if a.nhead <= 0 || e.unwrap_or(a.nhid) % a.nhead != 0 => {
            usage("--emsize must be a positive multiple of --nhead")
        }
        _ => {}
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
struct RnnLm {
    encoder: Embedding,
    rnn: Recurrent,
    decoder_bias: Tensor,
}

impl RnnLm {
    fn parameters(&self) -> Vec<Tensor> {
        let mut p = vec![self.encoder.weight.clone()];
        p.extend(self.rnn.parameters());
        p.push(self.decoder_bias.clone());
        p
    }
}

/// The recipe's TransformerModel: embedding * sqrt(emsize) -> positions ->
/// causal encoder -> untied decoder (log-probabilities).
struct TransformerLm {
    input_emb: Embedding,
    pos_encoder: PositionalEncoding,
    encoder: TransformerEncoder,
    decoder: Linear,
    emsize: i64,
}

impl TransformerLm {
    fn new(ntoken: i64, emsize: i64, nhead: i64, nhid: i64, layers: usize, dropout: f64) -> tc::Result<Self> {
        let f = DType::Float32;
        let mut input_emb = Embedding::new(ntoken, emsize, f)?;
        let mut decoder = Linear::new(emsize, ntoken, true, f)?;
        // nn.Transformer's Xavier initialization of the encoder's matrices, then
        // the recipe's: embedding and decoder uniform in ±0.1, decoder bias 0.
        let encoder = TransformerEncoder::new(emsize, nhead, nhid, dropout, layers, true, f)?;
        let _ng = NoGradGuard::new()?;
        for mut p in encoder.parameters() {
            if p.shape()?.len() > 1 {
                p.xavier_uniform_(1.0)?;
            }
        }
        input_emb.weight.uniform_(-0.1, 0.1)?;
        decoder.weight.uniform_(-0.1, 0.1)?;
        if let Some(b) = decoder.bias.as_mut() {
            b.fill_(0.0)?;
        }
        let pos_encoder = PositionalEncoding::new(emsize, dropout, 5000, f)?;
        Ok(TransformerLm { input_emb, pos_encoder, encoder, decoder, emsize })
    }
    fn parameters(&self) -> Vec<Tensor> {
        let mut p = self.input_emb.parameters();
        p.extend(self.encoder.parameters());
        p.extend(self.decoder.parameters());
        p
    }
    fn train(&mut self, mode: bool) {
        self.pos_encoder.train(mode);
        self.encoder.train(mode);
    }
    /// Log-probabilities `[S, N, ntoken]` of the word after each of `src` `[S, N]`.
    fn forward(&self, src: &Tensor) -> tc::Result<Tensor> {
        let mask = square_subsequent_mask(src.shape()?[0], DType::Float32)?;
        let x = self.input_emb.forward(src)?.mul_scalar((self.emsize as f64).sqrt())?;
        let x = self.encoder.forward(&self.pos_encoder.forward(&x)?, Some(&mask))?;
        self.decoder.forward(&x)?.log_softmax(-1)
    }
}

enum WordLm {
    Rnn(RnnLm),
    Transformer(TransformerLm),
}

impl WordLm {
    fn parameters(&self) -> Vec<Tensor> {
        match self {
            WordLm::Rnn(m) => m.parameters(),
            WordLm::Transformer(m) => m.parameters(),
        }
    }
    fn train(&mut self, mode: bool) {
        match self {
            WordLm::Rnn(m) => m.rnn.train(mode),
            WordLm::Transformer(m) => m.train(mode),
        }
    }
}

/// The hidden state a recurrent model carries between batches (none for the Transformer).
type Hidden = (Option<Tensor>, Option<Tensor>);

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
    let mut model = match a.mode {
        Some(mode) => {
            // The original initializes the embedding and decoder uniformly in ±0.1.
            let mut encoder = Embedding::new(ntoken, a.nhid, f)?;
            encoder.weight.uniform_(-0.1, 0.1)?;
            let config = RnnConfig { num_layers: a.layers, dropout: a.dropout, ..RnnConfig::new(a.nhid, a.nhid) };
            WordLm::Rnn(RnnLm {
                encoder,
                rnn: Recurrent::new(mode, config, f)?,
                decoder_bias: Tensor::zeros(&[ntoken], f, Device::Cpu)?.requires_grad(true)?,
            })
        }
        None => WordLm::Transformer(TransformerLm::new(
            ntoken,
            a.emsize.unwrap_or(a.nhid),
            a.nhead,
            a.nhid,
            a.layers as usize,
            a.dropout,
        )?),
    };
    let params = model.parameters();
    let mut opt = Sgd::new(
        &params.iter().collect::<Vec<_>>(),
        SgdOptions { lr: a.lr, momentum: 0.0, dampening: 0.0, weight_decay: 0.0, nesterov: false },
    )?;
    // The mean loss of rows i.. of data (at most bptt of them) and the new hidden state.
    let loss_of = |m: &WordLm, data: &Tensor, i: i64, hidden: &Hidden| -> tc::Result<(Tensor, Hidden)> {
        let len = a.bptt.min(data.shape()?[0] - 1 - i);
        let x = data.narrow(0, i, len)?;
        let y = data.narrow(0, i + 1, len)?.reshape(&[-1])?;
        match m {
            WordLm::Rnn(m) => {
                let out = m.rnn.forward(&m.encoder.forward(&x)?, hidden.0.as_ref(), hidden.1.as_ref())?;
                let logits = out.output.linear(&m.encoder.weight, Some(&m.decoder_bias))?;
                Ok((logits.reshape(&[-1, ntoken])?.cross_entropy(&y, Reduction::Mean)?, (Some(out.h_n), out.c_n)))
            }
            WordLm::Transformer(m) => {
                let logp = m.forward(&x)?.reshape(&[-1, ntoken])?;
                Ok((logp.nll_loss(&y, Reduction::Mean)?, (None, None)))
            }
        }
    };
    let kind = a.mode.map_or("Transformer".to_string(), |m| format!("{m:?}"));
    println!("{} words, {} in the vocabulary; {kind}, {} layers of {}", ids.len(), ntoken, a.layers, a.nhid);
    let mut hidden: Hidden = (None, None);
    let (mut first, mut last) = (f64::NAN, f64::NAN);
    let mut i = 0i64;
    for step in 1..=a.steps {
        if i + 1 >= train.shape()?[0] {
            i = 0;
            hidden = (None, None);
        }
        opt.zero_grad()?;
        let (loss, (h, c)) = loss_of(&model, &train, i, &hidden)?;
        loss.backward()?;
        clip_grad_norm(&params, a.clip)?;
        opt.step()?;
        // Truncated BPTT: the next batch starts from this state, detached.
        hidden = (h.map(|t| t.detach()).transpose()?, c.map(|t| t.detach()).transpose()?);
        i += a.bptt;
        last = loss.item()?;
        if step == 1 {
            first = last;
        }
        if step % 10 == 0 || step == 1 || step == a.steps {
            println!("step {step:5}  loss {last:.4}  ppl {:.1}", last.exp());
        }
    }
    model.train(false);
    let _ng = NoGradGuard::new()?;
    let (mut total, mut n, mut j) = (0.0, 0.0, 0i64);
    let mut hidden: Hidden = (None, None);
    while j + 1 < valid.shape()?[0] {
        let (loss, next) = loss_of(&model, &valid, j, &hidden)?;
        let len = a.bptt.min(valid.shape()?[0] - 1 - j) as f64;
        total += loss.item()? * len;
        n += len;
        hidden = next;
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
