// Issue 4 'Errors' audit, C++ side: what decode_circuit refuses in raw encodings beyond the cases
// in expectation_test.cpp (Errors) and density_matrix_test.cpp: non-finite entries, which a
// max-then-compare check lets through (std::max(x, NaN) returns x, and NaN <= tol is false only
// where it is tested last), and non-finite fixed angles.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "sampan/error.h"
#include "sampan/quantum/circuit.h"
#include "../thrown_message.h"

using namespace sampan;
using sampan::test::thrown_message;
using namespace sampan::quantum;
using IntList = std::vector<int64_t>;
using FloatList = std::vector<double>;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

TEST(QuantumErrorsAudit, NonFiniteUnitaryIsRefused) {
  // NaN in the (0, 0) entry only: every other entry of U^+ U - I is 0.
  const FloatList nan_identity = {kNaN, 0, 0, 0, 0, 0, 1, 0};
  EXPECT_THROW(decode_circuit({kUnitary, 0, 1, 0, 0}, 0, nan_identity, 1, "test"), ValueError);
  EXPECT_NE(thrown_message([&] { decode_circuit({kUnitary, 0, 1, 0, 0}, 0, nan_identity, 1, "test"); }).find("= inf"),
            std::string::npos);
  const complex128 inf_matrix[4] = {{INFINITY, 0}, 0, 0, 1};
  EXPECT_EQ(unitarity_deviation(inf_matrix, 2), std::numeric_limits<double>::infinity());
  const complex128 x[4] = {0, 1, 1, 0};
  EXPECT_EQ(unitarity_deviation(x, 2), 0.0);
}

TEST(QuantumErrorsAudit, NonFiniteChannelsAreRefused) {
  // Kraus {K0 = diag(NaN, 1)}: not trace preserving.
  const FloatList kraus = {kNaN, 0, 0, 0, 0, 0, 1, 0};
  const auto m = thrown_message([&] { decode_circuit({kKraus, 1, 1, 0, 0}, 0, kraus, 1, "test", true); });
  EXPECT_NE(m.find("not trace preserving"), std::string::npos) << m;
  // Mixed unitary 0.5 I + 0.5 diag(NaN, 1).
  const FloatList mu = {0.5, 0.5, 1, 0, 0, 0, 0, 0, 1, 0, kNaN, 0, 0, 0, 0, 0, 1, 0};
  EXPECT_THROW(decode_circuit({kMixedUnitary, 1, 2, 0, 0}, 0, mu, 1, "test", true), ValueError);
  EXPECT_THROW(decode_circuit({kBitFlip, 0, -1}, 0, {kNaN}, 1, "test", true), ValueError);
}

TEST(QuantumErrorsAudit, NonFiniteFixedAnglesAreRefused) {
  const auto m = thrown_message([&] { decode_circuit({kH, 0, kRY, 0, -1}, 0, {kNaN}, 1, "test"); });
  EXPECT_NE(m.find("gate 1 (RY): its fixed angle constants[0] = nan is not finite"), std::string::npos) << m;
  EXPECT_THROW(decode_circuit({kU3, 0, -1, -2, -1}, 0, {0.1, INFINITY}, 1, "test"), ValueError);
  // Trainable slots are data, read at run time: only their index is checked here.
  EXPECT_NO_THROW(decode_circuit({kRY, 0, 0}, 1, {}, 1, "test"));
}
