// Tests of the indexing ops: values against hand-computed expectations (including transposed
// and reversed inputs), IndexError messages, gradients through check_op, and results that do not
// depend on the number of OpenMP threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <limits>

#include "sampan/autograd.h"
#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

#include "../test_util.h"

using namespace sampan;
using sampan::test::expect_check_op;

namespace {

std::vector<double> values(const Tensor& t) {
  Tensor c = contiguous(cast(t.detach(), DType::Float64));
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}
using V = std::vector<double>;
Tensor iota(const Shape& shape) { return reshape(arange(0, static_cast<double>(shape_numel(shape)), 1, DType::Float64), shape); }
Tensor ints(const std::vector<double>& v, const Shape& shape) { return from_vector(v, shape, DType::Int64); }
Tensor ints(const std::vector<double>& v) { return ints(v, {static_cast<int64_t>(v.size())}); }
Tensor mask(const std::vector<double>& v, const Shape& shape) { return from_vector(v, shape, DType::Bool); }
Tensor sample(const Shape& shape, double phase = 0.2) {
  std::vector<double> v(static_cast<size_t>(shape_numel(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(1.3 * static_cast<double>(i) + phase);
  return from_vector(v, shape);
}
template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(IndexSelect, Values) {
  Tensor x = iota({3, 4});
  EXPECT_EQ(values(index_select(x, 1, ints({2, 0, -1}))), (V{2, 0, 3, 6, 4, 7, 10, 8, 11}));
  EXPECT_EQ(values(index_select(x, 0, ints({1, 1}))), (V{4, 5, 6, 7, 4, 5, 6, 7}));
  // a 2-D index replaces the axis by its shape
  Tensor y = index_select(x, 1, ints({0, 1, 3, 3}, {2, 2}));
  EXPECT_EQ(y.shape(), (Shape{3, 2, 2}));
  EXPECT_EQ(values(select(y, 0, 2)), (V{8, 9, 11, 11}));
  // int32 indices, a transposed and reversed x
  Tensor xt = flip(transpose(x, 0, 1), {1});  // [[8,4,0],[9,5,1],[10,6,2],[11,7,3]]
  EXPECT_EQ(values(index_select(xt, 0, from_vector({3, 0}, {2}, DType::Int32))), (V{11, 7, 3, 8, 4, 0}));
  EXPECT_EQ(index_select(x, 0, ints({})).shape(), (Shape{0, 4}));
}

TEST(IndexSelect, Errors) {
  Tensor x = iota({3, 4});
  std::string m = error_of([&] { index_select(x, 1, ints({0, 4})); });
  EXPECT_NE(m.find("index 4"), std::string::npos) << m;
  EXPECT_NE(m.find("position 1"), std::string::npos) << m;
  EXPECT_NE(m.find("size 4"), std::string::npos) << m;
  EXPECT_THROW(index_select(x, 1, ints({-5})), IndexError);
  EXPECT_THROW(index_select(x, 2, ints({0})), IndexError);
  EXPECT_THROW(index_select(x, 0, from_vector({0}, {1})), TypeError);
  EXPECT_THROW(gather(x, 0, ints({3, 0, 0, 0}, {1, 4})), IndexError);
  EXPECT_THROW(scatter_add(x, 1, ints({0, 9}, {1, 2}), ones({1, 2}, DType::Float64)), IndexError);
  EXPECT_THROW(index_add(x, 0, ints({7}), ones({1, 4}, DType::Float64)), IndexError);
}

TEST(IndexAdd, DuplicatesAccumulate) {
  Tensor x = zeros({3, 2}, DType::Float64);
  Tensor src = iota({4, 2});
  EXPECT_EQ(values(index_add(x, 0, ints({2, 0, 2, -1}), src)), (V{2, 3, 0, 0, 0 + 4 + 6, 1 + 5 + 7}));
  EXPECT_EQ(values(index_add(x, 1, ints({1}), ones({3, 1}, DType::Float64))), (V{0, 1, 0, 1, 0, 1}));
  // broadcast src, integer dtype
  EXPECT_EQ(values(index_add(zeros({3}, DType::Int64), 0, ints({0, 0, 2}), ints({5}, {}))), (V{10, 0, 5}));
  EXPECT_EQ(values(index_copy(iota({3, 2}), 0, ints({2, 0}), from_vector({-1, -2, -3, -4}, {2, 2}))),
            (V{-3, -4, 2, 3, -1, -2}));
  EXPECT_THROW(index_add(x, 0, ints({0}), ones({2, 2}, DType::Float64)), ValueError);
}

TEST(Gather, ScatterAdd) {
  Tensor x = iota({3, 3});
  // torch.gather(x, 1, [[0,0],[1,0],[2,2]])
  Tensor idx = ints({0, 0, 1, 0, 2, 2}, {3, 2});
  EXPECT_EQ(values(gather(x, 1, idx)), (V{0, 0, 4, 3, 8, 8}));
  EXPECT_EQ(values(gather(x, 0, ints({2, 1, 0}, {1, 3}))), (V{6, 4, 2}));
  EXPECT_EQ(values(gather(transpose(x, 0, 1), 1, idx)), (V{0, 0, 4, 1, 8, 8}));
  EXPECT_EQ(values(take_along_axis(x, ints({2, 0, 1}, {3, 1}), 1)), (V{2, 3, 7}));
  EXPECT_EQ(values(take_along_axis(x, ints({1}, {1, 1}), 0)), (V{3, 4, 5}));
  Tensor s = scatter_add(zeros({3, 3}, DType::Float64), 1, idx, ones({3, 2}, DType::Float64));
  EXPECT_EQ(values(s), (V{2, 0, 0, 1, 1, 0, 0, 0, 2}));
  EXPECT_THROW(gather(x, 1, ints({0, 0, 0, 0}, {4, 1})), ValueError);
  EXPECT_THROW(gather(x, 1, ints({0})), ValueError);
}

TEST(Masks, SelectScatterFill) {
  Tensor x = iota({2, 3});
  Tensor m = mask({1, 0, 1, 0, 1, 1}, {2, 3});
  EXPECT_EQ(values(masked_select(x, m)), (V{0, 2, 4, 5}));
  EXPECT_EQ(values(masked_select(x, mask({0, 1, 0}, {3}))), (V{1, 4}));  // broadcast mask
  EXPECT_EQ(masked_select(x, zeros({2, 3}, DType::Bool)).shape(), (Shape{0}));
  EXPECT_EQ(values(masked_scatter(x, m, from_vector({10, 20, 30, 40, 50}, {5}))), (V{10, 1, 20, 3, 30, 40}));
  EXPECT_THROW(masked_scatter(x, m, from_vector({1, 2}, {2})), ValueError);
  EXPECT_EQ(values(masked_fill(x, m, -1.0)), (V{-1, 1, -1, 3, -1, -1}));
  EXPECT_EQ(values(masked_fill(transpose(x, 0, 1), mask({1, 0}, {2}), 7.0)), (V{7, 3, 7, 4, 7, 5}));
  EXPECT_THROW(masked_select(x, ones({2, 3}, DType::Int64)), TypeError);
}

TEST(Assemble, ConcatStackSplit) {
  Tensor a = iota({2, 2}), b = from_vector({9, 8}, {2, 1}, DType::Float32);
  Tensor c = concat({a, b}, 1);
  EXPECT_EQ(c.dtype(), DType::Float64);
  EXPECT_EQ(values(c), (V{0, 1, 9, 2, 3, 8}));
  EXPECT_EQ(values(concat({a, transpose(a, 0, 1)}, 0)), (V{0, 1, 2, 3, 0, 2, 1, 3}));
  EXPECT_THROW(concat({a, b}, 0), ValueError);
  EXPECT_THROW(concat({}, 0), ValueError);
  Tensor s = stack({a, a * 10.0}, 1);
  EXPECT_EQ(s.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(values(s), (V{0, 1, 0, 10, 2, 3, 20, 30}));
  EXPECT_EQ(stack({a, a}, -1).shape(), (Shape{2, 2, 2}));
  EXPECT_THROW(stack({a, b}), ValueError);
  auto parts = split(iota({5}), 2);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(values(parts[2]), (V{4}));
  auto p2 = split(iota({2, 5}), std::vector<int64_t>{1, 4}, 1);
  EXPECT_EQ(values(p2[1]), (V{1, 2, 3, 4, 6, 7, 8, 9}));
  EXPECT_TRUE(p2[1].shares_storage(p2[0]));
  EXPECT_THROW(split(iota({5}), std::vector<int64_t>{1, 2}), ValueError);
  EXPECT_EQ(chunk(iota({5}), 2).size(), 2u);
}

TEST(Assemble, PadModes) {
  Tensor x = iota({3});  // [0, 1, 2]
  EXPECT_EQ(values(pad(x, {2, 1}, "constant", -1)), (V{-1, -1, 0, 1, 2, -1}));
  EXPECT_EQ(values(pad(x, {2, 3}, "reflect")), (V{2, 1, 0, 1, 2, 1, 0, 1}));  // numpy.pad(..., 'reflect')
  EXPECT_EQ(values(pad(x, {2, 1}, "replicate")), (V{0, 0, 0, 1, 2, 2}));
  EXPECT_EQ(values(pad(x, {2, 1}, "circular")), (V{1, 2, 0, 1, 2, 0}));
  Tensor y = pad(iota({2, 2}), {1, 0, 0, 1});
  EXPECT_EQ(values(y), (V{0, 0, 0, 0, 1, 0, 2, 3, 0}));
  EXPECT_THROW(pad(x, {1}), ValueError);
  EXPECT_THROW(pad(x, {-1, 0}), ValueError);
  EXPECT_THROW(pad(x, {1, 0}, "wrap"), ValueError);
}

TEST(Assemble, TileRepeatInterleave) {
  Tensor x = iota({2});
  EXPECT_EQ(values(tile(x, {2})), (V{0, 1, 0, 1}));
  Tensor t = tile(x, {2, 2});
  EXPECT_EQ(t.shape(), (Shape{2, 4}));
  EXPECT_EQ(values(t), (V{0, 1, 0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(values(tile(iota({2, 2}), {1, 2})), (V{0, 1, 0, 1, 2, 3, 2, 3}));
  EXPECT_EQ(values(repeat_interleave(x, 3, 0)), (V{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(values(repeat_interleave(iota({2, 2}), 2, 1)), (V{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(values(repeat_interleave(iota({3}), ints({2, 0, 1}), 0)), (V{0, 0, 2}));
  EXPECT_THROW(repeat_interleave(iota({3}), ints({1, -1, 1}), 0), ValueError);
  EXPECT_THROW(repeat_interleave(iota({3}), ints({1, 1}), 0), ValueError);
}

TEST(Sort, StableDescendingNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = from_vector({3, 1, nan, 2, 1, 3}, {6});
  auto [v, i] = sort(x);
  auto vv = values(v);
  EXPECT_EQ(V(vv.begin(), vv.end() - 1), (V{1, 1, 2, 3, 3}));
  EXPECT_TRUE(std::isnan(vv.back()));
  EXPECT_EQ(values(i), (V{1, 4, 3, 0, 5, 2}));  // equal values keep their order
  auto [vd, id] = sort(x, 0, true);
  EXPECT_TRUE(std::isnan(values(vd)[0]));
  EXPECT_EQ(values(id), (V{2, 0, 5, 3, 1, 4}));
  // along axis 0 of a transposed matrix
  Tensor m = transpose(from_vector({3, 1, 2, 0, 5, 4}, {2, 3}), 0, 1);  // [[3,0],[1,5],[2,4]]
  auto [mv, mi] = sort(m, 0);
  EXPECT_EQ(values(mv), (V{1, 0, 2, 4, 3, 5}));
  EXPECT_EQ(values(mi), (V{1, 0, 2, 2, 0, 1}));
  EXPECT_EQ(values(argsort(ints({5, -1, 3}))), (V{1, 2, 0}));
  EXPECT_THROW(sort(scalar_tensor(1.0)), IndexError);
}

TEST(Sort, TopK) {
  Tensor x = from_vector({1, 5, 3, 5, 2}, {5});
  auto [v, i] = topk(x, 3);
  EXPECT_EQ(values(v), (V{5, 5, 3}));
  EXPECT_EQ(values(i), (V{1, 3, 2}));
  auto [vs, is] = topk(x, 2, 0, false);
  EXPECT_EQ(values(vs), (V{1, 2}));
  EXPECT_EQ(values(is), (V{0, 4}));
  auto [v2, i2] = topk(iota({2, 3}), 1, 1);
  EXPECT_EQ(values(v2), (V{2, 5}));
  EXPECT_THROW(topk(x, 6), ValueError);
}

TEST(IndexGradients, CheckOp) {
  Tensor x = sample({3, 4});
  expect_check_op("core::index_select", {x, int64_t(1), ints({3, 0, 3, -2})});
  expect_check_op("core::index_select", {x, int64_t(0), ints({2, 0, 1, 1}, {2, 2})});
  // a 1-D index along axis 0: the gradient is a segment_sum (duplicates; a negative index falls back)
  expect_check_op("core::index_select", {x, int64_t(0), ints({2, 0, 2, 2})});
  expect_check_op("core::index_select", {x, int64_t(0), ints({-1, 0, 2})});
  expect_check_op("core::index_add", {x, int64_t(0), ints({2, 0, 2}), sample({3, 4}, 1.0)});
  expect_check_op("core::index_copy", {x, int64_t(1), ints({3, 0}), sample({3, 2}, 1.0)});
  expect_check_op("core::gather", {x, int64_t(1), ints({0, 3, 3, 1, 2, 2}, {3, 2})});
  expect_check_op("core::scatter_add", {x, int64_t(0), ints({0, 2, 2, 0, 1, 1}, {2, 3}), sample({2, 3}, 0.7)});
  Tensor m = mask({1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0}, {3, 4});
  expect_check_op("core::masked_select", {x, m});
  expect_check_op("core::masked_select", {sample({4}), m});  // broadcast x
  expect_check_op("core::masked_scatter", {x, m, sample({9}, 0.5)});
  expect_check_op("core::masked_fill", {x, m, sample({}, 0.5)});
  expect_check_op("core::concat", {std::vector<Tensor>{x, sample({3, 2}, 0.3)}, int64_t(1)});
  expect_check_op("core::stack", {std::vector<Tensor>{x, sample({3, 4}, 0.3)}, int64_t(-1)});
  expect_check_op("core::pad", {x, std::vector<int64_t>{1, 0, 2, 1}, 0.5});
  expect_check_op("core::sort", {x, int64_t(0), true});
  expect_check_op("core::topk", {x, int64_t(2), int64_t(1), false});
}

// index_select's gradient along axis 0 sums the rows of repeated indices (segment_sum) and
// leaves unselected rows zero; a negative index counts from the end there too.
TEST(IndexGradients, IndexSelectRowsAccumulate) {
  Tensor x = sample({4, 2}).requires_grad_();
  Tensor w = from_vector({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  Tensor gx = grad({sum(mul(index_select(x, 0, ints({2, 0, 2, -1})), w))}, {x})[0];
  EXPECT_EQ(values(gx), (V{3, 4, 0, 0, 1 + 5, 2 + 6, 7, 8}));
}

TEST(IndexGradients, Compositions) {
  // reflect padding and tile get their gradients from index_select and broadcast_to
  Tensor x = from_vector({1, 2, 3}, {3}).requires_grad_();
  sum(pad(x, {2, 2}, "reflect") * from_vector({1, 2, 3, 4, 5, 6, 7}, {7})).backward();
  // positions: [2,1,0,1,2,1,0] -> x0 gets 3+7, x1 gets 2+4+6, x2 gets 1+5
  EXPECT_EQ(values(x.grad()), (V{10, 12, 6}));
  Tensor y = from_vector({1, 2}, {2}).requires_grad_();
  sum(tile(y, {3}) * iota({6})).backward();
  EXPECT_EQ(values(y.grad()), (V{0 + 2 + 4, 1 + 3 + 5}));
}

TEST(IndexKernels, IndependentOfThreadCount) {
  // Enough work to cross the parallel threshold; accumulation order is fixed by design.
  const int64_t n = 200000;
  std::vector<double> iv(n);
  for (int64_t i = 0; i < n; ++i) iv[i] = static_cast<double>((i * 7919) % 37);
  Tensor idx = from_vector(iv, {n}, DType::Int64);
  Tensor src = sample({n, 3});
  Tensor src_t = sample({3, n});
  auto run = [&] {
    return std::vector<Tensor>{index_add(zeros({37, 3}, DType::Float64), 0, idx, src),
                               scatter_add(zeros({3, 37}, DType::Float64), 1, broadcast_to(reshape(idx, {1, n}), {3, n}), src_t),
                               index_select(src, 0, idx), masked_select(src, cast(src, DType::Bool))};
  };
  int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  auto one = run();
  omp_set_num_threads(std::max(2, saved));
  auto many = run();
  omp_set_num_threads(saved);
  for (size_t k = 0; k < one.size(); ++k) EXPECT_EQ(values(one[k]), values(many[k])) << k;
}

TEST(IndexSelect, AnyDtypeAndLayout) {
  // data movement is by bytes: bool, int32, complex all work
  Tensor b = from_vector({1, 0, 1}, {3}, DType::Bool);
  EXPECT_EQ(values(index_select(b, 0, ints({2, 1}))), (V{1, 0}));
  Tensor c = cast(iota({3}), DType::Complex128);
  EXPECT_EQ(values(index_select(c, 0, ints({2, 0}))), (V{2, 0}));
  // negative strides in every op that reads x through its strides
  Tensor x = flip(iota({3, 3}), {0, 1});  // [[8,7,6],[5,4,3],[2,1,0]]
  EXPECT_EQ(values(gather(x, 1, ints({0, 2, 1}, {3, 1}))), (V{8, 3, 1}));
  EXPECT_EQ(values(masked_select(x, mask({1, 0, 0, 0, 1, 0, 0, 0, 1}, {3, 3}))), (V{8, 4, 0}));
  EXPECT_EQ(values(scatter_add(x, 0, ints({2}, {1, 1}), ones({1, 1}, DType::Float64))), (V{8, 7, 6, 5, 4, 3, 3, 1, 0}));
  EXPECT_EQ(values(index_add(x, 1, ints({0}), ones({3, 1}, DType::Float64))), (V{9, 7, 6, 6, 4, 3, 3, 1, 0}));
  EXPECT_EQ(values(concat({x, ints({9, 9, 9}, {1, 3})}, 0)), (V{8, 7, 6, 5, 4, 3, 2, 1, 0, 9, 9, 9}));
  auto [sv, si] = sort(x, 1);
  EXPECT_EQ(values(sv), (V{6, 7, 8, 3, 4, 5, 0, 1, 2}));
}
