// sampan quantum: the distributed state vector (see sampan/quantum/distributed.h).
#include "distributed/distributed_state.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "fusion.h"
#include "kernels/gates.h"
#include "sampan/error.h"
#include "sampan/quantum/state_vector.h"

namespace sampan::quantum::distributed {

namespace {

// Inserts bit value v at position p into x.
inline uint64_t insert_bit(uint64_t x, int p, uint64_t v) {
  return ((x >> p) << (p + 1)) | (v << p) | (x & ((uint64_t(1) << p) - 1));
}

}  // namespace

DistributedState::DistributedState(int n, const Comm& comm, int64_t chunk_amps)
    : n_(n), comm_(comm), chunk_(std::max<int64_t>(1, chunk_amps)) {
  const int size = comm.size();
  SAMPAN_CHECK(size >= 1 && (size & (size - 1)) == 0, ValueError, "quantum (distributed): the number of ranks must be ",
               "a power of two, got ", size);
  const int k = __builtin_ctz(static_cast<unsigned>(size));
  SAMPAN_CHECK(n - k >= 1, ValueError, "quantum (distributed): ", n, " qubits over ", size,
               " ranks leaves no local qubit; use at most 2^", n - 1, " ranks");
  n_local_ = n - k;
  // Each rank checks its own chunk (and the exchange buffers) against its free memory.
  check_state_fits(n_local_, DType::Complex128, "quantum (distributed)");
  local_.assign(size_t(1) << n_local_, 0.0);
  if (comm.rank() == 0) local_[0] = 1.0;
}

void DistributedState::apply_circuit(const std::vector<Gate>& gates, const double* params,
                                     const std::vector<double>& constants) {
  if (!fusion_enabled()) {
    for (const Gate& g : gates) apply(resolve(g, params, constants), &g);
    return;
  }
  for (const FusedBlock& b : fuse_gates(gates, params, constants, fusion_max_qubits())) {
    if (b.single()) {
      const Gate& g = gates[b.members[0]];
      apply(resolve(g, params, constants), &g);
    } else {
      Resolved r;
      r.targets = b.qubits;
      r.m = b.m;
      apply(r, nullptr);
    }
  }
}

void DistributedState::apply(const Resolved& r, const Gate* g) {
  const uint64_t local_mask = (uint64_t(1) << n_local_) - 1;
  const uint64_t prefix_controls = r.cmask >> n_local_;
  // A control on a prefix qubit is a fixed bit of this rank: the gate is the identity here
  // when it is 0. (A partner rank, differing only in a target bit, decides alike.)
  if ((static_cast<uint64_t>(comm_.rank()) & prefix_controls) != prefix_controls) return;
  Resolved lr = r;
  lr.cmask = r.cmask & local_mask;
  const Gate* fast = (g && r.fast) ? g : nullptr;
  std::vector<int> prefix_targets;
  for (int t : r.targets)
    if (t >= n_local_) prefix_targets.push_back(t);
  if (prefix_targets.empty()) {
    if (fast) quantum::apply(local_.data(), n_local_, *fast, lr, false);
    else kernels::apply_kq(local_.data(), n_local_, lr.targets, lr.m.data(), lr.cmask);
    return;
  }
  // One prefix target and a diagonal matrix: this rank's bit selects the factor.
  if (r.targets.size() == 1 && r.m[1] == 0.0 && r.m[2] == 0.0) {
    const int b = rank_bit(r.targets[0]);
    const complex128 f = r.m[static_cast<size_t>(3 * b)];
    const uint64_t c = lr.cmask;
    const int64_t N = static_cast<int64_t>(local_.size());
    complex128* a = local_.data();
#pragma omp parallel for if (uint64_t(N) >= kernels::kParallelAmps) schedule(static)
    for (int64_t i = 0; i < N; ++i)
      if ((static_cast<uint64_t>(i) & c) == c) a[i] *= f;
    return;
  }
  // Otherwise move each prefix target onto a free local qubit (the highest ones not used by the
  // gate), apply locally, and move them back.
  uint64_t used = lr.cmask;
  for (int t : r.targets)
    if (t < n_local_) used |= uint64_t(1) << t;
  std::vector<std::pair<int, int>> swaps;
  int candidate = n_local_ - 1;
  for (int p : prefix_targets) {
    while (candidate >= 0 && (used >> candidate & 1)) --candidate;
    SAMPAN_CHECK(candidate >= 0, ValueError, "quantum (distributed): a gate on ", r.targets.size(), " targets and ",
                 __builtin_popcountll(r.cmask), " controls needs more local qubits than the ", n_local_,
                 " of ", n_, " qubits over ", comm_.size(), " ranks; use fewer ranks");
    swaps.emplace_back(p, candidate);
    used |= uint64_t(1) << candidate;
    --candidate;
  }
  for (auto [p, l] : swaps) {
    swap_with_local(p, l);
    std::replace(lr.targets.begin(), lr.targets.end(), p, l);
  }
  if (fast) quantum::apply(local_.data(), n_local_, *fast, lr, false);
  else kernels::apply_kq(local_.data(), n_local_, lr.targets, lr.m.data(), lr.cmask);
  for (auto it = swaps.rbegin(); it != swaps.rend(); ++it) swap_with_local(it->first, it->second);
}

// SWAP(prefix p, local l): the amplitudes whose bit l differs from this rank's bit p trade places
// with the partner rank's amplitudes at the same local index (the partner's bit l equals our
// bit p there). Half the chunk goes each way, in messages of at most chunk_ amplitudes.
void DistributedState::swap_with_local(int p, int l) {
  const uint64_t b = static_cast<uint64_t>(rank_bit(p));
  const int partner = comm_.rank() ^ (1 << (p - n_local_));
  const int64_t half = int64_t(1) << (n_local_ - 1);
  const int64_t piece = std::min(chunk_, half);
  send_.resize(static_cast<size_t>(piece));
  recv_.resize(static_cast<size_t>(piece));
  complex128* a = local_.data();
  for (int64_t s = 0; s < half; s += piece) {
    const int64_t len = std::min(piece, half - s);
#pragma omp parallel for if (uint64_t(len) >= kernels::kParallelAmps) schedule(static)
    for (int64_t j = 0; j < len; ++j) send_[static_cast<size_t>(j)] = a[insert_bit(static_cast<uint64_t>(s + j), l, b ^ 1)];
    comm_.sendrecv(reinterpret_cast<const double*>(send_.data()), reinterpret_cast<double*>(recv_.data()), 2 * len,
                   partner);
#pragma omp parallel for if (uint64_t(len) >= kernels::kParallelAmps) schedule(static)
    for (int64_t j = 0; j < len; ++j) a[insert_bit(static_cast<uint64_t>(s + j), l, b ^ 1)] = recv_[static_cast<size_t>(j)];
  }
}

double DistributedState::expectation(const std::vector<PauliTerm>& h) const {
  const uint64_t local_mask = (uint64_t(1) << n_local_) - 1;
  const uint64_t rank_base = static_cast<uint64_t>(comm_.rank()) << n_local_;
  const int64_t N = static_cast<int64_t>(local_.size());
  const complex128* a = local_.data();
  std::vector<double> sums(2 * h.size(), 0.0);
  for (size_t t = 0; t < h.size(); ++t) {
    const PauliTerm& term = h[t];
    const uint64_t xl = term.xmask & local_mask, xp = term.xmask >> n_local_, z = term.zmask;
    double re = 0, im = 0;
    // <psi|P|psi> = sum_i conj(psi[i ^ x]) (-1)^{|i & z|} psi[i] i^{n_y}; psi[i ^ x] lives on
    // rank ^ xp at local index (i ^ xl).
    if (xp == 0) {
#pragma omp parallel for reduction(+ : re, im) if (uint64_t(N) >= kernels::kParallelAmps) schedule(static)
      for (int64_t i = 0; i < N; ++i) {
        const uint64_t u = static_cast<uint64_t>(i);
        const double sign = (__builtin_popcountll((rank_base | u) & z) & 1) ? -1.0 : 1.0;
        const complex128 v = std::conj(a[u ^ xl]) * a[u] * sign;
        re += v.real();
        im += v.imag();
      }
    } else {
      const int partner = comm_.rank() ^ static_cast<int>(xp);
      const int64_t piece = std::min(chunk_, N);
      send_.resize(static_cast<size_t>(piece));
      recv_.resize(static_cast<size_t>(piece));
      for (int64_t s = 0; s < N; s += piece) {  // the partner's amplitudes j in [s, s + len)
        const int64_t len = std::min(piece, N - s);
        std::copy(a + s, a + s + len, send_.begin());
        comm_.sendrecv(reinterpret_cast<const double*>(send_.data()), reinterpret_cast<double*>(recv_.data()),
                       2 * len, partner);
        const complex128* theirs = recv_.data();
#pragma omp parallel for reduction(+ : re, im) if (uint64_t(len) >= kernels::kParallelAmps) schedule(static)
        for (int64_t j = 0; j < len; ++j) {
          const uint64_t u = static_cast<uint64_t>(s + j) ^ xl;
          const double sign = (__builtin_popcountll((rank_base | u) & z) & 1) ? -1.0 : 1.0;
          const complex128 v = std::conj(theirs[j]) * a[u] * sign;
          re += v.real();
          im += v.imag();
        }
      }
    }
    sums[2 * t] = re;
    sums[2 * t + 1] = im;
  }
  comm_.allreduce_sum(sums.data(), static_cast<int>(sums.size()));
  double e = 0;
  const complex128 kI(0, 1);
  for (size_t t = 0; t < h.size(); ++t)
    e += h[t].coeff * (std::pow(kI, h[t].n_y) * complex128(sums[2 * t], sums[2 * t + 1])).real();
  return e;
}

void DistributedState::load(std::vector<complex128> amps) {
  SAMPAN_CHECK(comm_.size() == 1 && amps.size() == local_.size(), ValueError,
               "quantum (distributed): load takes the whole state on one rank (", local_.size(),
               " amplitudes), got ", amps.size(), " on rank ", comm_.rank(), " of ", comm_.size());
  local_ = std::move(amps);
}

std::vector<std::pair<uint64_t, int64_t>> DistributedState::sample(int64_t shots, uint64_t seed) const {
  SAMPAN_CHECK(shots >= 0, ValueError, "quantum (distributed): shots must be >= 0, got ", shots);
  double mass = 0;
  for (const complex128& x : local_) mass += std::norm(x);
  const std::vector<double> masses = comm_.allgather(mass);
  double offset = 0, total = 0;
  for (int r = 0; r < comm_.size(); ++r) {
    if (r < comm_.rank()) offset += masses[static_cast<size_t>(r)];
    total += masses[static_cast<size_t>(r)];
  }
  // Rank 0 draws sorted uniforms on [0, total): the same draws whatever the number of ranks.
  std::vector<double> u;
  if (comm_.rank() == 0) {
    std::mt19937_64 rng(seed);
    u.resize(static_cast<size_t>(shots));
    for (double& x : u) x = static_cast<double>(rng() >> 11) * 0x1.0p-53 * total;
    std::sort(u.begin(), u.end());
  }
  comm_.broadcast(u, 0);
  // This rank takes the draws in [offset, offset + mass) (the same prefix sums on every rank, so
  // the ranges partition [0, total)); its last amplitude takes what rounding leaves below the end.
  const double end = offset + masses[static_cast<size_t>(comm_.rank())];
  std::vector<std::pair<uint64_t, int64_t>> counts;
  auto it = std::lower_bound(u.begin(), u.end(), offset);
  double cum = offset;
  const uint64_t rank_base = static_cast<uint64_t>(comm_.rank()) << n_local_;
  for (size_t i = 0; i < local_.size() && it != u.end() && *it < end; ++i) {
    cum += std::norm(local_[i]);
    const double upper = i + 1 == local_.size() ? end : std::min(cum, end);
    int64_t c = 0;
    while (it != u.end() && *it < upper) ++it, ++c;
    if (c) counts.emplace_back(rank_base | i, c);
  }
  auto all = comm_.gather_pairs(counts, 0);
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<complex128> DistributedState::gather() const {
  std::vector<complex128> out;
  if (comm_.rank() == 0) {
    check_state_fits(n_, DType::Complex128, "quantum (distributed): gathering the state");
    out.resize(size_t(1) << n_);
  }
  comm_.gather(reinterpret_cast<const double*>(local_.data()), 2 * static_cast<int64_t>(local_.size()),
               reinterpret_cast<double*>(out.data()), 0);
  return out;
}

std::pair<double, double> DistributedState::qubit_masses(int q) const {
  double m0 = 0, m1 = 0;
  const int64_t N = static_cast<int64_t>(local_.size());
  const complex128* a = local_.data();
  if (q >= n_local_) {  // a prefix qubit: this rank's whole chunk has one value of it
    double m = 0;
#pragma omp parallel for reduction(+ : m) if (uint64_t(N) >= kernels::kParallelAmps) schedule(static)
    for (int64_t i = 0; i < N; ++i) m += std::norm(a[i]);
    (rank_bit(q) ? m1 : m0) = m;
  } else {
    const uint64_t bit = uint64_t(1) << q;
#pragma omp parallel for reduction(+ : m0, m1) if (uint64_t(N) >= kernels::kParallelAmps) schedule(static)
    for (int64_t i = 0; i < N; ++i) {
      const double p = std::norm(a[i]);
      if (static_cast<uint64_t>(i) & bit) m1 += p;
      else m0 += p;
    }
  }
  const std::vector<double> all0 = comm_.allgather(m0), all1 = comm_.allgather(m1);
  double s0 = 0, s1 = 0;
  for (size_t r = 0; r < all0.size(); ++r) {
    s0 += all0[r];
    s1 += all1[r];
  }
  return {s0, s1};
}

void DistributedState::project(int q, int bit, double mass) {
  SAMPAN_CHECK(mass > 0, ValueError, "quantum (distributed): outcome ", bit, " of qubit ", q,
               " has probability 0; it cannot be projected on");
  const complex128 scale = 1.0 / std::sqrt(mass);
  const int64_t N = static_cast<int64_t>(local_.size());
  complex128* a = local_.data();
  if (q >= n_local_) {
    const bool keep = rank_bit(q) == bit;
#pragma omp parallel for if (uint64_t(N) >= kernels::kParallelAmps) schedule(static)
    for (int64_t i = 0; i < N; ++i) a[i] = keep ? a[i] * scale : complex128(0.0);
    return;
  }
  const uint64_t m = uint64_t(1) << q, want = bit ? m : 0;
#pragma omp parallel for if (uint64_t(N) >= kernels::kParallelAmps) schedule(static)
  for (int64_t i = 0; i < N; ++i) a[i] = (static_cast<uint64_t>(i) & m) == want ? a[i] * scale : complex128(0.0);
}

}  // namespace sampan::quantum::distributed
