// The optimizers' state dicts through the C ABI, for every kind (sgd, adam,
// rmsprop, adagrad): the names a dict holds and their order (tc.h's
// documented layout), a load refused half-way through the per-parameter
// state changes nothing, a refused hyperparameter changes nothing, the step
// counts a dict may hold, and the state a parameter without one in the dict
// gets (adagrad's sum full of the dict's initial_accumulator_value).
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "nn_test_util.h"

namespace {

using nntest::H;

// libtc initialised around each test, which must free every handle it makes.
class OptimStateDict : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(tc_init(nullptr), TC_OK);
    ASSERT_EQ(tc_get_flag("live_handles", &handles_), TC_OK);
  }
  void TearDown() override {
    int64_t now = -1;
    EXPECT_EQ(tc_get_flag("live_handles", &now), TC_OK);
    EXPECT_EQ(now, handles_) << "a test leaked handles";
    EXPECT_EQ(tc_shutdown(), TC_OK);
  }
  int64_t handles_ = -1;
};

// One owned tc_tensor_dict, freed at scope exit.
class Dict {
 public:
  Dict() = default;
  Dict(const Dict&) = delete;
  Dict& operator=(const Dict&) = delete;
  Dict(Dict&& o) noexcept : d_(o.d_) { o.d_ = nullptr; }
  ~Dict() {
    if (d_) {
      EXPECT_EQ(tc_tensor_dict_free(d_), TC_OK);
    }
  }
  operator tc_tensor_dict() const { return d_; }  // NOLINT: pass straight to tc_* calls
  tc_tensor_dict* out() { return &d_; }

 private:
  tc_tensor_dict d_ = nullptr;
};

using Make = std::function<int32_t(const tc_tensor*, int64_t, tc_optimizer*)>;

struct KindCase {
  const char* name;
  Make make;
  std::vector<std::string> names;  // the dict after a step of both parameters, in order
};

std::vector<KindCase> kinds() {
  // Every option nonzero where the kind has it (a state slot for each).
  //                                  size, nesterov, lr, momentum, dampening, weight_decay
  static const tc_sgd_options sgd{sizeof(tc_sgd_options), 0, 0.1, 0.9, 0.1, 0.01};
  //                                    size, decoupled, lr, beta1, beta2, eps, weight_decay
  static const tc_adam_options adam{sizeof(tc_adam_options), 0, 0.01, 0.9, 0.99, 1e-8, 0.01};
  //                                          size, centered, lr, alpha, eps, weight_decay, momentum
  static const tc_rmsprop_options rms{sizeof(tc_rmsprop_options), 1, 0.01, 0.9, 1e-8, 0.01, 0.5};
  //                                          size, reserved, lr, lr_decay, weight_decay, initial, eps
  static const tc_adagrad_options ada{sizeof(tc_adagrad_options), 0, 0.1, 0.01, 0.01, 0.2, 1e-10};
  const std::string g = "param_groups.0.";
  return {
      {"sgd",
       [](const tc_tensor* p, int64_t n, tc_optimizer* o) { return tc_optimizer_sgd(p, n, &sgd, o); },
       {g + "lr", g + "momentum", g + "dampening", g + "weight_decay", g + "nesterov",
        "state.0.momentum_buffer", "state.1.momentum_buffer"}},
      {"adam",
       [](const tc_tensor* p, int64_t n, tc_optimizer* o) { return tc_optimizer_adam(p, n, &adam, o); },
       {g + "lr", g + "beta1", g + "beta2", g + "eps", g + "weight_decay", g + "decoupled_weight_decay",
        "state.0.step", "state.0.exp_avg", "state.0.exp_avg_sq", "state.1.step", "state.1.exp_avg",
        "state.1.exp_avg_sq"}},
      {"rmsprop",
       [](const tc_tensor* p, int64_t n, tc_optimizer* o) { return tc_optimizer_rmsprop(p, n, &rms, o); },
       {g + "lr", g + "alpha", g + "eps", g + "weight_decay", g + "momentum", g + "centered", "state.0.step",
        "state.0.square_avg", "state.0.momentum_buffer", "state.0.grad_avg", "state.1.step",
        "state.1.square_avg", "state.1.momentum_buffer", "state.1.grad_avg"}},
      {"adagrad",
       [](const tc_tensor* p, int64_t n, tc_optimizer* o) { return tc_optimizer_adagrad(p, n, &ada, o); },
       {g + "lr", g + "lr_decay", g + "weight_decay", g + "initial_accumulator_value", g + "eps",
        "state.0.step", "state.0.sum", "state.1.step", "state.1.sum"}},
  };
}

std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::vector<std::string> names_of(tc_tensor_dict d) {
  int64_t n = 0;
  EXPECT_EQ(tc_tensor_dict_count(d, &n), TC_OK);
  std::vector<std::string> out;
  char buf[256];
  int64_t needed = 0;
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(tc_tensor_dict_name_at(d, i, buf, sizeof buf, &needed), TC_OK);
    out.emplace_back(buf);
  }
  return out;
}

// Every item of a dict: its name, dtype, shape and values.
std::string describe(tc_tensor_dict d) {
  std::string s;
  for (const std::string& name : names_of(d)) {
    H t;
    EXPECT_EQ(tc_tensor_dict_get(d, name.c_str(), t.out()), TC_OK);
    int32_t dtype = 0;
    int64_t nd = 0;
    EXPECT_EQ(tc_tensor_dtype(t, &dtype), TC_OK);
    EXPECT_EQ(tc_tensor_ndim(t, &nd), TC_OK);
    std::vector<int64_t> shape(size_t(nd) + 1);
    EXPECT_EQ(tc_tensor_shape(t, shape.data(), nd), TC_OK);
    s += name + " dtype " + std::to_string(dtype) + " shape";
    for (int64_t k = 0; k < nd; ++k) s += " " + std::to_string(shape[size_t(k)]);
    s += " values";
    for (double v : nntest::read(t)) s += " " + exact(v);
    s += "\n";
  }
  return s;
}

// A copy of d with `name` set to t (added where d has no such name); with no
// name, d's hyperparameters only.
Dict with(tc_tensor_dict d, const std::string& name, tc_tensor t) {
  Dict c;
  EXPECT_EQ(tc_tensor_dict_create(c.out()), TC_OK);
  for (const std::string& n : names_of(d)) {
    if (name.empty() && n.rfind("state.", 0) == 0) continue;
    H v;
    EXPECT_EQ(tc_tensor_dict_get(d, n.c_str(), v.out()), TC_OK);
    EXPECT_EQ(tc_tensor_dict_set(c, n.c_str(), v), TC_OK);
  }
  if (!name.empty()) {
    EXPECT_EQ(tc_tensor_dict_set(c, name.c_str(), t), TC_OK);
  }
  return c;
}

H scalar(double v, int32_t dtype = TC_FLOAT64) {
  H t;
  const int64_t none[1] = {0};
  EXPECT_EQ(tc_full(none, 0, v, dtype, TC_CPU, t.out()), TC_OK);
  return t;
}

// Two float64 parameters (shapes {3} and {2, 2}) and an optimizer of one kind
// over them; step() sets the grads directly (the second only where asked).
struct Trained {
  H w0 = nntest::tensor({1.0, -2.0, 0.5}, {3}), w1 = nntest::tensor({0.25, -0.5, 1.5, 2.0}, {2, 2});
  tc_optimizer opt = nullptr;

  explicit Trained(const Make& make) {
    EXPECT_EQ(tc_tensor_set_requires_grad(w0, 1), TC_OK);
    EXPECT_EQ(tc_tensor_set_requires_grad(w1, 1), TC_OK);
    const tc_tensor ws[] = {w0.get(), w1.get()};
    EXPECT_EQ(make(ws, 2, &opt), TC_OK) << nntest::last_error();
  }
  ~Trained() { EXPECT_EQ(tc_optimizer_free(opt), TC_OK); }
  void step(bool second = true) {
    H g0 = nntest::tensor({0.3, -0.2, 0.1}, {3}), g1 = nntest::tensor({-0.1, 0.4, 0.2, -0.3}, {2, 2});
    ASSERT_EQ(tc_tensor_set_grad(w0, g0), TC_OK) << nntest::last_error();
    if (second) {
      ASSERT_EQ(tc_tensor_set_grad(w1, g1), TC_OK) << nntest::last_error();
    }
    ASSERT_EQ(tc_optimizer_step(opt), TC_OK) << nntest::last_error();
    ASSERT_EQ(tc_optimizer_zero_grad(opt), TC_OK);
  }
  Dict dict() {
    Dict d;
    EXPECT_EQ(tc_optimizer_state_dict(opt, d.out()), TC_OK) << nntest::last_error();
    return d;
  }
  // The optimizer's dict and the parameters' values.
  std::string state() {
    std::string s = describe(dict()) + "w0";
    for (double v : nntest::read(w0)) s += " " + exact(v);
    s += "\nw1";
    for (double v : nntest::read(w1)) s += " " + exact(v);
    return s;
  }
  int32_t load(tc_tensor_dict d) { return tc_optimizer_load_state_dict(opt, d); }
};

const std::string kGroup = "param_groups.0.";

TEST_F(OptimStateDict, NamesInOrderForEveryKind) {
  for (const KindCase& k : kinds()) {
    SCOPED_TRACE(k.name);
    Trained r(k.make);
    r.step();
    r.step();
    const Dict d = r.dict();
    EXPECT_EQ(names_of(d), k.names);
    // Loading a kind's own dict keeps it as it is.
    const std::string before = r.state();
    ASSERT_EQ(r.load(d), TC_OK) << nntest::last_error();
    EXPECT_EQ(r.state(), before);
  }
}

TEST_F(OptimStateDict, ParameterWithoutStateIsLeftOutOrFresh) {
  for (const KindCase& k : kinds()) {
    SCOPED_TRACE(k.name);
    Trained r(k.make);
    r.step(/*second=*/false);
    int32_t has = 0;
    ASSERT_EQ(tc_tensor_dict_contains(r.dict(), "state.1.step", &has), TC_OK);
    // adagrad's sums exist from the start; the others' state from a first step.
    EXPECT_EQ(has, std::string(k.name) == "adagrad" ? 1 : 0);
  }
}

// The last tensor of the last parameter has the wrong shape: the load fails
// after reading everything before it, and the optimizer is as it was.
TEST_F(OptimStateDict, LoadRefusedHalfWayChangesNothing) {
  const std::map<std::string, std::string> last_hyper = {{"sgd", "nesterov"},
                                                         {"adam", "decoupled_weight_decay"},
                                                         {"rmsprop", "centered"},
                                                         {"adagrad", "initial_accumulator_value"}};
  for (const KindCase& k : kinds()) {
    SCOPED_TRACE(k.name);
    Trained r(k.make);
    r.step();
    const Dict d = r.dict();
    r.step();
    const std::string before = r.state();
    const std::string last = k.names.back();
    H bad = nntest::tensor({1.0, 2.0, 3.0}, {3});
    EXPECT_EQ(r.load(with(d, last, bad)), TC_ERR_SHAPE);
    EXPECT_NE(nntest::last_error().find("\"" + last + "\" has shape [3]"), std::string::npos)
        << nntest::last_error();
    EXPECT_EQ(r.state(), before);
    // So does a refused hyperparameter (a flag of 2; adagrad, without flags: a
    // negative initial_accumulator_value), with a new lr before it.
    const bool adagrad = std::string(k.name) == "adagrad";
    const std::string hyper = kGroup + last_hyper.at(k.name);
    H lr = scalar(0.5), value = scalar(adagrad ? -1 : 2);
    const Dict lr_changed = with(d, kGroup + "lr", lr);
    EXPECT_EQ(r.load(with(lr_changed, hyper, value)), TC_ERR_INVALID_ARGUMENT);
    const std::string why = adagrad ? "adagrad: invalid initial_accumulator_value value -1"
                                    : "\"" + hyper + "\" must be 0 or 1 but is 2";
    EXPECT_NE(nntest::last_error().find(why), std::string::npos) << nntest::last_error();
    EXPECT_EQ(r.state(), before);
  }
}

TEST_F(OptimStateDict, StepCounts) {
  for (const KindCase& k : kinds()) {
    if (std::string(k.name) == "sgd") continue;  // counts no steps
    SCOPED_TRACE(k.name);
    Trained r(k.make);
    r.step();
    const Dict d = r.dict();
    // A whole float64 count is taken (torch keeps a float), and saved as int64.
    H three = scalar(3);
    ASSERT_EQ(r.load(with(d, "state.1.step", three)), TC_OK) << nntest::last_error();
    H step;
    ASSERT_EQ(tc_tensor_dict_get(r.dict(), "state.1.step", step.out()), TC_OK);
    int32_t dtype = 0;
    ASSERT_EQ(tc_tensor_dtype(step, &dtype), TC_OK);
    EXPECT_EQ(dtype, TC_INT64);
    EXPECT_EQ(nntest::read(step), std::vector<double>{3});
    H half = scalar(2.5);
    EXPECT_EQ(r.load(with(d, "state.0.step", half)), TC_ERR_INVALID_ARGUMENT);
    EXPECT_NE(nntest::last_error().find("\"state.0.step\" must be a whole number but is 2.5"),
              std::string::npos)
        << nntest::last_error();
    // adam and rmsprop hold a state only after a step; adagrad from the start.
    H zero = scalar(0, TC_INT64);
    const int32_t rc = r.load(with(d, "state.0.step", zero));
    if (std::string(k.name) == "adagrad") {
      EXPECT_EQ(rc, TC_OK) << nntest::last_error();
    } else {
      EXPECT_EQ(rc, TC_ERR_INVALID_ARGUMENT);
      EXPECT_NE(nntest::last_error().find("\"state.0.step\" must be >= 1 but is 0"), std::string::npos)
          << nntest::last_error();
    }
  }
}

// A dict without a parameter's state: adagrad's sum is full of the dict's
// initial_accumulator_value, its step count 0.
TEST_F(OptimStateDict, AdagradSumWithoutStateIsTheDictsInitialValue) {
  Trained r(kinds()[3].make);
  r.step();
  const Dict hypers = with(r.dict(), "", nullptr);
  H init = scalar(0.75);
  ASSERT_EQ(r.load(with(hypers, kGroup + "initial_accumulator_value", init)), TC_OK) << nntest::last_error();
  const Dict back = r.dict();
  H sum, step;
  ASSERT_EQ(tc_tensor_dict_get(back, "state.1.sum", sum.out()), TC_OK);
  ASSERT_EQ(tc_tensor_dict_get(back, "state.1.step", step.out()), TC_OK);
  EXPECT_EQ(nntest::read(sum), std::vector<double>(4, 0.75));
  EXPECT_EQ(nntest::read(step), std::vector<double>{0});
}

// rmsprop reads a momentum_buffer only where the dict's momentum is positive
// (and a grad_avg only where it is centered); an unused one is dropped.
TEST_F(OptimStateDict, RmspropReadsOnlyTheBuffersItsOptionsUse) {
  Trained r(kinds()[2].make);
  r.step();
  H zero = scalar(0);
  const Dict plain = with(r.dict(), kGroup + "momentum", zero);
  ASSERT_EQ(r.load(with(plain, kGroup + "centered", zero)), TC_OK) << nntest::last_error();
  const Dict back = r.dict();
  const std::string g = kGroup;
  EXPECT_EQ(names_of(back),
            (std::vector<std::string>{g + "lr", g + "alpha", g + "eps", g + "weight_decay", g + "momentum",
                                      g + "centered", "state.0.step", "state.0.square_avg", "state.1.step",
                                      "state.1.square_avg"}));
  // Back to a momentum: the dict now lacks the buffers it needs.
  H half = scalar(0.5);
  EXPECT_EQ(r.load(with(back, kGroup + "momentum", half)), TC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(nntest::last_error().find("has no \"state.0.momentum_buffer\" (a partial state)"),
            std::string::npos)
      << nntest::last_error();
}

}  // namespace
