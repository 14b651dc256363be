// RDKit's Kekulé assignment check and aromaticity model (MolOps::Kekulize, MolOps::setAromaticity
// with AROMATICITY_RDKIT), re-stated on plain arrays for the 'ogb' fast path (ogb_fast.cpp).
//
// The rules are RDKit's (Kekulize.cpp, Aromaticity.cpp; RDKit Book, "Aromaticity"):
//  - Kekulé form: an aromatic atom takes a double bond when its default valence (raised through
//    its allowed valences while its total valence exceeds it; plus its charge) equals its
//    single-bond order sum (aromatic bonds counted 1, hydrogens included) plus one; the double
//    bonds are a perfect matching of those atoms over the aromatic ring bonds (an aromatic bond
//    outside rings, as RDKit's parse makes the unwritten bond between two aromatic rings, stays
//    single).
//  - Donor types from electrons available to the pi system (countAtomElec: default valence minus
//    total degree, plus lone pairs net of charge, minus radicals; at most one with a multiple
//    bond), an exocyclic multiple bond to a more electronegative atom taking one; candidates are
//    atoms up to Ar (plus Se, Te) not above their default valence, without radicals (except on a
//    neutral C) and with at most one multiple bond.
//  - Rings (the SSSR) whose atoms are all candidates are grouped into fused systems (rings
//    sharing a bond, rings of at most 24 atoms); in each, every connected combination of up to 6
//    rings is tested by Huckel's rule over the union of its atoms (4n+2 within the donors' electron
//    range, or exactly 2), smallest combinations first, stopping once every candidate ring atom is
//    aromatic. An aromatic combination marks its atoms and the bonds that appear in only one of its
//    rings aromatic.
// Where a rule's outcome cannot be stated with certainty here (dummy atoms, an atom that could take
// a radical instead of a double bond, no perfect matching, very large fused systems) the functions
// return false and the caller uses RDKit's own code.
#pragma once

#include <cstdint>
#include <vector>

#include "featurize/ring_finder.h"

namespace RDKit {
class PeriodicTable;
}

namespace sampan::helix {

/// A molecule as arrays (atoms 0..n-1, bonds 0..m-1), with RDKit's property cache values of the
/// form it is in (as written, or Kekulé).
struct MolArrays {
  int n = 0, m = 0;
  std::vector<int> z, charge, degree, explicit_hs, implicit_valence, explicit_valence, radicals;
  std::vector<char> aromatic, no_implicit;
  std::vector<int> bond_begin, bond_end;
  std::vector<int> order;  // 1, 2, 3; aromatic bonds 1 in the written form (see bond_aromatic)
  std::vector<char> bond_aromatic;
  std::vector<int> start, incident;  // CSR: the bonds of atom i are incident[start[i] .. start[i+1])
  std::vector<char> bond_in_ring;
  void build_incidence();
  int total_hs(int i) const { return explicit_hs[i] + implicit_valence[i]; }
};

/// Per-element values of RDKit's periodic table, read once (RDKit's getTable() is a call per use).
struct Elements {
  const RDKit::PeriodicTable* table;
  int default_valence[119];
  int outer_electrons[119];
  static const Elements& get();
};

/// Electrons the atom can give to a pi system (RDKit's MolOps::countAtomElec on the form `mol` is
/// in), -1 for none.
int count_atom_electrons(const MolArrays& mol, int i);

/// The Kekulé form of `mol`'s aromatic atoms and bonds (RDKit's rule, see above): on success
/// `double_bond[k]` marks the aromatic bonds that become double, and `mol.explicit_valence` and
/// `mol.order` are updated to the Kekulé form. False where RDKit's outcome is not certain here or
/// where no Kekulé form exists (RDKit then rejects the molecule, with its own message).
bool kekulize_arrays(MolArrays& mol, std::vector<char>& double_bond);

/// RDKit's aromaticity candidates (isAtomCandForArom, as perceive_aromaticity decides them) among
/// the atoms with a ring bond (mol.bond_in_ring), on the Kekulé form `mol`: candidate[i] = 1 for
/// those, 0 for every other atom. False where some atom's candidacy is not certain here.
bool ring_atom_candidates(const MolArrays& mol, std::vector<char>& candidate);

/// RDKit's aromaticity on the Kekulé form `mol` with the ring set `rings` (the SSSR): sets
/// `atom_aromatic` and `bond_aromatic`, and `largest_system` to the number of candidate rings in
/// the largest fused system. False where a fused system is too large to enumerate or not
/// ortho-fused (see aromaticity.cpp).
bool perceive_aromaticity(const MolArrays& mol, const std::vector<FoundRing>& rings, std::vector<char>& atom_aromatic,
                          std::vector<char>& bond_aromatic, int& largest_system);

}  // namespace sampan::helix
