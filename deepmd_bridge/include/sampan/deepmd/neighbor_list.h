// Simulation boxes and full neighbour lists within a cutoff, by cell lists in O(N).
//
// Units: lengths in Å (the module's units are eV, Å, ps, amu; see md/units.h).
//
// Conventions (the same as DeePMD-kit's box.npy and LAMMPS's cell vectors):
//   - `Box::cell` holds the three lattice vectors a, b, c as ROWS, row-major: cell[3*k + d] is
//     Cartesian component d of lattice vector k. A position is x = s . cell with fractional
//     coordinates s (a row vector), so s = x . cell^-1.
//   - Each direction k is periodic or open on its own (`periodic[k]`); Box::open() is open in all
//     three directions (its cell is then only a frame of reference and may be anything invertible).
//   - Positions need not be wrapped into the box (DeePMD's data are not): every pair carries the
//     integer image shift n that makes its separation vector
//         r_ij = x_j - x_i + n . cell        (n = 0 along open directions)
//     from the positions exactly as given, and |r_ij| < rcut (strictly, as LAMMPS's rsq < cutsq).
//   - The list is full (pair (i, j, n) and (j, i, -n) both appear) unless `half` is asked for,
//     in which case exactly one of the two is kept: j > i, or j == i with n > 0 in lexicographic
//     order (an atom meets its own periodic images when rcut exceeds a box height).
//   - Any rcut is allowed, also above half the box: the search visits as many periodic images as
//     the cutoff sphere reaches (a pair (i, j) may then appear with several shifts), so small
//     boxes need no replication by the caller.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace sampan::deepmd {

/// A simulation cell: lattice vectors (rows of `cell`, Å) and which directions are periodic.
struct Box {
  std::array<double, 9> cell{1, 0, 0, 0, 1, 0, 0, 0, 1};
  std::array<bool, 3> periodic{false, false, false};

  /// Open boundaries in every direction (isolated molecule or cluster).
  static Box open();
  /// Periodic rectangular box with edge lengths lx, ly, lz (Å), lattice vectors along x, y, z.
  static Box orthorhombic(double lx, double ly, double lz);
  /// Periodic box with lattice vectors as rows of the row-major 3x3 `cell` (Å).
  static Box triclinic(const double* cell9);

  bool any_periodic() const { return periodic[0] || periodic[1] || periodic[2]; }
  bool all_periodic() const { return periodic[0] && periodic[1] && periodic[2]; }
  /// True when the lattice vectors are along x, y, z (off-diagonal entries exactly zero).
  bool is_orthorhombic() const;
  /// |det(cell)| in Å^3.
  double volume() const;
  /// Distance between the two faces normal to direction k: volume / |a_l x a_m| (Å). The cutoff
  /// sphere of radius r reaches ceil(r / height(k)) images along k.
  double height(int k) const;
  /// Throws ValueError (naming the entry) unless the cell is finite and invertible.
  void validate() const;
};

/// A neighbour list in compressed-row form: the neighbours of atom i are the entries
/// [offsets[i], offsets[i+1]) of `neighbors`, `shifts` and `vectors`.
struct NeighborList {
  int64_t natoms = 0;
  double rcut = 0;
  bool half = false;
  std::vector<int64_t> offsets;    // [natoms + 1]
  std::vector<int64_t> neighbors;  // [npairs]: index j
  std::vector<int32_t> shifts;     // [npairs * 3]: image shift n (r_ij = x_j - x_i + n . cell)
  std::vector<double> vectors;     // [npairs * 3]: r_ij in Å (empty when built without them)

  int64_t size() const { return static_cast<int64_t>(neighbors.size()); }
  int64_t count(int64_t i) const { return offsets[i + 1] - offsets[i]; }
  /// The largest number of neighbours of any atom.
  int64_t max_count() const;
};

/// Builds the neighbour list of the `natoms` atoms at `positions` ([natoms, 3] row-major, Å)
/// within `rcut` (Å) by a cell list: O(N) work for a fixed density, parallel over atoms (OpenMP),
/// rows in atom order and deterministic for any thread count. Throws ValueError for a
/// non-positive or non-finite rcut, a non-finite position (naming the atom) or a bad cell.
/// `vectors` false leaves NeighborList::vectors empty (for callers that recompute separations
/// from the positions, as the MD pair loop does between list builds).
NeighborList build_neighbor_list(const double* positions, int64_t natoms, const Box& box, double rcut,
                                 bool half = false, bool vectors = true);
/// The same into `list`, reusing its buffers (a caller that rebuilds often, as MD does, keeps one
/// list and avoids touching fresh memory at every build). Either form keeps its per-chunk row
/// buffers with the calling thread between calls (memory of about one list, the largest built).
void build_neighbor_list_into(NeighborList& list, const double* positions, int64_t natoms, const Box& box,
                              double rcut, bool half = false, bool vectors = true);

/// The same list by testing every pair against every periodic image the cutoff reaches:
/// O(N^2 * images). A reference for tests; rows are in the order (j, shift).
NeighborList brute_force_neighbor_list(const double* positions, int64_t natoms, const Box& box, double rcut,
                                       bool half = false);

/// Sorts every row by (j, shift), so two lists of the same pairs compare equal entry by entry.
void sort_rows(NeighborList& list);

}  // namespace sampan::deepmd
