// The registry audit for the quantum module: every op in namespace quantum has samples here and
// passes check_op (first-order gradients by finite differences; expectation is once
// differentiable, so check_op verifies that a second derivative raises).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "sampan/ops.h"
#include "sampan/quantum/circuit.h"
#include "sampan/testing/check_op.h"

using namespace sampan;
using namespace sampan::quantum;
using IntList = std::vector<int64_t>;
using FloatList = std::vector<double>;

extern "C" int sampan_quantum_registered();

namespace {
// 3 qubits, every parametric gate, two shared parameters and one constant.
Values sample(bool with_hamiltonian) {
  IntList c = {kH, 0, kRX, 1, 0, kCNOT, 0, 2, kRY, 2, 1, kRZ, 0, 2, kCRX, 1, 0, 3, kCRY, 2, 1, 4,
               kCRZ, 0, 2, 0, kRXX, 0, 1, 1, kRYY, 1, 2, 2, kRZZ, 0, 2, 3, kU3, 1, 4, 0, -1, kP, 2, 1,
               kCP, 0, 1, 2, kS, 1, kT, 0, kSWAP, 0, 2, kCCX, 0, 1, 2, kY, 2, kCY, 2, 0, kSdg, 0, kTdg, 1,
               kCU, 2, 0, 3, -1, 1, kMS, 1, 2, kCSWAP, 1, 2, 0, kUnitary, 1, 1, 2, 0, 1};
  Values v = {from_vector({0.3, -0.7, 1.1, 0.45, -1.3}, {5}), c, FloatList{0.8, 0, 0, 0, 1, 1, 0, 0, 0}, int64_t(3)};
  if (with_hamiltonian) {
    v.emplace_back(IntList{3, 3, 0, 1, 0, 2, 2, 1, 3});
    v.emplace_back(FloatList{0.7, -0.4, 1.2});
  }
  return v;
}
// 3 qubits, gates and every channel kind; channel parameters read from params (slots 3 to 7) so
// check_op differentiates them too (values inside their domains, away from the edges).
Values noisy_sample(int extra) {
  const double k0 = std::sqrt(0.8), k1 = std::sqrt(0.2);
  const FloatList constants = {0.4, 0.1, 0.05, 2.0, 1.5, 0.1, 0.2,                      // 0..6
                               1, 0, 0, 0, 0, 0, k0, 0, 0, 0, k1, 0, 0, 0, 0, 0,          // 7..22 Kraus (AD 0.2)
                               0.7, 0.3, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0};  // 23..40 mixed unitary I, X
  // Choi of the phase flip with p = 0.25 at 41: J = (1 - p) |I>><<I| + p |Z>><<Z|, |I>> = e00 + e11.
  FloatList c = constants;
  const double p = 0.25;
  double J[4][4] = {{1, 0, 0, 1 - 2 * p}, {0, 0, 0, 0}, {0, 0, 0, 0}, {1 - 2 * p, 0, 0, 1}};
  for (auto& row : J)
    for (double x : row) { c.push_back(x); c.push_back(0); }
  IntList circ = {kH, 0, kRX, 1, 0, kCNOT, 0, 2, kBitFlip, 1, 3, kRY, 2, 1, kAmplitudeDamping, 0, 4,
                  kCRZ, 0, 2, 2, kDepolarizing, 2, 5, kRZZ, 0, 1, 0, kGeneralizedAmplitudeDamping, 1, 6, -1,
                  kPauliChannel, 0, -2, -3, 3, kThermalRelaxation, 2, -4, -5, 7, kU3, 1, 2, 0, 1,
                  kPhaseDamping, 1, 4, kReset, 0, -6, -7, kGeneralizedDepolarizing, 2, 0, 2, 5,
                  kPhaseFlip, 0, 3, kBitPhaseFlip, 2, 5, kCRY, 1, 0, 1, kKraus, 1, 2, 1, 7,
                  kMixedUnitary, 1, 2, 2, 23, kChoi, 1, 0, 41, kRYY, 1, 2, 2};
  Values v = {from_vector({0.3, -0.7, 1.1, 0.2, 0.3, 0.15, 0.6, 0.5}, {8}), circ, c, int64_t(3)};
  if (extra == 1) {  // a Hamiltonian
    v.emplace_back(IntList{3, 3, 0, 1, 0, 2, 2, 1, 3});
    v.emplace_back(FloatList{0.7, -0.4, 1.2});
  } else if (extra == 2) {  // a cotangent for the vjp op
    std::vector<double> re(64), im(64);
    for (size_t i = 0; i < 64; ++i) {
      re[i] = std::sin(0.7 * static_cast<double>(i) + 0.3);
      im[i] = std::cos(1.3 * static_cast<double>(i));
    }
    v.insert(v.begin() + 1, complex(from_vector(re, {8, 8}), from_vector(im, {8, 8})));
  }
  return v;
}
// A normalised 3-qubit state vector [8] or density matrix [8, 8] (a mixture of two pure states).
Tensor sample_state(bool density_matrix) {
  std::vector<double> re(8), im(8);
  double norm = 0;
  for (size_t i = 0; i < 8; ++i) {
    re[i] = std::sin(1.3 * static_cast<double>(i) + 0.2);
    im[i] = std::cos(0.9 * static_cast<double>(i) - 0.4);
    norm += re[i] * re[i] + im[i] * im[i];
  }
  for (size_t i = 0; i < 8; ++i) { re[i] /= std::sqrt(norm); im[i] /= std::sqrt(norm); }
  if (!density_matrix) return complex(from_vector(re, {8}), from_vector(im, {8}));
  std::vector<double> rr(64), ri(64);
  for (size_t i = 0; i < 8; ++i)
    for (size_t j = 0; j < 8; ++j) {
      // 0.7 |psi><psi| + 0.3 |7><7| ... written as entries of psi psi^+ plus a diagonal weight.
      rr[i * 8 + j] = 0.7 * (re[i] * re[j] + im[i] * im[j]) + (i == j && i == 5 ? 0.3 : 0.0);
      ri[i * 8 + j] = 0.7 * (im[i] * re[j] - re[i] * im[j]);
    }
  return complex(from_vector(rr, {8, 8}), from_vector(ri, {8, 8}));
}

Tensor complex_cotangent(const Shape& s, double a);

// The noisy circuit applied to a given (non-Hermitian, so no shortcut can hide) 3-qubit matrix.
Values evolve_sample(bool vjp) {
  Values v = noisy_sample(0);
  v.pop_back();  // n_qubits comes from rho
  Values r = {v[0], complex_cotangent({8, 8}, 0.35), v[1], v[2]};
  if (vjp) r.insert(r.begin() + 2, complex_cotangent({8, 8}, 0.8));
  return r;
}

Tensor complex_cotangent(const Shape& s, double a) {
  const int64_t n = shape_numel(s);
  std::vector<double> re(static_cast<size_t>(n)), im(static_cast<size_t>(n));
  for (size_t i = 0; i < re.size(); ++i) {
    re[i] = std::sin(a * static_cast<double>(i) + 0.1);
    im[i] = std::cos(1.7 * a * static_cast<double>(i));
  }
  return complex(from_vector(re, s), from_vector(im, s));
}
}  // namespace

TEST(QuantumRegistryAudit, EveryQuantumOpHasSamplesAndPassesCheckOp) {
  ASSERT_EQ(sampan_quantum_registered(), 1);
  Values sv_vjp = sample(false);
  sv_vjp.insert(sv_vjp.begin() + 1, complex_cotangent({8}, 0.6));
  const FloatList w = {0.3, -1.1, 0.8, 0.25};
  // Several samples per op where the state may be a vector or a density matrix.
  const std::map<std::string, std::vector<Values>> samples = {
      {"quantum::expectation", {sample(true)}},
      {"quantum::expectation_grad", {sample(true)}},
      {"quantum::statevector", {sample(false)}},
      {"quantum::statevector_vjp", {sv_vjp}},
      {"quantum::density_matrix", {noisy_sample(0)}},
      {"quantum::density_matrix_vjp", {noisy_sample(2)}},
      {"quantum::dm_expectation", {noisy_sample(1)}},
      {"quantum::dm_expectation_grad", {noisy_sample(1)}},
      {"quantum::evolve_density_matrix", {evolve_sample(false)}},
      {"quantum::evolve_density_matrix_vjp", {evolve_sample(true)}},
      {"quantum::probabilities", {{sample_state(false), IntList{2, 0}}, {sample_state(true), IntList{1, 2}},
                                  {sample_state(false), IntList{}}}},
      {"quantum::probabilities_vjp", {{sample_state(false), from_vector(w, {4}), IntList{2, 0}},
                                      {sample_state(true), from_vector(w, {4}), IntList{1, 2}}}},
      {"quantum::measure", {{sample_state(false), IntList{2, 0}, IntList{1, 0}},
                            {sample_state(true), IntList{1}, IntList{1}}}},
      {"quantum::measure_vjp",
       {{sample_state(false), complex_cotangent({8}, 0.4), from_vector({0.7}, {}), IntList{2, 0}, IntList{1, 0}},
        {sample_state(true), complex_cotangent({8, 8}, 0.3), from_vector({-0.4}, {}), IntList{1}, IntList{1}}}},
      {"quantum::sample", {{sample_state(false), IntList{0, 2}, int64_t(50), int64_t(7), int64_t(3)},
                           {sample_state(true), IntList{}, int64_t(20), int64_t(1), int64_t(0)}}},
  };
  int checked = 0;
  for (const auto& name : registered_ops()) {
    if (name.rfind("quantum::", 0) != 0) continue;
    const OpSchema& op = find_op(name);
    EXPECT_TRUE(op.shape_fn) << name;
    EXPECT_TRUE(op.vjp || op.nondifferentiable) << name;
    auto it = samples.find(name);
    if (it == samples.end()) {
      ADD_FAILURE() << "quantum op '" << name << "' has no sample arguments in tests/cpp/quantum/registry_audit_test.cpp";
      continue;
    }
    for (const Values& args : it->second) {
      auto r = check_op(op, args);
      EXPECT_TRUE(r.ok) << name << ": " << r.summary();
      if (op.once_differentiable)
        EXPECT_NE(r.summary().find("a second derivative raised as declared"), std::string::npos) << r.summary();
    }
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(samples.size()));
}
