// The tc_* functions of the losses and distances of ops/losses.cpp: check the
// out-param, fetch the handles (weight and pos_weight may be NULL), call the
// core. Out-params are written last, only on success.
#include "abi/api.h"
#include "ops/ops.h"

using tc::api;
using tc::get_optional_tensor;
using tc::get_tensor;
using tc::new_handle;
using tc::out_ptr;

extern "C" {

int32_t tc_l1_loss(tc_tensor input, tc_tensor target, int32_t reduction, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::l1_loss(get_tensor(input, "input"), get_tensor(target, "target"), reduction));
  });
}

int32_t tc_smooth_l1_loss(tc_tensor input, tc_tensor target, int32_t reduction, double beta, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(
        tc::ops::smooth_l1_loss(get_tensor(input, "input"), get_tensor(target, "target"), reduction, beta));
  });
}

int32_t tc_huber_loss(tc_tensor input, tc_tensor target, int32_t reduction, double delta, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(
        tc::ops::huber_loss(get_tensor(input, "input"), get_tensor(target, "target"), reduction, delta));
  });
}

int32_t tc_binary_cross_entropy(tc_tensor input, tc_tensor target, tc_tensor weight, int32_t reduction,
                                tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::binary_cross_entropy(get_tensor(input, "input"), get_tensor(target, "target"),
                                                    get_optional_tensor(weight, "weight"), reduction));
  });
}

int32_t tc_binary_cross_entropy_with_logits(tc_tensor input, tc_tensor target, tc_tensor weight,
                                            tc_tensor pos_weight, int32_t reduction, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::binary_cross_entropy_with_logits(
        get_tensor(input, "input"), get_tensor(target, "target"), get_optional_tensor(weight, "weight"),
        get_optional_tensor(pos_weight, "pos_weight"), reduction));
  });
}

int32_t tc_kl_div(tc_tensor input, tc_tensor target, int32_t reduction, int32_t log_target, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::kl_div(get_tensor(input, "input"), get_tensor(target, "target"), reduction,
                                      log_target != 0));
  });
}

int32_t tc_nll_loss_ex(tc_tensor log_probs, tc_tensor target, tc_tensor weight, int64_t ignore_index,
                       int32_t reduction, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::nll_loss_ex(get_tensor(log_probs, "log_probs"), get_tensor(target, "target"),
                                           get_optional_tensor(weight, "weight"), ignore_index, reduction));
  });
}

int32_t tc_cross_entropy_ex(tc_tensor logits, tc_tensor target, tc_tensor weight, int64_t ignore_index,
                            double label_smoothing, int32_t reduction, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::cross_entropy_ex(get_tensor(logits, "logits"), get_tensor(target, "target"),
                                                get_optional_tensor(weight, "weight"), ignore_index,
                                                label_smoothing, reduction));
  });
}

int32_t tc_cosine_similarity(tc_tensor x1, tc_tensor x2, int64_t dim, double eps, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::cosine_similarity(get_tensor(x1, "x1"), get_tensor(x2, "x2"), dim, eps));
  });
}

int32_t tc_pairwise_distance(tc_tensor x1, tc_tensor x2, double p, double eps, int32_t keepdim,
                             tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(
        tc::ops::pairwise_distance(get_tensor(x1, "x1"), get_tensor(x2, "x2"), p, eps, keepdim != 0));
  });
}

int32_t tc_normalize(tc_tensor a, double p, int64_t dim, double eps, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::normalize(get_tensor(a, "a"), p, dim, eps));
  });
}

}  // extern "C"
