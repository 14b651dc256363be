// sampan quantum: noise channels (superoperators, decoding, validation). Conventions in channels.h.
#include "sampan/quantum/channels.h"

#include <cmath>
#include <limits>

#include "sampan/error.h"
#include "sampan/quantum/state_vector.h"

namespace sampan::quantum {

namespace {

using C = complex128;

// A forward-mode dual number: the named channels' superoperators are real smooth functions of
// their parameters, so evaluating them on duals gives the exact derivative in one parameter.
struct Dual {
  double v = 0, d = 0;
  Dual() = default;
  Dual(double value, double deriv = 0) : v(value), d(deriv) {}  // NOLINT: constants promote
};
Dual operator+(Dual a, Dual b) { return {a.v + b.v, a.d + b.d}; }
Dual operator-(Dual a, Dual b) { return {a.v - b.v, a.d - b.d}; }
Dual operator*(Dual a, Dual b) { return {a.v * b.v, a.d * b.v + a.v * b.d}; }
Dual operator/(Dual a, Dual b) { return {a.v / b.v, (a.d * b.v - a.v * b.d) / (b.v * b.v)}; }
Dual sqrt(Dual a) {
  const double s = std::sqrt(a.v);
  return {s, a.d == 0 ? 0.0 : a.d / (2 * s)};  // d sqrt(x) = dx / (2 sqrt x); no 0/0 when dx = 0
}
Dual exp(Dual a) {
  const double e = std::exp(a.v);
  return {e, a.d * e};
}

// A real superoperator being built: dim = 4^k entries per side.
struct RealSuperop {
  int k;
  size_t dim;
  std::vector<Dual> s;
  explicit RealSuperop(int k_) : k(k_), dim(size_t(1) << (2 * k_)), s(dim * dim) {}
  Dual& at(size_t out, size_t in) { return s[out * dim + in]; }
  // Adds w * (P (x) conj P) for the Pauli string with bit masks x, z over the k local qubits:
  // P[r ^ x, r] = i^{n_y} (-1)^{|r & z|}, so P[r', r] conj(P[c', c]) = (-1)^{|r & z| + |c & z|}.
  void add_pauli(uint64_t x, uint64_t z, Dual w) {
    const uint64_t d = uint64_t(1) << k;
    for (uint64_t r = 0; r < d; ++r)
      for (uint64_t c = 0; c < d; ++c) {
        const double sign = ((__builtin_popcountll(r & z) + __builtin_popcountll(c & z)) & 1) ? -1.0 : 1.0;
        at(static_cast<size_t>((c ^ x) + d * (r ^ x)), static_cast<size_t>(c + d * r)) =
            at(static_cast<size_t>((c ^ x) + d * (r ^ x)), static_cast<size_t>(c + d * r)) + w * Dual(sign);
      }
  }
};

// Single-qubit local indices: rho00 -> 0, rho01 -> 1, rho10 -> 2, rho11 -> 3.
enum : size_t { k00 = 0, k01 = 1, k10 = 2, k11 = 3 };
constexpr uint64_t kXm = 1, kZm = 1;  // masks of X (x bit) and Z (z bit) on one qubit

void pauli_channel(RealSuperop& s, Dual px, Dual py, Dual pz) {
  s.add_pauli(0, 0, Dual(1) - px - py - pz);
  s.add_pauli(kXm, 0, px);
  s.add_pauli(kXm, kZm, py);
  s.add_pauli(0, kZm, pz);
}

std::string channel_where(const Gate& g) {
  return std::string("quantum: channel ") + channel_info(g.op).name;
}

// Checks a named channel's parameter values (ValueError naming the channel, or `where`, and the value).
void check_named_params(const Gate& g, const double* v, const std::string& where = "") {
  const std::string who = where.empty() ? channel_where(g) : where;
  auto prob = [&](double p, const char* what) {
    SAMPAN_CHECK(p >= -1e-12 && p <= 1 + 1e-12, ValueError, who, ": ", what, " must be in [0, 1], got ", p);
  };
  switch (g.op) {
    case kBitFlip: case kPhaseFlip: case kBitPhaseFlip: case kDepolarizing: case kGeneralizedDepolarizing:
      prob(v[0], "the probability p"); break;
    case kAmplitudeDamping: case kPhaseDamping: prob(v[0], "gamma"); break;
    case kGeneralizedAmplitudeDamping: prob(v[0], "gamma"); prob(v[1], "the probability p"); break;
    case kPauliChannel:
      prob(v[0], "px"); prob(v[1], "py"); prob(v[2], "pz");
      SAMPAN_CHECK(v[0] + v[1] + v[2] <= 1 + 1e-12, ValueError, who, ": px + py + pz must be <= 1, got ",
                   v[0] + v[1] + v[2]);
      break;
    case kReset:
      prob(v[0], "p0"); prob(v[1], "p1");
      SAMPAN_CHECK(v[0] + v[1] <= 1 + 1e-12, ValueError, who, ": p0 + p1 must be <= 1, got ", v[0] + v[1]);
      break;
    case kThermalRelaxation:
      SAMPAN_CHECK(v[0] > 0 && v[1] > 0, ValueError, who, ": T1 and T2 must be > 0, got T1 = ", v[0], ", T2 = ", v[1]);
      SAMPAN_CHECK(v[2] >= 0, ValueError, who, ": the time must be >= 0, got ", v[2]);
      // Complete positivity of the relaxation map needs e^{-t/T2} <= e^{-t/(2 T1)}.
      SAMPAN_CHECK(v[1] <= 2 * v[0] * (1 + 1e-12), ValueError, who, ": T2 must be <= 2 T1 (physical), got T1 = ",
                   v[0], ", T2 = ", v[1]);
      break;
    default: break;
  }
}

// The superoperator of a named channel with parameter values v (derivative: index or -1).
std::vector<C> named_superop(const Gate& g, const std::vector<double>& values, int derivative) {
  const int k = static_cast<int>(g.qubits.size());
  std::vector<Dual> p(values.size());
  for (size_t j = 0; j < values.size(); ++j) p[j] = Dual(values[j], static_cast<int>(j) == derivative ? 1.0 : 0.0);
  RealSuperop s(k);
  switch (g.op) {
    case kBitFlip: pauli_channel(s, p[0], 0, 0); break;
    case kPhaseFlip: pauli_channel(s, 0, 0, p[0]); break;
    case kBitPhaseFlip: pauli_channel(s, 0, p[0], 0); break;
    case kDepolarizing: pauli_channel(s, p[0] / 4, p[0] / 4, p[0] / 4); break;
    case kPauliChannel: pauli_channel(s, p[0], p[1], p[2]); break;
    case kGeneralizedDepolarizing: {
      // (1 - p) rho + p / 4^k sum over all 4^k Pauli strings sigma rho sigma.
      const uint64_t d = uint64_t(1) << k;
      const Dual w = p[0] / Dual(static_cast<double>(d * d));
      s.add_pauli(0, 0, Dual(1) - p[0]);
      for (uint64_t x = 0; x < d; ++x)
        for (uint64_t z = 0; z < d; ++z) s.add_pauli(x, z, w);
      break;
    }
    case kAmplitudeDamping: {
      const Dual g1 = p[0], c = sqrt(Dual(1) - g1);
      s.at(k00, k00) = 1; s.at(k00, k11) = g1; s.at(k11, k11) = Dual(1) - g1;
      s.at(k01, k01) = c; s.at(k10, k10) = c;
      break;
    }
    case kGeneralizedAmplitudeDamping: {
      const Dual g1 = p[0], q = p[1], c = sqrt(Dual(1) - g1);
      s.at(k00, k00) = q + (Dual(1) - q) * (Dual(1) - g1);
      s.at(k00, k11) = q * g1;
      s.at(k11, k11) = q * (Dual(1) - g1) + (Dual(1) - q);
      s.at(k11, k00) = (Dual(1) - q) * g1;
      s.at(k01, k01) = c; s.at(k10, k10) = c;
      break;
    }
    case kPhaseDamping: {
      const Dual c = sqrt(Dual(1) - p[0]);
      s.at(k00, k00) = 1; s.at(k11, k11) = 1; s.at(k01, k01) = c; s.at(k10, k10) = c;
      break;
    }
    case kReset:
      s.add_pauli(0, 0, Dual(1) - p[0] - p[1]);
      s.at(k00, k00) = s.at(k00, k00) + p[0]; s.at(k00, k11) = s.at(k00, k11) + p[0];
      s.at(k11, k00) = s.at(k11, k00) + p[1]; s.at(k11, k11) = s.at(k11, k11) + p[1];
      break;
    case kThermalRelaxation: {
      const Dual e1 = exp(Dual(0) - p[2] / p[0]), e2 = exp(Dual(0) - p[2] / p[1]);
      s.at(k00, k00) = 1; s.at(k00, k11) = Dual(1) - e1; s.at(k11, k11) = e1;
      s.at(k01, k01) = e2; s.at(k10, k10) = e2;
      break;
    }
    default: SAMPAN_THROW(ValueError, "quantum: opcode ", g.op, " is not a named channel");
  }
  std::vector<C> out(s.s.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = derivative >= 0 ? s.s[i].d : s.s[i].v;
  return out;
}

std::vector<C> read_matrix(const std::vector<double>& constants, size_t offset, size_t dim) {
  std::vector<C> m(dim * dim);
  for (size_t i = 0; i < dim * dim; ++i) m[i] = C(constants[offset + 2 * i], constants[offset + 2 * i + 1]);
  return m;
}

// The superoperator of a matrix channel (constants only; decode_channel validated it).
std::vector<C> matrix_superop(const Gate& g, const std::vector<double>& constants) {
  const int k = static_cast<int>(g.qubits.size());
  const size_t d = size_t(1) << k, off = static_cast<size_t>(g.matrix_offset);
  if (g.op == kChoi) return choi_to_superop(read_matrix(constants, off, d * d), k);
  std::vector<std::vector<C>> ops;
  const size_t m = static_cast<size_t>(g.n_terms);
  const size_t mats = g.op == kMixedUnitary ? off + m : off;
  for (size_t t = 0; t < m; ++t) {
    ops.push_back(read_matrix(constants, mats + t * 2 * d * d, d));
    if (g.op == kMixedUnitary)
      for (auto& x : ops.back()) x *= std::sqrt(std::max(0.0, constants[off + t]));
  }
  return kraus_to_superop(ops, k);
}

std::vector<double> param_values(const Gate& g, const double* params, const std::vector<double>& constants) {
  std::vector<double> v;
  for (int64_t s : g.slots) v.push_back(s >= 0 ? params[s] : constants[static_cast<size_t>(-s - 1)]);
  return v;
}

}  // namespace

const ChannelInfo& channel_info(int64_t op) {
  SAMPAN_CHECK(is_channel_opcode(op), ValueError, "quantum: unknown channel opcode ", op, " (valid: ", int64_t(kBitFlip),
               " to ", int64_t(kEndChannelOpcodes) - 1, ")");
  return gate_spec(op);
}

std::vector<C> kraus_to_superop(const std::vector<std::vector<C>>& kraus, int k) {
  const size_t d = size_t(1) << k, D = d * d;
  std::vector<C> s(D * D);
  for (const auto& K : kraus)
    for (size_t r1 = 0; r1 < d; ++r1)
      for (size_t c1 = 0; c1 < d; ++c1)
        for (size_t r = 0; r < d; ++r)
          for (size_t c = 0; c < d; ++c) s[(c1 + d * r1) * D + c + d * r] += K[r1 * d + r] * std::conj(K[c1 * d + c]);
  return s;
}

std::vector<C> choi_to_superop(const std::vector<C>& J, int k) {
  const size_t d = size_t(1) << k, D = d * d;
  std::vector<C> s(D * D);
  for (size_t r1 = 0; r1 < d; ++r1)
    for (size_t c1 = 0; c1 < d; ++c1)
      for (size_t r = 0; r < d; ++r)
        for (size_t c = 0; c < d; ++c) s[(c1 + d * r1) * D + c + d * r] = J[(r * d + r1) * D + c * d + c1];
  return s;
}

double trace_preservation_error(const std::vector<C>& s, int k) {
  const size_t d = size_t(1) << k, D = d * d;
  double err = 0;
  for (size_t r = 0; r < d; ++r)
    for (size_t c = 0; c < d; ++c) {
      C t = r == c ? -1.0 : 0.0;
      for (size_t r1 = 0; r1 < d; ++r1) t += s[(r1 + d * r1) * D + c + d * r];
      // A NaN would slip through std::max and the '<=' test: non-finite is never trace preserving.
      if (!std::isfinite(t.real()) || !std::isfinite(t.imag())) return std::numeric_limits<double>::infinity();
      err = std::max(err, std::abs(t));
    }
  return err;
}

void check_trace_preserving(const std::vector<C>& s, int k, const std::string& who) {
  const double err = trace_preservation_error(s, k);
  SAMPAN_CHECK(err <= 1e-10, ValueError, who, ": the channel is not trace preserving: max |sum_k K_k^+ K_k - I| = ",
               err, " (tolerance 1e-10)");
}

void check_choi_positive(const std::vector<C>& J, int k, const std::string& who) {
  const size_t D = size_t(1) << (2 * k);
  double herm = 0;
  for (size_t i = 0; i < D; ++i)
    for (size_t j = 0; j < D; ++j) herm = std::max(herm, std::abs(J[i * D + j] - std::conj(J[j * D + i])));
  SAMPAN_CHECK(herm <= 1e-10, ValueError, who, ": the Choi matrix is not Hermitian: max |J - J^+| = ", herm,
               " (tolerance 1e-10)");
  // Cholesky of J + eps I: succeeds iff every eigenvalue of J exceeds -eps (completely positive).
  std::vector<C> L(D * D);
  for (size_t j = 0; j < D; ++j) {
    C diag = J[j * D + j] + 1e-10;
    for (size_t m = 0; m < j; ++m) diag -= L[j * D + m] * std::conj(L[j * D + m]);
    SAMPAN_CHECK(diag.real() > 0, ValueError, who, ": the Choi matrix is not positive semidefinite (the map is not "
                 "completely positive): Cholesky pivot ", j, " is ", diag.real());
    const double ljj = std::sqrt(diag.real());
    L[j * D + j] = ljj;
    for (size_t i = j + 1; i < D; ++i) {
      C v = J[i * D + j];
      for (size_t m = 0; m < j; ++m) v -= L[i * D + m] * std::conj(L[j * D + m]);
      L[i * D + j] = v / ljj;
    }
  }
}

size_t decode_channel(const std::vector<int64_t>& enc, size_t i, int64_t n_params, const std::vector<double>& constants,
                      int64_t n, const std::string& where, Gate& g) {
  const ChannelInfo& info = channel_info(enc[i]);
  g.op = enc[i];
  const int64_t n_constants = static_cast<int64_t>(constants.size());
  auto read_slots = [&](size_t at, int count) {
    for (int j = 0; j < count; ++j) {
      const int64_t s = enc[at + static_cast<size_t>(j)];
      if (s >= 0)
        SAMPAN_CHECK(n_params < 0 || s < n_params, IndexError, where, " reads params[", s, "] but params has ", n_params,
                     " entries");
      else
        SAMPAN_CHECK(-s - 1 < n_constants, IndexError, where, " reads constants[", -s - 1, "] but constants has ",
                     n_constants, " entries");
      g.slots.push_back(s);
    }
  };
  auto read_qubits = [&](size_t at, int64_t k) {
    std::vector<int64_t> qs(enc.begin() + static_cast<long>(at), enc.begin() + static_cast<long>(at + static_cast<size_t>(k)));
    check_qubits(qs, n, where.c_str());
    g.qubits.assign(qs.begin(), qs.end());
  };
  size_t used = 0;
  if (info.n_qubits > 0) {
    used = 1 + static_cast<size_t>(info.n_qubits + info.n_params);
    SAMPAN_CHECK(i + used <= enc.size(), ValueError, where, " needs ", used, " circuit entries but only ",
                 enc.size() - i, " remain");
    read_qubits(i + 1, info.n_qubits);
    read_slots(i + 1 + static_cast<size_t>(info.n_qubits), info.n_params);
  } else {
    // [op, k, (m,) qubits..., slot | offset]
    const bool has_m = info.layout == Layout::kMatrixTerms;
    const size_t head = has_m ? 3 : 2;
    SAMPAN_CHECK(i + head <= enc.size(), ValueError, where, " needs at least ", head + 2, " circuit entries but only ",
                 enc.size() - i, " remain");
    const int64_t k = enc[i + 1];
    SAMPAN_CHECK(k >= 1 && k <= 3, ValueError, where, ": acts on 1 to 3 qubits, got ", k, " (k (qubits) must be in [1, 3])");
    int64_t m = 0;
    if (has_m) {
      m = enc[i + 2];
      SAMPAN_CHECK(m >= 1 && m <= 4096, ValueError, where, ": the number of ",
                   g.op == kKraus ? "Kraus operators" : "unitaries", " must be in [1, 4096], got ", m);
    }
    used = head + static_cast<size_t>(k) + 1;
    SAMPAN_CHECK(i + used <= enc.size(), ValueError, where, " needs ", used, " circuit entries but only ", enc.size() - i,
                 " remain");
    read_qubits(i + head, k);
    if (g.op == kGeneralizedDepolarizing) {
      read_slots(i + head + static_cast<size_t>(k), 1);
    } else {
      const int64_t off = enc[i + used - 1];
      const size_t d = size_t(1) << k;
      const size_t count = g.op == kChoi ? 2 * d * d * d * d
                           : g.op == kKraus ? static_cast<size_t>(m) * 2 * d * d
                                            : static_cast<size_t>(m) * (1 + 2 * d * d);
      SAMPAN_CHECK(off >= 0 && static_cast<size_t>(off) + count <= constants.size(), IndexError, where, " reads ",
                   count, " numbers from constants[", off, "...] but constants has ", constants.size(), " entries");
      g.matrix_offset = off;
      g.n_terms = static_cast<int>(m);
      if (g.op == kMixedUnitary) {
        double total = 0;
        for (int64_t t = 0; t < m; ++t) {
          const double p = constants[static_cast<size_t>(off + t)];
          SAMPAN_CHECK(p >= 0, ValueError, where, ": probability ", t, " is negative (", p, ")");
          total += p;
        }
        SAMPAN_CHECK(std::abs(total - 1) <= 1e-10, ValueError, where, ": the probabilities must sum to 1, got ", total);
        for (int64_t t = 0; t < m; ++t) {
          const auto u = read_matrix(constants, static_cast<size_t>(off + m) + static_cast<size_t>(t) * 2 * d * d, d);
          const double dev = unitarity_deviation(u.data(), d);
          SAMPAN_CHECK(dev <= 1e-10, ValueError, where, ": matrix ", t, " is not unitary: max |U^+ U - I| = ", dev,
                       " (tolerance 1e-10)");
        }
      }
      if (g.op == kChoi) check_choi_positive(read_matrix(constants, static_cast<size_t>(off), d * d), static_cast<int>(k), where);
      check_trace_preserving(matrix_superop(g, constants), static_cast<int>(k), where);
    }
  }
  // Constant parameters are checked now; parameters read from params when the channel runs.
  bool all_constant = true;
  for (int64_t s : g.slots) all_constant = all_constant && s < 0;
  if (all_constant && !g.slots.empty()) check_named_params(g, param_values(g, nullptr, constants).data(), where);
  return used;
}

std::vector<C> channel_superop(const Gate& g, const double* params, const std::vector<double>& constants,
                               int derivative) {
  if (g.op == kMixedUnitary || g.op == kKraus || g.op == kChoi) {
    SAMPAN_CHECK(derivative < 0, ValueError, channel_where(g), " has no parameters to differentiate");
    return matrix_superop(g, constants);
  }
  const std::vector<double> v = param_values(g, params, constants);
  check_named_params(g, v.data());
  return named_superop(g, v, derivative);
}

}  // namespace sampan::quantum
