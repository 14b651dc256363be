// Ghost atoms for the periodic images of a half list (ghost_list.h).
#include "md/ghost_list.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <unordered_map>

#include "sampan/error.h"

namespace sampan::deepmd::md {

namespace {
struct ImageKey {
  int64_t j;
  int32_t n0, n1, n2;
  bool operator==(const ImageKey& o) const { return j == o.j && n0 == o.n0 && n1 == o.n1 && n2 == o.n2; }
};
struct ImageHash {
  size_t operator()(const ImageKey& k) const {
    uint64_t h = static_cast<uint64_t>(k.j) * 0x9E3779B97F4A7C15ull;
    h ^= (static_cast<uint64_t>(static_cast<uint32_t>(k.n0)) * 0xBF58476D1CE4E5B9ull) >> 7;
    h ^= (static_cast<uint64_t>(static_cast<uint32_t>(k.n1)) * 0x94D049BB133111EBull) >> 13;
    h ^= static_cast<uint64_t>(static_cast<uint32_t>(k.n2)) * 0xD6E8FEB86659FD93ull;
    return static_cast<size_t>(h ^ (h >> 31));
  }
};
}  // namespace

GhostedList ghost_half_list(const NeighborList& half) {
  SAMPAN_CHECK(half.half, ValueError, "ghost_half_list: the neighbour list must be a half list (built with half=true)");
  GhostedList g;
  g.natoms = half.natoms;
  const int64_t npairs = half.size();
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  SAMPAN_CHECK(half.natoms <= kMax, ValueError, "ghost_half_list: ", half.natoms,
               " atoms do not fit 32-bit indices (at most ", kMax, ")");
  g.offsets.assign(half.offsets.begin(), half.offsets.end());
  g.neighbors.resize(static_cast<size_t>(npairs));
  // Images within one box of the atom (the usual case) are looked up in a dense table of 27 per
  // atom; farther images (small boxes, long cutoffs) in a hash map.
  std::vector<int32_t> near(static_cast<size_t>(27 * half.natoms), -1);
  std::unordered_map<ImageKey, int32_t, ImageHash> far;
  auto new_ghost = [&](int64_t j, const int32_t* n) {
    const int64_t index = half.natoms + static_cast<int64_t>(g.owner.size());
    SAMPAN_CHECK(index <= kMax, ValueError, "ghost_half_list: atoms and ghosts exceed 32-bit indices");
    g.owner.push_back(static_cast<int32_t>(j));
    g.image.insert(g.image.end(), n, n + 3);
    return static_cast<int32_t>(index);
  };
  for (int64_t i = 0; i < half.natoms; ++i) {
    g.max_row = std::max(g.max_row, half.count(i));
    for (int64_t p = half.offsets[i]; p < half.offsets[i + 1]; ++p) {
      const int64_t j = half.neighbors[p];
      const int32_t* n = &half.shifts[3 * p];
      if (!(n[0] | n[1] | n[2])) {
        g.neighbors[p] = static_cast<int32_t>(j);
        continue;
      }
      if (std::abs(n[0]) <= 1 && std::abs(n[1]) <= 1 && std::abs(n[2]) <= 1) {
        int32_t& slot = near[static_cast<size_t>(27 * j + 9 * (n[0] + 1) + 3 * (n[1] + 1) + (n[2] + 1))];
        if (slot < 0) slot = new_ghost(j, n);
        g.neighbors[p] = slot;
        continue;
      }
      auto [it, inserted] = far.try_emplace(ImageKey{j, n[0], n[1], n[2]}, 0);
      if (inserted) it->second = new_ghost(j, n);
      g.neighbors[p] = it->second;
    }
  }
  return g;
}

void place_ghosts(const GhostedList& list, const double* x, const int* types, const double* cell, double* x_ext,
                  int* types_ext) {
  std::copy(x, x + 3 * list.natoms, x_ext);
  std::copy(types, types + list.natoms, types_ext);
  const int64_t ng = list.nghost();
  for (int64_t g = 0; g < ng; ++g) {
    const int64_t o = list.owner[g];
    const int32_t* n = &list.image[3 * g];
    double* out = x_ext + 3 * (list.natoms + g);
    for (int d = 0; d < 3; ++d) out[d] = x[3 * o + d] + (n[0] * cell[d] + n[1] * cell[3 + d] + n[2] * cell[6 + d]);
    types_ext[list.natoms + g] = types[o];
  }
}

void fold_ghost_forces(const GhostedList& list, double* f_ext) {
  const int64_t ng = list.nghost();
  for (int64_t g = 0; g < ng; ++g) {
    const int64_t o = list.owner[g];
    const double* src = f_ext + 3 * (list.natoms + g);
    for (int d = 0; d < 3; ++d) f_ext[3 * o + d] += src[d];
  }
}

}  // namespace sampan::deepmd::md
