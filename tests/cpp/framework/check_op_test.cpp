// check_op itself: it passes correct ops, and each of its checks catches one deliberately broken
// op with a failure that names the check and the op: a wrong vjp, a lying shape function (two
// ways), wrong float32 handling, a wrong second derivative, a nondeterministic kernel, in-place
// writes that bump no version (two ways) and a CUDA twin that disagrees (run where a GPU is).
// Each broken op's bug sits behind `g_fixed`, so that each test also shows the same op passing
// once its bug is fixed: the check catches the bug, not something else about the op.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "sampan/cuda.h"
#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

using namespace sampan;

namespace {

Tensor sample(const Shape& s, double start = 0.3) {
  std::vector<double> v;
  for (int64_t i = 0; i < shape_numel(s); ++i) v.push_back(start + 0.17 * static_cast<double>(i));
  return from_vector(v, s);
}

// y = x^3 with a deliberately wrong gradient (2x instead of 3x^2).
SAMPAN_OP(test, wrong_cube)
    .args("x")
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) {
      auto* i = x.contiguous().data<double>();
      auto* o = out.data<double>();
      for (int64_t k = 0; k < x.numel(); ++k) o[k] = i[k] * i[k] * i[k];
    })
    .vjp([](const VjpContext& c) -> Grads { return {mul(c.grad_output(0), mul(c.input(0), 2.0 * ones_like(c.input(0))))}; });

// y = x^2 with the right gradient computed opaquely (once differentiable).
SAMPAN_OP(test, opaque_square)
    .args("x")
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) {
      auto* i = x.contiguous().data<double>();
      auto* o = out.data<double>();
      for (int64_t k = 0; k < x.numel(); ++k) o[k] = i[k] * i[k];
    })
    .vjp([](const VjpContext& c) -> Grads { return {mul(c.grad_output(0), c.input(0) * 2.0)}; })
    .once_differentiable();

}  // namespace

TEST(CheckOp, PassesCorrectOps) {
  for (const char* name : {"core::add", "core::mul", "core::div", "core::sub"}) {
    auto r = check_op(name, {sample({2, 3}), sample({3}, 1.1)});
    EXPECT_TRUE(r.ok) << name << ": " << r.summary();
  }
  auto r = check_op("core::exp", {sample({4})});
  EXPECT_TRUE(r.ok) << r.summary();
  r = check_op("core::sum", {sample({2, 3}), std::vector<int64_t>{1}, true});
  EXPECT_TRUE(r.ok) << r.summary();
  r = check_op("core::permute", {sample({2, 3, 2}), std::vector<int64_t>{2, 0, 1}});
  EXPECT_TRUE(r.ok) << r.summary();
}

Tensor complex_sample(const Shape& s, double start) {
  Tensor t = Tensor::empty(s, DType::Complex128);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<complex128>()[i] = {start + 0.3 * i, 0.5 - 0.2 * i};
  return t;
}

TEST(CheckOp, PassesComplexOps) {
  for (const char* name : {"core::mul", "core::div", "core::add"}) {
    auto r = check_op(name, {complex_sample({3}, 0.4), complex_sample({3}, -0.9)});
    EXPECT_TRUE(r.ok) << name << ": " << r.summary();
  }
  auto r = check_op("core::exp", {complex_sample({3}, 0.1)});
  EXPECT_TRUE(r.ok) << r.summary();
  // A real input times a complex one: the real input's gradient is the real part.
  r = check_op("core::mul", {sample({3}), complex_sample({3}, 0.2)});
  EXPECT_TRUE(r.ok) << r.summary();
}

TEST(CheckOp, CatchesAWrongGradient) {
  auto r = check_op("test::wrong_cube", {sample({3})});
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.failures.empty());
  EXPECT_NE(r.failures[0].find("first-order gradient"), std::string::npos) << r.summary();
}

TEST(CheckOp, OnceDifferentiableRaisesOnSecondOrder) {
  auto r = check_op("test::opaque_square", {sample({3})});
  EXPECT_TRUE(r.ok) << r.summary();
  bool noted = false;
  for (auto& n : r.notes) noted = noted || n.find("raised as declared") != std::string::npos;
  EXPECT_TRUE(noted) << r.summary();
}

TEST(CheckOp, InplaceOpBumpsVersion) {
  auto r = check_op("core::add_", {sample({2, 3}), sample({3})});
  EXPECT_TRUE(r.ok) << r.summary();
}

// ---- one broken op per check ----------------------------------------------------------------

namespace {

bool g_fixed = false;  // true: the broken ops below behave correctly
struct Fixed {
  Fixed() { g_fixed = true; }
  ~Fixed() { g_fixed = false; }
};

// Every failure names `check` (its first words) and the op; there is at least one.
void expect_caught_by(const CheckOpReport& r, const std::string& check, const std::string& op) {
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.failures.empty()) << r.summary();
  for (const auto& f : r.failures) {
    EXPECT_EQ(f.rfind(check, 0), 0u) << "expected a '" << check << "' failure:\n" << r.summary();
    EXPECT_NE(f.find("'" + op + "'"), std::string::npos) << r.summary();
  }
}

const double* in_data(const Tensor& x) { return x.contiguous().data<double>(); }

// Promises one element more than the input has; the kernel writes only the first n (fixed: it
// writes the sum into the last one).
SAMPAN_OP(test, shape_lie_unwritten)
    .args("x")
    .nondifferentiable()
    .shape([](const TensorSpec& x) { return TensorSpec{{x.shape[0] + 1}, x.dtype, x.device}; })
    .cpu([](const Tensor& x, Tensor& out) {
      const double* i = in_data(x);
      double* o = out.data<double>();
      double total = 0;
      for (int64_t k = 0; k < x.numel(); ++k) total += o[k] = i[k];
      if (g_fixed) o[x.numel()] = total;
    });

// Promises n + 1 elements; the kernel hands back an output of its own with n (fixed: n + 1).
SAMPAN_OP(test, shape_lie_replaced)
    .args("x")
    .shape([](const TensorSpec& x) { return TensorSpec{{x.shape[0] + 1}, x.dtype, x.device}; })
    .cpu([](const Tensor& x, Tensor& out) {
      out = g_fixed ? concat({x, zeros({1}, DType::Float64)}, 0) : x * 2.0;
    })
    .vjp([](const VjpContext& c) -> Grads { return {narrow(c.grad_output(0), 0, 0, c.input(0).shape()[0])}; });

// x * x, declared for float32 and float64; the float32 path rounds to whole numbers, as if copied
// from an integer kernel (fixed: it does not).
SAMPAN_OP(test, square_f32_truncates)
    .args("x")
    .dtypes({DType::Float32, DType::Float64})
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) {
      Tensor c = x.contiguous();
      if (x.dtype() == DType::Float32) {
        const float* i = c.data<float>();
        float* o = out.data<float>();
        for (int64_t k = 0; k < x.numel(); ++k) o[k] = g_fixed ? i[k] * i[k] : std::trunc(i[k] * i[k]);
      } else {
        const double* i = c.data<double>();
        double* o = out.data<double>();
        for (int64_t k = 0; k < x.numel(); ++k) o[k] = i[k] * i[k];
      }
    })
    .vjp([](const VjpContext& c) -> Grads { return {mul(c.grad_output(0), c.input(0) * 2.0)}; });

// x^3 with a first derivative that is right in value but detaches x^2, so that its own
// derivative (the second of the op) is lost (fixed: x^2 stays in the graph).
SAMPAN_OP(test, cube_detached_vjp)
    .args("x")
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) {
      const double* i = in_data(x);
      double* o = out.data<double>();
      for (int64_t k = 0; k < x.numel(); ++k) o[k] = i[k] * i[k] * i[k];
    })
    .vjp([](const VjpContext& c) -> Grads {
      Tensor x = c.input(0);
      Tensor x2 = mul(x, x);
      return {mul(c.grad_output(0), (g_fixed ? x2 : x2.detach()) * 3.0)};
    });

// 2 x, with the last bit of element 0 depending on how often the kernel ran, as a sum whose
// order depends on thread timing would (fixed: always the same bits).
SAMPAN_OP(test, double_racy)
    .args("x")
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) {
      static int runs = 0;
      const double* i = in_data(x);
      double* o = out.data<double>();
      for (int64_t k = 0; k < x.numel(); ++k) o[k] = 2 * i[k];
      if (!g_fixed && runs++ % 2) o[0] = std::nextafter(o[0], std::numeric_limits<double>::infinity());
    })
    .vjp([](const VjpContext& c) -> Grads { return {c.grad_output(0) * 2.0}; });

// Returns 2 x, and also doubles x itself without declaring it in-place (fixed: x is left alone).
SAMPAN_OP(test, double_undeclared_inplace)
    .args("x")
    .nondifferentiable()
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) {
      double* i = x.data<double>();  // x is contiguous in the test
      double* o = out.data<double>();
      for (int64_t k = 0; k < x.numel(); ++k) {
        o[k] = 2 * i[k];
        if (!g_fixed) i[k] = o[k];
      }
    });

// Declared in-place on x, but the kernel replaces its output with a new tensor, so x is neither
// written nor its version bumped (fixed: it writes x).
SAMPAN_OP(test, double_inplace_replaced)
    .args("x")
    .outputs("x_out")
    .inplace(0, 0)
    .nondifferentiable()
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) {
      if (!g_fixed) {
        out = x * 2.0;
        return;
      }
      double* o = out.data<double>();
      for (int64_t k = 0; k < out.numel(); ++k) o[k] *= 2;
    });

// 2 x on the CPU; the "CUDA" twin (host code: copy in, compute, copy out) adds 1e-3 (fixed: not).
void double_on_host(const Tensor& x, Tensor& out, double offset) {
  Tensor h = to_device(x, cpu_device()).contiguous();
  Tensor r = Tensor::empty(x.shape(), DType::Float64);
  for (int64_t k = 0; k < x.numel(); ++k) r.data<double>()[k] = 2 * h.data<double>()[k] + offset;
  if (out.device().is_cpu()) std::memcpy(out.raw_data(), r.raw_data(), r.nbytes());
  else cuda::copy_bytes(out.raw_data(), true, r.raw_data(), false, r.nbytes());
}
SAMPAN_OP(test, double_cuda_twin_off)
    .args("x")
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) { double_on_host(x, out, 0.0); })
    .cuda([](const Tensor& x, Tensor& out) { double_on_host(x, out, g_fixed ? 0.0 : 1e-3); })
    .vjp([](const VjpContext& c) -> Grads { return {c.grad_output(0) * 2.0}; });

}  // namespace

TEST(CheckOp, CatchesAShapeFunctionPromisingElementsTheKernelDoesNotWrite) {
  auto r = check_op("test::shape_lie_unwritten", {sample({3})});
  expect_caught_by(r, "shape function", "test::shape_lie_unwritten");
  EXPECT_NE(r.summary().find("wrote only 3 of its 4 elements (element 3"), std::string::npos) << r.summary();
  Fixed fixed;
  r = check_op("test::shape_lie_unwritten", {sample({3})});
  EXPECT_TRUE(r.ok) << r.summary();
}

TEST(CheckOp, CatchesAShapeFunctionContradictedByTheKernelsOutput) {
  auto r = check_op("test::shape_lie_replaced", {sample({3})});
  expect_caught_by(r, "shape function", "test::shape_lie_replaced");
  EXPECT_NE(r.summary().find("gives [4] float64 for output 0 ('out') but the kernel made [3] float64"),
            std::string::npos) << r.summary();
  Fixed fixed;
  r = check_op("test::shape_lie_replaced", {sample({3})});
  EXPECT_TRUE(r.ok) << r.summary();
}

TEST(CheckOp, CatchesWrongHandlingOfADeclaredDtype) {
  auto r = check_op("test::square_f32_truncates", {sample({4})});
  expect_caught_by(r, "dtype sweep", "test::square_f32_truncates");
  EXPECT_NE(r.summary().find("in float32 output 0 element 0 is 0, float64 gives 0.09"), std::string::npos)
      << r.summary();
  Fixed fixed;
  r = check_op("test::square_f32_truncates", {sample({4})});
  EXPECT_TRUE(r.ok) << r.summary();
}

TEST(CheckOp, CatchesAWrongSecondDerivative) {
  auto r = check_op("test::cube_detached_vjp", {sample({3})});
  expect_caught_by(r, "second-order gradient", "test::cube_detached_vjp");  // the first order is right
  Fixed fixed;
  r = check_op("test::cube_detached_vjp", {sample({3})});
  EXPECT_TRUE(r.ok) << r.summary();
}

TEST(CheckOp, CatchesANondeterministicKernel) {
  auto r = check_op("test::double_racy", {sample({3})});
  expect_caught_by(r, "determinism", "test::double_racy");
  Fixed fixed;
  r = check_op("test::double_racy", {sample({3})});
  EXPECT_TRUE(r.ok) << r.summary();
}

TEST(CheckOp, CatchesAnUndeclaredInPlaceWrite) {
  auto r = check_op("test::double_undeclared_inplace", {sample({3})});
  expect_caught_by(r, "in-place version bump", "test::double_undeclared_inplace");
  EXPECT_NE(r.summary().find("wrote its argument 'x' without declaring it in-place"), std::string::npos)
      << r.summary();
  Fixed fixed;
  r = check_op("test::double_undeclared_inplace", {sample({3})});
  EXPECT_TRUE(r.ok) << r.summary();
}

TEST(CheckOp, CatchesAnInPlaceOutputThatIsNotItsInput) {
  auto r = check_op("test::double_inplace_replaced", {sample({3})});
  expect_caught_by(r, "in-place version bump", "test::double_inplace_replaced");
  EXPECT_NE(r.summary().find("is not its input 'x' (the kernel replaced it)"), std::string::npos) << r.summary();
  Fixed fixed;
  r = check_op("test::double_inplace_replaced", {sample({3})});
  EXPECT_TRUE(r.ok) << r.summary();
}

TEST(CheckOp, CatchesACudaTwinThatDisagrees) {
  if (!cuda::is_available()) {
    // Without a GPU the check is skipped, and says so in the report.
    auto r = check_op("test::double_cuda_twin_off", {sample({3})});
    EXPECT_TRUE(r.ok) << r.summary();
    bool noted = false;
    for (auto& n : r.notes) noted = noted || n == "CPU vs CUDA: no GPU in this process, skipped";
    EXPECT_TRUE(noted) << r.summary();
    GTEST_SKIP() << "the CPU-vs-CUDA check needs a GPU: " << cuda::unavailable_reason();
  }
  auto r = check_op("test::double_cuda_twin_off", {sample({3})});
  expect_caught_by(r, "CPU vs CUDA", "test::double_cuda_twin_off");
  EXPECT_NE(r.summary().find("output 0 element 0 is"), std::string::npos) << r.summary();
  Fixed fixed;
  r = check_op("test::double_cuda_twin_off", {sample({3})});
  EXPECT_TRUE(r.ok) << r.summary();
  EXPECT_NE(r.summary().find("CPU vs CUDA: identical bits"), std::string::npos) << r.summary();
}
