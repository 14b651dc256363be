// A half neighbour list in LAMMPS's form: every periodic image that a pair reaches is an explicit
// ghost atom, so the pair loop reads positions by index only (4-byte indices, no image shift per
// pair, no branch on the image). Built once per neighbour-list build from the list with image
// shifts (neighbor_list.h); between builds only the ghost positions move with their owners.
//
// Extended indexing: atoms [0, natoms) are the atoms as given, [natoms, natoms + nghost) the
// ghosts; ghost g stands at x[owner[g]] + n_g . cell. A pair (i, j, n) of the half list becomes
// (i, j) when n = 0 and (i, ghost of (j, n)) otherwise; ghosts are numbered in order of first
// appearance in the list, so the numbering is deterministic.
#pragma once

#include <cstdint>
#include <vector>

#include "sampan/deepmd/neighbor_list.h"

namespace sampan::deepmd::md {

struct GhostedList {
  int64_t natoms = 0;
  std::vector<int32_t> owner;      // [nghost]: the atom a ghost is an image of
  std::vector<int32_t> image;      // [nghost * 3]: its image shift n
  std::vector<int64_t> offsets;    // [natoms + 1]: row i is [offsets[i], offsets[i+1])
  std::vector<int32_t> neighbors;  // [npairs]: extended index of j
  int64_t max_row = 0;             // the longest row

  int64_t nghost() const { return static_cast<int64_t>(owner.size()); }
  int64_t extended() const { return natoms + nghost(); }
};

/// The ghosted form of a half list (throws ValueError if the list is full, or if the atom or
/// ghost count does not fit 32-bit indices).
GhostedList ghost_half_list(const NeighborList& half);

/// x_ext [extended, 3] = the positions x [natoms, 3], then every ghost at x[owner] + n . cell;
/// types_ext [extended] the same for the types.
void place_ghosts(const GhostedList& list, const double* x, const int* types, const double* cell, double* x_ext,
                  int* types_ext);

/// Adds each ghost's row of f_ext [extended, 3] to its owner's row (in ghost order): afterwards
/// rows [0, natoms) hold the forces on the atoms.
void fold_ghost_forces(const GhostedList& list, double* f_ext);

}  // namespace sampan::deepmd::md
