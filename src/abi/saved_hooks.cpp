// tc_* functions of tc.h's saved-tensor hooks: the caller's C callbacks as
// an autograd::SavedTensorHooks (the core calls it from SavedTensor).
#include "autograd/saved_hooks.h"

#include "abi/callbacks.h"

using namespace tc;

namespace {

class CallbackSavedHooks final : public autograd::SavedTensorHooks {
 public:
  CallbackSavedHooks(tc_saved_tensor_pack_hook pack, tc_saved_tensor_unpack_hook unpack,
                     tc_saved_tensor_free_hook free_token, std::shared_ptr<CallbackContext> ctx)
      : pack_(pack), unpack_(unpack), free_(free_token), ctx_(std::move(ctx)) {}

  uint64_t pack(const Tensor& t) override {
    LentHandles lent;
    const tc_tensor h = lent.lend(t);
    uint64_t token = 0;
    run_callback("a saved-tensor pack hook", [&] { return pack_(ctx_->context, h, &token); });
    return token;
  }

  Tensor unpack(uint64_t token, const char* node) override {
    tc_tensor slot[1] = {nullptr};
    WrittenHandles written(slot, 1);
    run_callback(str("the saved-tensor unpack hook of a tensor ", node, " saved"),
                 [&] { return unpack_(ctx_->context, token, &slot[0]); });
    Tensor t = written.take(
        0, str("the tensor written by the saved-tensor unpack hook of a tensor ", node, " saved"));
    TC_CHECK(t != nullptr, TC_ERR_CALLBACK, "the saved-tensor unpack hook of a tensor ", node,
             " saved returned TC_OK but wrote no tensor to *out");
    return t;
  }

  void free(uint64_t token) noexcept override {
    if (free_) free_(ctx_->context, token);
  }

 private:
  tc_saved_tensor_pack_hook pack_;
  tc_saved_tensor_unpack_hook unpack_;
  tc_saved_tensor_free_hook free_;
  std::shared_ptr<CallbackContext> ctx_;  // released with the last token's pair
};

}  // namespace

TC_API int32_t tc_saved_tensors_hooks_push(tc_saved_tensor_pack_hook pack, tc_saved_tensor_unpack_hook unpack,
                                           tc_saved_tensor_free_hook free_token, void* context,
                                           tc_deleter release) {
  bool handed = false;  // release is called once: by the context, or below
  const int32_t rc = api("tc_saved_tensors_hooks_push", [&] {
    handed = true;
    auto ctx = make_callback_context(context, release);
    TC_CHECK(pack != nullptr, TC_ERR_INVALID_ARGUMENT, "pack must not be NULL");
    TC_CHECK(unpack != nullptr, TC_ERR_INVALID_ARGUMENT, "unpack must not be NULL");
    autograd::push_saved_tensor_hooks(
        std::make_shared<CallbackSavedHooks>(pack, unpack, free_token, std::move(ctx)));
  });
  if (rc != TC_OK && !handed && release) release(nullptr, context);
  return rc;
}

TC_API int32_t tc_saved_tensors_hooks_pop(void) {
  return api("tc_saved_tensors_hooks_pop", [&] { autograd::pop_saved_tensor_hooks(); });
}

TC_API int32_t tc_saved_tensors_hooks_depth(int64_t* out) {
  return api("tc_saved_tensors_hooks_depth", [&] {
    out_ptr(out, "out");
    *out = int64_t(autograd::saved_tensor_hooks_depth_now());
  });
}
