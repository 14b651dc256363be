// sampan quantum: circuit decoding, forward simulation, expectation and the adjoint gradient.
#include "sampan/quantum/circuit.h"

#include <array>
#include <cmath>
#include <limits>

#include "adjoint_sweep.h"
#include "cache_blocking.h"
#include "fusion.h"
#include "gate_apply.h"
#include "kernels/gates.h"
#include "sampan/error.h"
#include "sampan/quantum/channels.h"
#include "sampan/quantum/state_vector.h"

namespace sampan::quantum {

namespace {

using C = complex128;
const C kI(0, 1);

using M2 = std::array<C, 4>;
using M4 = std::array<C, 16>;
const M2 kPx = {0, 1, 1, 0}, kPy = {0, -kI, kI, 0}, kPz = {1, 0, 0, -1};

M4 kron2(const M2& hi, const M2& lo) {  // hi acts on local bit 1, lo on local bit 0
  M4 r{};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) r[4 * i + j] = hi[2 * (i >> 1) + (j >> 1)] * lo[2 * (i & 1) + (j & 1)];
  return r;
}

// exp(-i theta/2 P) = cos(theta/2) I - i sin(theta/2) P, and its derivative in theta.
template <size_t D>
std::vector<C> pauli_rotation(const std::array<C, D * D>& p, double theta, bool derivative) {
  const double c = std::cos(theta / 2), s = std::sin(theta / 2);
  std::vector<C> r(D * D);
  for (size_t i = 0; i < D * D; ++i) {
    const C id = (i % (D + 1) == 0) ? 1.0 : 0.0;
    r[i] = derivative ? (-0.5 * s) * id - kI * (0.5 * c) * p[i] : c * id - kI * s * p[i];
  }
  return r;
}

double angle(const Gate& g, int j, const double* params, const std::vector<double>& constants) {
  const int64_t s = g.slots[j];
  return s >= 0 ? params[s] : constants[static_cast<size_t>(-s - 1)];
}

}  // namespace

Resolved resolve(const Gate& g, const double* params, const std::vector<double>& constants, int derivative) {
  Resolved r;
  const auto& q = g.qubits;
  const bool d = derivative >= 0;
  auto th = [&](int j) { return angle(g, j, params, constants); };
  // One target (the last qubit) under the gate's controls (the first n_controls qubits, gate_table).
  auto one = [&](std::vector<C> m) {
    const size_t n_controls = static_cast<size_t>(gate_spec(g.op).n_controls);
    for (size_t i = 0; i < n_controls; ++i) r.cmask |= uint64_t(1) << q[i];
    r.targets = {q.back()};
    r.m = std::move(m);
  };
  switch (g.op) {
    case kH: { const double h = M_SQRT1_2; one({h, h, h, -h}); r.fast = true; break; }
    case kX: one({0, 1, 1, 0}); r.fast = true; break;
    case kY: one({0, -kI, kI, 0}); r.fast = true; break;
    case kZ: one({1, 0, 0, -1}); r.fast = true; break;
    case kS: one({1, 0, 0, kI}); r.fast = true; break;
    case kSdg: one({1, 0, 0, -kI}); r.fast = true; break;
    case kT: one({1, 0, 0, std::polar(1.0, M_PI / 4)}); r.fast = true; break;
    case kTdg: one({1, 0, 0, std::polar(1.0, -M_PI / 4)}); r.fast = true; break;
    case kCNOT: one({0, 1, 1, 0}); r.fast = true; break;
    case kCY: one({0, -kI, kI, 0}); r.fast = true; break;
    case kCZ: one({1, 0, 0, -1}); r.fast = true; break;
    case kCCX: one({0, 1, 1, 0}); r.fast = true; break;
    case kSWAP:
      r.targets = {q[0], q[1]};
      r.m = {1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1};
      r.fast = true;
      break;
    case kP: case kCP: {
      const C e = std::polar(1.0, th(0));
      one(d ? std::vector<C>{0, 0, 0, kI * e} : std::vector<C>{1, 0, 0, e});
      break;
    }
    case kRX: case kCRX: one(pauli_rotation<2>(kPx, th(0), d)); break;
    case kRY: case kCRY: one(pauli_rotation<2>(kPy, th(0), d)); break;
    case kRZ: case kCRZ: one(pauli_rotation<2>(kPz, th(0), d)); break;
    case kU3: case kCU: {
      const double t = th(0), phi = th(1), lam = th(2), c = std::cos(t / 2), s = std::sin(t / 2);
      const C ep = std::polar(1.0, phi), el = std::polar(1.0, lam), epl = std::polar(1.0, phi + lam);
      std::vector<C> m;
      if (!d) m = {c, -el * s, ep * s, epl * c};
      else if (derivative == 0) m = {-0.5 * s, -el * (0.5 * c), ep * (0.5 * c), -epl * (0.5 * s)};
      else if (derivative == 1) m = {0, 0, kI * ep * s, kI * epl * c};
      else m = {0, -kI * el * s, 0, kI * epl * c};
      one(std::move(m));
      break;
    }
    case kMS:  // exp(+i pi/4 XX) = RXX(-pi/2): the convention of Paddle Quantum's ms gate
      r.targets = {q[0], q[1]};
      r.m = pauli_rotation<4>(kron2(kPx, kPx), -M_PI / 2, false);
      break;
    case kCSWAP:
      r.cmask = uint64_t(1) << q[0];
      r.targets = {q[1], q[2]};
      r.m = {1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1};
      r.fast = true;
      break;
    case kUnitary: {
      for (int i = 0; i < g.n_controls; ++i) r.cmask |= uint64_t(1) << q[static_cast<size_t>(i)];
      r.targets.assign(q.begin() + g.n_controls, q.end());
      const size_t dim = size_t(1) << r.targets.size();
      const double* m = constants.data() + g.matrix_offset;
      r.m.resize(dim * dim);
      for (size_t i = 0; i < dim * dim; ++i) r.m[i] = C(m[2 * i], m[2 * i + 1]);
      break;
    }
    case kRXX: case kRYY: case kRZZ: {
      const M2& p = g.op == kRXX ? kPx : g.op == kRYY ? kPy : kPz;
      r.targets = {q[0], q[1]};
      r.m = pauli_rotation<4>(kron2(p, p), th(0), d);
      break;
    }
    default: SAMPAN_THROW(ValueError, "quantum: unknown opcode ", g.op);
  }
  return r;
}

std::vector<C> adjoint_matrix(const std::vector<C>& m) {
  size_t dim = 1;
  while (dim * dim < m.size()) dim *= 2;
  std::vector<C> r(m.size());
  for (size_t i = 0; i < dim; ++i)
    for (size_t j = 0; j < dim; ++j) r[i * dim + j] = std::conj(m[j * dim + i]);
  return r;
}

C inner_on_cpu(const C* lam, const C* phi, int n, const Resolved& d) {
  return d.targets.size() == 1 ? kernels::inner_1q(lam, phi, n, d.targets[0], d.m.data(), d.cmask)
                               : kernels::inner_2q(lam, phi, n, d.targets[0], d.targets[1], d.m.data(), d.cmask);
}

void apply(C* a, int n, const Gate& g, const Resolved& r, bool adjoint) {
  const int t = r.targets.back();
  if (r.fast) {
    switch (g.op) {
      case kH: kernels::apply_h(a, n, t); return;
      case kX: case kCNOT: case kCCX: kernels::apply_x(a, n, t, r.cmask); return;
      case kZ: case kCZ: kernels::apply_z(a, n, t, r.cmask); return;
      case kS: case kSdg: case kT: case kTdg:
        kernels::apply_phase(a, n, t, adjoint ? std::conj(r.m[3]) : r.m[3]);
        return;
      case kSWAP: case kCSWAP: kernels::apply_swap(a, n, r.targets[0], r.targets[1], r.cmask); return;
      default: break;  // Y, CY: the dense path (self-inverse)
    }
  }
  // No copy of the matrix unless it is conjugated: the cache-blocked executor calls this once
  // per unit and block.
  const size_t dim = size_t(1) << r.targets.size();
  const std::vector<C> dagger = adjoint ? adjoint_matrix(r.m) : std::vector<C>();
  const C* m = adjoint ? dagger.data() : r.m.data();
  if (dim == 2) kernels::apply_1q(a, n, t, m, r.cmask);
  else if (dim == 4) kernels::apply_2q(a, n, r.targets[0], r.targets[1], m, r.cmask);
  else kernels::apply_kq(a, n, r.targets, m, r.cmask);
}

C pauli_term_phase(const PauliTerm& t) { return std::pow(kI, t.n_y) * t.coeff; }

double pauli_term_value(const PauliTerm& t, C folded) { return t.coeff * (std::pow(kI, t.n_y) * folded).real(); }

namespace {

// out = H psi.
void apply_hamiltonian(const C* psi, const std::vector<PauliTerm>& h, int n, C* out) {
  const int64_t N = int64_t(1) << n;
  for (int64_t i = 0; i < N; ++i) out[i] = 0;
  for (const auto& term : h) {
    const C phase = pauli_term_phase(term);
#pragma omp parallel for if (uint64_t(N) >= kernels::kParallelAmps) schedule(static)
    for (int64_t i = 0; i < N; ++i) kernels::add_pauli_image(psi, out, static_cast<uint64_t>(i), term.xmask, term.zmask, phase);
  }
}

}  // namespace

const GateInfo& gate_info(int64_t opcode) {
  SAMPAN_CHECK(opcode >= 0 && opcode < kNumOpcodes, ValueError, "quantum: unknown gate opcode ", opcode,
               " (valid: 0 to ", kNumOpcodes - 1, ")");
  return gate_spec(opcode);
}

double unitarity_deviation(const complex128* m, size_t dim) {
  // NaN would slip through std::max and a '<=' test; a non-finite entry is never unitary.
  for (size_t i = 0; i < dim * dim; ++i)
    if (!std::isfinite(m[i].real()) || !std::isfinite(m[i].imag())) return std::numeric_limits<double>::infinity();
  double dev = 0;
  for (size_t r = 0; r < dim; ++r)
    for (size_t c = 0; c < dim; ++c) {
      C acc = r == c ? -1.0 : 0.0;
      for (size_t j = 0; j < dim; ++j) acc += std::conj(m[j * dim + r]) * m[j * dim + c];
      dev = std::max(dev, std::abs(acc));
    }
  return dev;
}

// Decodes [UNITARY, n_controls, k, controls..., targets..., offset] starting at enc[i] and checks
// that the matrix is unitary; returns the number of entries consumed.
static size_t decode_unitary(const std::vector<int64_t>& enc, size_t i, const std::vector<double>& constants, int64_t n,
                             const std::string& where, Gate& g) {
  SAMPAN_CHECK(i + 3 <= enc.size(), ValueError, where, " needs [opcode, n_controls, k, ...] but only ",
               enc.size() - i, " entries remain");
  const int64_t nc = enc[i + 1], k = enc[i + 2];
  SAMPAN_CHECK(k >= 1 && k <= 10, ValueError, where, ": expected 1 to 10 target qubits, got ", k,
               " (k (target qubits) must be in [1, 10])");
  SAMPAN_CHECK(nc >= 0 && nc <= n, ValueError, where, ": n_controls must be in [0, ", n, "], got ", nc);
  const size_t need = 3 + static_cast<size_t>(nc + k) + 1;
  SAMPAN_CHECK(i + need <= enc.size(), ValueError, where, " needs ", need, " circuit entries but only ",
               enc.size() - i, " remain");
  std::vector<int64_t> qs(enc.begin() + static_cast<long>(i) + 3, enc.begin() + static_cast<long>(i + need) - 1);
  check_qubits(qs, n, where.c_str());
  const int64_t off = enc[i + need - 1];
  const size_t dim = size_t(1) << k, count = 2 * dim * dim;
  SAMPAN_CHECK(off >= 0 && static_cast<size_t>(off) + count <= constants.size(), IndexError, where,
               " reads its ", dim, "x", dim, " matrix from constants[", off, ", ", off + int64_t(count),
               ") but constants has ", constants.size(), " entries");
  const double dev = unitarity_deviation(reinterpret_cast<const C*>(constants.data() + off), dim);
  SAMPAN_CHECK(dev <= 1e-10, ValueError, where, ": the ", dim, "x", dim,
               " matrix is not unitary: max |U^+ U - I| = ", dev, " (tolerance 1e-10",
               std::isfinite(dev) ? ")" : "; the matrix has non-finite entries)");
  g.qubits.assign(qs.begin(), qs.end());
  g.n_controls = static_cast<int>(nc);
  g.matrix_offset = off;
  return need;
}

size_t decode_gate(const std::vector<int64_t>& enc, size_t i, int64_t n_params, const std::vector<double>& constants,
                   int64_t n, const std::string& where, Gate& g) {
  g = Gate{enc[i], {}, {}};
  const GateSpec& spec = gate_spec(enc[i]);
  if (spec.channel) return decode_channel(enc, i, n_params, constants, n, where, g);
  if (spec.layout == Layout::kUnitary) return decode_unitary(enc, i, constants, n, where, g);
  const int64_t n_constants = static_cast<int64_t>(constants.size());
  const size_t need = 1 + static_cast<size_t>(spec.n_qubits + spec.n_params);
  SAMPAN_CHECK(i + need <= enc.size(), ValueError, where, " needs ", need, " circuit entries but only ",
               enc.size() - i, " remain");
  std::vector<int64_t> qs(enc.begin() + static_cast<long>(i) + 1, enc.begin() + static_cast<long>(i) + 1 + spec.n_qubits);
  check_qubits(qs, n, where.c_str());
  g.qubits.assign(qs.begin(), qs.end());
  for (int j = 0; j < spec.n_params; ++j) {
    const int64_t s = enc[i + 1 + static_cast<size_t>(spec.n_qubits + j)];
    if (s >= 0)
      SAMPAN_CHECK(n_params < 0 || s < n_params, IndexError, where, " reads params[", s, "] but params has ", n_params,
                   " entries");
    else {
      SAMPAN_CHECK(-s - 1 < n_constants, IndexError, where, " reads constants[", -s - 1, "] but constants has ",
                   n_constants, " entries");
      SAMPAN_CHECK(std::isfinite(constants[static_cast<size_t>(-s - 1)]), ValueError, where, ": its fixed angle constants[",
                   -s - 1, "] = ", constants[static_cast<size_t>(-s - 1)], " is not finite");
    }
    g.slots.push_back(s);
  }
  return need;
}

std::vector<Gate> decode_circuit(const std::vector<int64_t>& enc, int64_t n_params, const std::vector<double>& constants,
                                 int64_t n, const char* who, bool allow_channels) {
  std::vector<Gate> gates;
  size_t i = 0;
  while (i < enc.size()) {
    const std::string where = std::string(who) + ": gate " + std::to_string(gates.size());
    const GateSpec& spec = is_channel_opcode(enc[i]) ? gate_spec(enc[i]) : gate_info(enc[i]);
    SAMPAN_CHECK(!spec.channel || allow_channels, ValueError, where, " is the noise channel ", spec.name,
                 ": state-vector simulation cannot apply channels; use the density-matrix ops "
                 "(quantum::density_matrix, quantum::dm_expectation)");
    Gate g;
    i += decode_gate(enc, i, n_params, constants, n, where + " (" + spec.name + ")", g);
    gates.push_back(std::move(g));
  }
  return gates;
}

std::vector<PauliTerm> decode_hamiltonian(const std::vector<int64_t>& paulis, const std::vector<double>& coeffs,
                                          int64_t n, const char* who) {
  SAMPAN_CHECK(paulis.size() == coeffs.size() * static_cast<size_t>(n), ValueError, who,
               ": paulis must hold n_qubits codes per term (", coeffs.size(), " terms x ", n, " qubits = ",
               coeffs.size() * static_cast<size_t>(n), "), got ", paulis.size());
  std::vector<PauliTerm> h(coeffs.size());
  for (size_t t = 0; t < coeffs.size(); ++t) {
    h[t].coeff = coeffs[t];
    for (int64_t q = 0; q < n; ++q) {
      const int64_t p = paulis[t * static_cast<size_t>(n) + static_cast<size_t>(q)];
      SAMPAN_CHECK(p >= 0 && p <= 3, ValueError, who, ": Pauli code ", p, " in term ", t, " at qubit ", q,
                   " (expected 0 = I, 1 = X, 2 = Y, 3 = Z)");
      const uint64_t b = uint64_t(1) << q;
      if (p == 1 || p == 2) h[t].xmask |= b;
      if (p == 3 || p == 2) h[t].zmask |= b;
      if (p == 2) ++h[t].n_y;
    }
  }
  return h;
}

void simulate(const double* params, const std::vector<Gate>& gates, const std::vector<double>& constants,
              int n, C* out) {
  const int64_t N = int64_t(1) << n;
  for (int64_t i = 0; i < N; ++i) out[i] = 0;
  out[0] = 1;
  if (use_cache_blocking(n)) {
    apply_blocked(out, n, gates, params, constants, fusion_enabled() ? fusion_max_qubits() : 0, cache_block_qubits(),
                  /*zero_state=*/true);
    return;
  }
  if (fusion_enabled()) {
    apply_fused(out, n, gates, params, constants, fusion_max_qubits());
    return;
  }
  for (const auto& g : gates) apply(out, n, g, resolve(g, params, constants), false);
}

double expectation_value(const C* psi, const std::vector<PauliTerm>& h, int n) {
  const int64_t N = int64_t(1) << n;
  double e = 0;
  for (const auto& term : h) {
    // <psi|P|psi> = sum_i conj(psi[i ^ x]) i^{ny} (-1)^{|i & z|} psi[i]
    double re = 0, im = 0;
#pragma omp parallel for reduction(+ : re, im) if (uint64_t(N) >= kernels::kParallelAmps) schedule(static)
    for (int64_t i = 0; i < N; ++i) {
      const C v = kernels::pauli_element(psi, static_cast<uint64_t>(i), term.xmask, term.zmask);
      re += v.real();
      im += v.imag();
    }
    e += pauli_term_value(term, C(re, im));
  }
  return e;
}

void adjoint_gradient(const double* params, int64_t n_params, const std::vector<Gate>& gates,
                      const std::vector<double>& constants, const std::vector<PauliTerm>& h, int n, double* grad) {
  const size_t N = size_t(1) << n;
  for (int64_t p = 0; p < n_params; ++p) grad[p] = 0;
  std::vector<C> phi(N), lam(N);
  simulate(params, gates, constants, n, phi.data());
  apply_hamiltonian(phi.data(), h, n, lam.data());
  // d<H>/dtheta = 2 Re <H psi| dU phi> with the states walked back gate by gate.
  adjoint_sweep(phi.data(), lam.data(), params, gates, constants, 2.0, grad,
                [n](C* a, const Gate& g, const Resolved& r, bool adj) { apply(a, n, g, r, adj); },
                [n](const C* l, const C* p, const Resolved& d) { return inner_on_cpu(l, p, n, d); });
}

GateMatrix gate_matrix(const Gate& g, const double* params, const std::vector<double>& constants, int derivative) {
  SAMPAN_CHECK(!is_channel_opcode(g.op), ValueError, "quantum: ", channel_info(g.op).name,
               " is a noise channel, not a gate: it has no gate matrix");
  Resolved r = resolve(g, params, constants, derivative);
  return GateMatrix{std::move(r.targets), r.cmask, std::move(r.m)};
}

}  // namespace sampan::quantum
