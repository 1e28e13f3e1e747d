// Which tc_* functions take complex tensors. Complex dtypes reach only the
// core paths written for them (creation, copies, views, shape ops, the
// arithmetic of src/ops/complex.cpp, the FFTs); every other function refuses a
// complex tensor or dtype at its argument check with TC_ERR_DTYPE naming the
// function, so that no kernel ever sees complex data it would misread.
#include <cstring>

#include "abi/api.h"

namespace tc {

namespace {

// Searched linearly: only a complex argument of a function not listed here pays for it.
constexpr const char* kTakesComplex[] = {
    "tc_abs",          "tc_add",          "tc_add_scalar",    "tc_angle",
    "tc_backward",     "tc_broadcast_to", "tc_cat",           "tc_chunk",
    "tc_clone",        "tc_complex",      "tc_conj",          "tc_contiguous",
    "tc_copy_",        "tc_detach",       "tc_div",           "tc_div_scalar",
    "tc_dtype_name",   "tc_dtype_size",   "tc_empty",         "tc_eq",
    "tc_eq_scalar",    "tc_expand",       "tc_fft_c2c",       "tc_fft_c2r",
    "tc_fft_r2c",      "tc_flatten",      "tc_from_blob",     "tc_from_data",
    "tc_from_dlpack",  "tc_full",         "tc_imag",          "tc_mean",
    "tc_movedim",      "tc_mul",          "tc_mul_scalar",    "tc_narrow",
    "tc_ne",           "tc_ne_scalar",    "tc_neg",           "tc_ones",
    "tc_permute",      "tc_polar",        "tc_promote_types", "tc_rdiv_scalar",
    "tc_real",         "tc_reshape",      "tc_rsub_scalar",   "tc_select",
    "tc_slice",        "tc_split",        "tc_squeeze",       "tc_stack",
    "tc_sub",          "tc_sub_scalar",   "tc_sum",           "tc_to_device",
    "tc_to_dlpack",    "tc_to_dtype",     "tc_transpose",     "tc_unbind",
    "tc_unflatten",    "tc_unsqueeze",    "tc_view",          "tc_view_as_complex",
    "tc_view_as_real", "tc_zeros",
};

bool starts_with(const char* s, const char* prefix) {
  return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

bool takes_complex(const char* fn) {
  // The tensor's own accessors (metadata, autograd state, data copies); not the dicts.
  if (starts_with(fn, "tc_tensor_") && !starts_with(fn, "tc_tensor_dict_")) return true;
  for (const char* name : kTakesComplex)
    if (std::strcmp(name, fn) == 0) return true;
  return false;
}

}  // namespace

void check_complex_allowed(DType d, const char* arg) {
  const char* fn = current_api_function();
  if (fn == nullptr || takes_complex(fn)) return;
  fail(TC_ERR_DTYPE, str(arg, " is ", dtype_name(d), ", and ", fn,
                         " does not support complex tensors (tc.h lists the functions that do)"));
}

}  // namespace tc
