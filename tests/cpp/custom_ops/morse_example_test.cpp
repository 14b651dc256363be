// The one-file op of docs/writing-an-op.md (docs/examples/morse/morse_op.cu): loaded as a user
// loads a library, it passes check_op on the samples it declares, gives the Morse energy and force
// of the closed form, takes its declared defaults, and has a CUDA kernel exactly where the build
// has nvcc.
#include <gtest/gtest.h>

#include <cmath>

#include "sampan/autograd.h"
#include "sampan/op_library.h"
#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

#ifndef SAMPAN_MORSE_LIBRARY
#error "SAMPAN_MORSE_LIBRARY (path of libsampan_morse.so) is defined by docs/examples/morse/CMakeLists.txt"
#endif

using namespace sampan;

namespace {
const OpSchema& morse_op() {
  static const std::vector<std::string> ops = load_op_library(SAMPAN_MORSE_LIBRARY);
  EXPECT_EQ(ops, std::vector<std::string>{"physics::morse"});
  return find_op("physics::morse");
}
}  // namespace

TEST(MorseExample, PassesCheckOpOnItsDeclaredSamples) {
  auto r = check_op(morse_op());
  EXPECT_TRUE(r.ok) << r.summary();
}

TEST(MorseExample, EnergyAndForceAreTheClosedForm) {
  const double D = 0.8, a = 1.9, r0 = 1.2;
  const std::vector<double> rs = {0.9, 1.2, 1.5, 2.6};
  Tensor r = from_vector(rs, {4}).requires_grad_(true);
  Tensor v = call_op(morse_op(), {r, D, a, r0})[0];
  Tensor g = grad({sum(v)}, {r})[0];
  for (size_t k = 0; k < rs.size(); ++k) {
    const double e = std::exp(-a * (rs[k] - r0));
    EXPECT_NEAR(v.data<double>()[k], D * (1 - e) * (1 - e), 1e-15);
    EXPECT_NEAR(g.data<double>()[k], 2 * D * a * e * (1 - e), 1e-14);  // dV/dr; 0 at r0
  }
  EXPECT_DOUBLE_EQ(v.data<double>()[1], 0.0);  // the minimum at r0
}

TEST(MorseExample, DeclaredDefaultsAreUsedWhenArgumentsAreLeftOut) {
  EXPECT_EQ(morse_op().signature(), "morse(r: Tensor, depth: float = 1.0, width: float = 1.0, r0: float = 1.0) -> energy");
  Tensor r = from_vector({2.0}, {1});
  const double e = std::exp(-1.0);
  EXPECT_NEAR(call_op(morse_op(), {r})[0].item(), (1 - e) * (1 - e), 1e-15);
}

TEST(MorseExample, HasACudaKernelExactlyWhereBuiltWithNvcc) {
#if defined(SAMPAN_MORSE_HAS_CUDA)
  EXPECT_TRUE(morse_op().has_kernel(DeviceType::CUDA));
#else
  EXPECT_FALSE(morse_op().has_kernel(DeviceType::CUDA));
#endif
  EXPECT_TRUE(morse_op().has_kernel(DeviceType::CPU));
}
