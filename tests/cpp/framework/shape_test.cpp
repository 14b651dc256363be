// Tests of the view ops (slice, select, squeeze, unsqueeze, diagonal, flip ...) and their
// out-of-place scatter twins: values against hand-computed expectations for every stride,
// negative steps, errors, and gradients.
#include <gtest/gtest.h>

#include <cmath>

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
// 0, 1, ..., n-1 in float64 with `shape`.
Tensor iota(const Shape& shape) { return reshape(arange(0, static_cast<double>(shape_numel(shape)), 1, DType::Float64), shape); }

// Smooth, distinct sample values for gradient checks.
Tensor sample(const Shape& shape) {
  std::vector<double> v(static_cast<size_t>(shape_numel(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(1.3 * static_cast<double>(i) + 0.2);
  return from_vector(v, shape);
}

}  // namespace

TEST(Slice, PythonSemantics) {
  Tensor x = iota({6});
  EXPECT_EQ(values(slice(x, 0, 1, 4)), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(values(slice(x, 0, -2)), (std::vector<double>{4, 5}));
  EXPECT_EQ(values(slice(x, 0, 0, kSliceEnd, 4)), (std::vector<double>{0, 4}));
  EXPECT_EQ(values(slice(x, 0, -100, 100)), values(x));        // clamps
  EXPECT_EQ(values(slice(x, 0, 4, 2)).size(), 0u);              // empty
  EXPECT_EQ(values(slice(x, 0, kSliceEnd, -kSliceEnd, -1)), (std::vector<double>{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(values(slice(x, 0, 4, 1, -2)), (std::vector<double>{4, 2}));
  EXPECT_EQ(values(slice(x, 0, -1, -4, -1)), (std::vector<double>{5, 4, 3}));
  EXPECT_EQ(values(slice(x, 0, 100, -100, -3)), (std::vector<double>{5, 2}));
  EXPECT_EQ(values(slice(x, 0, 2, kSliceEnd, kSliceEnd)), (std::vector<double>{2}));  // huge step
  EXPECT_THROW(slice(x, 0, 0, 3, 0), ValueError);
  EXPECT_THROW(slice(x, 1, 0, 3), IndexError);
  // Every case agrees with Python's slice.indices().
  for (int64_t start : {-8, -3, 0, 2, 5, 9})
    for (int64_t stop : {-8, -2, 0, 3, 6, 9})
      for (int64_t step : {-3, -1, 1, 2}) {
        std::vector<double> want;
        SliceRange r = normalize_slice(6, start, stop, step);
        for (int64_t i = 0; i < r.length; ++i) want.push_back(static_cast<double>(r.start + i * step));
        // reference: Python's range(*slice(start, stop, step).indices(6))
        int64_t s = start < 0 ? std::max<int64_t>(start + 6, step < 0 ? -1 : 0) : std::min<int64_t>(start, step < 0 ? 5 : 6);
        int64_t e = stop < 0 ? std::max<int64_t>(stop + 6, step < 0 ? -1 : 0) : std::min<int64_t>(stop, step < 0 ? 5 : 6);
        std::vector<double> ref;
        for (int64_t i = s; step > 0 ? i < e : i > e; i += step) ref.push_back(static_cast<double>(i));
        EXPECT_EQ(want, ref) << start << ":" << stop << ":" << step;
        EXPECT_EQ(values(slice(x, 0, start, stop, step)), ref);
      }
}

TEST(Slice, NegativeStepOfTransposedTensor) {
  // x = [[0,1,2,3],[4,5,6,7],[8,9,10,11]]; xt = x.T has strides (1, 4).
  Tensor x = iota({3, 4});
  Tensor xt = transpose(x, 0, 1);
  Tensor v = slice(slice(xt, 0, kSliceEnd, -kSliceEnd, -2), 1, 2, 0, -1);  // xt[::-2, 2:0:-1]
  EXPECT_EQ(v.shape(), (Shape{2, 2}));
  EXPECT_TRUE(v.shares_storage(x));
  // xt rows 3 and 1, columns 2 and 1: xt[3] = [3,7,11], xt[1] = [1,5,9]
  EXPECT_EQ(values(v), (std::vector<double>{11, 7, 9, 5}));
  // a copy of the view, arithmetic on it, and a reshape (which must copy) all read it right
  EXPECT_EQ(values(clone(v)), (std::vector<double>{11, 7, 9, 5}));
  EXPECT_EQ(values(v + 1.0), (std::vector<double>{12, 8, 10, 6}));
  EXPECT_EQ(values(reshape(v, {4})), (std::vector<double>{11, 7, 9, 5}));
  // views of views: select a column of the reversed view
  EXPECT_EQ(values(select(v, 1, -1)), (std::vector<double>{7, 5}));
}

TEST(Slice, WritesThroughViewsReachTheBase) {
  Tensor x = zeros({2, 3}, DType::Float64);
  copy_(slice(select(x, 0, 1), 0, kSliceEnd, -kSliceEnd, -1), from_vector({1, 2, 3}, {3}));
  EXPECT_EQ(values(x), (std::vector<double>{0, 0, 0, 3, 2, 1}));
}

TEST(Select, ValuesAndErrors) {
  Tensor x = iota({2, 3});
  EXPECT_EQ(values(select(x, 1, 2)), (std::vector<double>{2, 5}));
  EXPECT_EQ(values(select(x, 0, -1)), (std::vector<double>{3, 4, 5}));
  EXPECT_EQ(select(select(x, 0, 1), 0, 1).dim(), 0);
  try {
    select(x, 1, 3);
    FAIL() << "expected IndexError";
  } catch (const IndexError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("index 3"), std::string::npos) << m;
    EXPECT_NE(m.find("size 3"), std::string::npos) << m;
  }
  EXPECT_THROW(select(x, 0, -3), IndexError);
  EXPECT_THROW(select(scalar_tensor(1.0), 0, 0), IndexError);
}

TEST(Squeeze, Unsqueeze) {
  Tensor x = iota({1, 3, 1});
  EXPECT_EQ(squeeze(x).shape(), (Shape{3}));
  EXPECT_EQ(squeeze(x, {-1}).shape(), (Shape{1, 3}));
  EXPECT_THROW(squeeze(x, {1}), ValueError);
  EXPECT_EQ(unsqueeze(x, 0).shape(), (Shape{1, 1, 3, 1}));
  EXPECT_EQ(unsqueeze(x, -1).shape(), (Shape{1, 3, 1, 1}));
  EXPECT_EQ(unsqueeze(scalar_tensor(2.0), 0).shape(), (Shape{1}));
  EXPECT_THROW(unsqueeze(x, 4), IndexError);
  EXPECT_TRUE(unsqueeze(iota({2, 3}), 1).is_contiguous());
  EXPECT_EQ(values(unsqueeze(transpose(iota({2, 3}), 0, 1), 1)), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST(Diagonal, OffsetsAndAxes) {
  Tensor x = iota({3, 4});
  EXPECT_EQ(values(diagonal(x)), (std::vector<double>{0, 5, 10}));
  EXPECT_EQ(values(diagonal(x, 1)), (std::vector<double>{1, 6, 11}));
  EXPECT_EQ(values(diagonal(x, 2)), (std::vector<double>{2, 7}));
  EXPECT_EQ(values(diagonal(x, -1)), (std::vector<double>{4, 9}));
  EXPECT_EQ(diagonal(x, 5).shape(), (Shape{0}));
  EXPECT_EQ(values(diagonal(x, 0, 1, 0)), (std::vector<double>{0, 5, 10}));
  Tensor y = iota({2, 2, 3});  // batch of 2x3 matrices over axes (1, 2)
  EXPECT_EQ(values(diagonal(y, 0, 1, 2)), (std::vector<double>{0, 4, 6, 10}));
  EXPECT_EQ(diagonal(y, 0, 0, 2).shape(), (Shape{2, 2}));  // remaining axis 1, then the diagonal
  EXPECT_EQ(values(diagonal(y, 0, 0, 2)), (std::vector<double>{0, 7, 3, 10}));
  EXPECT_THROW(diagonal(iota({3})), ValueError);
  EXPECT_THROW(diagonal(x, 0, 1, 1), ValueError);
}

TEST(Flip, FlattenExpandNarrow) {
  Tensor x = iota({2, 3});
  EXPECT_EQ(values(flip(x, {0, 1})), (std::vector<double>{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(flatten(iota({2, 3, 4}), 1).shape(), (Shape{2, 12}));
  EXPECT_EQ(flatten(iota({2, 3, 4})).shape(), (Shape{24}));
  EXPECT_EQ(expand_as(iota({3}), x).shape(), (Shape{2, 3}));
  EXPECT_EQ(values(narrow(x, 1, 1, 2)), (std::vector<double>{1, 2, 4, 5}));
  EXPECT_THROW(narrow(x, 1, 2, 2), IndexError);
}

TEST(Scatter, SliceSelectDiagonal) {
  Tensor x = iota({2, 3});
  EXPECT_EQ(values(slice_scatter(x, from_vector({-1, -2}, {2, 1}), 1, kSliceEnd, -kSliceEnd, -2)),
            (std::vector<double>{-1, 1, -1, -2, 4, -2}));
  EXPECT_EQ(values(x), (std::vector<double>{0, 1, 2, 3, 4, 5}));  // x untouched
  EXPECT_EQ(values(select_scatter(x, scalar_tensor(9.0), 0, -1)), (std::vector<double>{0, 1, 2, 9, 9, 9}));
  EXPECT_EQ(values(diagonal_scatter(x, from_vector({7, 8}, {2}), 1)), (std::vector<double>{0, 7, 2, 3, 4, 8}));
  EXPECT_THROW(slice_scatter(x, iota({3}), 1, 0, 2), ValueError);
  // a transposed, negatively strided x is copied correctly
  Tensor xt = flip(transpose(x, 0, 1), {0});  // [[2,5],[1,4],[0,3]]
  EXPECT_EQ(values(select_scatter(xt, scalar_tensor(0.0), 1, 0)), (std::vector<double>{0, 5, 0, 4, 0, 3}));
}

TEST(ViewGradients, FlowToTheBase) {
  Tensor x = iota({3, 4}).requires_grad_();
  Tensor y = slice(transpose(x, 0, 1), 0, kSliceEnd, -kSliceEnd, -2);  // x.T[::-2]: columns 3, 1
  sum(y * y).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{0, 2, 0, 6, 0, 10, 0, 14, 0, 18, 0, 22}));
  Tensor a = iota({3, 3}).requires_grad_();
  (sum(diagonal(a, -1) * 3.0) + sum(select(a, 1, 0))).backward();
  EXPECT_EQ(values(a.grad()), (std::vector<double>{1, 0, 0, 4, 0, 0, 1, 3, 0}));
}

TEST(ViewGradients, ScatterSplitsTheGradient) {
  Tensor x = iota({2, 3}).requires_grad_();
  Tensor s = from_vector({10, 20}, {2}).requires_grad_();
  Tensor out = slice_scatter(x, s, 1, 0, 2);  // s broadcast over rows into columns 0, 1
  sum(out * iota({2, 3})).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{0, 0, 2, 0, 0, 5}));
  EXPECT_EQ(values(s.grad()), (std::vector<double>{3, 5}));
}

TEST(ViewGradients, CheckOp) {
  Tensor x = sample({3, 4});
  expect_check_op("core::slice", {x, int64_t(1), int64_t(3), int64_t(0), int64_t(-2)});
  expect_check_op("core::slice", {x, int64_t(0), int64_t(1), kSliceEnd, int64_t(1)});
  expect_check_op("core::select", {x, int64_t(1), int64_t(-1)});
  expect_check_op("core::squeeze", {sample({3, 1}), std::vector<int64_t>{}});
  expect_check_op("core::unsqueeze", {x, int64_t(1)});
  expect_check_op("core::diagonal", {sample({2, 3, 4}), int64_t(1), int64_t(2), int64_t(1)});
  expect_check_op("core::slice_scatter", {x, sample({3, 2}), int64_t(1), int64_t(3), int64_t(0), int64_t(-2)});
  expect_check_op("core::slice_scatter", {x, sample({2}), int64_t(1), int64_t(0), int64_t(2), int64_t(1)});
  expect_check_op("core::select_scatter", {x, sample({3}), int64_t(1), int64_t(2)});
  expect_check_op("core::diagonal_scatter", {x, sample({2}), int64_t(-1), int64_t(0), int64_t(1)});
}
