// Smallest set of smallest rings (SSSR) on a plain graph, for the molecules where it is unique.
//
// RDKit's sanitization finds rings with MolOps::symmetrizeSSSR, about a fifth of its featurization
// time, mostly spent in per-atom object access. The features need the rings twice: whether an
// atom is in any ring, and the ring set itself, which RDKit's aromaticity perception enumerates.
// A minimum cycle basis (the SSSR) is in general not unique, and then RDKit's choice (plus the
// rings its symmetrization adds) cannot be predicted; so this finder answers only where the
// minimum cycle basis is provably unique, and says "not found" otherwise (the caller then runs
// RDKit's own ring perception):
//
//  - the graph is split at its bridges into ring systems (2-edge-connected components); a system
//    with one independent cycle is that cycle;
//  - in a larger system every simple cycle up to a length cap is enumerated, and a basis is
//    picked shortest first by Gaussian elimination over GF(2) on the cycles' edge sets (Horton's
//    greedy rule: it yields a minimum cycle basis). The basis is unique when no cycle left out is
//    as short as the longest cycle taken (then each cycle taken is the only one of its length
//    independent of the shorter ones, and nothing of the same length can be swapped in or added
//    by a symmetrization).
#pragma once

#include <cstdint>
#include <vector>

namespace sampan::helix {

/// One ring: its atoms in walking order, and bond k joining atoms[k] and atoms[k + 1] (the last
/// bond closes the ring).
struct FoundRing {
  std::vector<int> atoms;
  std::vector<int> bonds;
};

/// Marks the bonds that lie on a cycle (are not bridges): in_cycle[k] = 1 for those, 0 otherwise.
void find_cycle_bonds(int num_atoms, const std::vector<int>& bond_begin, const std::vector<int>& bond_end,
                      std::vector<char>& in_cycle);

/// Finds the unique SSSR of the graph with `num_atoms` vertices and bonds (bond_begin[k],
/// bond_end[k]). Returns false (and leaves `rings` unspecified) where the SSSR is not provably
/// unique or a ring system is too large to enumerate; true with the rings otherwise (none for an
/// acyclic graph).
bool find_unique_sssr(int num_atoms, const std::vector<int>& bond_begin, const std::vector<int>& bond_end,
                      std::vector<FoundRing>& rings);

/// find_unique_sssr for bonds that all lie on cycles (e.g. whole ring systems, as found by
/// find_cycle_bonds): skips the bridge search.
bool find_unique_sssr_of_cycle_bonds(int num_atoms, const std::vector<int>& bond_begin,
                                     const std::vector<int>& bond_end, std::vector<FoundRing>& rings);

}  // namespace sampan::helix
