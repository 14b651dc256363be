// The addressing of the CUDA elementwise kernels (kernels/strided_index.h) and the layouts the op
// layer builds for them (ops/strided_layout.h), run on the CPU: every element of broadcast,
// permuted, sliced and in-place operands goes through binary_at with the per-element body the
// GPU runs, and the result must have the CPU op's bits. A GPU runs the same functions per thread.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "sampan/op.h"
#include "sampan/ops.h"
#include "../../../framework/src/kernels/binary_element.h"
#include "sampan/complex_element.h"
#include "../../../framework/src/kernels/convert_element.h"
#include "../../../framework/src/kernels/math_element.h"
#include "../../../framework/src/kernels/strided_index.h"
#include "../../../framework/src/kernels/unary_element.h"
#include "../../../framework/src/ops/device_elements.h"
#include "../../../framework/src/ops/strided_layout.h"

#include "../test_util.h"
#include "../thrown_message.h"

using namespace sampan;
using sampan::test::uniform;

namespace {

// out = F(x, y) written by walking binary_at over every element, as the CUDA kernel's threads do;
// T is the element type the kernel reads the buffers as.
template <class F, class T = double> Tensor through_binary_at(const Tensor& x, const Tensor& y, Tensor out) {
  const auto layout = detail::strided_layout<3>("test", out, {&x, &y});
  const int64_t n = out.numel();
  for (int64_t k = 0; k < n; ++k)
    kernels::binary_at(layout, k, static_cast<T*>(out.raw_data()), static_cast<const T*>(x.raw_data()),
                       static_cast<const T*>(y.raw_data()), F{});
  return out;
}

void expect_same_bits(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape(), want.shape());
  const Tensor g = got.contiguous(), w = want.contiguous();
  ASSERT_EQ(std::memcmp(g.raw_data(), w.raw_data(), w.nbytes()), 0);
}

struct Case {
  const char* what;
  Tensor x, y;
};

std::vector<Case> cases() {
  return {
      {"same shape, contiguous (the dense path)", uniform({3, 5}, -2, 2, 1), uniform({3, 5}, 0.5, 2, 2)},
      {"row broadcast", uniform({4, 3}, -2, 2, 3), uniform({3}, 0.5, 2, 4)},
      {"column against row", uniform({4, 1}, -2, 2, 5), uniform({1, 6}, 0.5, 2, 6)},
      {"0-d scalar", uniform({5, 2}, -2, 2, 7), uniform({}, 0.5, 2, 8)},
      {"transposed x", transpose(uniform({6, 4}, -2, 2, 9), 0, 1), uniform({4, 6}, 0.5, 2, 10)},
      {"permuted rank 4 against a broadcast rank 2",
       permute(uniform({2, 3, 4, 5}, -2, 2, 11), {3, 1, 0, 2}), uniform({1, 4}, 0.5, 2, 12)},
      {"sliced x (offset and gaps)", narrow(transpose(uniform({7, 5}, -2, 2, 13), 0, 1), 1, 2, 4),
       uniform({5, 1}, 0.5, 2, 14)},
      {"rank 8", uniform({2, 1, 2, 1, 2, 1, 2, 3}, -2, 2, 15), uniform({2, 1, 2, 1, 2, 3}, 0.5, 2, 16)},
  };
}

template <class F> void expect_like_the_op(const char* name, Tensor (*op)(const Tensor&, const Tensor&)) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(std::string(name) + ", " + c.what);
    const Tensor want = op(c.x, c.y);
    expect_same_bits(through_binary_at<F>(c.x, c.y, Tensor::empty(want.shape(), DType::Float64)), want);
    // A transposed output: the kernel writes through its strides too.
    if (want.dim() == 2) {
      Tensor out_t = transpose(Tensor::empty({want.shape()[1], want.shape()[0]}, DType::Float64), 0, 1);
      expect_same_bits(through_binary_at<F>(c.x, c.y, out_t), want);
    }
  }
}

}  // namespace

TEST(StridedLayout, BinaryAtGivesTheCpuOpsBitsForEveryLayout) {
  expect_like_the_op<kernels::AddElement>("add", add);
  expect_like_the_op<kernels::SubElement>("sub", sub);
  expect_like_the_op<kernels::MulElement>("mul", mul);
  expect_like_the_op<kernels::DivElement>("div", div);
}

TEST(StridedLayout, InPlaceWritesOverTheFirstOperand) {
  Tensor x = transpose(uniform({5, 3}, -2, 2, 21), 0, 1).contiguous();
  const Tensor y = uniform({5}, 0.5, 2, 22);
  const Tensor want = mul(x, y);
  expect_same_bits(through_binary_at<kernels::MulElement>(x, y, x), want);
  expect_same_bits(x, want);
}

TEST(StridedLayout, DenseOnlyWhenEveryOperandIsContiguousWithTheResultsShape) {
  const Tensor a = uniform({3, 4}, 0, 1, 1), b = uniform({3, 4}, 0, 1, 2);
  const Tensor out = Tensor::empty({3, 4}, DType::Float64);
  EXPECT_TRUE((detail::strided_layout<3>("t", out, {&a, &b}).dense));
  const Tensor row = uniform({4}, 0, 1, 3);
  const auto broadcast = detail::strided_layout<3>("t", out, {&a, &row});
  EXPECT_FALSE(broadcast.dense);
  EXPECT_EQ(broadcast.strides[2][0], 0);  // the missing leading dimension reads the same row
  EXPECT_EQ(broadcast.strides[2][1], 1);
  const Tensor at = transpose(uniform({4, 3}, 0, 1, 4), 0, 1);
  const auto transposed = detail::strided_layout<3>("t", out, {&at, &b});
  EXPECT_FALSE(transposed.dense);
  EXPECT_EQ(transposed.strides[1][0], 1);
  EXPECT_EQ(transposed.strides[1][1], 3);
}

TEST(StridedLayout, RefusesWhatTheKernelsCannotAddress) {
  const Tensor big = Tensor::empty({1, 1, 1, 1, 1, 1, 1, 1, 2}, DType::Float64);
  const auto too_many = [&] { detail::strided_layout<3>("core::add", big, {&big, &big}); };
  EXPECT_THROW(too_many(), NotImplementedError);
  const std::string rank = test::thrown_message(too_many);
  EXPECT_NE(rank.find("core::add: the CUDA elementwise kernels take up to 8 dimensions"), std::string::npos) << rank;
  const Tensor out = Tensor::empty({3, 4}, DType::Float64), wrong = Tensor::empty({2, 4}, DType::Float64);
  const auto mismatched = [&] { detail::strided_layout<3>("core::add", out, {&out, &wrong}); };
  EXPECT_THROW(mismatched(), ValueError);
  const std::string shape = test::thrown_message(mismatched);
  EXPECT_NE(shape.find("input of shape [2, 4] does not broadcast to [3, 4]"), std::string::npos) << shape;
  const auto half = [] { detail::visit_device_element(DType::Float16, "core::cumsum", [](auto) {}); };
  EXPECT_THROW(half(), NotImplementedError);
  const std::string dtype = test::thrown_message(half);
  EXPECT_NE(dtype.find("core::cumsum: no CUDA kernel for dtype float16"), std::string::npos) << dtype;
}

// The device's complex type against std::complex (what the CPU ops compute with), complex128 and
// complex64, broadcast: add, sub and mul must give the same bits.
TEST(StridedLayout, TheDevicesComplexArithmeticGivesStdComplexsBits) {
  for (DType dtype : {DType::Complex128, DType::Complex64}) {
    SCOPED_TRACE(dtype_name(dtype));
    const Tensor x = cast(complex(uniform({4, 3}, -3, 3, 31), uniform({4, 3}, -3, 3, 32)), dtype);
    const Tensor y = cast(complex(uniform({3}, -3, 3, 33), uniform({3}, -3, 3, 34)), dtype);
    auto check = [&](auto f, Tensor (*op)(const Tensor&, const Tensor&)) {
      using F = decltype(f);
      const Tensor want = op(x, y);
      const Tensor out = Tensor::empty(want.shape(), dtype);
      if (dtype == DType::Complex128)
        expect_same_bits(through_binary_at<F, kernels::ComplexElement<double>>(x, y, out), want);
      else
        expect_same_bits(through_binary_at<F, kernels::ComplexElement<float>>(x, y, out), want);
    };
    check(kernels::AddElement{}, add);
    check(kernels::SubElement{}, sub);
    check(kernels::MulElement{}, mul);
    check(kernels::DivElement{}, div);
  }
}

// The device's complex division (Smith's algorithm with Annex G's recovery) against std::complex
// (GCC's __divdc3 / __divsc3): the same bits for 200,000 pairs whose parts span e^-30 .. e^30, and
// the same infinities, zeros and NaNs for divisors and dividends that are zero or infinite.
TEST(StridedLayout, TheDevicesComplexDivisionGivesStdComplexsBits) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1), e(-30, 30);
  auto part = [&] { return u(rng) * std::exp(e(rng)); };
  int64_t differ = 0;
  for (int i = 0; i < 200000; ++i) {
    const std::complex<double> a(part(), part()), b(part(), part()), q = a / b;
    const kernels::ComplexElement<double> g = kernels::DivElement{}(kernels::ComplexElement<double>{a.real(), a.imag()},
                                                                    kernels::ComplexElement<double>{b.real(), b.imag()});
    const std::complex<float> af(a), bf(static_cast<float>(b.real()) == 0 ? 1.0f : static_cast<float>(b.real()),
                                         static_cast<float>(b.imag()));
    const std::complex<float> qf = af / bf;
    const kernels::ComplexElement<float> gf = kernels::DivElement{}(kernels::ComplexElement<float>{af.real(), af.imag()},
                                                                    kernels::ComplexElement<float>{bf.real(), bf.imag()});
    differ += std::memcmp(&g, &q, sizeof(q)) != 0;
    differ += std::memcmp(&gf, &qf, sizeof(qf)) != 0;
  }
  EXPECT_EQ(differ, 0);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  const std::complex<double> special[] = {{0, 0}, {1, -2}, {inf, 1}, {-inf, inf}, {1, nan}, {0, inf}, {3, 0}};
  for (const auto& a : special)
    for (const auto& b : special) {
      const std::complex<double> q = a / b;
      const auto g = kernels::DivElement{}(kernels::ComplexElement<double>{a.real(), a.imag()},
                                           kernels::ComplexElement<double>{b.real(), b.imag()});
      for (auto [got, want] : {std::pair{g.re, q.real()}, std::pair{g.im, q.imag()}}) {
        SCOPED_TRACE(std::to_string(a.real()) + "," + std::to_string(a.imag()) + " / " + std::to_string(b.real()) +
                     "," + std::to_string(b.imag()));
        EXPECT_EQ(std::isnan(got), std::isnan(want));
        if (!std::isnan(want)) EXPECT_EQ(got, want);
      }
    }
}

// exp, log and pow of the device's complex elements (kernels/math_element.h: e^re (cos + i sin),
// log|z| + i arg z, exp(b log a)) against the CPU ops (glibc's cexp, clog, cpow) to rounding, and
// pow's zero cases (0 ** 0 = 1, 0 ** b = 0) exactly.
TEST(StridedLayout, TheDevicesComplexExpLogAndPowAreTheCpusToRounding) {
  using Z = kernels::ComplexElement<double>;
  Tensor x = complex(uniform({5, 4}, -3, 3, 35), uniform({5, 4}, -3, 3, 36));
  Tensor y = complex(uniform({5, 4}, -2, 2, 37), uniform({5, 4}, -2, 2, 38));
  x.data<std::complex<double>>()[0] = {0.0, 0.0};  // 0 ** y[0]
  y.data<std::complex<double>>()[1] = {0.0, 0.0};  // x[1] ** 0
  x.data<std::complex<double>>()[2] = {0.0, 0.0};
  y.data<std::complex<double>>()[2] = {0.0, 0.0};  // 0 ** 0
  const Z* px = reinterpret_cast<const Z*>(x.raw_data());
  const Z* py = reinterpret_cast<const Z*>(y.raw_data());
  const Tensor lx = mul(x, x) + 1.0;  // log's argument: no zero
  const Tensor e = exp(x), l = log(lx), p = pow(x, y);
  const Z* pl = reinterpret_cast<const Z*>(lx.raw_data());
  auto close = [](Z got, std::complex<double> want, const char* what, int64_t k) {
    const double scale = 1.0 + std::abs(want);
    EXPECT_LE(std::abs(std::complex<double>(got.re, got.im) - want), 4e-15 * scale) << what << " " << k;
  };
  for (int64_t k = 0; k < x.numel(); ++k) {
    close(kernels::ExpElement{}(px[k]), e.data<std::complex<double>>()[k], "exp", k);
    close(kernels::LogElement{}(pl[k]), l.data<std::complex<double>>()[k], "log", k);
    close(kernels::PowRealElement{}(px[k], py[k]), p.data<std::complex<double>>()[k], "pow", k);
  }
  const Z zero_to_zero = kernels::PowRealElement{}(px[2], py[2]), zero_to_y = kernels::PowRealElement{}(px[0], py[0]);
  EXPECT_TRUE(zero_to_zero.re == 1.0 && zero_to_zero.im == 0.0);
  EXPECT_TRUE(zero_to_y.re == 0.0 && zero_to_y.im == 0.0);
  EXPECT_EQ(p.data<std::complex<double>>()[2], std::complex<double>(1.0, 0.0));
  EXPECT_EQ(p.data<std::complex<double>>()[0], std::complex<double>(0.0, 0.0));
}

// out = F(x) by walking unary_at over every element, as the CUDA unary kernel's threads do.
template <class F> Tensor through_unary_at(const Tensor& x, Tensor out) {
  const auto layout = detail::strided_layout<2>("test", out, {&x});
  for (int64_t k = 0; k < out.numel(); ++k)
    kernels::unary_at(layout, k, static_cast<double*>(out.raw_data()), static_cast<const double*>(x.raw_data()), F{});
  return out;
}

TEST(StridedLayout, UnaryAtGivesTheCpuOpsBitsOnStridedInputs) {
  // Halves (round to even), negative zero and NaN among the values: where the functions differ.
  Tensor base = uniform({6, 5}, -3, 3, 41);
  double* v = static_cast<double*>(base.raw_data());
  v[0] = 2.5, v[1] = -2.5, v[2] = 0.5, v[3] = -0.0, v[4] = std::nan(""), v[7] = -1.5;
  const std::vector<Tensor> inputs = {base, transpose(base, 0, 1), narrow(transpose(base, 0, 1), 1, 1, 4)};
  auto check = [&](auto f, const char* op) {
    using F = decltype(f);
    for (const Tensor& x : inputs) {
      SCOPED_TRACE(std::string(op) + " of shape " + shape_str(x.shape()));
      const Tensor want = call_op(op, {x})[0];
      expect_same_bits(through_unary_at<F>(x, Tensor::empty(want.shape(), DType::Float64)), want);
    }
  };
  check(kernels::NegElement{}, "core::neg");
  check(kernels::SquareElement{}, "core::square");
  check(kernels::FloorElement{}, "core::floor");
  check(kernels::CeilElement{}, "core::ceil");
  check(kernels::RoundElement{}, "core::round");
  check(kernels::ReluElement{}, "core::relu");
}

TEST(StridedLayout, ReluBackwardThroughBinaryAtGivesTheCpuOpsBits) {
  Tensor x = uniform({4, 6}, -1, 1, 51);
  static_cast<double*>(x.raw_data())[0] = std::nan("");
  static_cast<double*>(x.raw_data())[1] = 0.0;  // exactly zero passes no gradient
  const Tensor g = uniform({6}, -2, 2, 52);     // broadcast, as a bias gradient would be
  const Tensor want = call_op("core::relu_backward", {x, g})[0];
  expect_same_bits(through_binary_at<kernels::ReluBackwardElement>(x, g, Tensor::empty({4, 6}, DType::Float64)), want);
}

namespace {

// Values where conversions round, truncate or drop parts: fractions of both signs, -0, integers
// past float32's (2^24 + 1) and float64's (2^53 + 1) precision; no NaN or out-of-range values for
// integer targets (C++ leaves those undefined, and so may a GPU).
Tensor conversion_sample(DType d) {
  // With the 16-bit floats' cases: a float16 tie (1 + 2^-11), its overflow (65520) and a subnormal.
  const std::vector<double> reals = {-2.75, -1.0, -0.0, 0.5, 1.5, 3.25, 16777217.0, 1e6 + 0.5,
                                     1.0 + 1.0 / 2048, 65520.0, 3e-6};
  const std::vector<int64_t> ints = {-3, -1, 0, 1, 2, 16777217, (int64_t{1} << 53) + 1, 1000001, 2049, 65520, -70000};
  const int64_t n = static_cast<int64_t>(reals.size());
  Tensor t = Tensor::empty({n}, d);
  for (int64_t i = 0; i < n; ++i) {
    switch (d) {
      case DType::Bool: t.data<bool>()[i] = (i % 3) != 0; break;
      case DType::Int32: t.data<int32_t>()[i] = static_cast<int32_t>(ints[i] % 100000000); break;
      case DType::Int64: t.data<int64_t>()[i] = ints[i]; break;
      case DType::Float32: t.data<float>()[i] = static_cast<float>(reals[i]); break;
      case DType::Float64: t.data<double>()[i] = reals[i]; break;
      case DType::Float16: t.data<Half>()[i] = Half(static_cast<float>(reals[i])); break;
      case DType::BFloat16: t.data<BFloat16>()[i] = BFloat16(static_cast<float>(reals[i])); break;
      case DType::Complex64: t.data<std::complex<float>>()[i] = {static_cast<float>(reals[i]), float(-0.25 * i)}; break;
      case DType::Complex128: t.data<std::complex<double>>()[i] = {reals[i], -0.25 * i}; break;
      default: break;
    }
  }
  return t;
}

}  // namespace

// Every pair of the dtypes the GPU converts: convert_at (what each thread of the CUDA conversion
// kernel runs), over the element types the op layer picks (visit_storage_element), must give the
// bits of the CPU's cast, through a broadcast layout too.
TEST(StridedLayout, ConvertAtGivesTheCpuCastsBitsForEveryDtypePair) {
  const std::vector<DType> dtypes = {DType::Bool,    DType::Int32,   DType::Int64,     DType::Float16,   DType::BFloat16,
                                     DType::Float32, DType::Float64, DType::Complex64, DType::Complex128};
  for (DType from : dtypes) {
    const Tensor x = conversion_sample(from);
    for (DType to : dtypes) {
      SCOPED_TRACE(std::string(dtype_name(from)) + " -> " + dtype_name(to));
      const Tensor want = broadcast_to(cast(x, to), {3, x.numel()}).contiguous();
      Tensor got = Tensor::empty({3, x.numel()}, to);
      const auto layout = detail::strided_layout<2>("test", got, {&x});
      detail::visit_storage_element(from, "test", [&](auto in_tag) {
        using In = typename decltype(in_tag)::type;
        detail::visit_storage_element(to, "test", [&](auto out_tag) {
          using Out = typename decltype(out_tag)::type;
          for (int64_t k = 0; k < got.numel(); ++k)
            kernels::convert_at(layout, k, static_cast<Out*>(got.raw_data()), static_cast<const In*>(x.raw_data()));
        });
      });
      expect_same_bits(got, want);
    }
  }
}
