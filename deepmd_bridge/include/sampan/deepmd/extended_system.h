// The input of the se_e2_a ops for one frame: local atoms plus explicit periodic images
// ("ghosts") and a formatted neighbour list, in DeePMD-kit's layout.
//
// Formatting (DeePMD-kit's format_nlist): the neighbours of each centre within rcut are grouped by
// neighbour type; inside a type block they are sorted by (distance, index, image); the block of
// type t keeps the first sel[t] and pads with -1. Centres whose neighbours of some type exceed
// sel[t] are counted in `overflow` (neighbours beyond sel are dropped, as in DeePMD-kit; the
// caller decides whether to warn or fail).
// Units: Å. Cell vectors are rows of the 3x3 cell (DeePMD box.npy); coordinates need not be
// wrapped: local atoms are wrapped into the cell, which changes no energy or force.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sampan::deepmd {

struct ExtendedSystem {
  int64_t nloc = 0;
  int64_t nall = 0;
  int64_t nnei = 0;
  std::vector<double> coord;       ///< [nall, 3]: wrapped local atoms first, then ghost images
  std::vector<int64_t> types;      ///< [nall]
  std::vector<int64_t> mapping;    ///< [nall]: the local atom each extended atom is a copy of
  std::vector<int64_t> nlist;      ///< [nloc, nnei], indices into the extended atoms, -1 = empty
  std::vector<int64_t> overflow;   ///< [ntypes]: centres with more than sel[t] neighbours of type t
  std::vector<int64_t> max_count;  ///< [ntypes]: the largest number of type-t neighbours of a centre
  /// Atoms that receive forces: nloc (ghost forces folded onto their owners) or, for a LAMMPS
  /// subdomain whose ghosts are other ranks' atoms, nall (mapping = identity; 0 means nloc).
  int64_t nowners = 0;

  bool any_overflow() const;
  /// "12 centres have more than sel[1] = 92 neighbours of type 1 (at most 97)" or "".
  std::string overflow_message(const std::vector<int64_t>& sel) const;
};

/// Neighbour candidates of every centre in compressed-row form (a full list within rcut):
/// candidate k of centre i (k in [offsets[i], offsets[i+1])) is atom index[k] shifted by the
/// integer cell image shift[3k..3k+2], at separation vector[3k..3k+2] = x_j + n.cell - x_i.
struct NeighborCandidates {
  std::vector<int64_t> offsets, index;
  std::vector<int32_t> shift;
  std::vector<double> vector;
};

/// All pairs within rcut by testing every pair against every periodic image that the cutoff
/// sphere can reach around the nearest one: O(N^2 * images); coordinates need not be wrapped. The
/// test oracle of the cell-list search, and the search itself for small systems.
NeighborCandidates brute_force_candidates(const double* coord, int64_t natoms, const double* cell, double rcut);

/// Builds the extended system of one frame (neighbours by the cell list of neighbor_list.h). `cell` is the 3x3 cell (rows = vectors) or null for
/// open boundaries; types in [0, sel.size()). Throws ValueError naming the atom or the cell entry
/// for non-finite input, a singular cell, or a type outside sel.
ExtendedSystem build_extended_system(const double* coord, const int64_t* types, int64_t natoms, const double* cell,
                                     double rcut, const std::vector<int64_t>& sel);

/// The same from precomputed candidates (e.g. a cell-list search); `wrapped` are the local
/// coordinates the candidates were computed from.
ExtendedSystem format_extended_system(const double* wrapped, const int64_t* types, int64_t natoms, const double* cell,
                                      const NeighborCandidates& candidates, const std::vector<int64_t>& sel);

/// Local coordinates wrapped into the cell (fractional coordinates in [0, 1)); a copy for open
/// boundaries (cell == null).
std::vector<double> wrap_into_cell(const double* coord, int64_t natoms, const double* cell);

}  // namespace sampan::deepmd
