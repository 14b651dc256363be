// RDKit 2022.09's legacy stereo perception (what Chem.MolFromSmiles leaves as OGB's two stereo
// features: an atom's chiral tag kept or cleared, a double bond's STEREONONE/STEREOZ/STEREOE),
// re-stated on plain arrays for the molecules where its outcome is certain without RDKit's
// iterative re-ranking; everything else is declined (then RDKit's own stereo step decides).
//
// The rules re-stated (RDKit's Chirality.cpp, legacy path of assignStereochemistry with cleanIt,
// force and flagPossibleStereoCenters, as SmilesToMol calls it):
//  - CIP ranks (assignAtomCIPRanks): an invariant per atom from the atomic number, the isotope's
//    deviation from the most common mass and the atom-map number, ranked densely; then repeated
//    refinement, each atom keyed by its rank and its neighbours' ranks (each neighbour rank + 1,
//    highest first, repeated twice the bond order: 2 single, 3 aromatic, 4 double, 6 triple; 1 for
//    a double bond to a 3- or 4-connected P), then one 0 per hydrogen, padded with -1 - until all
//    atoms are distinct, an iteration splits no class, or after n/2 + 1 iterations.
//  - A tagged atom keeps its tag where it is a legal centre (here: C with four heavy neighbours,
//    or three and one H) whose neighbours have four (three) distinct ranks; it then gets an R/S
//    code. A double bond outside rings under 8 atoms, each end with 1-2 other neighbours, gets
//    E or Z where each end has a neighbour bond with a direction ('/' '\') and, with two
//    neighbours, the two differ in rank: the directions are read as leaving the double-bond atom
//    (a missing one is the opposite of the given one), the higher-ranked neighbour's direction
//    counts at each end, same direction Z, opposite E; two equal directions at one end conflict
//    (STEREONONE).
//  - Codes given feed a re-ranking (R > S, Z > E) and another pass, until nothing changes: that
//    can break ties between constitutionally equal neighbours (pseudo-asymmetric centres,
//    r/s ring atoms). Not re-stated: where a tagged atom or a marked double bond is tied and any
//    code was given, the molecule is declined.
//  - Ring stereo (findChiralAtomSpecialCases): a tagged atom without a code survives where it is a
//    ring-stereo candidate (two non-ring neighbours of different rank; one non-ring neighbour and
//    two ring ones; no non-ring neighbour and 3 ranks among 4 ring neighbours or 2 among 3) and
//    another tagged candidate lies in its ring system (atoms joined by ring bonds): cis/trans
//    1,4-disubstituted cyclohexanes keep both tags.
// Declined: tagged atoms other than such carbons, atom-map numbers, double bonds in rings with
// directions at both ends (whose smallest ring size would decide), and the ties above.
#pragma once

#include <GraphMol/Bond.h>

#include <cstdint>
#include <vector>

#include "featurize/aromaticity.h"

namespace sampan::helix {

/// Per-thread working arrays of legacy_stereo_on_arrays (no allocation once warm).
struct LegacyStereoScratch {
  using Key = unsigned __int128;  // an atom's key in one ranking round (legacy_stereo.cpp)
  std::vector<Key> keys;
  std::vector<int> ranks, order, nbr, system_of, invariant, pairs;
  std::vector<char> tied, candidate;
  const char* why = nullptr;  // why legacy_stereo_on_arrays last declined (for the steps bench)
};

/// Inputs beyond `mol` (the final molecule: atoms, bonds, total hydrogens, bond_in_ring set):
/// `type` the final bond types, `tag` per atom 0 none, 1 CW, 2 CCW (as parsed); `dir` per bond 0
/// none, 1 ENDUPRIGHT ('/'), 2 ENDDOWNRIGHT ('\'), as parsed; `isotope` per atom (0 none).
/// On true, `chirality` gets each atom's OGB chirality id (0 cleared, 1 CW, 2 CCW) and
/// `bond_stereo` each bond's OGB stereo id (0 none, 1 Z, 2 E); false where the outcome is not
/// certain here (RDKit's stereo step must decide).
bool legacy_stereo_on_arrays(const MolArrays& mol, const std::vector<RDKit::Bond::BondType>& type,
                             const std::vector<int>& tag, const std::vector<int>& dir, const std::vector<int>& isotope,
                             LegacyStereoScratch& scratch, std::vector<int>& chirality, std::vector<int>& bond_stereo);

/// The legacy CIP ranks: ranks[i] dense, higher = higher CIP priority. False for molecules
/// beyond the packed keys (over kMaxAtoms atoms, an atom with over kMaxDegree neighbours). With
/// `pairs` (atom indices, two by two), the rounds stop early once every pair has distinct ranks:
/// later rounds only split classes and keep the order of atoms already apart, so each pair's
/// order is then final (the other ranks are not).
constexpr int kMaxAtoms = 1000, kMaxDegree = 6;
bool legacy_cip_ranks(const MolArrays& mol, const std::vector<RDKit::Bond::BondType>& type,
                      const std::vector<int>& isotope, LegacyStereoScratch& scratch, std::vector<int>& ranks,
                      const std::vector<int>* pairs = nullptr);

}  // namespace sampan::helix
