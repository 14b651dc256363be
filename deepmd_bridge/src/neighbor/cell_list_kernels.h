// Cell-list kernels behind build_neighbor_list: plain functions over pointers (no Tensor).
//
// The search bins atoms by fractional coordinate s = x . cell^-1. Two atoms within rcut differ in
// s_k by at most rcut / h_k (h_k: the box height normal to direction k, since |s_k| = |x . b_k|
// with |b_k| = 1 / h_k for the reciprocal vector b_k). With cells whose fractional width is
// w_k >= rcut / h_k, every neighbour of an atom therefore lies in the block of cells within
// reach_k = ceil(rcut / (w_k h_k)) cells of its own (1 when the box holds at least one cell of
// height rcut; more images when the box is smaller than the cutoff). Along a periodic direction
// cell indices wrap and the number of wraps is the pair's image shift; along an open direction
// the cells cover the atoms' range of s_k and do not wrap.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace sampan::deepmd::kernels {

/// inv = cell^-1 (row-major 3x3); returns det(cell).
double invert_3x3(const double* cell, double* inv);

/// Fractional coordinates of `natoms` positions. Along periodic directions they are wrapped into
/// [0, 1) and wrap[3*i + k] receives the integer that was subtracted (s = s_wrapped + wrap);
/// along open directions they are left as they are and wrap is 0.
void fractional_coordinates(const double* positions, int64_t natoms, const double* inv_cell,
                            const std::array<bool, 3>& periodic, double* frac, int32_t* wrap);

/// The binning: n cells along each direction starting at fractional `lo` with fractional `width`,
/// and how many cells (`reach`) the search looks to each side.
struct CellGrid {
  std::array<int64_t, 3> n{1, 1, 1};
  std::array<int64_t, 3> reach{1, 1, 1};
  std::array<double, 3> lo{0, 0, 0};
  std::array<double, 3> width{1, 1, 1};
  std::array<bool, 3> periodic{false, false, false};
  int64_t total() const { return n[0] * n[1] * n[2]; }
};

/// Chooses the grid for cutoff `rcut`: cells at least rcut high (times a 1e-9 margin so that
/// rounding cannot hide a pair at the edge), at most about 8 cells per atom (a sparse system in a
/// large box gets wider cells: still correct, since only the width's lower bound matters).
CellGrid plan_cell_grid(const double* frac, int64_t natoms, const double* heights,
                        const std::array<bool, 3>& periodic, double rcut);

/// Counting sort of atoms into cells: the atoms of cell c are cell_atoms[cell_start[c] ..
/// cell_start[c+1]), in increasing atom order; atom_cell[3*i + k] is atom i's cell index along k.
void bin_atoms(const double* frac, int64_t natoms, const CellGrid& grid, int64_t* atom_cell,
               std::vector<int64_t>& cell_start, std::vector<int64_t>& cell_atoms);

}  // namespace sampan::deepmd::kernels
