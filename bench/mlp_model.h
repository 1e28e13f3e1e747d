/* The 784 -> 256 -> ReLU -> 10 MLP that bench_mlp and bench_mlp_phases
 * train: its four parameters (uniform in [-0.05, 0.05], requiring grad) and
 * a plain SGD optimizer over them (lr 0.01), so both benches time the same
 * model. Include after bench_util.h (CK). */
#pragma once

static void mlp_model_make(tc_tensor p[4], tc_optimizer* opt) {
  const int64_t w1s[2] = {256, 784}, b1s[1] = {256}, w2s[2] = {10, 256}, b2s[1] = {10};
  CK(tc_empty(w1s, 2, TC_FLOAT32, TC_CPU, &p[0]));
  CK(tc_empty(b1s, 1, TC_FLOAT32, TC_CPU, &p[1]));
  CK(tc_empty(w2s, 2, TC_FLOAT32, TC_CPU, &p[2]));
  CK(tc_empty(b2s, 1, TC_FLOAT32, TC_CPU, &p[3]));
  for (int i = 0; i < 4; ++i) {
    CK(tc_uniform_(p[i], -0.05, 0.05));
    CK(tc_tensor_set_requires_grad(p[i], 1));
  }
  tc_sgd_options so = {0};
  so.size = sizeof so;
  so.lr = 0.01;
  CK(tc_optimizer_sgd(p, 4, &so, opt));
}
