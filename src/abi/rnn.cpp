// tc_* shim of the recurrent layers (ops/rnn.cpp): check handles and
// arguments, call the core, hand out the results only on success.
#include "ops/rnn.h"

#include "abi/args.h"
#include "abi/op_shims.h"

using namespace tc;

TC_API int32_t tc_rnn(tc_tensor input, tc_tensor hx, tc_tensor cx, const tc_tensor* weights,
                      int64_t num_weights, const tc_rnn_options* options, tc_tensor* out, tc_tensor* h_n,
                      tc_tensor* c_n) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    out_ptr(h_n, "h_n");
    out_ptr(c_n, "c_n");
    const tc_rnn_options& opts = abi::options_arg(options, "options");
    const std::vector<Tensor> ws = abi::tensor_list(weights, num_weights, "weights", "num_weights");
    TC_CHECK(opts.mode >= TC_RNN_TANH && opts.mode <= TC_RNN_GRU, TC_ERR_INVALID_ARGUMENT,
             "options->mode must be a TC_RNN_* value but is ", opts.mode);
    ops::RnnOptions o;
    o.mode = ops::RnnMode(opts.mode);
    o.num_layers = opts.num_layers;
    o.has_biases = opts.has_biases != 0;
    o.bidirectional = opts.bidirectional != 0;
    o.batch_first = opts.batch_first != 0;
    o.train = opts.train != 0;
    o.dropout = opts.dropout;
    const ops::RnnResult r = ops::rnn(get_tensor(input, "input"), get_optional_tensor(hx, "hx"),
                                      get_optional_tensor(cx, "cx"), ws, o);
    tc_tensor hs[3] = {nullptr, nullptr, nullptr};
    new_handles(r.c_n ? std::vector<Tensor>{r.output, r.h_n, r.c_n} : std::vector<Tensor>{r.output, r.h_n},
                hs);
    *out = hs[0];
    *h_n = hs[1];
    *c_n = hs[2];
  });
}
