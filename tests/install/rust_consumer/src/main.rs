//! Run by tests/install (ctest install.rust): one computation through the
//! safe crate, then the path of the libtc the loader mapped, so the test can
//! check that it is the installed one.
use tc::{DType, Device, Tensor};

fn main() -> Result<(), tc::Error> {
    let _tc = tc::init()?;
    let x = Tensor::randn(&[2, 3], DType::Float32, Device::Cpu)?.requires_grad(true)?;
    let loss = ((&x * &x)?.sum_all()? / 2.0)?;
    loss.backward()?;
    assert_eq!(x.grad()?.unwrap().to_vec::<f32>()?, x.to_vec::<f32>()?);
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    let lib = maps
        .lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|p| p.contains("libtc.so"))
        .unwrap_or("(not found)");
    println!("rust consumer: gradient of x*x/2 is x; libtc loaded from {lib}");
    Ok(())
}
