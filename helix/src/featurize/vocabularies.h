// The vocabularies of helix's featurizers, fixed in code: each RDKit value is mapped to its id by
// an explicit table, never by the position of an RDKit enum value (those positions moved between
// RDKit releases). Unknown values go to the last id ("misc"), like OGB's safe_index.
//
// OGB: ogb/utils/features.py (allowable_features); Hu et al.: pretrain-gnns chem/loader.py.
#pragma once

#include <GraphMol/Atom.h>
#include <GraphMol/Bond.h>

#include <cstdint>

namespace sampan::helix::vocab {

/// Value v in [lo, hi] -> v - lo; anything else -> hi - lo + 1 (the misc id).
inline int64_t range_index(int64_t v, int64_t lo, int64_t hi) {
  return (v >= lo && v <= hi) ? v - lo : hi - lo + 1;
}

// ---- OGB atom features, sizes [119, 5, 12, 12, 10, 6, 6, 2, 2] ----

/// Atomic numbers 1..118 -> 0..117, misc (e.g. the dummy atom '*', number 0) -> 118.
inline int64_t ogb_atomic_num(const RDKit::Atom& a) { return range_index(a.getAtomicNum(), 1, 118); }

/// CHI_UNSPECIFIED, CHI_TETRAHEDRAL_CW, CHI_TETRAHEDRAL_CCW, CHI_OTHER, misc (the tetrahedral /
/// allene / square-planar / trigonal-bipyramidal / octahedral tags added in RDKit 2022.03).
inline int64_t ogb_chirality(const RDKit::Atom& a) {
  switch (a.getChiralTag()) {
    case RDKit::Atom::CHI_UNSPECIFIED: return 0;
    case RDKit::Atom::CHI_TETRAHEDRAL_CW: return 1;
    case RDKit::Atom::CHI_TETRAHEDRAL_CCW: return 2;
    case RDKit::Atom::CHI_OTHER: return 3;
    default: return 4;
  }
}

/// Total degree (explicit + implicit neighbours, H included) 0..10, misc -> 11.
inline int64_t ogb_degree(const RDKit::Atom& a) { return range_index(a.getTotalDegree(), 0, 10); }

/// Formal charge -5..5 -> 0..10, misc -> 11.
inline int64_t ogb_formal_charge(const RDKit::Atom& a) { return range_index(a.getFormalCharge(), -5, 5); }

/// Total H count (implicit + explicit, not H neighbours) 0..8, misc -> 9.
inline int64_t ogb_num_hs(const RDKit::Atom& a) { return range_index(a.getTotalNumHs(false), 0, 8); }

/// Radical electrons 0..4, misc -> 5.
inline int64_t ogb_radical_electrons(const RDKit::Atom& a) {
  return range_index(a.getNumRadicalElectrons(), 0, 4);
}

/// SP, SP2, SP3, SP3D, SP3D2, misc (UNSPECIFIED, S, SP2D, OTHER ...).
inline int64_t ogb_hybridization_id(RDKit::Atom::HybridizationType h) {
  switch (h) {
    case RDKit::Atom::SP: return 0;
    case RDKit::Atom::SP2: return 1;
    case RDKit::Atom::SP3: return 2;
    case RDKit::Atom::SP3D: return 3;
    case RDKit::Atom::SP3D2: return 4;
    default: return 5;
  }
}
inline int64_t ogb_hybridization(const RDKit::Atom& a) { return ogb_hybridization_id(a.getHybridization()); }

// ---- OGB bond features, sizes [5, 6, 2] ----

/// SINGLE, DOUBLE, TRIPLE, AROMATIC, misc.
inline int64_t ogb_bond_type_id(RDKit::Bond::BondType t) {
  switch (t) {
    case RDKit::Bond::SINGLE: return 0;
    case RDKit::Bond::DOUBLE: return 1;
    case RDKit::Bond::TRIPLE: return 2;
    case RDKit::Bond::AROMATIC: return 3;
    default: return 4;
  }
}
inline int64_t ogb_bond_type(const RDKit::Bond& b) { return ogb_bond_type_id(b.getBondType()); }

/// STEREONONE, STEREOZ, STEREOE, STEREOCIS, STEREOTRANS, STEREOANY (OGB's list has no misc id:
/// these six are every BondStereo value of RDKit 2022.09; a later value maps to STEREOANY).
inline int64_t ogb_bond_stereo(const RDKit::Bond& b) {
  switch (b.getStereo()) {
    case RDKit::Bond::STEREONONE: return 0;
    case RDKit::Bond::STEREOZ: return 1;
    case RDKit::Bond::STEREOE: return 2;
    case RDKit::Bond::STEREOCIS: return 3;
    case RDKit::Bond::STEREOTRANS: return 4;
    default: return 5;
  }
}

// ---- Hu et al. (pretrain-gnns) features: atom [119, 4], bond [5, 4] ----

/// Atom type: atomic numbers 1..118 -> 0..117, other -> 118 (Hu's list stops at 118 and its
/// embedding table adds the mask id 119).
inline int64_t hu_atom_type(const RDKit::Atom& a) { return range_index(a.getAtomicNum(), 1, 118); }

/// CHI_UNSPECIFIED, CHI_TETRAHEDRAL_CW, CHI_TETRAHEDRAL_CCW, CHI_OTHER; the newer tags count as
/// CHI_OTHER (Hu's list is these four).
inline int64_t hu_chirality(const RDKit::Atom& a) {
  switch (a.getChiralTag()) {
    case RDKit::Atom::CHI_UNSPECIFIED: return 0;
    case RDKit::Atom::CHI_TETRAHEDRAL_CW: return 1;
    case RDKit::Atom::CHI_TETRAHEDRAL_CCW: return 2;
    default: return 3;
  }
}

/// SINGLE, DOUBLE, TRIPLE, AROMATIC, other (Hu's ids 4 and 5, self-loop and mask, are added by
/// the model after these five).
inline int64_t hu_bond_type(const RDKit::Bond& b) { return ogb_bond_type(b); }

/// NONE, ENDUPRIGHT, ENDDOWNRIGHT, other (wedges from a mol block, EITHERDOUBLE, UNKNOWN).
inline int64_t hu_bond_direction(const RDKit::Bond& b) {
  switch (b.getBondDir()) {
    case RDKit::Bond::NONE: return 0;
    case RDKit::Bond::ENDUPRIGHT: return 1;
    case RDKit::Bond::ENDDOWNRIGHT: return 2;
    default: return 3;
  }
}

}  // namespace sampan::helix::vocab
