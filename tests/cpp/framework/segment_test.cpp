// Tests of the segment reductions: values for sorted and unsorted ids, empty segments, inferred
// num_segments, IndexError messages, gradients through check_op (first and second order), and
// bit-identical results for any number of OpenMP threads.
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

using V = std::vector<double>;
std::vector<double> values(const Tensor& t) {
  Tensor c = contiguous(cast(t.detach(), DType::Float64));
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}
Tensor ids(const std::vector<double>& v) { return from_vector(v, {static_cast<int64_t>(v.size())}, DType::Int64); }
Tensor sample(const Shape& shape, double phase = 0.2) {
  std::vector<double> v(static_cast<size_t>(shape_numel(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(1.3 * static_cast<double>(i) + phase);
  return from_vector(v, shape);
}

}  // namespace

TEST(Segment, SumSortedUnsortedEmpty) {
  Tensor data = from_vector({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  // sorted ids with an empty segment 1 and a trailing empty segment 3
  EXPECT_EQ(values(segment_sum(data, ids({0, 0, 2, 2}), 4)), (V{4, 6, 0, 0, 12, 14, 0, 0}));
  // unsorted
  EXPECT_EQ(values(segment_sum(data, ids({2, 0, 2, 1}), 3)), (V{3, 4, 7, 8, 6, 8}));
  // inferred num_segments = max + 1
  Tensor s = segment_sum(data, ids({1, 0, 1, 0}));
  EXPECT_EQ(s.shape(), (Shape{2, 2}));
  EXPECT_EQ(values(s), (V{10, 12, 6, 8}));
  // int32 ids, 1-D and 3-D data, integer data
  EXPECT_EQ(values(segment_sum(from_vector({1, 2, 3}, {3}), from_vector({1, 1, 0}, {3}, DType::Int32), 2)), (V{3, 3}));
  Tensor d3 = reshape(arange(0, 12, 1, DType::Float64), {3, 2, 2});
  EXPECT_EQ(values(segment_sum(d3, ids({0, 1, 0}), 2)), (V{8, 10, 12, 14, 4, 5, 6, 7}));
  EXPECT_EQ(segment_sum(from_vector({1, 2, 3}, {3}, DType::Int64), ids({0, 0, 1}), 2).dtype(), DType::Int64);
  // no rows at all
  EXPECT_EQ(values(segment_sum(zeros({0, 2}, DType::Float64), ids({}), 2)), (V{0, 0, 0, 0}));
  // a transposed (non-contiguous) data tensor
  Tensor dt = transpose(from_vector({1, 2, 3, 4, 5, 6}, {2, 3}), 0, 1);  // rows [1,4],[2,5],[3,6]
  EXPECT_EQ(values(segment_sum(dt, ids({1, 0, 1}), 2)), (V{2, 5, 4, 10}));
}

TEST(Segment, MeanMaxMinCount) {
  Tensor data = from_vector({1, 8, 3, 4, 5, 6, 7, 2}, {4, 2});
  Tensor seg = ids({1, 1, 0, 1});
  EXPECT_EQ(values(segment_mean(data, seg, 3)), (V{5, 6, 11.0 / 3, 14.0 / 3, 0, 0}));
  EXPECT_EQ(segment_mean(from_vector({1, 2}, {2}, DType::Int64), ids({0, 0}), 1).dtype(), DType::Float32);
  auto [mx, am] = segment_max_with_arg(data, seg, 3);
  EXPECT_EQ(values(mx), (V{5, 6, 7, 8, 0, 0}));
  EXPECT_EQ(values(am), (V{2, 2, 3, 0, -1, -1}));
  auto [mn, an] = segment_min_with_arg(data, seg, 3);
  EXPECT_EQ(values(mn), (V{5, 6, 1, 2, 0, 0}));
  EXPECT_EQ(values(an), (V{2, 2, 0, 3, -1, -1}));
  EXPECT_EQ(values(segment_count(seg, 3)), (V{1, 3, 0}));
  // ties: the first row wins; NaN propagates
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto [tv, ta] = segment_max_with_arg(from_vector({2, 2, 1, nan, 3}, {5}), ids({0, 0, 1, 1, 1}), 2);
  EXPECT_EQ(values(ta), (V{0, 3}));
  EXPECT_TRUE(std::isnan(values(tv)[1]));
}

TEST(Segment, Errors) {
  Tensor data = from_vector({1, 2, 3}, {3});
  try {
    segment_sum(data, ids({0, 5, 1}), 3);
    FAIL() << "expected IndexError";
  } catch (const IndexError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("segment id 5"), std::string::npos) << m;
    EXPECT_NE(m.find("row 1"), std::string::npos) << m;
    EXPECT_NE(m.find("num_segments 3"), std::string::npos) << m;
  }
  EXPECT_THROW(segment_sum(data, ids({0, -1, 1}), 3), IndexError);
  EXPECT_THROW(segment_max(data, ids({0, 1}), 3), ValueError);
  EXPECT_THROW(segment_mean(data, from_vector({0, 1, 1}, {3}), 3), TypeError);
  EXPECT_THROW(segment_sum(data, ids({0, 1, 1}), -2), ValueError);
  EXPECT_THROW(segment_sum(scalar_tensor(1.0), ids({}), 1), ValueError);
}

TEST(Segment, Gradients) {
  Tensor data = sample({5, 3});
  Tensor unsorted = ids({2, 0, 2, 3, 0});  // segment 1 is empty
  expect_check_op("core::segment_sum", {data, unsorted, int64_t(4)});
  expect_check_op("core::segment_sum", {sample({4}), ids({0, 0, 1, 1}), int64_t(-1)});
  expect_check_op("core::segment_mean", {data, unsorted, int64_t(4)});
  expect_check_op("core::segment_max", {data, unsorted, int64_t(4)});
  expect_check_op("core::segment_min", {data, unsorted, int64_t(4)});
  // hand check: the max's gradient lands on the argmax row only
  Tensor x = from_vector({1, 5, 3}, {3}).requires_grad_();
  sum(segment_max(x, ids({0, 0, 0}), 2) * from_vector({2, 7}, {2})).backward();
  EXPECT_EQ(values(x.grad()), (V{0, 2, 0}));
}

TEST(Segment, IndependentOfThreadCountAndOrder) {
  // 100k rows over 1000 segments, unsorted, float32: sums must be bit-identical for 1 and N
  // threads, and equal to the sums of the same rows presented sorted.
  const int64_t n = 100000, f = 16, S = 1000;
  std::vector<double> iv(n);
  for (int64_t i = 0; i < n; ++i) iv[i] = static_cast<double>((i * 7919 + 13) % S);
  Tensor seg = ids(iv);
  Tensor data = cast(sample({n, f}), DType::Float32);
  auto run = [&] {
    return std::vector<Tensor>{segment_sum(data, seg, S), segment_mean(data, seg, S), segment_max(data, seg, S),
                               segment_sum(data, seg, 3 * S), segment_sum(reshape(data, {n * f / 4, 4}),
                               ids(std::vector<double>(n * f / 4, 0.0)), 1)};
  };
  int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  auto one = run();
  omp_set_num_threads(std::max(4, saved));
  auto many = run();
  omp_set_num_threads(saved);
  for (size_t k = 0; k < one.size(); ++k) EXPECT_EQ(values(one[k]), values(many[k])) << k;
  // sorted presentation of the same rows (stable): identical sums
  auto [sorted_ids, perm] = sort(cast(seg, DType::Float64), 0);
  Tensor sorted_sum = segment_sum(index_select(data, 0, perm), cast(sorted_ids, DType::Int64), S);
  EXPECT_EQ(values(sorted_sum), values(one[0]));
}

TEST(Segment, SumOfALargeUnsortedInputIsExact) {
  // The hot path at a message-passing size (256k rows x 64 features into 16k segments, unsorted,
  // split over the OpenMP workers by segment and column; its speed is measured by
  // bench/cpp/framework_bench.cpp). Small integers in float32 sum exactly, so every one of the
  // 1M sums must equal the reference summed row by row.
  const int64_t n = 1 << 18, f = 64, S = 1 << 14;
  std::vector<double> dv(static_cast<size_t>(n * f)), iv(n);
  for (int64_t r = 0; r < n; ++r) {
    iv[r] = static_cast<double>((r * 2654435761LL) % S);
    for (int64_t c = 0; c < f; ++c) dv[r * f + c] = static_cast<double>((r * 31 + c * 17) % 13 - 6);
  }
  std::vector<double> want(static_cast<size_t>(S * f), 0.0);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < f; ++c) want[static_cast<int64_t>(iv[r]) * f + c] += dv[r * f + c];
  Tensor out = segment_sum(from_vector(dv, {n, f}, DType::Float32), ids(iv), S);
  ASSERT_EQ(out.shape(), (Shape{S, f}));
  ASSERT_EQ(out.dtype(), DType::Float32);
  const std::vector<double> got = values(out);
  int64_t wrong = 0, first = -1;
  for (size_t k = 0; k < got.size(); ++k)
    if (got[k] != want[k] && wrong++ == 0) first = static_cast<int64_t>(k);
  EXPECT_EQ(wrong, 0) << "first wrong sum: segment " << first / f << ", feature " << first % f << ": "
                      << got[first] << " instead of " << want[first];
}
