//! Neural-network layers: batch/group/instance norm, asymmetric-padding and
//! transposed convolutions (2-D and 1-D), pooling with dilation, ceil mode,
//! indices and adaptive sizes, resampling, pixel (un)shuffle, embedding with
//! a padding row and channel dropout. The 1-D forms run the 2-D functions of
//! tc.h on a size-1 height.
use crate::error::{check, ErrorKind, Result};
use crate::ffi::new_tensor;
use crate::Tensor;
use tc_sys as sys;

/// `interpolate`'s modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InterpMode {
    /// Nearest neighbour (PyTorch's "nearest").
    Nearest,
    /// Linear for 3-D input, bilinear for 4-D input.
    Linear,
}

fn opt_ptr<T>(v: &Option<T>) -> *const i64
where
    T: AsRef<[i64]>,
{
    v.as_ref().map_or(std::ptr::null(), |s| s.as_ref().as_ptr())
}

/// Values and indices of a pooling that reports both.
fn pair(f: impl FnOnce(*mut sys::tc_tensor, *mut sys::tc_tensor) -> i32) -> Result<(Tensor, Tensor)> {
    let (mut v, mut i): (sys::tc_tensor, sys::tc_tensor) = (std::ptr::null_mut(), std::ptr::null_mut());
    check(f(&mut v, &mut i))?;
    Ok((Tensor::from_owned_raw(v)?, Tensor::from_owned_raw(i)?))
}

impl Tensor {
    /// 1-D convolution of `[N, C, L]` with `weight` `[O, C/groups, k]`;
    /// `padding` = (left, right).
    pub fn conv1d(
        &self,
        weight: &Tensor,
        bias: Option<&Tensor>,
        stride: i64,
        padding: [i64; 2],
        dilation: i64,
        groups: i64,
    ) -> Result<Tensor> {
        let y = self.unsqueeze(2)?.conv2d_padded(
            &weight.unsqueeze(2)?,
            bias,
            [1, stride],
            [0, 0, padding[0], padding[1]],
            [1, dilation],
            groups,
        )?;
        y.squeeze(Some(2))
    }
    /// 1-D transposed convolution of `[N, C, L]`; `weight` `[C, O/groups, k]`.
    #[allow(clippy::too_many_arguments)]
    pub fn conv_transpose1d(
        &self,
        weight: &Tensor,
        bias: Option<&Tensor>,
        stride: i64,
        padding: i64,
        output_padding: i64,
        dilation: i64,
        groups: i64,
    ) -> Result<Tensor> {
        let y = self.unsqueeze(2)?.conv_transpose2d(
            &weight.unsqueeze(2)?,
            bias,
            [1, stride],
            [0, padding],
            [0, output_padding],
            [1, dilation],
            groups,
        )?;
        y.squeeze(Some(2))
    }
    /// 2-D max pooling with dilation and ceil mode: values and int64 indices
    /// (flat within each H*W plane); `stride` `None` means `kernel`.
    pub fn max_pool2d_with_indices(
        &self,
        kernel: [i64; 2],
        stride: Option<[i64; 2]>,
        padding: [i64; 2],
        dilation: [i64; 2],
        ceil_mode: bool,
    ) -> Result<(Tensor, Tensor)> {
        pair(|v, i| unsafe {
            sys::tc_max_pool2d_with_indices(
                self.as_raw(),
                kernel.as_ptr(),
                opt_ptr(&stride),
                padding.as_ptr(),
                dilation.as_ptr(),
                i32::from(ceil_mode),
                v,
                i,
            )
        })
    }
    /// 1-D max pooling of `[N, C, L]`: values and indices along L.
    pub fn max_pool1d_with_indices(
        &self,
        kernel: i64,
        stride: Option<i64>,
        padding: i64,
        dilation: i64,
        ceil_mode: bool,
    ) -> Result<(Tensor, Tensor)> {
        let (v, i) = self.unsqueeze(2)?.max_pool2d_with_indices(
            [1, kernel],
            Some([1, stride.unwrap_or(kernel)]),
            [0, padding],
            [1, dilation],
            ceil_mode,
        )?;
        Ok((v.squeeze(Some(2))?, i.squeeze(Some(2))?))
    }
    /// 2-D average pooling with ceil mode, `count_include_pad` and a divisor
    /// override (`None`: the window size).
    pub fn avg_pool2d_ex(
        &self,
        kernel: [i64; 2],
        stride: Option<[i64; 2]>,
        padding: [i64; 2],
        ceil_mode: bool,
        count_include_pad: bool,
        divisor_override: Option<i64>,
    ) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_avg_pool2d_ex(
                self.as_raw(),
                kernel.as_ptr(),
                opt_ptr(&stride),
                padding.as_ptr(),
                i32::from(ceil_mode),
                i32::from(count_include_pad),
                divisor_override.unwrap_or(0),
                out,
            )
        })
    }
    /// 1-D average pooling of `[N, C, L]`.
    pub fn avg_pool1d(
        &self,
        kernel: i64,
        stride: Option<i64>,
        padding: i64,
        ceil_mode: bool,
        count_include_pad: bool,
    ) -> Result<Tensor> {
        self.unsqueeze(2)?
            .avg_pool2d_ex(
                [1, kernel],
                Some([1, stride.unwrap_or(kernel)]),
                [0, padding],
                ceil_mode,
                count_include_pad,
                None,
            )?
            .squeeze(Some(2))
    }
    /// Adaptive 2-D max pooling: values and int64 indices (flat per plane).
    pub fn adaptive_max_pool2d(&self, output_size: [i64; 2]) -> Result<(Tensor, Tensor)> {
        pair(|v, i| unsafe { sys::tc_adaptive_max_pool2d(self.as_raw(), output_size.as_ptr(), v, i) })
    }
    /// Adaptive 1-D max pooling of `[N, C, L]` or `[C, L]`: values and int64
    /// indices (within each row).
    pub fn adaptive_max_pool1d(&self, output_size: i64) -> Result<(Tensor, Tensor)> {
        pair(|v, i| unsafe { sys::tc_adaptive_max_pool1d(self.as_raw(), output_size, v, i) })
    }
    /// Resamples `[N, C, W]` or `[N, C, H, W]` to `size` (one entry per
    /// spatial dim); `scale_factors` (one per spatial dim) set the source
    /// scale as PyTorch's `scale_factor` does.
    pub fn interpolate(
        &self,
        size: &[i64],
        scale_factors: Option<&[f64]>,
        mode: InterpMode,
        align_corners: bool,
    ) -> Result<Tensor> {
        let mode = match mode {
            InterpMode::Nearest => sys::TC_INTERP_NEAREST,
            InterpMode::Linear => sys::TC_INTERP_LINEAR,
        };
        // tc_interpolate reads one entry per spatial dim: check the lengths here.
        let spatial = self.ndim()?.saturating_sub(2);
        if size.len() != spatial || scale_factors.is_some_and(|s| s.len() != spatial) {
            return Err(crate::Error::new(
                ErrorKind::InvalidArgument,
                format!("interpolate: size (and scale_factors) need one entry per spatial dim ({spatial})"),
            ));
        }
        let sf = scale_factors.map_or(std::ptr::null(), <[f64]>::as_ptr);
        new_tensor(|out| unsafe {
            sys::tc_interpolate(
                self.as_raw(),
                size.as_ptr(),
                sf,
                mode,
                i32::from(align_corners),
                out,
            )
        })
    }
    /// Rows of `weight` at `indices`; row `padding_idx` gets no gradient.
    pub fn embedding_padding_idx(weight: &Tensor, indices: &Tensor, padding_idx: i64) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_embedding_padding_idx(weight.as_raw(), indices.as_raw(), padding_idx, out)
        })
    }
}
