//! `vjp` and `hvp` of a function of tensors, as torch.autograd.functional's
//! (PyTorch 1.13), over [`grad`](super::grad). The function runs on fresh
//! leaves made from the inputs (with `create_graph` and an input that
//! requires grad, a view of it, so the results stay connected to the
//! caller's graph); an input the outputs do not depend on gets zeros, the
//! mathematical value (PyTorch's `strict=False`).
use super::{grad, GradOptions};
use crate::error::Result;
use crate::Tensor;

/// Grad mode on until dropped (the functions record even inside `no_grad`, as PyTorch's).
struct GradOn(bool);

impl GradOn {
    fn new() -> Result<GradOn> {
        Ok(GradOn(super::set_grad_enabled(true)?))
    }
}

impl Drop for GradOn {
    fn drop(&mut self) {
        let _ = super::set_grad_enabled(self.0);
    }
}

fn prepare(inputs: &[&Tensor], create_graph: bool) -> Result<Vec<Tensor>> {
    inputs
        .iter()
        .map(|x| {
            if create_graph && x.is_requires_grad()? {
                x.view(&x.shape()?) // differentiable identity: keeps the caller's graph
            } else {
                x.detach()?.requires_grad(true)
            }
        })
        .collect()
}

fn zeros_like(x: &Tensor) -> Result<Tensor> {
    Tensor::zeros(&x.shape()?, x.dtype()?, x.device()?)
}

fn finish(t: Tensor, create_graph: bool) -> Result<Tensor> {
    if create_graph {
        Ok(t)
    } else {
        t.detach()
    }
}

/// Gradients of `outputs` (weighted by `v`) with respect to `inputs`,
/// zeros where an input is unused; none of the outputs requiring grad gives
/// zeros for all.
fn vjp_of(
    outputs: &[Tensor],
    inputs: &[Tensor],
    v: Option<&[&Tensor]>,
    create_graph: bool,
) -> Result<Vec<Tensor>> {
    let mut outs: Vec<&Tensor> = Vec::new();
    let mut vs: Vec<Option<&Tensor>> = Vec::new();
    for (i, o) in outputs.iter().enumerate() {
        if o.is_requires_grad()? {
            outs.push(o);
            vs.push(v.map(|v| v[i]));
        }
    }
    if outs.is_empty() {
        return inputs.iter().map(zeros_like).collect();
    }
    let ins: Vec<&Tensor> = inputs.iter().collect();
    let opts = GradOptions {
        create_graph,
        retain_graph: Some(true),
        allow_unused: true,
        ..Default::default()
    };
    let gs = grad(&outs, &ins, v.map(|_| vs.as_slice()), opts)?;
    gs.into_iter()
        .zip(inputs)
        .map(|(g, x)| g.map_or_else(|| zeros_like(x), Ok))
        .collect()
}

fn check_v(v: Option<&[&Tensor]>, like: &[Tensor], what: &str) -> Result<()> {
    if let Some(v) = v {
        if v.len() != like.len() {
            return Err(crate::Error::new(
                crate::ErrorKind::InvalidArgument,
                format!(
                    "v is a tuple of invalid length: should be {} but got {}.",
                    like.len(),
                    v.len()
                ),
            ));
        }
        for (i, (a, b)) in v.iter().zip(like).enumerate() {
            if a.shape()? != b.shape()? {
                return Err(crate::Error::new(
                    crate::ErrorKind::Shape,
                    format!(
                        "Entry {i} in v has invalid size: should be {:?} but got {:?}.",
                        b.shape()?,
                        a.shape()?
                    ),
                ));
            }
        }
    } else if like.len() != 1 || like[0].numel()? != 1 {
        return Err(crate::Error::new(
            crate::ErrorKind::InvalidArgument,
            format!("The vector v can only be None if the {what} is a single Tensor with a single element."),
        ));
    }
    Ok(())
}

/// The vector-Jacobian product `vᵀ J` of `f` at `inputs`
/// (torch.autograd.functional.vjp): returns `f`'s outputs and one product
/// per input, shaped like it. `v` (one tensor per output) may be `None`
/// when `f` returns one one-element tensor.
///
/// ```
/// use tc::Tensor;
/// # fn main() -> tc::Result<()> {
/// let _tc = tc::init()?;
/// let x = Tensor::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
/// let (_, g) = tc::autograd::functional::vjp(|a| Ok(vec![(&a[0] * &a[0])?.sum_all()?]), &[&x], None, false)?;
/// assert_eq!(g[0].to_vec::<f64>()?, vec![2.0, 4.0, 6.0]);
/// # Ok(())
/// # }
/// ```
pub fn vjp<F>(
    f: F,
    inputs: &[&Tensor],
    v: Option<&[&Tensor]>,
    create_graph: bool,
) -> Result<(Vec<Tensor>, Vec<Tensor>)>
where
    F: FnOnce(&[Tensor]) -> Result<Vec<Tensor>>,
{
    let _grad_on = GradOn::new()?;
    let ins = prepare(inputs, create_graph)?;
    let outputs = f(&ins)?;
    check_v(v, &outputs, "user-provided function's output")?;
    let prods = vjp_of(&outputs, &ins, v, create_graph)?;
    let outputs = outputs
        .into_iter()
        .map(|t| finish(t, create_graph))
        .collect::<Result<Vec<_>>>()?;
    let prods = prods
        .into_iter()
        .map(|t| finish(t, create_graph))
        .collect::<Result<Vec<_>>>()?;
    Ok((outputs, prods))
}

/// The Hessian-vector product `H v` of a scalar function `f` at `inputs`
/// (torch.autograd.functional.hvp): returns `f`'s output and one product per
/// input. Computed as the gradient of `<∇f, v>` (PyTorch's vhp; the same as
/// its hvp for a twice continuously differentiable `f`, whose Hessian is
/// symmetric). `v` may be `None` for a single one-element input.
///
/// ```
/// use tc::Tensor;
/// # fn main() -> tc::Result<()> {
/// let _tc = tc::init()?;
/// let x = Tensor::from_slice(&[1.0f64, 2.0], &[2])?;
/// let v = Tensor::from_slice(&[1.0f64, 0.5], &[2])?;
/// // f = sum(x^3): H = diag(6 x)
/// let (_, hv) = tc::autograd::functional::hvp(
///     |a| ((&a[0] * &a[0])? * &a[0])?.sum_all(), &[&x], Some(&[&v]), false)?;
/// assert_eq!(hv[0].to_vec::<f64>()?, vec![6.0, 6.0]);
/// # Ok(())
/// # }
/// ```
pub fn hvp<F>(
    f: F,
    inputs: &[&Tensor],
    v: Option<&[&Tensor]>,
    create_graph: bool,
) -> Result<(Tensor, Vec<Tensor>)>
where
    F: FnOnce(&[Tensor]) -> Result<Tensor>,
{
    let _grad_on = GradOn::new()?;
    let ins = prepare(inputs, create_graph)?;
    check_v(v, &ins, "input to the user-provided function")?;
    let out = f(&ins)?;
    if out.numel()? != 1 {
        return Err(crate::Error::new(
            crate::ErrorKind::InvalidArgument,
            "The Tensor returned by the function given to hvp should contain a single element",
        ));
    }
    let jac = vjp_of(std::slice::from_ref(&out), &ins, None, true)?;
    let prods = vjp_of(&jac, &ins, v, create_graph)?;
    let prods = prods
        .into_iter()
        .map(|t| finish(t, create_graph))
        .collect::<Result<Vec<_>>>()?;
    Ok((finish(out, create_graph)?, prods))
}
