// sampan quantum: DensityMatrix, noisy circuit simulation and the adjoint gradient over channels.
#include "sampan/quantum/density_matrix.h"

#include <unistd.h>

#include <cmath>

#include "gate_apply.h"
#include "kernels/density_matrix.h"
#include "sampan/error.h"
#include "sampan/ops.h"
#include "sampan/quantum/channels.h"
#include "sampan/quantum/state_vector.h"

namespace sampan::quantum {

namespace {

using C = complex128;

template <class T>
std::vector<std::complex<T>> cast_matrix(const std::vector<C>& m) {
  return std::vector<std::complex<T>>(m.begin(), m.end());
}

template <class T>
void apply_gate_or_channel(std::complex<T>* rho, int n, const Gate& g, const double* params,
                           const std::vector<double>& constants, bool adjoint) {
  if (is_channel_opcode(g.op)) {
    std::vector<C> s = channel_superop(g, params, constants);
    if (adjoint) s = adjoint_matrix(s);
    const auto st = cast_matrix<T>(s);
    kernels::dm_apply_superop(rho, n, g.qubits, st.data());
    return;
  }
  GateMatrix gm = gate_matrix(g, params, constants);
  // Fixed gates with real (or diagonal-phase) matrices: the state-vector fast kernels on the row
  // bits and, since conj(U) = U for X, Z, H and SWAP, on the column bits; no complex products.
  const int t = gm.targets.back(), n2 = 2 * n;
  const uint64_t cm = gm.cmask;
  switch (g.op) {
    case kX: case kCNOT: case kCCX:
      kernels::apply_x(rho, n2, t + n, cm << n);
      kernels::apply_x(rho, n2, t, cm);
      return;
    case kZ: case kCZ:
      kernels::apply_z(rho, n2, t + n, cm << n);
      kernels::apply_z(rho, n2, t, cm);
      return;
    case kH:
      kernels::apply_h(rho, n2, t + n);
      kernels::apply_h(rho, n2, t);
      return;
    case kSWAP: case kCSWAP:
      kernels::apply_swap(rho, n2, gm.targets[0] + n, gm.targets[1] + n, cm << n);
      kernels::apply_swap(rho, n2, gm.targets[0], gm.targets[1], cm);
      return;
    case kS: case kSdg: case kT: case kTdg: {
      const std::complex<T> ph(adjoint ? std::conj(gm.m[3]) : gm.m[3]);
      kernels::apply_phase(rho, n2, t + n, ph);
      kernels::apply_phase(rho, n2, t, std::conj(ph));
      return;
    }
    default: break;
  }
  if (adjoint) gm.m = adjoint_matrix(gm.m);
  const auto mt = cast_matrix<T>(gm.m);
  kernels::dm_apply_matrix(rho, n, gm.targets, mt.data(), gm.cmask);
}

template <class T>
double expectation_of(const std::complex<T>* rho, const std::vector<PauliTerm>& h, int n) {
  double e = 0;
  for (const auto& t : h) e += t.coeff * kernels::dm_pauli_trace(rho, n, t.xmask, t.zmask, t.n_y).real();
  return e;
}

// Calls f(pointer) with the typed data of a complex64/complex128 tensor.
template <class F>
void with_data(const Tensor& t, F&& f) {
  if (t.dtype() == DType::Complex128) f(t.data<complex128>());
  else f(t.data<complex64>());
}

}  // namespace

uint64_t check_density_matrix_fits(int64_t n, DType dtype, const char* who, uint64_t copies) {
  SAMPAN_CHECK(dtype == DType::Complex128 || dtype == DType::Complex64, TypeError, who,
               ": a density matrix is complex64 or complex128, got ", dtype_name(dtype));
  SAMPAN_CHECK(n >= 1 && n <= 28, ValueError, who, ": the number of qubits of a density matrix must be in [1, 28], got ",
               n);
  const unsigned __int128 need = static_cast<unsigned __int128>(uint64_t(1) << (2 * n)) *
                                 static_cast<uint64_t>(itemsize(dtype)) * copies;
  const uint64_t bytes = need > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(need);
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) {
    const uint64_t avail = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
    SAMPAN_CHECK(bytes <= avail, ValueError, who, ": ", copies, " density matri", copies == 1 ? "x" : "ces", " of ", n,
                 " qubits (", dtype_name(dtype), ") need ", bytes, " bytes but only ", avail,
                 " bytes of memory are available");
  }
  return bytes;
}

DensityMatrix::DensityMatrix(int64_t n, DType dtype) : n_(n) {
  check_density_matrix_fits(n, dtype, "DensityMatrix");
  const int64_t N = int64_t(1) << n;
  tensor_ = zeros({N, N}, dtype);
  if (dtype == DType::Complex128) tensor_.data<complex128>()[0] = 1.0;
  else tensor_.data<complex64>()[0] = 1.0f;
}

DensityMatrix DensityMatrix::from_state(const Tensor& psi_in) {
  SAMPAN_CHECK(psi_in.dim() == 1 && psi_in.numel() >= 2 && (psi_in.numel() & (psi_in.numel() - 1)) == 0, ValueError,
               "DensityMatrix.from_state: expected a state vector [2^n], got shape ", shape_str(psi_in.shape()));
  const int64_t N = psi_in.numel();
  const int64_t n = static_cast<int64_t>(std::lround(std::log2(static_cast<double>(N))));
  DensityMatrix rho(n, psi_in.dtype());
  const Tensor psi = psi_in.contiguous();
  auto fill = [&](auto* out, const auto* a) {
    for (int64_t r = 0; r < N; ++r)
      for (int64_t c = 0; c < N; ++c) out[r * N + c] = a[r] * std::conj(a[c]);
  };
  if (psi.dtype() == DType::Complex128) fill(rho.tensor_.data<complex128>(), psi.data<complex128>());
  else fill(rho.tensor_.data<complex64>(), psi.data<complex64>());
  return rho;
}

DensityMatrix DensityMatrix::from_tensor(const Tensor& t) {
  SAMPAN_CHECK(t.dim() == 2 && t.shape()[0] == t.shape()[1] && t.shape()[0] >= 2 &&
                   (t.shape()[0] & (t.shape()[0] - 1)) == 0,
               ValueError, "DensityMatrix.from_tensor: expected a [2^n, 2^n] matrix, got shape ", shape_str(t.shape()));
  const int64_t n = static_cast<int64_t>(std::lround(std::log2(static_cast<double>(t.shape()[0]))));
  DensityMatrix rho(n, t.dtype());
  rho.tensor_ = t.contiguous().clone();
  return rho;
}

void DensityMatrix::apply_matrix(const std::vector<int64_t>& qubits, const std::vector<complex128>& m,
                                 const std::vector<int64_t>& controls) {
  std::vector<int64_t> all = qubits;
  all.insert(all.end(), controls.begin(), controls.end());
  SAMPAN_CHECK(!qubits.empty() && qubits.size() <= 10, ValueError,
               "DensityMatrix.apply_matrix: 1 to 10 target qubits, got ", qubits.size());
  check_qubits(all, n_, "DensityMatrix.apply_matrix");
  const size_t dim = size_t(1) << qubits.size();
  SAMPAN_CHECK(m.size() == dim * dim, ValueError, "DensityMatrix.apply_matrix: a gate on ", qubits.size(),
               " qubits needs ", dim * dim, " matrix entries, got ", m.size());
  uint64_t cmask = 0;
  for (auto c : controls) cmask |= uint64_t(1) << c;
  const std::vector<int> q(qubits.begin(), qubits.end());
  with_data(tensor_, [&](auto* rho) {
    using T = typename std::remove_pointer_t<decltype(rho)>::value_type;
    const auto mt = cast_matrix<T>(m);
    kernels::dm_apply_matrix(rho, static_cast<int>(n_), q, mt.data(), cmask);
  });
}

void DensityMatrix::apply_superop(const std::vector<int64_t>& qubits, const std::vector<complex128>& s) {
  SAMPAN_CHECK(!qubits.empty() && qubits.size() <= 3, ValueError, "DensityMatrix: a channel acts on 1 to 3 qubits, got ",
               qubits.size());
  check_qubits(qubits, n_, "DensityMatrix.apply_superop");
  const size_t D = size_t(1) << (2 * qubits.size());
  SAMPAN_CHECK(s.size() == D * D, ValueError, "DensityMatrix.apply_superop: a channel on ", qubits.size(),
               " qubits needs a ", D, "x", D, " superoperator, got ", s.size(), " entries");
  const std::vector<int> q(qubits.begin(), qubits.end());
  with_data(tensor_, [&](auto* rho) {
    using T = typename std::remove_pointer_t<decltype(rho)>::value_type;
    const auto st = cast_matrix<T>(s);
    kernels::dm_apply_superop(rho, static_cast<int>(n_), q, st.data());
  });
}

void DensityMatrix::apply_kraus(const std::vector<int64_t>& qubits, const std::vector<std::vector<complex128>>& kraus) {
  SAMPAN_CHECK(!qubits.empty() && qubits.size() <= 3, ValueError,
               "DensityMatrix.apply_kraus: a channel acts on 1 to 3 qubits, got ", qubits.size());
  SAMPAN_CHECK(!kraus.empty(), ValueError, "DensityMatrix.apply_kraus: no Kraus operators given");
  const size_t d = size_t(1) << qubits.size();
  for (size_t k = 0; k < kraus.size(); ++k)
    SAMPAN_CHECK(kraus[k].size() == d * d, ValueError, "DensityMatrix.apply_kraus: Kraus operator ", k, " on ",
                 qubits.size(), " qubits must have ", d * d, " entries (", d, "x", d, "), got ", kraus[k].size());
  const int k = static_cast<int>(qubits.size());
  const auto s = kraus_to_superop(kraus, k);
  check_trace_preserving(s, k, "DensityMatrix.apply_kraus");
  apply_superop(qubits, s);
}

void DensityMatrix::apply_circuit(const std::vector<int64_t>& circuit, const std::vector<double>& params,
                                  const std::vector<double>& constants) {
  const auto gates = decode_circuit(circuit, static_cast<int64_t>(params.size()), constants, n_,
                                    "DensityMatrix.apply_circuit", true);
  with_data(tensor_, [&](auto* rho) {
    for (const auto& g : gates) apply_gate_or_channel(rho, static_cast<int>(n_), g, params.data(), constants, false);
  });
}

double DensityMatrix::trace() const {
  double t = 0;
  with_data(tensor_, [&](auto* rho) { t = kernels::dm_trace(rho, static_cast<int>(n_)); });
  return t;
}

double DensityMatrix::expectation(const std::vector<int64_t>& paulis, const std::vector<double>& coeffs) const {
  const auto h = decode_hamiltonian(paulis, coeffs, n_, "DensityMatrix.expectation");
  double e = 0;
  with_data(tensor_, [&](auto* rho) { e = expectation_of(rho, h, static_cast<int>(n_)); });
  return e;
}

void simulate_density_matrix(const double* params, const std::vector<Gate>& gates, const std::vector<double>& constants,
                             int n, C* rho) {
  const size_t NN = size_t(1) << (2 * n);
  std::fill(rho, rho + NN, C(0));
  rho[0] = 1;
  for (const auto& g : gates) apply_gate_or_channel(rho, n, g, params, constants, false);
}

void apply_to_density_matrix(C* rho, int n, const Gate& g, const double* params, const std::vector<double>& constants,
                             bool adjoint) {
  apply_gate_or_channel(rho, n, g, params, constants, adjoint);
}

double dm_expectation_value(const C* rho, const std::vector<PauliTerm>& h, int n) { return expectation_of(rho, h, n); }

void hamiltonian_matrix(const std::vector<PauliTerm>& h, int n, C* out) {
  const uint64_t N = uint64_t(1) << n;
  std::fill(out, out + N * N, C(0));
  static const C kIPow[4] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
  for (const auto& t : h) {
    const C phase = kIPow[t.n_y & 3] * t.coeff;
    // P |u> = i^{n_y} (-1)^{|u & z|} |u ^ x>, so P[u ^ x, u] is that factor.
    for (uint64_t u = 0; u < N; ++u) {
      const double sign = (__builtin_popcountll(u & t.zmask) & 1) ? -1.0 : 1.0;
      out[(u ^ t.xmask) * N + u] += phase * sign;
    }
  }
}

namespace {
int64_t g_checkpoint_stride = 0;  // 0: automatic

uint64_t available_bytes() {
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : UINT64_MAX;
}
}  // namespace

void set_density_matrix_checkpoint_stride(int64_t stride) {
  SAMPAN_CHECK(stride >= 0, ValueError, "set_density_matrix_checkpoint_stride: stride must be >= 0, got ", stride);
  g_checkpoint_stride = stride;
}

void dm_adjoint_gradient(const double* params, int64_t n_params, const std::vector<Gate>& gates,
                         const std::vector<double>& constants, int n, const C* lambda, double* grad, const C* initial,
                         C* grad_initial) {
  for (int64_t p = 0; p < n_params; ++p) grad[p] = 0;
  const size_t NN = size_t(1) << (2 * n);
  std::vector<size_t> channel_gate;  // gate index of each channel
  for (size_t k = 0; k < gates.size(); ++k)
    if (is_channel_opcode(gates[k].op)) channel_gate.push_back(k);
  const size_t n_channels = channel_gate.size();
  // Checkpoints: rho before every channel when (2 + channels) matrices fit in memory; otherwise
  // only before every s-th channel (s = ceil(sqrt(channels))), and each segment's checkpoints are
  // recomputed from its anchor when the backward sweep enters it (one extra forward pass in all,
  // 2 + channels/s + s matrices).
  size_t stride = static_cast<size_t>(g_checkpoint_stride);
  if (stride == 0) {
    const unsigned __int128 all = static_cast<unsigned __int128>(NN) * sizeof(C) * (2 + n_channels);
    stride = all <= available_bytes() ? 1 : std::max<size_t>(1, static_cast<size_t>(std::ceil(std::sqrt(double(n_channels)))));
  }
  const size_t copies = 2 + (n_channels + stride - 1) / stride + (stride > 1 ? stride : 0);
  check_density_matrix_fits(n, DType::Complex128, "quantum: density-matrix gradient", copies);
  std::vector<C> rho(NN), lam(lambda, lambda + NN);
  std::vector<std::vector<C>> anchors, segment;
  if (initial) {
    std::copy(initial, initial + NN, rho.begin());
  } else {
    std::fill(rho.begin(), rho.end(), C(0));
    rho[0] = 1;
  }
  for (size_t k = 0, c = 0; k < gates.size(); ++k) {
    if (is_channel_opcode(gates[k].op) && c++ % stride == 0) anchors.push_back(rho);
    apply_gate_or_channel(rho.data(), n, gates[k], params, constants, false);
  }
  size_t channel = n_channels;
  // From |0><0| every rho_k is Hermitian, and only the Hermitian part of lambda pairs with a
  // Hermitian rho (Re<A, rho> = 0 for A^+ = -A); a given initial matrix may be anything.
  const bool hermitian = initial == nullptr;
  if (hermitian) kernels::hermitize(lam.data(), n);
  const int n2 = 2 * n;
  for (size_t k = gates.size(); k-- > 0;) {
    const Gate& g = gates[k];
    if (is_channel_opcode(g.op)) {
      // E = Re<lam_k, S rho_{k-1}> + ..., so dE/dp = Re<lam_k, dS/dp rho_{k-1}>.
      --channel;
      if (segment.empty()) {  // entering a segment: rebuild rho before each of its channels
        const size_t c0 = channel - channel % stride;
        std::vector<C> r = std::move(anchors[c0 / stride]);
        for (size_t j = c0; j < channel; ++j) {
          segment.push_back(r);
          for (size_t gk = channel_gate[j]; gk < channel_gate[j + 1]; ++gk)
            apply_gate_or_channel(r.data(), n, gates[gk], params, constants, false);
        }
        segment.push_back(std::move(r));
      }
      rho = std::move(segment.back());
      segment.pop_back();
      const std::vector<int> bits = kernels::superop_bits(g.qubits, n);
      for (size_t j = 0; j < g.slots.size(); ++j) {
        if (g.slots[j] < 0) continue;
        const std::vector<C> ds = channel_superop(g, params, constants, static_cast<int>(j));
        const C ip = bits.size() == 2 ? kernels::inner_2q(lam.data(), rho.data(), n2, bits[0], bits[1], ds.data(), 0)
                                      : kernels::inner_kq(lam.data(), rho.data(), n2, bits, ds.data());
        grad[g.slots[j]] += ip.real();
      }
      apply_gate_or_channel(lam.data(), n, g, params, constants, true);
      continue;
    }
    // rho_k = U rho_{k-1} U^+, so d rho_k = G rho_k + rho_k G^+ with G = dU U^+ (controls carried
    // by cmask), and dE = 2 Re<lam_k, G rho_k> for a Hermitian lam_k. G acts on the row bits.
    bool any = false;
    for (int64_t s : g.slots) any = any || s >= 0;
    if (any) {
      const GateMatrix u = gate_matrix(g, params, constants);
      const std::vector<C> ud = adjoint_matrix(u.m);
      const size_t dim = size_t(1) << u.targets.size();
      SAMPAN_CHECK(dim <= 4, ValueError, "quantum: parameterised gates act on 1 or 2 target qubits");
      for (size_t j = 0; j < g.slots.size(); ++j) {
        if (g.slots[j] < 0) continue;
        const GateMatrix du = gate_matrix(g, params, constants, static_cast<int>(j));
        std::vector<C> G(dim * dim);
        for (size_t r = 0; r < dim; ++r)
          for (size_t c = 0; c < dim; ++c)
            for (size_t m = 0; m < dim; ++m) G[r * dim + c] += du.m[r * dim + m] * ud[m * dim + c];
        const uint64_t cm = u.cmask << n;
        const C ip = dim == 2 ? kernels::inner_1q(lam.data(), rho.data(), n2, u.targets[0] + n, G.data(), cm)
                              : kernels::inner_2q(lam.data(), rho.data(), n2, u.targets[0] + n, u.targets[1] + n,
                                                  G.data(), cm);
        if (hermitian) {
          grad[g.slots[j]] += 2.0 * ip.real();
        } else {
          // Re<lam, rho G^+> separately: (rho G^+)[r, c] = sum_m rho[r, m] conj(G[c, m]), conj(G)
          // on the column bits.
          std::vector<C> Gc(G.size());
          for (size_t i = 0; i < G.size(); ++i) Gc[i] = std::conj(G[i]);
          const C ic = dim == 2 ? kernels::inner_1q(lam.data(), rho.data(), n2, u.targets[0], Gc.data(), u.cmask)
                                : kernels::inner_2q(lam.data(), rho.data(), n2, u.targets[0], u.targets[1], Gc.data(),
                                                    u.cmask);
          grad[g.slots[j]] += ip.real() + ic.real();
        }
      }
    }
    apply_gate_or_channel(rho.data(), n, g, params, constants, true);
    apply_gate_or_channel(lam.data(), n, g, params, constants, true);
  }
  if (grad_initial) std::copy(lam.begin(), lam.end(), grad_initial);
}

}  // namespace sampan::quantum
