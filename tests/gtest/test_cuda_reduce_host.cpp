// The host/device code of the CUDA reductions (src/math/reduce_plan.h) run on
// the CPU: the plan's offsets against naive coordinates for random shapes,
// dim sets and strides, and the kernels' reduction order (replayed by
// emulate_output) against the CPU backend's sum, max_dim and argmax.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "autograd/node.h"
#include "gradcheck.h"
#include "math/reduce_plan.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;
namespace rp = tc::rplan;

namespace {

struct Case {
  std::vector<int64_t> shape;
  std::vector<bool> reduced;
};

Case random_case(std::mt19937& rng, int64_t max_ndim, int64_t max_size) {
  Case c;
  const int64_t ndim = std::uniform_int_distribution<int64_t>(0, max_ndim)(rng);
  for (int64_t d = 0; d < ndim; ++d) {
    c.shape.push_back(std::uniform_int_distribution<int64_t>(0, 9)(rng) == 0
                          ? 1
                          : std::uniform_int_distribution<int64_t>(1, max_size)(rng));
    c.reduced.push_back(std::uniform_int_distribution<int>(0, 1)(rng) == 1);
  }
  return c;
}

// Strides of a layout: contiguous, permuted, stepped (every other element),
// broadcast (a 0 here and there) or arbitrary.
std::vector<int64_t> random_strides(std::mt19937& rng, const std::vector<int64_t>& shape) {
  const int64_t n = int64_t(shape.size());
  std::vector<int64_t> order(static_cast<size_t>(n)), strides(static_cast<size_t>(n));
  for (int64_t d = 0; d < n; ++d) order[size_t(d)] = d;
  const int kind = std::uniform_int_distribution<int>(0, 4)(rng);
  if (kind == 1) std::shuffle(order.begin(), order.end(), rng);
  const int64_t step = kind == 2 ? 2 : 1;
  int64_t s = step;
  for (int64_t i = n - 1; i >= 0; --i) {
    const int64_t d = order[size_t(i)];
    strides[size_t(d)] = s;
    s *= std::max<int64_t>(shape[size_t(d)], 1);
  }
  for (int64_t d = 0; d < n; ++d) {
    if (kind == 3 && std::uniform_int_distribution<int>(0, 2)(rng) == 0) strides[size_t(d)] = 0;
    if (kind == 4) strides[size_t(d)] = std::uniform_int_distribution<int64_t>(0, 40)(rng);
  }
  return strides;
}

// Output k's kept coordinates and element r's reduced coordinates, row-major
// over the original dims (size-1 dims included), dotted with strides.
int64_t naive_offset(const Case& c, const std::vector<int64_t>& strides, int64_t k, int64_t r) {
  int64_t off = 0;
  for (int64_t d = int64_t(c.shape.size()) - 1; d >= 0; --d) {
    int64_t& idx = c.reduced[size_t(d)] ? r : k;
    const int64_t s = c.shape[size_t(d)];
    off += (idx % s) * strides[size_t(d)];
    idx /= s;
  }
  return off;
}

bool array_has(const std::vector<bool>& v, size_t i) { return i < v.size() && v[i]; }

}  // namespace

TEST(CudaReduceHost, PlanOffsetsMatchNaiveCoordinates) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 3000; ++iter) {
    const Case c = random_case(rng, 6, 5);
    const int nops = std::uniform_int_distribution<int>(1, 3)(rng);
    std::vector<std::vector<int64_t>> strides;
    const int64_t* sp[3] = {};
    for (int op = 0; op < nops; ++op) strides.push_back(random_strides(rng, c.shape));
    for (int op = 0; op < nops; ++op) sp[op] = strides[size_t(op)].data();
    bool red[TC_MAX_DIMS] = {};
    for (size_t d = 0; d < c.shape.size(); ++d) red[d] = array_has(c.reduced, d);
    const rp::ReducePlan p = rp::make_plan(int64_t(c.shape.size()), c.shape.data(), red, nops, sp);
    int64_t K = 1, R = 1;
    for (size_t d = 0; d < c.shape.size(); ++d) (c.reduced[d] ? R : K) *= c.shape[d];
    ASSERT_EQ(p.K, K) << "iteration " << iter;
    ASSERT_EQ(p.R, R) << "iteration " << iter;
    ASSERT_LE(p.nkept + p.nred, int32_t(c.shape.size()));
    for (int64_t k = 0; k < K; ++k) {
      for (int64_t r = 0; r < R; ++r) {
        for (int op = 0; op < nops; ++op) {
          ASSERT_EQ(rp::kept_offset(p, op, k) + rp::red_offset(p, op, r),
                    naive_offset(c, strides[size_t(op)], k, r))
              << "iteration " << iter << " operand " << op << " k " << k << " r " << r;
        }
      }
    }
  }
}

TEST(CudaReduceHost, PlanMergesContiguousDims) {
  // [4, 5, 6] contiguous, reducing dims 1 and 2: one reduced dim of 30.
  const int64_t shape[3] = {4, 5, 6}, strides[3] = {30, 6, 1};
  const int64_t* sp[1] = {strides};
  const bool red[3] = {false, true, true};
  const rp::ReducePlan p = rp::make_plan(3, shape, red, 1, sp);
  EXPECT_EQ(p.nkept, 1);
  EXPECT_EQ(p.nred, 1);
  EXPECT_EQ(p.red_size[0], 30);
  EXPECT_EQ(p.red_stride[0][0], 1);
  // The transpose of the reduced pair cannot merge.
  const int64_t tstrides[3] = {30, 1, 5};
  const int64_t* tp[1] = {tstrides};
  EXPECT_EQ(rp::make_plan(3, shape, red, 1, tp).nred, 2);
}

TEST(CudaReduceHost, LaunchCoversEveryElement) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 2000; ++iter) {
    rp::ReducePlan p;
    p.nred = 1;
    p.nops = 1;
    p.K = std::uniform_int_distribution<int64_t>(1, 5000)(rng);
    p.R = std::uniform_int_distribution<int64_t>(0, 3000000)(rng);
    p.red_size[0] = p.R;
    p.red_stride[0][0] = std::uniform_int_distribution<int64_t>(1, 2)(rng);
    const rp::Launch l = rp::choose_launch(p, true);
    if (!l.block) {
      EXPECT_TRUE(p.R < 32 || (p.red_stride[0][0] != 1 && p.K >= 1024));
      continue;
    }
    EXPECT_GE(l.threads, 32);
    EXPECT_LE(l.threads, 256);
    EXPECT_EQ(l.threads & (l.threads - 1), 0);
    EXPECT_GE(l.chunks * l.chunk_len, p.R);
    EXPECT_LT((l.chunks - 1) * l.chunk_len, p.R);
    EXPECT_LE(l.chunks, 1024);
  }
}

TEST(CudaReduceHost, ExtremeCombineIsTheFirstIndexScan) {
  // Any tree over ExtremeOp gives the CPU scan's answer: NaN first, ties to the first index.
  std::mt19937 rng(3);
  using Op = rp::ExtremeOp<double, true>;
  using MinOp = rp::ExtremeOp<double, false>;
  std::vector<Op::acc_t> sh(256);
  for (int iter = 0; iter < 500; ++iter) {
    const int64_t n = std::uniform_int_distribution<int64_t>(1, 700)(rng);
    std::vector<double> v(static_cast<size_t>(n));
    for (double& x : v) {
      const int pick = std::uniform_int_distribution<int>(0, 30)(rng);
      x = pick == 0 ? std::nan("") : double(pick % 4);
    }
    int64_t want_max = 0, want_min = 0;
    for (int64_t i = 0; i < n; ++i) {  // the CPU's scan (cpu/reduce.cpp arg_rows)
      if (std::isnan(v[size_t(want_max)])) break;
      if (std::isnan(v[size_t(i)]) || v[size_t(i)] > v[size_t(want_max)]) want_max = i;
    }
    for (int64_t i = 0; i < n; ++i) {
      if (std::isnan(v[size_t(want_min)])) break;
      if (std::isnan(v[size_t(i)]) || v[size_t(i)] < v[size_t(want_min)]) want_min = i;
    }
    auto load = [&](int64_t r) { return Op::from(v[size_t(r)], r); };
    for (const rp::Launch l : {rp::Launch{false, 1, 1, n}, rp::Launch{true, 32, 1, n},
                               rp::Launch{true, 256, 3, (n + 2) / 3}, rp::Launch{true, 64, n, 1}}) {
      EXPECT_EQ(rp::emulate_output<Op>(l, n, load, sh.data()).i, want_max) << "n " << n;
      EXPECT_EQ(rp::emulate_output<MinOp>(l, n, load, sh.data()).i, want_min) << "n " << n;
    }
  }
}

class CudaReduceEmulation : public TcTest {};

namespace {
// a's values viewed with random strides (same values, different layout).
Tensor relayout(std::mt19937& rng, const Tensor& a) {
  std::vector<int64_t> shape = a->shape.vec();
  std::vector<int64_t> strides = random_strides(rng, shape);
  // Only layouts without overlap hold distinct values: keep the permuted/stepped ones.
  int64_t extent = 1;
  for (size_t d = 0; d < shape.size(); ++d) extent += std::max<int64_t>(shape[d] - 1, 0) * strides[d];
  Tensor base = tc::zeros(tc::Dims{std::max<int64_t>(extent, 1)}, a->dtype);
  Tensor v = tc::make_view(base, a->shape, tc::Dims(strides), 0);
  // Overlapping layouts (broadcast or arbitrary strides) fall back to the contiguous one.
  std::vector<int64_t> offs;
  for (int64_t i = 0; i < a->numel(); ++i) {
    int64_t rem = i, off = 0;
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      off += (rem % shape[size_t(d)]) * strides[size_t(d)];
      rem /= shape[size_t(d)];
    }
    offs.push_back(off);
  }
  std::sort(offs.begin(), offs.end());
  if (std::adjacent_find(offs.begin(), offs.end()) != offs.end()) return tc::clone_data(a);
  tc::copy_into(v, a);
  return v;
}

template <typename Op, typename Load>
typename Op::acc_t emulate(const rp::ReducePlan& p, int64_t R, bool forced_chunks, Load load) {
  std::vector<typename Op::acc_t> sh(256);
  rp::Launch l = rp::choose_launch(p, true);
  if (forced_chunks && R > 0) l = rp::Launch{true, 32, 3, (R + 2) / 3};
  return rp::emulate_output<Op>(l, R, load, sh.data());
}
}  // namespace

TEST_F(CudaReduceEmulation, SumsMatchTheCpuBackend) {
  std::mt19937 rng(5);
  for (int iter = 0; iter < 300; ++iter) {
    const Case c = random_case(rng, 4, 7);
    const DType dt = iter % 3 == 0 ? DType::i8 : (iter % 3 == 1 ? DType::f32 : DType::f64);
    Tensor a = dt == DType::i8 ? tc::cast(uniform(tc::Dims(c.shape), -128, 127), dt)
                               : tc::cast(randn(tc::Dims(c.shape)), dt);
    a = relayout(rng, a);
    tc::Dims dims;
    for (size_t d = 0; d < c.shape.size(); ++d)
      if (c.reduced[d]) dims.push_back(int64_t(d));
    if (dims.empty() && !c.shape.empty()) continue;  // empty dims means "all" to ops::sum
    Tensor want = ops::sum(a, dims, true);
    bool red[TC_MAX_DIMS] = {};
    for (size_t d = 0; d < c.shape.size(); ++d) red[d] = c.reduced[d];
    const int64_t* sp[1] = {a->strides.data()};
    const rp::ReducePlan p = rp::make_plan(a->ndim(), a->shape.data(), red, 1, sp);
    ASSERT_EQ(p.K, want->numel());
    const bool forced = iter % 2 == 1;
    for (int64_t k = 0; k < p.K; ++k) {
      const int64_t base = rp::kept_offset(p, 0, k);
      if (dt == DType::i8) {
        const int8_t* x = a->data_as<int8_t>() + base;
        using Op = rp::SumOp<uint64_t>;
        const uint64_t got = emulate<Op>(p, p.R, forced, [&](int64_t r) {
          return Op::from(uint64_t(int64_t(x[rp::red_offset(p, 0, r)])), r);
        });
        ASSERT_EQ(int64_t(got), int64_t(tc::read_element(want, k))) << "iteration " << iter;
      } else {
        using Op = rp::SumOp<double>;
        const double got = emulate<Op>(p, p.R, forced, [&](int64_t r) {
          const int64_t off = base + rp::red_offset(p, 0, r);
          return dt == DType::f32 ? double(a->data_as<float>()[off]) : a->data_as<double>()[off];
        });
        const double w = tc::read_element(want, k);
        if (dt == DType::f32) {
          ASSERT_NEAR(double(float(got)), w, 1e-6 * (1 + std::fabs(w))) << "iteration " << iter;
        } else {
          ASSERT_NEAR(got, w, 1e-12 * (1 + std::fabs(w))) << "iteration " << iter;
        }
      }
    }
  }
}

TEST_F(CudaReduceEmulation, MaxDimAndArgmaxMatchTheCpuBackend) {
  std::mt19937 rng(9);
  for (int iter = 0; iter < 300; ++iter) {
    Case c = random_case(rng, 4, 8);
    if (c.shape.empty()) c.shape.push_back(5);
    for (int64_t& s : c.shape) s = std::max<int64_t>(s, 1);
    // Few distinct values (ties) and some NaNs.
    Tensor a = tc::empty(tc::Dims(c.shape), DType::f64);
    for (int64_t i = 0; i < a->numel(); ++i) {
      const int pick = std::uniform_int_distribution<int>(0, 40)(rng);
      a->data_as<double>()[i] = pick == 0 ? std::nan("") : double(pick % 5);
    }
    a = relayout(rng, a);
    const int64_t dim = std::uniform_int_distribution<int64_t>(0, a->ndim() - 1)(rng);
    const bool is_max = iter % 2 == 0;
    auto [wv, wi] = is_max ? ops::max_dim(a, dim, true) : ops::min_dim(a, dim, true);
    bool red[TC_MAX_DIMS] = {};
    red[dim] = true;
    const int64_t* sp[1] = {a->strides.data()};
    const rp::ReducePlan p = rp::make_plan(a->ndim(), a->shape.data(), red, 1, sp);
    for (int64_t k = 0; k < p.K; ++k) {
      const double* x = a->data_as<double>() + rp::kept_offset(p, 0, k);
      auto load = [&](int64_t r) { return rp::ArgAcc<double>{x[rp::red_offset(p, 0, r)], r}; };
      const rp::ArgAcc<double> got = is_max
                                         ? emulate<rp::ExtremeOp<double, true>>(p, p.R, iter % 4 < 2, load)
                                         : emulate<rp::ExtremeOp<double, false>>(p, p.R, iter % 4 < 2, load);
      ASSERT_EQ(got.i, int64_t(tc::read_element(wi, k))) << "iteration " << iter << " k " << k;
      const double w = tc::read_element(wv, k);
      ASSERT_TRUE(std::isnan(w) ? std::isnan(got.v) : got.v == w) << "iteration " << iter;
    }
    // Flattened argmax: every dim reduced, r is the row-major position.
    bool all[TC_MAX_DIMS];
    std::fill(all, all + TC_MAX_DIMS, true);
    const rp::ReducePlan q = rp::make_plan(a->ndim(), a->shape.data(), all, 1, sp);
    auto load = [&](int64_t r) {
      return rp::ArgAcc<double>{a->data_as<double>()[rp::red_offset(q, 0, r)], r};
    };
    const int64_t want = int64_t(
        tc::read_element(is_max ? ops::argmax(a, TC_DIM_ALL, false) : ops::argmin(a, TC_DIM_ALL, false), 0));
    const int64_t got = is_max ? emulate<rp::ExtremeOp<double, true>>(q, q.R, true, load).i
                               : emulate<rp::ExtremeOp<double, false>>(q, q.R, true, load).i;
    ASSERT_EQ(got, want) << "iteration " << iter;
  }
}

TEST_F(CudaReduceEmulation, GatherIndexSelectAndTheirAdjointsMatchTheCpuBackend) {
  std::mt19937 rng(13);
  for (int iter = 0; iter < 300; ++iter) {
    Case c = random_case(rng, 4, 5);
    if (c.shape.empty()) c.shape.push_back(3);
    for (int64_t& s : c.shape) s = std::max<int64_t>(s, 1);
    const int64_t ndim = int64_t(c.shape.size());
    Tensor a = relayout(rng, randn(tc::Dims(c.shape)));
    const int64_t dim = std::uniform_int_distribution<int64_t>(0, ndim - 1)(rng);
    const bool select = iter % 2 == 1;
    std::vector<int64_t> index_shape, out_shape = c.shape;
    if (select) {
      index_shape = {std::uniform_int_distribution<int64_t>(0, 6)(rng)};
      out_shape[size_t(dim)] = index_shape[0];
    } else {
      for (int64_t d = 0; d < ndim; ++d) {
        index_shape.push_back(d == dim ? std::uniform_int_distribution<int64_t>(0, 6)(rng)
                                       : std::uniform_int_distribution<int64_t>(1, c.shape[size_t(d)])(rng));
      }
      out_shape = index_shape;
    }
    std::vector<double> idx_values(static_cast<size_t>(tc::numel_of(tc::Dims(index_shape))));
    for (double& v : idx_values)
      v = double(std::uniform_int_distribution<int64_t>(0, c.shape[size_t(dim)] - 1)(rng));
    Tensor index = tensor(idx_values, tc::Dims(index_shape), DType::i64);
    Tensor leaf = tc::clone_data(a);
    leaf->requires_grad = true;
    Tensor want = select ? ops::index_select(leaf, dim, index) : ops::gather(leaf, dim, index);

    bool red[TC_MAX_DIMS] = {};
    red[dim] = true;
    int64_t pos[TC_MAX_DIMS];
    rp::index_position_strides(ndim, dim, select, index->strides.data(), index->ndim(), pos);
    Tensor out = tc::zeros(tc::Dims(out_shape), DType::f64);
    const int64_t* sp[3] = {out->strides.data(), pos, a->strides.data()};
    const rp::ReducePlan p = rp::make_plan(ndim, out_shape.data(), red, 3, sp);
    for (int64_t e = 0; e < p.K * p.R; ++e) {
      rp::gather_element(p, e, out->data_as<double>(), index->data_as<int64_t>(), a->data_as<double>(),
                         a->strides[dim], a->shape[dim]);
    }
    ASSERT_EQ(values(out), values(want)) << "iteration " << iter;

    // The adjoint, in the CPU's order: bitwise equal gradients.
    Tensor g = relayout(rng, randn(tc::Dims(out_shape)));
    tc::autograd::backward(want, tc::clone_data(g), false);
    Tensor gi = tc::zeros(a->shape, DType::f64);
    const int64_t* sq[3] = {g->strides.data(), pos, gi->strides.data()};
    const rp::ReducePlan q = rp::make_plan(ndim, out_shape.data(), red, 3, sq);
    for (int64_t k = 0; k < q.K; ++k) {
      rp::scatter_add_column(q, k, gi->data_as<double>(), g->data_as<double>(), index->data_as<int64_t>(),
                             gi->strides[dim], [](double* dst, double x) { *dst += x; });
    }
    ASSERT_EQ(values(gi), values(leaf->grad())) << "iteration " << iter;
  }
}
