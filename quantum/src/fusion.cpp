// sampan quantum: gate fusion (see fusion.h).
//
// Greedy pass in circuit order. last[q] is the live block that touched qubit q most recently.
// A gate on the qubit set Q may join block B = max_q last[q] (the latest of them): every block
// created after B commutes with the gate (it touches no qubit of Q, or it would be last on it),
// so the gate can move back to B's position. When the gate spans several blocks that are each
// still last on all their qubits (their qubit sets are then disjoint and nothing later touches
// them), they merge into the latest one together with the gate if the union fits. Otherwise the
// gate opens a new block.
#include "fusion.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "gate_apply.h"
#include "kernels/gates.h"

namespace sampan::quantum {

namespace {

bool initial_fusion() {
  const char* env = std::getenv("SAMPAN_QUANTUM_FUSION");
  return !(env && std::strcmp(env, "0") == 0);
}
bool& fusion_flag() {
  static bool flag = initial_fusion();
  return flag;
}

// The full qubit mask of a gate (targets and controls).
uint64_t qubit_mask(const Gate& g) {
  uint64_t m = 0;
  for (int q : g.qubits) m |= uint64_t(1) << q;
  return m;
}

std::vector<int> mask_qubits(uint64_t mask) {
  std::vector<int> q;
  for (; mask; mask &= mask - 1) q.push_back(__builtin_ctzll(mask));
  return q;
}

// The 2^k x 2^k matrix of a resolved gate on the ordered qubit list `on` (a superset of its
// targets and controls; local bit j = on[j]).
std::vector<complex128> embed(const Resolved& r, const std::vector<int>& on) {
  const int k = static_cast<int>(on.size());
  const size_t dim = size_t(1) << k, tdim = size_t(1) << r.targets.size();
  uint64_t tmask = 0, cmask = 0;
  std::vector<int> tpos(r.targets.size());
  for (size_t j = 0; j < r.targets.size(); ++j) {
    tpos[j] = static_cast<int>(std::find(on.begin(), on.end(), r.targets[j]) - on.begin());
    tmask |= uint64_t(1) << tpos[j];
  }
  for (int j = 0; j < k; ++j)
    if (r.cmask >> on[j] & 1) cmask |= uint64_t(1) << j;
  auto local = [&](size_t i) {
    size_t b = 0;
    for (size_t j = 0; j < tpos.size(); ++j) b |= ((i >> tpos[j]) & 1) << j;
    return b;
  };
  std::vector<complex128> m(dim * dim);
  for (size_t i = 0; i < dim; ++i)
    for (size_t j = 0; j < dim; ++j) {
      if ((j & cmask) != cmask) {
        m[i * dim + j] = i == j ? 1.0 : 0.0;
      } else if ((i & ~tmask) == (j & ~tmask)) {
        m[i * dim + j] = r.m[local(i) * tdim + local(j)];
      }
    }
  return m;
}

std::vector<complex128> matmul(const std::vector<complex128>& a, const std::vector<complex128>& b, size_t dim) {
  std::vector<complex128> c(dim * dim);
  for (size_t i = 0; i < dim; ++i)
    for (size_t k = 0; k < dim; ++k)
      for (size_t j = 0; j < dim; ++j) c[i * dim + j] += a[i * dim + k] * b[k * dim + j];
  return c;
}

struct Pending {
  uint64_t mask = 0;
  std::vector<size_t> members;
  bool fusable = true;
  bool alive = true;
};

}  // namespace

bool fusion_enabled() { return fusion_flag(); }

bool set_fusion_enabled(bool enabled) {
  const bool previous = fusion_flag();
  fusion_flag() = enabled;
  return previous;
}

bool simd_enabled() { return kernels::avx2::available(); }
bool set_simd_enabled(bool enabled) { return kernels::avx2::set_enabled(enabled); }

int fusion_max_qubits() {
  const char* env = std::getenv("SAMPAN_QUANTUM_FUSION_MAX_QUBITS");
  const int k = env ? std::atoi(env) : 2;
  return k == 1 ? 1 : 2;
}

std::vector<FusedBlock> fuse_gates(const std::vector<Gate>& gates, const double* params,
                                   const std::vector<double>& constants, int max_qubits) {
  std::vector<Pending> blocks;
  std::vector<long> last(64, -1);
  auto is_last_on_all = [&](long b) {
    for (uint64_t m = blocks[static_cast<size_t>(b)].mask; m; m &= m - 1)
      if (last[static_cast<size_t>(__builtin_ctzll(m))] != b) return false;
    return true;
  };
  for (size_t gi = 0; gi < gates.size(); ++gi) {
    const uint64_t q = qubit_mask(gates[gi]);
    const bool fusable = __builtin_popcountll(q) <= max_qubits;
    std::vector<long> cands;
    for (uint64_t m = q; m; m &= m - 1) {
      const long b = last[static_cast<size_t>(__builtin_ctzll(m))];
      if (b >= 0 && std::find(cands.begin(), cands.end(), b) == cands.end()) cands.push_back(b);
    }
    long target = -1;
    uint64_t touched = q;  // qubits whose last block becomes the target
    if (fusable && !cands.empty()) {
      const long latest = *std::max_element(cands.begin(), cands.end());
      uint64_t all = q;
      bool merge_all = true;
      for (long b : cands) {
        all |= blocks[static_cast<size_t>(b)].mask;
        merge_all = merge_all && blocks[static_cast<size_t>(b)].fusable && is_last_on_all(b);
      }
      if (merge_all && __builtin_popcountll(all) <= max_qubits) {
        std::sort(cands.begin(), cands.end());
        Pending& dst = blocks[static_cast<size_t>(latest)];
        std::vector<size_t> members;
        for (long b : cands) {
          Pending& src = blocks[static_cast<size_t>(b)];
          members.insert(members.end(), src.members.begin(), src.members.end());
          dst.mask |= src.mask;
          if (b != latest) src.alive = false;
        }
        dst.members = std::move(members);
        target = latest;
        touched = all;
      } else if (blocks[static_cast<size_t>(latest)].fusable &&
                 __builtin_popcountll(blocks[static_cast<size_t>(latest)].mask | q) <= max_qubits) {
        target = latest;
      }
    }
    if (target < 0) {
      blocks.push_back(Pending{0, {}, fusable, true});
      target = static_cast<long>(blocks.size()) - 1;
    }
    Pending& b = blocks[static_cast<size_t>(target)];
    b.mask |= q;
    b.members.push_back(gi);
    for (uint64_t m = touched; m; m &= m - 1) last[static_cast<size_t>(__builtin_ctzll(m))] = target;
  }
  std::vector<FusedBlock> out;
  for (const Pending& p : blocks) {
    if (!p.alive) continue;
    FusedBlock f;
    f.members = p.members;
    if (p.members.size() > 1) {
      f.qubits = mask_qubits(p.mask);
      const size_t dim = size_t(1) << f.qubits.size();
      f.m.assign(dim * dim, 0.0);
      for (size_t i = 0; i < dim; ++i) f.m[i * dim + i] = 1.0;
      for (size_t gi : p.members) f.m = matmul(embed(resolve(gates[gi], params, constants), f.qubits), f.m, dim);
    }
    out.push_back(std::move(f));
  }
  return out;
}

void apply_fused(complex128* a, int n, const std::vector<Gate>& gates, const double* params,
                 const std::vector<double>& constants, int max_qubits) {
  for (const FusedBlock& b : fuse_gates(gates, params, constants, max_qubits)) {
    if (b.single()) {
      const Gate& g = gates[b.members[0]];
      apply(a, n, g, resolve(g, params, constants), false);
    } else if (b.qubits.size() == 1) {
      kernels::apply_1q(a, n, b.qubits[0], b.m.data());
    } else {
      kernels::apply_2q(a, n, b.qubits[0], b.qubits[1], b.m.data());
    }
  }
}

}  // namespace sampan::quantum
