// Every op of libtc, as the core sees it: plain C++ functions on Tensor that
// compute the result and, when an input requires grad (and grad mode is on),
// record a Node (autograd/node.h). The tc_* ABI functions are thin wrappers
// over these. Errors throw tc::Error with a message naming the op, shapes and
// dtypes. Negative dims wrap as in PyTorch.
#pragma once
#include <string>
#include <tuple>
#include <vector>

#include "core/tensor.h"
#include "math/op_kinds.h"

namespace tc::ops {

// ---- type promotion (ops/promotion.cpp) ----
// PyTorch's result_type for tensors (0-dim tensors rank below dim-ful ones).
DType result_type(const std::vector<Tensor>& inputs);
// The dtype of `tensor (op) python-float scalar`.
DType result_type_scalar(const Tensor& a);
// The broadcast shape, or TC_ERR_SHAPE naming op and both shapes.
Dims broadcast_shapes(const Dims& a, const Dims& b, const char* op);

// ---- views (ops/views.cpp): share storage, differentiable ----
Tensor reshape(const Tensor& t, const Dims& shape);
Tensor view(const Tensor& t, const Dims& shape);
Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1);
Tensor permute(const Tensor& t, const Dims& dims);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
Tensor squeeze(const Tensor& t, int64_t dim);  // dim = TC_DIM_ALL: every size-1 dim
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor expand(const Tensor& t, const Dims& shape);
Tensor contiguous(const Tensor& t);  // differentiable form of tc::contiguous
Tensor clone(const Tensor& t);
Tensor detach(const Tensor& t);
Tensor to_dtype(const Tensor& t, DType dtype);  // differentiable between float dtypes
Tensor to_device(const Tensor& t, Device device);

// ---- elementwise (ops/elementwise.cpp) ----
// The families' enum types (math/op_kinds.h); their enumerators, one per
// row of ops/ops.toml, are in math/op_enums.h.
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b);
Tensor binary_scalar(ScalarOp op, const Tensor& a, double s);
// The row's default parameters, or p and q (see unary_ops.def). Integer and
// bool inputs to the floating ops promote to the default float dtype.
Tensor unary(UnaryOp op, const Tensor& a);
Tensor unary(UnaryOp op, const Tensor& a, double p, double q);
Tensor clamp(const Tensor& a, double lo, double hi);  // NaN = no bound
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
// binary(BinaryOp::add, ...) etc., out of line so that this header needs no row.
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor mul_scalar(const Tensor& a, double s);
// ---- composed binary ops (ops/binary_ext.cpp) ----
Tensor compare_scalar(BinaryOp op, const Tensor& a, double s);  // a (op) s as a Python float
Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan);
Tensor lerp(const Tensor& a, const Tensor& b, const Tensor& weight);
Tensor lerp_scalar(const Tensor& a, const Tensor& b, double weight);
Tensor addcmul(const Tensor& input, const Tensor& t1, const Tensor& t2, double value);
Tensor addcdiv(const Tensor& input, const Tensor& t1, const Tensor& t2, double value);
Tensor prelu(const Tensor& x, const Tensor& weight);  // weight: one slope, or one per channel (dim 1)
Tensor glu(const Tensor& x, int64_t dim);
Tensor add_scalar(const Tensor& a, double s);

// ---- in place (ops/inplace.cpp): bump the version counter ----
void add_(const Tensor& self, const Tensor& other);
void sub_(const Tensor& self, const Tensor& other);
void mul_(const Tensor& self, const Tensor& other);
void div_(const Tensor& self, const Tensor& other);
void zero_(const Tensor& self);
void fill_(const Tensor& self, double value);
void copy_(const Tensor& self, const Tensor& src);

// ---- reductions (ops/reduce.cpp); dims empty = all ----
Tensor sum(const Tensor& a, const Dims& dims, bool keepdim);
// g summed over the dims where it was broadcast from `shape` (autograd's
// reduce_to_shape, as PyTorch's at::sum_to); never recorded.
Tensor sum_to_size(const Tensor& g, const Dims& shape);
Tensor mean(const Tensor& a, const Dims& dims, bool keepdim);
Tensor var(const Tensor& a, const Dims& dims, int64_t correction, bool keepdim);
Tensor std(const Tensor& a, const Dims& dims, int64_t correction, bool keepdim);
Tensor logsumexp(const Tensor& a, const Dims& dims, bool keepdim);
Tensor max_all(const Tensor& a);
Tensor min_all(const Tensor& a);
std::pair<Tensor, Tensor> max_dim(const Tensor& a, int64_t dim, bool keepdim);
std::pair<Tensor, Tensor> min_dim(const Tensor& a, int64_t dim, bool keepdim);
Tensor argmax(const Tensor& a, int64_t dim, bool keepdim);  // dim = TC_DIM_ALL: flattened
Tensor argmin(const Tensor& a, int64_t dim, bool keepdim);

// ---- complex numbers (ops/complex.cpp): composed of real ops on the
// parts, so autograd gives PyTorch's conjugate Wirtinger gradients ----
Tensor view_as_real(const Tensor& z);     // complex [...] -> real [..., 2], a view
Tensor view_as_complex(const Tensor& x);  // real [..., 2] (last stride 1) -> complex, a view
Tensor complex(const Tensor& real, const Tensor& imag);
Tensor polar(const Tensor& abs, const Tensor& angle);
Tensor real(const Tensor& z);  // a view for complex z; z itself for a real one
Tensor imag(const Tensor& z);  // a view; complex z only
Tensor conj(const Tensor& z);  // materialized; z itself for a real one
Tensor angle(const Tensor& z);
// The complex forms of the elementwise ops and reductions, called by
// binary/binary_scalar/unary/compare_scalar/sum/mean for a complex operand.
Tensor complex_binary(BinaryOp op, const Tensor& a, const Tensor& b);
Tensor complex_binary_scalar(ScalarOp op, const Tensor& a, double s);
Tensor complex_compare_scalar(BinaryOp op, const Tensor& a, double s);
Tensor complex_unary(UnaryOp op, const Tensor& a);
Tensor complex_sum(const Tensor& a, const Dims& dims, bool keepdim, bool mean);

// ---- discrete Fourier transforms (ops/fft.cpp), along one dim; n: the
// signal length (-1: the input's size; the input is cut or zero-padded);
// normalization: 0 none, 1 times 1/sqrt(n), 2 times 1/n (PyTorch's
// fft_norm_mode) ----
Tensor fft_c2c(const Tensor& a, int64_t dim, int64_t n, int64_t normalization, bool forward);
// Real input, exponent -1; onesided: the first n/2 + 1 outputs.
Tensor fft_r2c(const Tensor& a, int64_t dim, int64_t n, int64_t normalization, bool onesided);
// Hermitian input (its first n/2 + 1 entries along dim), real output of length n, exponent +1.
Tensor fft_c2r(const Tensor& a, int64_t dim, int64_t n, int64_t normalization);

// ---- shape ops (ops/shape.cpp) ----
Tensor cat(const std::vector<Tensor>& ts, int64_t dim);
Tensor stack(const std::vector<Tensor>& ts, int64_t dim);
std::vector<Tensor> split(const Tensor& a, int64_t split_size, int64_t dim);
std::vector<Tensor> chunk(const Tensor& a, int64_t chunks, int64_t dim);
Tensor gather(const Tensor& a, int64_t dim, const Tensor& index);
Tensor index_select(const Tensor& a, int64_t dim, const Tensor& index);
Tensor one_hot(const Tensor& indices, int64_t num_classes);

// ---- linear algebra (ops/linalg.cpp, oneDNN) ----
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias);  // bias may be null

// ---- neural-network ops (ops/nn.cpp, ops/conv.cpp) ----
Tensor softmax(const Tensor& a, int64_t dim);
Tensor log_softmax(const Tensor& a, int64_t dim);
Tensor cross_entropy(const Tensor& logits, const Tensor& target, int32_t reduction);
Tensor nll_loss(const Tensor& log_probs, const Tensor& target, int32_t reduction);
Tensor mse_loss(const Tensor& input, const Tensor& target, int32_t reduction);
Tensor dropout(const Tensor& a, double p, bool training);
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[2],
              const int64_t padding[2], const int64_t dilation[2], int64_t groups);
Tensor max_pool2d(const Tensor& x, const int64_t kernel[2], const int64_t stride[2],
                  const int64_t padding[2]);
Tensor avg_pool2d(const Tensor& x, const int64_t kernel[2], const int64_t stride[2],
                  const int64_t padding[2]);
Tensor embedding(const Tensor& weight, const Tensor& indices);

// ---- transformer and sampling ops (ops/transformer.cpp) ----
// Norms over the last normalized_shape.size() dims; weight/bias may be null.
Tensor layer_norm(const Tensor& x, const Dims& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps);
Tensor rms_norm(const Tensor& x, const Dims& normalized_shape, const Tensor& weight, double eps);
Tensor tril(const Tensor& a, int64_t diagonal);
Tensor triu(const Tensor& a, int64_t diagonal);
Tensor masked_fill(const Tensor& a, const Tensor& mask, double value);
Tensor cumsum(const Tensor& a, int64_t dim);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& input, const Tensor& mat1, const Tensor& mat2, double beta, double alpha);
Tensor baddbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, double beta, double alpha);
// mask may be null; bool (true = attend) or added to the scores.
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                                    double dropout_p, bool is_causal);
std::pair<Tensor, Tensor> topk(const Tensor& a, int64_t k, int64_t dim, bool largest, bool sorted);
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement);

// ---- more reductions (ops/reduce_more.cpp), scans (ops/scan.cpp), sort and
// search (ops/sort.cpp); dims empty = all ----
Tensor prod(const Tensor& a, const Dims& dims, bool keepdim);
Tensor all(const Tensor& a, const Dims& dims, bool keepdim);
Tensor any(const Tensor& a, const Dims& dims, bool keepdim);
Tensor amax(const Tensor& a, const Dims& dims, bool keepdim);
Tensor amin(const Tensor& a, const Dims& dims, bool keepdim);
// (amin, amax) over dim (TC_DIM_ALL: every element), composed of the two.
std::pair<Tensor, Tensor> aminmax(const Tensor& a, int64_t dim, bool keepdim);
Tensor norm(const Tensor& a, double p, const Dims& dims, bool keepdim);
Tensor count_nonzero(const Tensor& a, const Dims& dims);
std::pair<Tensor, Tensor> var_mean(const Tensor& a, const Dims& dims, int64_t correction, bool keepdim);
std::pair<Tensor, Tensor> std_mean(const Tensor& a, const Dims& dims, int64_t correction, bool keepdim);
Tensor median(const Tensor& a);
std::pair<Tensor, Tensor> median_dim(const Tensor& a, int64_t dim, bool keepdim);
std::pair<Tensor, Tensor> kthvalue(const Tensor& a, int64_t k, int64_t dim, bool keepdim);  // k from 1
std::pair<Tensor, Tensor> mode(const Tensor& a, int64_t dim, bool keepdim);
Tensor cumprod(const Tensor& a, int64_t dim);
std::pair<Tensor, Tensor> cummax(const Tensor& a, int64_t dim);
std::pair<Tensor, Tensor> cummin(const Tensor& a, int64_t dim);
Tensor logcumsumexp(const Tensor& a, int64_t dim);
std::pair<Tensor, Tensor> sort(const Tensor& a, int64_t dim, bool descending);  // stable
Tensor argsort(const Tensor& a, int64_t dim, bool descending);
// (values, inverse, counts) of the flattened a.
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& a);
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool right, bool out_int32);

}  // namespace tc::ops

// ---- advanced indexing and the scatter family (ops/indexing.cpp, ops/scatter.cpp) ----
namespace tc::ops {
// indices: one per leading dim, each null (a full slice), an int64/int32
// tensor or a bool mask, as PyTorch's aten::index / index_put_.
Tensor index(const Tensor& a, const std::vector<Tensor>& indices);
Tensor index_put(const Tensor& a, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate);
void index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                bool accumulate);
Tensor nonzero(const Tensor& a);  // int64 [count, ndim]
Tensor take(const Tensor& a, const Tensor& index);
Tensor masked_select(const Tensor& a, const Tensor& mask);
Tensor scatter(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter_value(const Tensor& a, int64_t dim, const Tensor& index, double value);
Tensor scatter_add(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src);
// reduce: TC_REDUCE_SUM, _PROD, _MEAN, _AMAX, _AMIN (tc.h).
Tensor scatter_reduce(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src, int32_t reduce,
                      bool include_self);
Tensor index_add(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& source, double alpha);
Tensor index_copy(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(const Tensor& a, int64_t dim, const Tensor& index, double value);
// ---- more losses and distances (ops/losses.cpp), composed of the ops above ----
// weight/pos_weight may be null; reduction is a TC_REDUCTION_* code.
Tensor l1_loss(const Tensor& input, const Tensor& target, int32_t reduction);
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, int32_t reduction, double beta);
Tensor huber_loss(const Tensor& input, const Tensor& target, int32_t reduction, double delta);
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            int32_t reduction);
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        const Tensor& pos_weight, int32_t reduction);
Tensor kl_div(const Tensor& input, const Tensor& target, int32_t reduction, bool log_target);
Tensor nll_loss_ex(const Tensor& log_probs, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                   int32_t reduction);
Tensor cross_entropy_ex(const Tensor& logits, const Tensor& target, const Tensor& weight,
                        int64_t ignore_index, double label_smoothing, int32_t reduction);
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps);
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim);
Tensor normalize(const Tensor& a, double p, int64_t dim, double eps);
// ---- shape, creation and matrix ops (ops/shape_creation.cpp, ops/einsum.cpp,
// ops/random_sampling.cpp); mostly compositions of the views and ops above,
// so autograd records their pieces ----
Tensor flip(const Tensor& a, const Dims& dims);
Tensor roll(const Tensor& a, const Dims& shifts, const Dims& dims);  // dims empty: flattened
Tensor repeat(const Tensor& a, const Dims& repeats);
Tensor tile(const Tensor& a, const Dims& reps);
Tensor repeat_interleave(const Tensor& a, int64_t repeats, int64_t dim);  // TC_DIM_ALL: flattened
Tensor repeat_interleave(const Tensor& a, const Tensor& repeats, int64_t dim);
Tensor diag(const Tensor& a, int64_t diagonal);
Tensor diagonal(const Tensor& a, int64_t offset, int64_t dim1, int64_t dim2);  // a view
Tensor eye(int64_t n, int64_t m, DType dtype, Device device);
Tensor linspace(double start, double end, int64_t steps, DType dtype, Device device);
Tensor logspace(double start, double end, int64_t steps, double base, DType dtype, Device device);
std::vector<Tensor> meshgrid(const std::vector<Tensor>& ts, bool xy);
// mode: TC_PAD_CONSTANT, TC_PAD_REFLECT, TC_PAD_REPLICATE, TC_PAD_CIRCULAR.
Tensor pad(const Tensor& a, const std::vector<int64_t>& pad, int32_t mode, double value);
Tensor movedim(const Tensor& a, const Dims& source, const Dims& destination);
Tensor flatten(const Tensor& a, int64_t start_dim, int64_t end_dim);
Tensor unflatten(const Tensor& a, int64_t dim, const Dims& sizes);
Tensor broadcast_to(const Tensor& a, const Dims& shape);
std::vector<Tensor> unbind(const Tensor& a, int64_t dim);
Tensor outer(const Tensor& a, const Tensor& b);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);
Tensor randint(int64_t low, int64_t high, const Dims& shape, DType dtype, Device device);
Tensor randperm(int64_t n, DType dtype, Device device);
Tensor bernoulli(const Tensor& probs);        // 0/1 in probs' dtype
Tensor bernoulli(const Tensor& a, double p);  // a's shape and dtype
// ---- neural-network layers composed of other ops (ops/nn_layers.cpp) ----
// Optional tensors may be null. batch_norm/instance_norm update the running
// stats in place (unbiased variance, momentum) when training/use_input_stats.
Tensor batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps);
Tensor group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps);
Tensor instance_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                     const Tensor& running_var, bool use_input_stats, double momentum, double eps);
// padding: top, bottom, left, right.
Tensor conv2d_padded(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[2],
                     const int64_t padding[4], const int64_t dilation[2], int64_t groups);
Tensor conv_transpose2d(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[2],
                        const int64_t padding[2], const int64_t output_padding[2], const int64_t dilation[2],
                        int64_t groups);
// stride null = kernel.
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& x, const int64_t kernel[2],
                                                  const int64_t* stride, const int64_t padding[2],
                                                  const int64_t dilation[2], bool ceil_mode);
Tensor avg_pool2d_ex(const Tensor& x, const int64_t kernel[2], const int64_t* stride,
                     const int64_t padding[2], bool ceil_mode, bool count_include_pad,
                     int64_t divisor_override);
// Adaptive pooling (ops/adaptive_pool.cpp): x [N, C, *] or [C, *]; max
// returns (values, int64 indices flat per plane).
Tensor adaptive_avg_pool2d(const Tensor& x, const int64_t output_size[2]);
std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& x, const int64_t output_size[2]);
Tensor adaptive_avg_pool1d(const Tensor& x, int64_t output_size);
std::pair<Tensor, Tensor> adaptive_max_pool1d(const Tensor& x, int64_t output_size);
// size: one entry per spatial dim (x is 3-D or 4-D); scale_factors null or
// per-dim (0 = none: the scale is in/out).
Tensor interpolate(const Tensor& x, const int64_t* size, const double* scale_factors, int32_t mode,
                   bool align_corners);
Tensor pixel_shuffle(const Tensor& x, int64_t upscale_factor);
Tensor pixel_unshuffle(const Tensor& x, int64_t downscale_factor);
Tensor embedding_padding_idx(const Tensor& weight, const Tensor& indices, int64_t padding_idx);
Tensor dropout2d(const Tensor& x, double p, bool training);

}  // namespace tc::ops
