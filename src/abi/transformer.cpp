// The tc_* functions of the transformer and sampling ops: check handles and
// arguments, call the core (ops/transformer.cpp), hand out the results.
// Out-params are written last, only on success.
#include "abi/api.h"
#include "ops/ops.h"

using tc::api;
using tc::get_optional_tensor;
using tc::get_tensor;
using tc::new_handle;
using tc::out_ptr;

extern "C" {

int32_t tc_layer_norm(tc_tensor x, const int64_t* normalized_shape, int64_t ndims, tc_tensor weight,
                      tc_tensor bias, double eps, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    const tc::Dims shape = tc::shape_arg(normalized_shape, ndims, "normalized_shape");
    *out = new_handle(tc::ops::layer_norm(get_tensor(x, "x"), shape, get_optional_tensor(weight, "weight"),
                                          get_optional_tensor(bias, "bias"), eps));
  });
}

int32_t tc_rms_norm(tc_tensor x, const int64_t* normalized_shape, int64_t ndims, tc_tensor weight, double eps,
                    tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    const tc::Dims shape = tc::shape_arg(normalized_shape, ndims, "normalized_shape");
    *out =
        new_handle(tc::ops::rms_norm(get_tensor(x, "x"), shape, get_optional_tensor(weight, "weight"), eps));
  });
}

int32_t tc_scaled_dot_product_attention(tc_tensor q, tc_tensor k, tc_tensor v, tc_tensor attn_mask,
                                        double dropout_p, int32_t is_causal, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::scaled_dot_product_attention(
        get_tensor(q, "q"), get_tensor(k, "k"), get_tensor(v, "v"),
        get_optional_tensor(attn_mask, "attn_mask"), dropout_p, is_causal != 0));
  });
}

int32_t tc_bmm(tc_tensor a, tc_tensor b, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::bmm(get_tensor(a, "a"), get_tensor(b, "b")));
  });
}

int32_t tc_addmm(tc_tensor input, tc_tensor mat1, tc_tensor mat2, double beta, double alpha, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::addmm(get_tensor(input, "input"), get_tensor(mat1, "mat1"),
                                     get_tensor(mat2, "mat2"), beta, alpha));
  });
}

int32_t tc_baddbmm(tc_tensor input, tc_tensor batch1, tc_tensor batch2, double beta, double alpha,
                   tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::baddbmm(get_tensor(input, "input"), get_tensor(batch1, "batch1"),
                                       get_tensor(batch2, "batch2"), beta, alpha));
  });
}

int32_t tc_masked_fill(tc_tensor a, tc_tensor mask, double value, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::masked_fill(get_tensor(a, "a"), get_tensor(mask, "mask"), value));
  });
}

int32_t tc_topk(tc_tensor a, int64_t k, int64_t dim, int32_t largest, int32_t sorted, tc_tensor* values,
                tc_tensor* indices) {
  return api(__func__, [&] {
    out_ptr(values, "values");
    out_ptr(indices, "indices");
    auto [v, i] = tc::ops::topk(get_tensor(a, "a"), k, dim, largest != 0, sorted != 0);
    tc_tensor hs[2];
    tc::new_handles({v, i}, hs);
    *values = hs[0];
    *indices = hs[1];
  });
}

int32_t tc_multinomial(tc_tensor probs, int64_t num_samples, int32_t replacement, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::multinomial(get_tensor(probs, "probs"), num_samples, replacement != 0));
  });
}

}  // extern "C"
