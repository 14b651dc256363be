// Cell-list kernels (see cell_list_kernels.h for the geometry).
#include "neighbor/cell_list_kernels.h"

#include <algorithm>
#include <cmath>

namespace sampan::deepmd::kernels {

namespace {
// Cells are made at least rcut * (1 + kMargin) high, so that a pair at exactly rcut cannot fall
// outside the searched block through rounding in s = x . cell^-1.
constexpr double kMargin = 1e-9;
}  // namespace

double invert_3x3(const double* m, double* inv) {
  // Adjugate over determinant (cofactor expansion along the first row).
  double c00 = m[4] * m[8] - m[5] * m[7];
  double c01 = m[5] * m[6] - m[3] * m[8];
  double c02 = m[3] * m[7] - m[4] * m[6];
  double det = m[0] * c00 + m[1] * c01 + m[2] * c02;
  double r = 1.0 / det;
  inv[0] = c00 * r;
  inv[1] = (m[2] * m[7] - m[1] * m[8]) * r;
  inv[2] = (m[1] * m[5] - m[2] * m[4]) * r;
  inv[3] = c01 * r;
  inv[4] = (m[0] * m[8] - m[2] * m[6]) * r;
  inv[5] = (m[2] * m[3] - m[0] * m[5]) * r;
  inv[6] = c02 * r;
  inv[7] = (m[1] * m[6] - m[0] * m[7]) * r;
  inv[8] = (m[0] * m[4] - m[1] * m[3]) * r;
  return det;
}

void fractional_coordinates(const double* positions, int64_t natoms, const double* inv,
                            const std::array<bool, 3>& periodic, double* frac, int32_t* wrap) {
#pragma omp parallel for schedule(static) if (natoms >= 4096)
  for (int64_t i = 0; i < natoms; ++i) {
    const double* x = positions + 3 * i;
    for (int k = 0; k < 3; ++k) {
      // s_k = x . column k of cell^-1 (x is a row vector, x = s . cell).
      double s = x[0] * inv[k] + x[1] * inv[3 + k] + x[2] * inv[6 + k];
      int32_t w = 0;
      if (periodic[k]) {
        double f = std::floor(s);
        s -= f;
        w = static_cast<int32_t>(f);
        if (s >= 1.0) {  // s was a tiny negative number: s - floor(s) rounds to 1
          s -= 1.0;
          w += 1;
        }
      }
      frac[3 * i + k] = s;
      wrap[3 * i + k] = w;
    }
  }
}

CellGrid plan_cell_grid(const double* frac, int64_t natoms, const double* heights,
                        const std::array<bool, 3>& periodic, double rcut) {
  CellGrid g;
  g.periodic = periodic;
  const double reach_length = rcut * (1.0 + kMargin);
  std::array<double, 3> span{1, 1, 1};  // extent in fractional units
  for (int k = 0; k < 3; ++k) {
    if (periodic[k]) {
      g.lo[k] = 0.0;
      span[k] = 1.0;
    } else {
      double lo = 0, hi = 0;
      if (natoms > 0) {
        lo = hi = frac[k];
        for (int64_t i = 1; i < natoms; ++i) {
          lo = std::min(lo, frac[3 * i + k]);
          hi = std::max(hi, frac[3 * i + k]);
        }
      }
      g.lo[k] = lo;
      span[k] = hi - lo;
    }
    double extent = span[k] * heights[k];  // Å along the face normal
    g.n[k] = std::max<int64_t>(1, static_cast<int64_t>(std::floor(extent / reach_length)));
  }
  // Sparse systems in large boxes: cap the grid at about 8 cells per atom by merging cells.
  const int64_t max_cells = 8 * natoms + 64;
  while (g.total() > max_cells) {
    int k = static_cast<int>(std::max_element(g.n.begin(), g.n.end()) - g.n.begin());
    g.n[k] = (g.n[k] + 1) / 2;
  }
  for (int k = 0; k < 3; ++k) {
    g.width[k] = span[k] > 0 ? span[k] / static_cast<double>(g.n[k]) : 1.0;
    double cell_height = g.width[k] * heights[k];
    if (periodic[k]) {
      g.reach[k] = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(reach_length / cell_height)));
    } else {
      // Open: the cells cover all atoms, so nothing lies beyond n - 1 cells away.
      int64_t r = span[k] > 0 ? static_cast<int64_t>(std::ceil(reach_length / cell_height)) : 0;
      g.reach[k] = std::min<int64_t>(std::max<int64_t>(r, 0), g.n[k] - 1);
    }
  }
  return g;
}

void bin_atoms(const double* frac, int64_t natoms, const CellGrid& g, int64_t* atom_cell,
               std::vector<int64_t>& cell_start, std::vector<int64_t>& cell_atoms) {
  std::vector<int64_t> flat(static_cast<size_t>(natoms));
  for (int64_t i = 0; i < natoms; ++i) {
    int64_t c[3];
    for (int k = 0; k < 3; ++k) {
      double u = (frac[3 * i + k] - g.lo[k]) / g.width[k];
      int64_t idx = static_cast<int64_t>(std::floor(u));
      c[k] = std::min<int64_t>(std::max<int64_t>(idx, 0), g.n[k] - 1);
      atom_cell[3 * i + k] = c[k];
    }
    flat[i] = (c[0] * g.n[1] + c[1]) * g.n[2] + c[2];
  }
  cell_start.assign(static_cast<size_t>(g.total() + 1), 0);
  for (int64_t i = 0; i < natoms; ++i) ++cell_start[flat[i] + 1];
  for (int64_t c = 0; c < g.total(); ++c) cell_start[c + 1] += cell_start[c];
  cell_atoms.resize(static_cast<size_t>(natoms));
  std::vector<int64_t> fill(cell_start.begin(), cell_start.end() - 1);
  for (int64_t i = 0; i < natoms; ++i) cell_atoms[fill[flat[i]]++] = i;
}

}  // namespace sampan::deepmd::kernels
