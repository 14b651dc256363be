// Extended systems (local atoms + ghost images) and DeePMD-kit's neighbour-list formatting.
#include "sampan/deepmd/extended_system.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

#include "sampan/deepmd/neighbor_list.h"
#include "sampan/error.h"

namespace sampan::deepmd {

namespace {

struct Inverse3 {
  double m[9];
};

double det3(const double* h) {
  return h[0] * (h[4] * h[8] - h[5] * h[7]) - h[1] * (h[3] * h[8] - h[5] * h[6]) + h[2] * (h[3] * h[7] - h[4] * h[6]);
}

Inverse3 invert_cell(const double* h) {
  for (int k = 0; k < 9; ++k)
    SAMPAN_CHECK(std::isfinite(h[k]), ValueError, "cell entry ", k, " (row ", k / 3, ", column ", k % 3, ") is not finite");
  const double det = det3(h);
  SAMPAN_CHECK(std::fabs(det) > 1e-12, ValueError, "the cell is singular (determinant ", det, " Å^3)");
  Inverse3 inv;
  inv.m[0] = (h[4] * h[8] - h[5] * h[7]) / det;
  inv.m[1] = (h[2] * h[7] - h[1] * h[8]) / det;
  inv.m[2] = (h[1] * h[5] - h[2] * h[4]) / det;
  inv.m[3] = (h[5] * h[6] - h[3] * h[8]) / det;
  inv.m[4] = (h[0] * h[8] - h[2] * h[6]) / det;
  inv.m[5] = (h[2] * h[3] - h[0] * h[5]) / det;
  inv.m[6] = (h[3] * h[7] - h[4] * h[6]) / det;
  inv.m[7] = (h[1] * h[6] - h[0] * h[7]) / det;
  inv.m[8] = (h[0] * h[4] - h[1] * h[3]) / det;
  return inv;
}

// Distance between the faces normal to direction k: volume / |a_l x a_m|.
double face_height(const double* h, int k) {
  const double* a = h + 3 * ((k + 1) % 3);
  const double* b = h + 3 * ((k + 2) % 3);
  const double cx = a[1] * b[2] - a[2] * b[1], cy = a[2] * b[0] - a[0] * b[2], cz = a[0] * b[1] - a[1] * b[0];
  return std::fabs(det3(h)) / std::sqrt(cx * cx + cy * cy + cz * cz);
}

}  // namespace

bool ExtendedSystem::any_overflow() const {
  for (int64_t n : overflow)
    if (n > 0) return true;
  return false;
}

std::string ExtendedSystem::overflow_message(const std::vector<int64_t>& sel) const {
  std::string message;
  for (size_t t = 0; t < overflow.size(); ++t) {
    if (overflow[t] == 0) continue;
    if (!message.empty()) message += "; ";
    message += std::to_string(overflow[t]) + " centres have more than sel[" + std::to_string(t) + "] = " +
               std::to_string(sel[t]) + " neighbours of type " + std::to_string(t) + " (at most " +
               std::to_string(max_count[t]) + ")";
  }
  return message;
}

std::vector<double> wrap_into_cell(const double* coord, int64_t natoms, const double* cell) {
  std::vector<double> out(coord, coord + natoms * 3);
  for (int64_t i = 0; i < natoms * 3; ++i)
    SAMPAN_CHECK(std::isfinite(coord[i]), ValueError, "coordinate of atom ", i / 3, " (component ", i % 3, ") is not finite");
  if (!cell) return out;
  const Inverse3 inv = invert_cell(cell);
  for (int64_t i = 0; i < natoms; ++i) {
    double s[3];
    for (int k = 0; k < 3; ++k)
      s[k] = coord[i * 3] * inv.m[0 * 3 + k] + coord[i * 3 + 1] * inv.m[1 * 3 + k] + coord[i * 3 + 2] * inv.m[2 * 3 + k];
    for (int k = 0; k < 3; ++k) {
      s[k] -= std::floor(s[k]);
      if (s[k] >= 1.0) s[k] = 0.0;  // -1e-17 wraps to 1.0 in floating point
    }
    for (int d = 0; d < 3; ++d) out[i * 3 + d] = s[0] * cell[d] + s[1] * cell[3 + d] + s[2] * cell[6 + d];
  }
  return out;
}

NeighborCandidates brute_force_candidates(const double* coord, int64_t natoms, const double* cell, double rcut) {
  SAMPAN_CHECK(rcut > 0 && std::isfinite(rcut), ValueError, "rcut must be positive and finite, got ", rcut);
  int reach[3] = {0, 0, 0};
  Inverse3 inv{};
  if (cell) {
    inv = invert_cell(cell);
    // Along k, images within rcut have fractional separation in [-rcut/h_k, rcut/h_k]; the
    // rounded shift is within 1/2 of the pair's own, so ceil(rcut/h_k + 1/2) around it covers all.
    for (int k = 0; k < 3; ++k) reach[k] = static_cast<int>(std::ceil(rcut / face_height(cell, k) + 0.5));
  }
  const double rc2 = rcut * rcut;
  NeighborCandidates out;
  out.offsets.push_back(0);
  for (int64_t i = 0; i < natoms; ++i) {
    for (int64_t j = 0; j < natoms; ++j) {
      double base[3] = {0, 0, 0};
      int nearest[3] = {0, 0, 0};
      for (int d = 0; d < 3; ++d) base[d] = coord[j * 3 + d] - coord[i * 3 + d];
      if (cell) {  // the image shift that brings j nearest to i in fractional coordinates
        for (int k = 0; k < 3; ++k)
          nearest[k] = -static_cast<int>(std::lround(base[0] * inv.m[k] + base[1] * inv.m[3 + k] + base[2] * inv.m[6 + k]));
      }
      for (int n0 = nearest[0] - reach[0]; n0 <= nearest[0] + reach[0]; ++n0)
        for (int n1 = nearest[1] - reach[1]; n1 <= nearest[1] + reach[1]; ++n1)
          for (int n2 = nearest[2] - reach[2]; n2 <= nearest[2] + reach[2]; ++n2) {
            if (i == j && n0 == 0 && n1 == 0 && n2 == 0) continue;
            double R[3];
            for (int d = 0; d < 3; ++d) {
              R[d] = base[d];
              if (cell) R[d] += n0 * cell[d] + n1 * cell[3 + d] + n2 * cell[6 + d];
            }
            if (R[0] * R[0] + R[1] * R[1] + R[2] * R[2] >= rc2) continue;
            out.index.push_back(j);
            out.shift.insert(out.shift.end(), {n0, n1, n2});
            out.vector.insert(out.vector.end(), R, R + 3);
          }
    }
    out.offsets.push_back(static_cast<int64_t>(out.index.size()));
  }
  return out;
}

ExtendedSystem format_extended_system(const double* wrapped, const int64_t* types, int64_t natoms, const double* cell,
                                      const NeighborCandidates& candidates, const std::vector<int64_t>& sel) {
  const int64_t ntypes = static_cast<int64_t>(sel.size());
  SAMPAN_CHECK(ntypes > 0, ValueError, "sel must name at least one type");
  for (int64_t i = 0; i < natoms; ++i)
    SAMPAN_CHECK(types[i] >= 0 && types[i] < ntypes, ValueError, "atom ", i, " has type ", types[i],
                 " but the model knows ", ntypes, " types (sel has ", ntypes, " entries)");
  std::vector<int64_t> sec(static_cast<size_t>(ntypes + 1), 0);
  for (int64_t t = 0; t < ntypes; ++t) sec[t + 1] = sec[t] + sel[t];
  ExtendedSystem ext;
  ext.nloc = natoms;
  ext.nnei = sec[ntypes];
  ext.coord.assign(wrapped, wrapped + natoms * 3);
  ext.types.assign(types, types + natoms);
  ext.mapping.resize(static_cast<size_t>(natoms));
  for (int64_t i = 0; i < natoms; ++i) ext.mapping[i] = i;
  ext.nlist.assign(static_cast<size_t>(natoms * ext.nnei), -1);
  ext.overflow.assign(static_cast<size_t>(ntypes), 0);
  ext.max_count.assign(static_cast<size_t>(ntypes), 0);
  std::map<std::tuple<int64_t, int32_t, int32_t, int32_t>, int64_t> ghost_of;

  struct Entry {
    double r2;
    int64_t j;
    std::array<int32_t, 3> shift;
  };
  std::vector<std::vector<Entry>> by_type(static_cast<size_t>(ntypes));
  for (int64_t i = 0; i < natoms; ++i) {
    for (auto& block : by_type) block.clear();
    for (int64_t k = candidates.offsets[i]; k < candidates.offsets[i + 1]; ++k) {
      const double* R = candidates.vector.data() + 3 * k;
      const int64_t j = candidates.index[k];
      by_type[types[j]].push_back({R[0] * R[0] + R[1] * R[1] + R[2] * R[2], j,
                                   {candidates.shift[3 * k], candidates.shift[3 * k + 1], candidates.shift[3 * k + 2]}});
    }
    for (int64_t t = 0; t < ntypes; ++t) {
      auto& block = by_type[t];
      const int64_t count = static_cast<int64_t>(block.size());
      ext.max_count[t] = std::max(ext.max_count[t], count);
      if (count > sel[t]) ++ext.overflow[t];
      std::sort(block.begin(), block.end(), [](const Entry& a, const Entry& b) {
        return std::tie(a.r2, a.j, a.shift) < std::tie(b.r2, b.j, b.shift);
      });
      for (int64_t k = 0; k < std::min(count, sel[t]); ++k) {
        const Entry& e = block[k];
        int64_t index = e.j;
        if (e.shift[0] != 0 || e.shift[1] != 0 || e.shift[2] != 0) {
          auto key = std::make_tuple(e.j, e.shift[0], e.shift[1], e.shift[2]);
          auto found = ghost_of.find(key);
          if (found == ghost_of.end()) {
            index = static_cast<int64_t>(ext.types.size());
            ghost_of.emplace(key, index);
            for (int d = 0; d < 3; ++d)
              ext.coord.push_back(wrapped[e.j * 3 + d] + e.shift[0] * cell[d] + e.shift[1] * cell[3 + d] + e.shift[2] * cell[6 + d]);
            ext.types.push_back(types[e.j]);
            ext.mapping.push_back(e.j);
          } else {
            index = found->second;
          }
        }
        ext.nlist[i * ext.nnei + sec[t] + k] = index;
      }
    }
  }
  ext.nall = static_cast<int64_t>(ext.types.size());
  return ext;
}

ExtendedSystem build_extended_system(const double* coord, const int64_t* types, int64_t natoms, const double* cell,
                                     double rcut, const std::vector<int64_t>& sel) {
  std::vector<double> wrapped = wrap_into_cell(coord, natoms, cell);
  // O(N) cell-list search (neighbor_list.h); brute_force_candidates is its test oracle.
  const Box box = cell ? Box::triclinic(cell) : Box::open();
  NeighborList list = build_neighbor_list(wrapped.data(), natoms, box, rcut);
  NeighborCandidates candidates;
  candidates.offsets = std::move(list.offsets);
  candidates.index = std::move(list.neighbors);
  candidates.shift = std::move(list.shifts);
  candidates.vector = std::move(list.vectors);
  return format_extended_system(wrapped.data(), types, natoms, cell, candidates, sel);
}

}  // namespace sampan::deepmd
