// Advanced indexing (index, index_put, index_put_) and the scatter family:
// values computed by PyTorch 1.13 (the expressions are quoted next to them),
// float64 finite-difference gradchecks, in-place autograd, the C ABI with
// NULL (slice) entries, and errors.
#include "gradcheck.h"
#include "math/rows/unary_exp.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

namespace {

class Indexing : public TcTest {};

Tensor i64(const std::vector<double>& v, const tc::Dims& shape) { return tensor(v, shape, DType::i64); }
Tensor arange12() { return tensor({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4}); }
Tensor arange24() {
  std::vector<double> v(24);
  for (int i = 0; i < 24; ++i) v[size_t(i)] = i;
  return tensor(v, {2, 3, 4});
}
using V = std::vector<double>;

}  // namespace

TEST_F(Indexing, IndexValuesAndShapes) {
  Tensor a = arange12();
  // torch: a[tensor([2, 0, -1])][:, tensor([1, 3])]
  Tensor r = ops::index(ops::index(a, {i64({2, 0, -1}, {3})}), {nullptr, i64({1, 3}, {2})});
  EXPECT_EQ(r->shape, (tc::Dims{3, 2}));
  EXPECT_EQ(values(r), (V{9, 11, 1, 3, 9, 11}));
  // Separated indices go first: torch.arange(24.).reshape(2,3,4)[tensor([1,0]), :, tensor([3,0])]
  Tensor s = ops::index(arange24(), {i64({1, 0}, {2}), nullptr, i64({3, 0}, {2})});
  EXPECT_EQ(s->shape, (tc::Dims{2, 3}));
  EXPECT_EQ(values(s), (V{15, 19, 23, 0, 4, 8}));
  // Adjacent indices keep their place and broadcast: [:, tensor([2,0]), tensor([[1],[3]])]
  Tensor t = ops::index(arange24(), {nullptr, i64({2, 0}, {2}), i64({1, 3}, {2, 1})});
  EXPECT_EQ(t->shape, (tc::Dims{2, 2, 2}));
  EXPECT_EQ(values(t), (V{9, 1, 11, 3, 21, 13, 23, 15}));
  // A 2-D bool mask: torch a[m]
  Tensor m = tensor({1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0}, {3, 4}, DType::b8);
  EXPECT_EQ(values(ops::index(a, {m})), (V{0, 2, 7, 8, 9}));
  // int32 indices, non-contiguous input, empty index.
  EXPECT_EQ(values(ops::index(noncontiguous(a), {nullptr, tensor({3}, {1}, DType::i32)})), (V{3, 7, 11}));
  EXPECT_EQ(ops::index(a, {i64({}, {0})})->shape, (tc::Dims{0, 4}));
  // A 0-dim bool index adds a dim.
  EXPECT_EQ(ops::index(a, {tensor({1}, {}, DType::b8)})->shape, (tc::Dims{1, 3, 4}));
  EXPECT_EQ(ops::index(a, {tensor({0}, {}, DType::b8)})->shape, (tc::Dims{0, 3, 4}));
}

TEST_F(Indexing, IndexPutDuplicates) {
  Tensor idx0 = i64({0, 0, 2}, {3}), idx1 = i64({1, 1, 3}, {3});
  // torch: a.index_put_((tensor([0,0,2]), tensor([1,1,3])), tensor([1.,2.,3.]), accumulate=True)
  Tensor acc = ops::index_put(arange12(), {idx0, idx1}, tensor({1, 2, 3}, {3}), true);
  EXPECT_EQ(values(acc), (V{0, 4, 2, 3, 4, 5, 6, 7, 8, 9, 10, 14}));
  Tensor last = arange12();
  ops::index_put_(last, {idx0, idx1}, tensor({1, 2, 3}, {3}), false);
  EXPECT_EQ(values(last), (V{0, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 3}));
  // Parallel path: many sliced positions per index, repeated rows add in order.
  Tensor big = tc::zeros({4, 100000}, DType::f64);
  ops::index_put_(big, {i64({1, 1, 3}, {3})}, tc::ops::add_scalar(tc::zeros({100000}, DType::f64), 1.0),
                  true);
  EXPECT_EQ(values(ops::sum(big, {1}, false)), (V{0, 200000, 0, 100000}));
}

TEST_F(Indexing, ScatterReduceMatchesTorch) {
  Tensor src = tensor({1, 2, 3, 4, 5, 6, 7, 8}, {2, 4});
  Tensor idx = i64({0, 1, 2, 0, 2, 0, 0, 1}, {2, 4});
  // torch: arange(12.).reshape(3,4).scatter_reduce(0, idx, src, r, include_self=inc)
  const std::vector<std::tuple<int32_t, bool, V>> cases = {
      {TC_SCATTER_SUM, true, {1, 7, 9, 7, 4, 7, 6, 15, 13, 9, 13, 11}},
      {TC_SCATTER_SUM, false, {1, 6, 7, 4, 4, 2, 6, 8, 5, 9, 3, 11}},
      {TC_SCATTER_PROD, true, {0, 6, 14, 12, 4, 10, 6, 56, 40, 9, 30, 11}},
      {TC_SCATTER_MEAN, true, {0.5, 3.5, 4.5, 3.5, 4, 3.5, 6, 7.5, 6.5, 9, 6.5, 11}},
      {TC_SCATTER_MEAN, false, {1, 6, 7, 4, 4, 2, 6, 8, 5, 9, 3, 11}},
      {TC_SCATTER_AMAX, true, {1, 6, 7, 4, 4, 5, 6, 8, 8, 9, 10, 11}},
      {TC_SCATTER_AMIN, true, {0, 1, 2, 3, 4, 2, 6, 7, 5, 9, 3, 11}},
      {TC_SCATTER_AMIN, false, {1, 6, 7, 4, 4, 2, 6, 8, 5, 9, 3, 11}},
  };
  for (const auto& [reduce, inc, want] : cases) {
    EXPECT_EQ(values(ops::scatter_reduce(arange12(), 0, idx, src, reduce, inc)), want)
        << reduce << " " << inc;
  }
  // Integer mean divides with floor: torch.tensor([5,2,7,1]).scatter_reduce(0, [0,0,3], [4,3,9], "mean")
  Tensor im = ops::scatter_reduce(tensor({5, 2, 7, 1}, {4}, DType::i64), 0, i64({0, 0, 3}, {3}),
                                  tensor({4, 3, 9}, {3}, DType::i64), TC_SCATTER_MEAN, true);
  EXPECT_EQ(im->dtype, DType::i64);
  EXPECT_EQ(values(im), (V{4, 2, 7, 5}));
}

TEST_F(Indexing, IndexAlongAndTakeMatchTorch) {
  Tensor ones3 = tensor({1, 2, 3, 1, 2, 3, 1, 2, 3}, {3, 3});
  // torch: a.index_add(1, tensor([3,0,3]), ones(3,3)*tensor([1.,2,3]), alpha=2)
  EXPECT_EQ(values(ops::index_add(arange12(), 1, i64({3, 0, 3}, {3}), ones3, 2)),
            (V{4, 1, 2, 11, 8, 5, 6, 15, 12, 9, 10, 19}));
  // torch: a.index_copy(0, tensor([2,0]), -ones(2,4))
  Tensor neg = tensor(V(8, -1.0), {2, 4});
  EXPECT_EQ(values(ops::index_copy(arange12(), 0, i64({2, 0}, {2}), neg)),
            (V{-1, -1, -1, -1, 4, 5, 6, 7, -1, -1, -1, -1}));
  // torch: a.index_fill(1, tensor([-1,1]), 7)
  EXPECT_EQ(values(ops::index_fill(arange12(), 1, i64({-1, 1}, {2}), 7)),
            (V{0, 7, 2, 7, 4, 7, 6, 7, 8, 7, 10, 7}));
  // torch: a.take(tensor([[11,-12],[5,5]]))
  EXPECT_EQ(values(ops::take(arange12(), i64({11, -12, 5, 5}, {2, 2}))), (V{11, 0, 5, 5}));
  // torch: a.masked_select(tensor([True,False,False,True])) (the mask broadcasts)
  EXPECT_EQ(values(ops::masked_select(arange12(), tensor({1, 0, 0, 1}, {4}, DType::b8))),
            (V{0, 3, 4, 7, 8, 11}));
  // torch: tensor([[0,1.],[2,0]]).nonzero()
  Tensor nz = ops::nonzero(tensor({0, 1, 2, 0}, {2, 2}));
  EXPECT_EQ(nz->shape, (tc::Dims{2, 2}));
  EXPECT_EQ(values(nz), (V{0, 1, 1, 0}));
}

TEST_F(Indexing, Gradchecks) {
  Tensor rep = i64({2, 0, 2}, {3});
  EXPECT_TRUE(gradcheck(
      [rep](const Inputs& x) {
        return ops::index(x[0], {nullptr, rep});
      },
      {noncontiguous(randn({3, 4}))}));
  Tensor m = tensor({1, 0, 0, 1}, {4}, DType::b8);  // two true: broadcasts with the two rows
  EXPECT_TRUE(gradcheck(
      [m](const Inputs& x) {
        return ops::index(x[0], {i64({1, 1}, {2}), m});
      },
      {randn({3, 4})}));
  // Without accumulate, repeated indices have no derivative to check (as in
  // PyTorch, each written value gets its gradient): distinct ones there.
  for (bool acc : {false, true}) {
    Tensor at = acc ? rep : i64({2, 0, 3}, {3});
    EXPECT_TRUE(gradcheck(
        [acc, at](const Inputs& x) {
          return ops::index_put(x[0], {nullptr, at}, x[1], acc);
        },
        {randn({3, 4}), randn({3, 1})}));
  }
  Tensor idx = i64({0, 1, 2, 0, 2, 0, 0, 1}, {2, 4});
  EXPECT_TRUE(gradcheck([idx](const Inputs& x) { return ops::scatter_add(x[0], 0, idx, x[1]); },
                        {randn({3, 4}), randn({2, 5})}));
  Tensor uniq = i64({0, 1, 2, 1, 2, 0, 1, 0}, {2, 4});
  EXPECT_TRUE(gradcheck([uniq](const Inputs& x) { return ops::scatter(x[0], 0, uniq, x[1]); },
                        {randn({3, 4}), randn({2, 4})}));
  // Smooth reductions everywhere; amax/amin and prod away from ties and zeros.
  for (int32_t r : {TC_SCATTER_SUM, TC_SCATTER_MEAN, TC_SCATTER_PROD, TC_SCATTER_AMAX, TC_SCATTER_AMIN}) {
    for (bool inc : {true, false}) {
      EXPECT_TRUE(gradcheck(
          [idx, r, inc](const Inputs& x) { return ops::scatter_reduce(x[0], 0, idx, x[1], r, inc); },
          {uniform({3, 4}, 0.5, 2.0), uniform({2, 4}, 0.5, 2.0)}))
          << r << " " << inc;
    }
  }
  EXPECT_TRUE(gradcheck([rep](const Inputs& x) { return ops::index_add(x[0], 1, rep, x[1], -1.5); },
                        {randn({2, 4}), randn({2, 3})}));
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        return ops::index_copy(x[0], 0, i64({2, 0}, {2}), x[1]);
      },
      {randn({3, 2}), randn({2, 2})}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return ops::index_fill(x[0], 1, i64({0}, {1}), 2.0); },
                        {randn({3, 2})}));
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        return ops::take(x[0], i64({5, -1, 0, 5}, {2, 2}));
      },
      {noncontiguous(randn({2, 3}))}));
  EXPECT_TRUE(gradcheck([m](const Inputs& x) { return ops::masked_select(x[0], m); }, {randn({2, 4})}));
}

TEST_F(Indexing, InPlaceAutogradRebases) {
  // y = x * 2; y[:, [1, 3]] = v; gradients: x gets 2 where not overwritten, v the sum of the column grads.
  Tensor x = randn({3, 4}), v = randn({3, 1});
  x->requires_grad = true;
  v->requires_grad = true;
  Tensor y = ops::mul_scalar(x, 2.0);
  const int64_t before = y->version();
  ops::index_put_(y, {nullptr, i64({1, 3}, {2})}, v, false);
  EXPECT_GT(y->version(), before);
  ASSERT_TRUE(y->grad_fn != nullptr);
  EXPECT_STREQ(y->grad_fn->name(), "IndexPutBackward");
  tc::autograd::backward(ops::sum(y, {}, false), nullptr, false);
  EXPECT_EQ(values(x->grad()), (V{2, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0}));
  EXPECT_EQ(values(v->grad()), (V{2, 2, 2}));
  // Refused: a leaf requiring grad, and memory another tensor shares.
  EXPECT_EQ(code_of([&] { ops::index_put_(x, {i64({0}, {1})}, tensor({1}, {}), false); }), TC_ERR_AUTOGRAD);
  Tensor e = ops::unary(ops::row::exp, x);  // saves its output
  EXPECT_EQ(code_of([&] { ops::index_put_(e, {i64({0}, {1})}, tensor({1}, {}), false); }), TC_ERR_AUTOGRAD);
  // A read-only tensor or an expanded view cannot be written.
  Tensor ex = tc::ops::expand(tensor({1, 2}, {1, 2}), {3, 2});
  EXPECT_EQ(code_of([&] { ops::index_put_(ex, {i64({0}, {1})}, tensor({1}, {}), false); }),
            TC_ERR_INVALID_ARGUMENT);
}

TEST_F(Indexing, Errors) {
  Tensor a = arange12();
  auto msg = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const tc::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg([&] {
              ops::index(a, {i64({3}, {1})});
            }).find("index 3 is out of bounds for dimension 0 with size 3"),
            std::string::npos);
  EXPECT_NE(msg([&] {
              ops::index(a, {nullptr, i64({-5}, {1})});
            }).find("index -5 is out of bounds for dimension 1 with size 4"),
            std::string::npos);
  EXPECT_EQ(code_of([&] { ops::index(a, {i64({0, 1}, {2}), i64({0, 1, 2}, {3})}); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { ops::index(a, {nullptr, nullptr, nullptr}); }), TC_ERR_INDEX);
  EXPECT_EQ(code_of([&] { ops::index(a, {tensor({1, 0}, {2}, DType::b8)}); }), TC_ERR_INDEX);
  EXPECT_EQ(code_of([&] { ops::index(a, {tensor({0}, {1})}); }), TC_ERR_DTYPE);
  EXPECT_EQ(code_of([&] {
              ops::index_put(a, {i64({0}, {1})}, tensor({1, 2}, {2}, DType::f32), false);
            }),
            TC_ERR_DTYPE);
  EXPECT_EQ(code_of([&] { ops::index_put(a, {i64({0}, {1})}, tensor({1, 2}, {2}), false); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { ops::scatter(a, 0, i64({-1}, {1, 1}), a); }), TC_ERR_INDEX);
  EXPECT_EQ(code_of([&] {
              ops::scatter_reduce(a, 0, i64({0}, {1, 1}), a, 7, true);
            }),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(code_of([&] { ops::index_add(a, 0, i64({0, 1}, {2}), a, 1); }), TC_ERR_SHAPE);
  // A failed put leaves the tensor as it was.
  Tensor b = arange12();
  EXPECT_EQ(code_of([&] { ops::index_put_(b, {i64({0, 9}, {2})}, tensor({1}, {}), false); }), TC_ERR_INDEX);
  EXPECT_EQ(values(b), values(arange12()));
}

TEST_F(Indexing, AbiNullEntriesAreSlices) {
  tc_tensor a = nullptr, idx = nullptr, out = nullptr, vals = nullptr;
  const int64_t shape[2] = {3, 4};
  ASSERT_TRUE(ok(tc_arange(0, 12, 1, TC_FLOAT64, TC_CPU, &a)));
  tc_tensor a2 = nullptr;
  ASSERT_TRUE(ok(tc_reshape(a, shape, 2, &a2)));
  const int64_t iv[2] = {3, 0};
  const int64_t ishape[1] = {2};
  ASSERT_TRUE(ok(tc_from_data(iv, sizeof iv, ishape, 1, TC_INT64, &idx)));
  tc_tensor list[2] = {nullptr, idx};
  ASSERT_TRUE(ok(tc_index(a2, list, 2, &out)));
  int64_t nd = 0, oshape[2] = {0, 0};
  ASSERT_TRUE(ok(tc_tensor_shape(out, oshape, 2)));
  ASSERT_TRUE(ok(tc_tensor_ndim(out, &nd)));
  EXPECT_EQ(nd, 2);
  EXPECT_EQ(oshape[0], 3);
  EXPECT_EQ(oshape[1], 2);
  ASSERT_TRUE(ok(tc_zeros(ishape, 0, TC_FLOAT64, TC_CPU, &vals)));
  EXPECT_TRUE(ok(tc_index_put_(a2, list, 2, vals, 0)));
  // count 0 with NULL indices: every dim sliced, the whole tensor.
  tc_tensor whole = nullptr;
  EXPECT_TRUE(ok(tc_index(a2, nullptr, 0, &whole)));
  // A freed handle among the indices is an error and leaves out untouched.
  tc_tensor dead = nullptr;
  ASSERT_TRUE(ok(tc_zeros(ishape, 1, TC_INT64, TC_CPU, &dead)));
  ASSERT_TRUE(ok(tc_tensor_free(dead)));
  tc_tensor bad[2] = {nullptr, dead};
  tc_tensor untouched = reinterpret_cast<tc_tensor>(0x1);
  EXPECT_EQ(tc_index(a2, bad, 2, &untouched), TC_ERR_INVALID_HANDLE);
  EXPECT_EQ(untouched, reinterpret_cast<tc_tensor>(0x1));
  EXPECT_EQ(tc_index(a2, nullptr, 1, &untouched), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_index(a2, list, -1, &untouched), TC_ERR_INVALID_ARGUMENT);
  for (tc_tensor t : {a, a2, idx, out, vals, whole}) EXPECT_TRUE(ok(tc_tensor_free(t)));
}
