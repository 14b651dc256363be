// sampan quantum: the quantum ops' sample arguments (op_samples.h).
#include "op_samples.h"

#include <cmath>
#include <vector>

#include "sampan/ops.h"
#include "sampan/quantum/circuit.h"

namespace sampan::quantum::samples {

namespace {
using IntList = std::vector<int64_t>;
using FloatList = std::vector<double>;
}  // namespace

Values circuit(bool with_hamiltonian) {
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

Values statevector_vjp() {
  Values v = circuit(false);
  v.insert(v.begin() + 1, complex_cotangent({8}, 0.6));
  return v;
}

Values noisy_circuit(int extra) {
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

Values evolve(bool vjp) {
  Values v = noisy_circuit(0);
  v.pop_back();  // n_qubits comes from rho
  Values r = {v[0], complex_cotangent({8, 8}, 0.35), v[1], v[2]};
  if (vjp) r.insert(r.begin() + 2, complex_cotangent({8, 8}, 0.8));
  return r;
}

Tensor state(bool density_matrix) {
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
      // 0.7 |psi><psi| + 0.3 |5><5|: entries of psi psi^+ plus a diagonal weight.
      rr[i * 8 + j] = 0.7 * (re[i] * re[j] + im[i] * im[j]) + (i == j && i == 5 ? 0.3 : 0.0);
      ri[i * 8 + j] = 0.7 * (im[i] * re[j] - re[i] * im[j]);
    }
  return complex(from_vector(rr, {8, 8}), from_vector(ri, {8, 8}));
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

}  // namespace sampan::quantum::samples
