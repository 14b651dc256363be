// quantum::dm_expectation / density_matrix gradients: against parameter shift (noise keeps the
// energy a sinusoid in each rotation angle: channels are linear), central finite differences, the
// state-vector adjoint gradient for noiseless circuits, and an analytic channel derivative.
#include <gtest/gtest.h>

#include <cmath>

#include "sampan/autograd.h"
#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "sampan/quantum/circuit.h"
#include "sampan/quantum/density_matrix.h"

using namespace sampan;
using namespace sampan::quantum;
using IntList = std::vector<int64_t>;
using FloatList = std::vector<double>;

namespace {

struct Noisy {
  IntList circuit;
  FloatList constants;
  int64_t n;
  IntList paulis;
  FloatList coeffs;
};

double energy(const Noisy& p, const std::vector<double>& params) {
  return call_op("quantum::dm_expectation", {from_vector(params, {int64_t(params.size())}), p.circuit, p.constants,
                                             p.n, p.paulis, p.coeffs})[0]
      .item();
}
std::vector<double> grad(const Noisy& p, const std::vector<double>& params, const char* op = "quantum::dm_expectation_grad") {
  Tensor g = call_op(op, {from_vector(params, {int64_t(params.size())}), p.circuit, p.constants, p.n, p.paulis,
                          p.coeffs})[0];
  return std::vector<double>(g.data<double>(), g.data<double>() + g.numel());
}

// 3 qubits; each parameter drives exactly one Pauli rotation; channels between the layers.
Noisy rotation_problem() {
  Noisy p;
  p.n = 3;
  p.circuit = {kH, 0, kRX, 0, 0, kDepolarizing, 0, -1, kRY, 1, 1, kCNOT, 0, 1, kAmplitudeDamping, 1, -2,
               kRZZ, 1, 2, 2, kThermalRelaxation, 2, -3, -4, -5, kRXX, 0, 2, 3, kPhaseDamping, 0, -2,
               kCRY, 2, 0, 4, kGeneralizedDepolarizing, 2, 0, 1, -1, kRYY, 0, 1, 5, kRZ, 2, 6, kPauliChannel, 1, -6, -7, -8};
  p.constants = {0.1, 0.25, 3.0, 2.5, 0.7, 0.05, 0.1, 0.02};
  p.paulis = {3, 0, 0, 1, 1, 0, 0, 3, 3, 2, 0, 2};
  p.coeffs = {0.8, -0.5, 0.3, 0.6};
  return p;
}

}  // namespace

TEST(DensityMatrixGradient, AdjointMatchesParameterShiftUnderNoise) {
  const Noisy p = rotation_problem();
  const std::vector<double> theta = {0.4, -1.2, 0.9, 2.1, -0.3, 0.7, 1.4};
  const auto g = grad(p, theta);
  for (size_t i = 0; i < theta.size(); ++i) {
    if (i == 4) continue;  // CRY: a controlled rotation needs the four-term rule; finite differences below
    auto plus = theta, minus = theta;
    plus[i] += M_PI / 2;
    minus[i] -= M_PI / 2;
    const double shift = (energy(p, plus) - energy(p, minus)) / 2;
    EXPECT_NEAR(g[i], shift, 1e-12) << "parameter " << i;
  }
  for (size_t i = 0; i < theta.size(); ++i) {
    auto plus = theta, minus = theta;
    const double h = 1e-5;
    plus[i] += h;
    minus[i] -= h;
    EXPECT_NEAR(g[i], (energy(p, plus) - energy(p, minus)) / (2 * h), 1e-8) << "parameter " << i;
  }
  // The noise must matter: the noisy gradient differs from the noiseless one.
  Noisy clean = p;
  clean.circuit = {kH, 0, kRX, 0, 0, kRY, 1, 1, kCNOT, 0, 1, kRZZ, 1, 2, 2, kRXX, 0, 2, 3, kCRY, 2, 0, 4,
                   kRYY, 0, 1, 5, kRZ, 2, 6};
  const auto g0 = grad(clean, theta);
  double diff = 0;
  for (size_t i = 0; i < theta.size(); ++i) diff = std::max(diff, std::abs(g0[i] - g[i]));
  EXPECT_GT(diff, 1e-3);
  // Noiseless: density-matrix energy and gradient equal the state-vector ones.
  EXPECT_NEAR(energy(clean, theta),
              call_op("quantum::expectation", {from_vector(theta, {7}), clean.circuit, clean.constants, clean.n,
                                               clean.paulis, clean.coeffs})[0]
                  .item(),
              1e-12);
  const auto gsv = grad(clean, theta, "quantum::expectation_grad");
  for (size_t i = 0; i < theta.size(); ++i) EXPECT_NEAR(g0[i], gsv[i], 1e-12) << "parameter " << i;
}

TEST(DensityMatrixGradient, ChannelParameterDerivativeIsAnalytic) {
  // |1>, amplitude damping gamma = params[0]: <Z> = 2 gamma - 1, so dE/dgamma = 2. Then a phase flip
  // with p = params[1] after H on qubit 1: <X1> = 1 - 2p, dE/dp = -2.
  Noisy p;
  p.n = 2;
  p.circuit = {kX, 0, kAmplitudeDamping, 0, 0, kH, 1, kPhaseFlip, 1, 1};
  p.paulis = {3, 0, 0, 1};
  p.coeffs = {1.0, 1.0};
  const std::vector<double> v = {0.3, 0.2};
  EXPECT_NEAR(energy(p, v), (2 * 0.3 - 1) + (1 - 2 * 0.2), 1e-14);
  const auto g = grad(p, v);
  EXPECT_NEAR(g[0], 2.0, 1e-12);
  EXPECT_NEAR(g[1], -2.0, 1e-12);
  // Thermal relaxation time t = params[0] from |1>: <Z> = 1 - 2 e^{-t/T1}, d/dt = 2/T1 e^{-t/T1}.
  p.circuit = {kX, 0, kThermalRelaxation, 0, -1, -2, 0};
  p.constants = {4.0, 3.0};
  p.paulis = {3, 0};
  p.coeffs = {1.0};
  EXPECT_NEAR(grad(p, {0.7})[0], 2.0 / 4.0 * std::exp(-0.7 / 4.0), 1e-12);
}

TEST(DensityMatrixGradient, DensityMatrixOpBackwardMatchesExpectation) {
  // Through autograd: E = Re sum(conj(H) .* rho) built from rho with sampan ops must give the
  // dm_expectation gradient (the density_matrix vjp with a Hermitian cotangent).
  const Noisy p = rotation_problem();
  const std::vector<double> theta = {0.4, -1.2, 0.9, 2.1, -0.3, 0.7, 1.4};
  Tensor params = from_vector(theta, {7});
  params.requires_grad_(true);
  Tensor rho = call_op("quantum::density_matrix", {params, p.circuit, p.constants, p.n})[0];
  // Z0 as a dense diagonal: weights w[r, c] = delta_rc (+1 or -1), L = sum Re(w * rho).
  std::vector<double> w(64, 0.0), zeros_(64, 0.0);
  for (int r = 0; r < 8; ++r) w[static_cast<size_t>(r * 8 + r)] = (r & 1) ? -1.0 : 1.0;
  Tensor L = sum(real(mul(rho, complex(from_vector(w, {8, 8}), from_vector(zeros_, {8, 8})))));
  auto g = sampan::grad({L}, {params});
  Noisy z0 = p;
  z0.paulis = {3, 0, 0};
  z0.coeffs = {1.0};
  const auto want = grad(z0, theta);
  for (size_t i = 0; i < theta.size(); ++i) EXPECT_NEAR(g[0].data<double>()[i], want[i], 1e-12) << i;
  EXPECT_NEAR(L.item(), energy(z0, theta), 1e-12);
}

TEST(DensityMatrixGradient, NoiselessGradientEqualsStateVectorForEveryFixedGate) {
  // The backward sweep un-applies every gate (fast paths for X, Z, H, S, T, SWAP, CNOT, CZ, CCX,
  // CSWAP included): without channels it must reproduce the state-vector adjoint gradient.
  Noisy p;
  p.n = 3;
  p.circuit = {kH, 0, kS, 1, kRX, 0, 0, kT, 2, kCNOT, 0, 1, kSdg, 0, kRY, 1, 1, kTdg, 1, kCZ, 1, 2,
               kSWAP, 0, 2, kCCX, 0, 1, 2, kCSWAP, 2, 0, 1, kRZZ, 0, 1, 2, kX, 1, kZ, 2, kY, 0,
               kCRX, 2, 1, 3, kU3, 0, 4, 5, 6, kCP, 1, 0, 3, kMS, 0, 2, kCY, 2, 1, kP, 1, 5};
  p.paulis = {3, 1, 0, 0, 2, 3, 1, 1, 1};
  p.coeffs = {0.9, -0.6, 0.4};
  const std::vector<double> theta = {0.4, -1.2, 0.9, 2.1, -0.3, 0.7, 1.4};
  const auto gdm = grad(p, theta), gsv = grad(p, theta, "quantum::expectation_grad");
  for (size_t i = 0; i < theta.size(); ++i) EXPECT_NEAR(gdm[i], gsv[i], 1e-12) << "parameter " << i;
  EXPECT_NEAR(energy(p, theta),
              call_op("quantum::expectation", {from_vector(theta, {7}), p.circuit, p.constants, p.n, p.paulis,
                                               p.coeffs})[0]
                  .item(),
              1e-12);
}

TEST(DensityMatrixGradient, SparseCheckpointsGiveTheSameGradient) {
  // Keeping rho at every 2nd / 3rd channel (segments recomputed on the way back) must not change
  // the gradient: the rebuilt checkpoints are the same matrices.
  const Noisy p = rotation_problem();
  const std::vector<double> theta = {0.4, -1.2, 0.9, 2.1, -0.3, 0.7, 1.4};
  const auto every = grad(p, theta);
  for (int64_t stride : {2, 3, 7}) {
    set_density_matrix_checkpoint_stride(stride);
    const auto sparse = grad(p, theta);
    set_density_matrix_checkpoint_stride(0);
    for (size_t i = 0; i < theta.size(); ++i) EXPECT_EQ(sparse[i], every[i]) << "stride " << stride << ", " << i;
  }
}
