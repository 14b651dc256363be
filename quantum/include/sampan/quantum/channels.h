// sampan quantum: noise channels as superoperators, their decoding from the circuit encoding
// (opcodes in circuit.h) and the checks that make a channel a channel.
//
// A channel on k qubits is stored as its 4^k x 4^k superoperator S with
//   E(rho)[r', c'] = sum_{r, c} S[(r', c'), (r, c)] rho[r, c],   local index (r, c) -> c + 2^k r,
// i.e. S = sum_k K_k (x) conj(K_k) for Kraus operators K_k (see kernels/density_matrix.h for how
// it acts on a density matrix). Conventions of the named channels (Paddle Quantum's, with p the
// probability and gamma the damping):
//   bit / phase / bit-phase flip:  (1-p) rho + p P rho P, P = X / Z / Y
//   depolarizing:                  (1-p) rho + p I/2 = (1-3p/4) rho + p/4 (X.X + Y.Y + Z.Z)
//   Pauli channel (px, py, pz):    (1-px-py-pz) rho + px X.X + py Y.Y + pz Z.Z
//   generalized depolarizing (k):  (1-p) rho + p tr_k(rho) (x) I/2^k
//   amplitude damping:             K0 = [[1,0],[0,sqrt(1-g)]], K1 = [[0,sqrt g],[0,0]]
//   generalized amplitude damping: sqrt(p) times those, and sqrt(1-p) [[sqrt(1-g),0],[0,1]],
//                                  sqrt(1-p) [[0,0],[sqrt g,0]] (relaxation towards |1> at 1-p)
//   phase damping:                 K0 = [[1,0],[0,sqrt(1-g)]], K1 = [[0,0],[0,sqrt g]]
//   reset (p0, p1):                (1-p0-p1) rho + p0 tr(rho)|0><0| + p1 tr(rho)|1><1|
//   thermal relaxation (T1, T2, t), zero temperature: populations relax to |0> as
//                                  rho11 -> e^{-t/T1} rho11, coherences decay as e^{-t/T2};
//                                  needs T2 <= 2 T1. T1, T2 and t in one unit (any).
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "sampan/quantum/circuit.h"

namespace sampan::quantum {

/// A channel's entry in the gate table (gate_table.h).
using ChannelInfo = GateSpec;
/// The table entry of a channel opcode; ValueError for an unknown one.
const ChannelInfo& channel_info(int64_t opcode);

/// Decodes the channel starting at enc[i] into g (qubits, slots, offsets) and validates it
/// (qubits, slot ranges, matrices, and the values of constant parameters); returns the number of
/// entries consumed. `where` prefixes error messages as given ("who: gate 3 (KRAUS)").
size_t decode_channel(const std::vector<int64_t>& enc, size_t i, int64_t n_params, const std::vector<double>& constants,
                      int64_t n_qubits, const std::string& where, Gate& g);

/// The superoperator of channel g (4^k x 4^k row-major, k = g.qubits.size()) with its parameters
/// read from params / constants; with derivative = j >= 0, its derivative in the channel's j-th
/// parameter. Parameter values out of their domain are a ValueError naming the channel.
std::vector<complex128> channel_superop(const Gate& g, const double* params, const std::vector<double>& constants,
                                        int derivative = -1);

/// S = sum_k K_k (x) conj(K_k) for Kraus operators of 2^k x 2^k (row-major).
std::vector<complex128> kraus_to_superop(const std::vector<std::vector<complex128>>& kraus, int k);
/// The superoperator of the Choi matrix J = sum_ij |i><j| (x) E(|i><j|) (input factor first):
/// S[(r', c'), (r, c)] = J[r 2^k + r', c 2^k + c'].
std::vector<complex128> choi_to_superop(const std::vector<complex128>& choi, int k);
/// max_{r,c} |sum_r' S[(r', r'), (r, c)] - delta_rc|: 0 for a trace-preserving map (for Kraus
/// operators this is max |sum_k K_k^+ K_k - I|).
double trace_preservation_error(const std::vector<complex128>& superop, int k);
/// Throws ValueError (prefixed by `who`) unless the map is trace preserving to 1e-10.
void check_trace_preserving(const std::vector<complex128>& superop, int k, const std::string& who);
/// Throws ValueError unless the Choi matrix is Hermitian (1e-10) and positive semidefinite
/// (Cholesky of J + 1e-10 I succeeds), i.e. the map is completely positive.
void check_choi_positive(const std::vector<complex128>& choi, int k, const std::string& who);

}  // namespace sampan::quantum
