// sampan quantum (internal): argument checks and docstring pieces shared by the quantum ops,
// for ops that take a circuit (expectation_ops.cpp, statevector_ops.cpp) and ops that take a
// state (probability_ops.cpp, measure_ops.cpp, sample_ops.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/measurement_element.h"
#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "sampan/quantum/circuit.h"
#include "sampan/quantum/gate_table.h"
#include "sampan/quantum/state_vector.h"

namespace sampan::quantum::op_args {

using IntList = std::vector<int64_t>;
using FloatList = std::vector<double>;

// ---- ops on a circuit ----------------------------------------------------------------------------
inline void check_params(const TensorSpec& p, const char* who) {
  SAMPAN_CHECK(p.dtype == DType::Float64, TypeError, who, ": params must be float64, got ", dtype_name(p.dtype));
  SAMPAN_CHECK(p.dim() == 1, ValueError, who, ": params must be 1-D [P], got shape ", shape_str(p.shape));
}

// Everything a shape function can validate without data: the state fits, the circuit decodes
// against params' length.
inline void validate_circuit(const TensorSpec& params, const IntList& circuit, const FloatList& constants, int64_t n,
                             const char* who) {
  check_params(params, who);
  check_state_fits(n, DType::Complex128, who);
  decode_circuit(circuit, params.shape[0], constants, n, who);
}

inline Tensor contiguous_params(const Tensor& p) { return p.is_contiguous() ? p : p.contiguous(); }
/// The parameters as a contiguous host tensor (the GPU kernels build gate matrices on the host).
inline Tensor host_params(const Tensor& p) {
  return contiguous_params(p.device().is_cpu() ? p : to_device(p, cpu_device()));
}

// The encoding, for the docstrings; the gate opcodes are read from the gate table.
inline std::string encoding_doc() {
  std::string opcodes;
  for (const GateSpec& g : gate_table())
    if (!g.channel) opcodes += (opcodes.empty() ? "" : " ") + std::string(g.name) + "=" + std::to_string(g.opcode);
  return " Qubit q is bit q of the amplitude index (qubit 0 least significant). circuit: per gate "
         "[opcode, qubits..., slots...] (opcodes " + opcodes + "; controls first; UNITARY is [" +
         std::to_string(kUnitary) + ", n_controls, k, controls..., targets..., offset] with its 2^k x 2^k matrix "
         "at constants[offset...] as re, im pairs, row-major); a slot s >= 0 reads params[s], s < 0 reads "
         "constants[-s-1]. paulis: n_qubits codes per term (0=I 1=X 2=Y 3=Z), coeffs: one per term.";
}

// ---- ops on a state -----------------------------------------------------------------------------
struct StateKind {
  int n = 0;
  bool density_matrix = false;
};

inline StateKind state_kind(const TensorSpec& s, const char* who) {
  SAMPAN_CHECK(s.dtype == DType::Complex128 || s.dtype == DType::Complex64, TypeError, who,
               ": the state must be complex64 or complex128, got ", dtype_name(s.dtype));
  const bool dm = s.dim() == 2;
  SAMPAN_CHECK((s.dim() == 1 || (dm && s.shape[0] == s.shape[1])) && s.shape[0] >= 2 &&
                   (s.shape[0] & (s.shape[0] - 1)) == 0,
               ValueError, who, ": the state must be a state vector [2^n] or a density matrix [2^n, 2^n], got shape ",
               shape_str(s.shape));
  return {static_cast<int>(std::lround(std::log2(static_cast<double>(s.shape[0])))), dm};
}

// The measured qubits (empty: all, in order), validated.
inline std::vector<int> measured(const IntList& qubits, int n, const char* who) {
  if (qubits.empty()) {
    std::vector<int> all(static_cast<size_t>(n));
    for (int q = 0; q < n; ++q) all[static_cast<size_t>(q)] = q;
    return all;
  }
  check_qubits(qubits, n, who);
  return std::vector<int>(qubits.begin(), qubits.end());
}

/// The measured qubits of `state` as the measurement kernels take them (kernels/measurement_element.h).
inline kernels::MeasuredQubits measured_qubits(const TensorSpec& state, const IntList& qubits, const char* who) {
  const auto k = state_kind(state, who);
  const auto q = measured(qubits, k.n, who);
  kernels::MeasuredQubits mq;
  mq.n = k.n;
  mq.m = static_cast<int>(q.size());
  mq.density_matrix = k.density_matrix;
  for (int j = 0; j < mq.m; ++j) {
    mq.q[j] = q[static_cast<size_t>(j)];
    mq.mask |= uint64_t(1) << mq.q[j];
  }
  return mq;
}

inline uint64_t outcome_index(const IntList& outcome, size_t m, const char* who) {
  SAMPAN_CHECK(outcome.size() == m, ValueError, who, ": one outcome bit per measured qubit (", m, "), got ",
               outcome.size());
  uint64_t b = 0;
  for (size_t j = 0; j < m; ++j) {
    SAMPAN_CHECK(outcome[j] == 0 || outcome[j] == 1, ValueError, who, ": outcome bit ", j, " must be 0 or 1, got ",
                 outcome[j]);
    b |= static_cast<uint64_t>(outcome[j]) << j;
  }
  return b;
}

inline Tensor as_c128(const Tensor& t) { return cast(t, DType::Complex128).contiguous(); }

constexpr const char* kStateDoc =
    " state: a state vector [2^n] or a density matrix [2^n, 2^n] (complex64/128). qubits: the measured qubits "
    "(empty: all); an outcome is b = sum_j bit(qubits[j]) 2^j (qubits[0] least significant).";

}  // namespace sampan::quantum::op_args
