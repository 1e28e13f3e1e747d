// tc_* shim of the recurrent layers (ops/rnn.cpp): check handles and
// arguments, call the core, hand out the results only on success.
#include "ops/rnn.h"

#include "abi/op_shims.h"

using namespace tc;

TC_API int32_t tc_rnn(tc_tensor input, tc_tensor hx, tc_tensor cx, const tc_tensor* weights,
                      int64_t num_weights, const tc_rnn_options* options, tc_tensor* out, tc_tensor* h_n,
                      tc_tensor* c_n) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    out_ptr(h_n, "h_n");
    out_ptr(c_n, "c_n");
    in_ptr(options, "options");
    TC_CHECK(options->size >= sizeof(tc_rnn_options), TC_ERR_INVALID_ARGUMENT, "options->size is ",
             options->size, " but must be at least ", sizeof(tc_rnn_options),
             " (set it to sizeof the struct)");
    TC_CHECK(num_weights > 0, TC_ERR_INVALID_ARGUMENT, "num_weights must be positive but is ", num_weights);
    in_ptr(weights, "weights");
    std::vector<Tensor> ws;
    ws.reserve(size_t(num_weights));
    for (int64_t i = 0; i < num_weights; ++i) ws.push_back(get_tensor(weights[i], "weights[i]"));
    TC_CHECK(options->mode >= TC_RNN_TANH && options->mode <= TC_RNN_GRU, TC_ERR_INVALID_ARGUMENT,
             "options->mode must be a TC_RNN_* value but is ", options->mode);
    ops::RnnOptions o;
    o.mode = ops::RnnMode(options->mode);
    o.num_layers = options->num_layers;
    o.has_biases = options->has_biases != 0;
    o.bidirectional = options->bidirectional != 0;
    o.batch_first = options->batch_first != 0;
    o.train = options->train != 0;
    o.dropout = options->dropout;
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
