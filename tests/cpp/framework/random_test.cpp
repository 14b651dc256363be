// Tests of the random ops and the Generator: the Philox known answers, reproducibility for a
// seed, independence from the number of OpenMP threads, replay from recorded attributes, and
// distribution moments within 6-sigma bounds on 10^5 samples (which a correct generator misses
// with probability ~2e-9 per check; and the seeds are fixed, so the tests cannot flake).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "sampan/ops.h"
#include "sampan/testing/check_op.h"
#include "../thrown_message.h"
#include "../../../framework/src/kernels/philox.h"

using namespace sampan;

namespace {
std::vector<double> values(const Tensor& t) {
  Tensor c = contiguous(cast(t.detach(), DType::Float64));
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}
struct Moments {
  double mean = 0, var = 0;
};
Moments moments(const std::vector<double>& v) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= static_cast<double>(v.size() - 1);
  return m;
}
constexpr int64_t kSamples = 100000;
}  // namespace

TEST(Philox, KnownAnswers) {
  // Random123's published known-answer vectors for Philox4x32-10.
  using B = kernels::PhiloxBlock;
  EXPECT_EQ(kernels::philox4x32_10({0, 0, 0, 0}, {0, 0}), (B{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(kernels::philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (B{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(kernels::philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (B{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(Generator, SeedOffsetAndState) {
  Generator g(42);
  EXPECT_EQ(g.seed(), 42u);
  EXPECT_EQ(g.offset(), 0u);
  Tensor a = rand({5}, DType::Float64, &g);
  EXPECT_EQ(g.offset(), 1u);
  Tensor b = rand({5}, DType::Float64, &g);
  EXPECT_NE(values(a), values(b));  // successive draws differ
  g.manual_seed(42);
  EXPECT_EQ(values(rand({5}, DType::Float64, &g)), values(a));
  // save / restore
  auto st = g.state();
  Tensor c = randn({4}, DType::Float64, &g);
  g.set_state(st);
  EXPECT_EQ(values(randn({4}, DType::Float64, &g)), values(c));
  Generator copy = g;
  EXPECT_EQ(values(rand({3}, DType::Float64, &copy)), values(rand({3}, DType::Float64, &g)));
  // different seeds differ
  Generator h(43);
  EXPECT_NE(values(rand({5}, DType::Float64, &h)), values(a));
  // the default generator
  manual_seed(7);
  Tensor d1 = randn({3});
  manual_seed(7);
  EXPECT_EQ(values(randn({3})), values(d1));
}

TEST(Random, ReplayFromRecordedAttributes) {
  // What a traced graph stores: the op and its attributes; replaying gives the same numbers.
  Values args{std::vector<int64_t>{2, 3}, std::string("float64"), int64_t(123), int64_t(9)};
  auto r1 = call_op("core::randn", args);
  auto r2 = call_op("core::randn", args);
  EXPECT_EQ(values(r1[0]), values(r2[0]));
  // and the API call with a generator in that state is the same draw
  Generator g;
  g.set_state({123, 9});
  EXPECT_EQ(values(randn({2, 3}, DType::Float64, &g)), values(r1[0]));
  // element i does not depend on the shape it is drawn in (counter = element index)
  g.set_state({123, 9});
  auto flat = values(randn({6}, DType::Float64, &g));
  EXPECT_EQ(flat, values(r1[0]));
}

TEST(Random, IndependentOfThreadCount) {
  auto draw_all = [] {
    Generator g(2024);
    return std::vector<Tensor>{rand({kSamples}, DType::Float32, &g), randn({kSamples}, DType::Float64, &g),
                               randint(-5, 17, {kSamples}, DType::Int64, &g), bernoulli(full({kSamples}, 0.3, DType::Float64), &g),
                               randperm(kSamples, DType::Int64, &g)};
  };
  int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  auto one = draw_all();
  omp_set_num_threads(std::max(4, saved));
  auto many = draw_all();
  omp_set_num_threads(saved);
  for (size_t k = 0; k < one.size(); ++k) EXPECT_EQ(values(one[k]), values(many[k])) << k;
}

TEST(Random, UniformMoments) {
  Generator g(1);
  for (DType d : {DType::Float32, DType::Float64}) {
    auto v = values(rand({kSamples}, d, &g));
    EXPECT_GE(*std::min_element(v.begin(), v.end()), 0.0);
    EXPECT_LT(*std::max_element(v.begin(), v.end()), 1.0);
    Moments m = moments(v);
    const double n = static_cast<double>(kSamples);
    // mean 1/2 with sd sqrt(1/12/n); variance 1/12 with sd sqrt((1/80 - 1/144)/n)
    EXPECT_NEAR(m.mean, 0.5, 6 * std::sqrt(1.0 / 12 / n));
    EXPECT_NEAR(m.var, 1.0 / 12, 6 * std::sqrt((1.0 / 80 - 1.0 / 144) / n));
  }
  auto u = values(uniform({kSamples}, -2.0, 4.0, DType::Float64, &g));
  EXPECT_NEAR(moments(u).mean, 1.0, 6 * 6 * std::sqrt(1.0 / 12 / kSamples));
}

TEST(Random, NormalMoments) {
  Generator g(2);
  for (DType d : {DType::Float32, DType::Float64}) {
    auto v = values(randn({kSamples}, d, &g));
    Moments m = moments(v);
    const double n = static_cast<double>(kSamples);
    // mean 0 with sd 1/sqrt(n); variance 1 with sd sqrt(2/n)
    EXPECT_NEAR(m.mean, 0.0, 6 / std::sqrt(n));
    EXPECT_NEAR(m.var, 1.0, 6 * std::sqrt(2.0 / n));
    // the fraction within one sigma: 0.6827 with sd sqrt(p(1-p)/n)
    double within = std::count_if(v.begin(), v.end(), [](double x) { return std::abs(x) < 1; }) / n;
    EXPECT_NEAR(within, 0.682689, 6 * std::sqrt(0.6827 * 0.3173 / n));
  }
  auto w = values(normal({kSamples}, 3.0, 0.5, DType::Float64, &g));
  EXPECT_NEAR(moments(w).mean, 3.0, 6 * 0.5 / std::sqrt(kSamples));
  EXPECT_NEAR(moments(w).var, 0.25, 6 * 0.25 * std::sqrt(2.0 / kSamples));
}

TEST(Random, IntegersBernoulliPermutations) {
  Generator g(3);
  auto v = values(randint(-3, 4, {kSamples}, DType::Int64, &g));
  std::vector<int64_t> counts(7, 0);
  for (double x : v) {
    ASSERT_GE(x, -3);
    ASSERT_LT(x, 4);
    ++counts[static_cast<int64_t>(x) + 3];
  }
  const double p = 1.0 / 7, n = static_cast<double>(kSamples);
  for (auto c : counts) EXPECT_NEAR(c / n, p, 6 * std::sqrt(p * (1 - p) / n));
  EXPECT_EQ(randint(0, 5, {3}, DType::Int32, &g).dtype(), DType::Int32);
  EXPECT_THROW(randint(2, 2, {3}), ValueError);
  // extreme range: no overflow
  auto big = values(randint(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), {100}, DType::Int64, &g));
  EXPECT_GT(std::count_if(big.begin(), big.end(), [](double x) { return x < 0; }), 10);

  Tensor b = bernoulli(full({kSamples}, 0.25, DType::Float64), &g);
  EXPECT_EQ(b.dtype(), DType::Float64);
  EXPECT_NEAR(moments(values(b)).mean, 0.25, 6 * std::sqrt(0.25 * 0.75 / n));
  EXPECT_EQ(values(bernoulli(from_vector({0, 1, 0, 1}, {2, 2}), &g)), (std::vector<double>{0, 1, 0, 1}));
  EXPECT_THROW(bernoulli(from_vector({1.5}, {1}), &g), ValueError);

  auto perm = values(randperm(1000, DType::Int64, &g));
  auto sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(sorted[i], i);
  EXPECT_NE(perm, sorted);
  EXPECT_EQ(randperm(0).shape(), (Shape{0}));
}

TEST(Random, Dropout) {
  Generator g(4);
  Tensor x = ones({kSamples}, DType::Float64).requires_grad_();
  Tensor y = dropout(x, 0.2, true, &g);
  auto v = values(y);
  int64_t kept = std::count_if(v.begin(), v.end(), [](double e) { return e != 0; });
  for (double e : v) EXPECT_TRUE(e == 0 || std::abs(e - 1.25) < 1e-15);
  EXPECT_NEAR(kept / static_cast<double>(kSamples), 0.8, 6 * std::sqrt(0.16 / kSamples));
  sum(y).backward();
  EXPECT_EQ(values(x.grad()), v);  // the gradient is the mask
  EXPECT_TRUE(dropout(x, 0.5, false, &g).is_same(x));
  EXPECT_EQ(values(dropout_mask({3}, 1.0)), (std::vector<double>{0, 0, 0}));
  EXPECT_THROW(dropout_mask({3}, 1.5), ValueError);
}

TEST(Random, CheckOp) {
  for (const auto& [name, args] : std::vector<std::pair<std::string, Values>>{
           {"core::rand", {std::vector<int64_t>{3, 2}, std::string("float64"), int64_t(5), int64_t(0)}},
           {"core::randn", {std::vector<int64_t>{4}, std::string("float32"), int64_t(5), int64_t(1)}},
           {"core::randint", {int64_t(-2), int64_t(9), std::vector<int64_t>{4}, std::string("int64"), int64_t(5), int64_t(2)}},
           {"core::bernoulli", {full({2, 2}, 0.5, DType::Float64), int64_t(5), int64_t(3)}},
           {"core::randperm", {int64_t(6), std::string("int64"), int64_t(5), int64_t(4)}}}) {
    auto r = check_op(name, args);
    EXPECT_TRUE(r.ok) << name << ": " << r.summary();
  }
}

// bernoulli is rand's float64 draw of the same (seed, offset) below p (what lets its GPU twin be
// the same ops), and a probability outside [0, 1] or NaN is named with its element.
TEST(Random, BernoulliIsRandsDrawBelowPAndNamesTheFirstBadProbability) {
  Generator g1(9), g2(9);
  const Tensor p = rand({7, 5}, DType::Float32);
  const Tensor b = bernoulli(p, &g1), u = rand({7, 5}, DType::Float64, &g2);
  EXPECT_EQ(b.dtype(), DType::Float32);
  EXPECT_EQ(values(b), values(lt(u, p.to(DType::Float64)).to(DType::Float32)));
  const std::string bad = test::thrown_message([] { (void)bernoulli(from_vector({0.2, std::nan(""), 1.5}, {3})); });
  EXPECT_NE(bad.find("probabilities must lie in [0, 1], got nan at element 1"), std::string::npos) << bad;
}
