// sampan's own SMILES reader for the 'ogb' fast path: the molecule as RDKit's parser builds it
// (SmilesToMol with sanitize=false, removeHs=false), as plain arrays, for the SMILES it is sure of.
//
// RDKit's parse is the largest single cost of featurization (~16 us of ~42 per HIV molecule, most
// of it creating and freeing Atom/Bond objects with their property dictionaries). Everything the
// fast path reads from it is a few integers per atom and bond, so for the common SMILES (the
// organic subset, bracket atoms with hydrogen counts and charges, branches, ring closures, dots)
// this reader produces those integers directly, in RDKit's order:
//  - atoms in order of appearance; bracket atoms have no implicit hydrogens ("noImplicit") and the
//    written hydrogen count, atoms of the organic subset neither;
//  - bonds: first every bond to the previous atom of the chain, in order of appearance, then the
//    ring-closure bonds by ring number (for one number, in the order they close); a ring-closure bond begins at the closing atom
//    unless its bond symbol was written at the opening digit (then it begins at the opening atom);
//  - an unwritten bond between two aromatic atoms is aromatic, otherwise single; '-' '=' '#' as
//    written (RDKit's raw parse, checked against RDKit in tests/cpp/helix/smiles_reader_test.cpp).
//  - stereo marks, where the caller asks for them (StereoMarks): '@' '@@' on bracket atoms as
//    RDKit's chiral tags after its AdjustAtomChiralityFlags (the tag refers to the atom's bonds in
//    bond-index order, so the written tag is inverted where the written neighbour order, with the
//    ring closures at the atom's own place, is an odd permutation of it, and for a first atom
//    [C@H] of degree 3); '/' '\' as the bond directions ENDUPRIGHT and ENDDOWNRIGHT of the chain
//    bond they are written on (begin: the atom before). Declined: '@' forms other than '@' '@@',
//    a degree-3 tagged atom without one H and with one ring closure (RDKit's inversion there also
//    reads unsaturation), [C@H] starting a fragment after '.', directions on ring closures or
//    between two aromatic atoms.
// Anything else is declined (false) and the caller uses RDKit's parser: stereo marks where no
// StereoMarks is given, hydrogen atoms, isotopes, atom classes, '*', ':', '$', '~', '%(nnn)', a bond symbol between two
// aromatic atoms other than '-', unclosed rings, a ring closure that would repeat a bond, and
// every syntax error (so that the message reported is RDKit's).
#pragma once

#include <string>
#include <vector>

#include "featurize/aromaticity.h"

namespace sampan::helix {

/// Stereo marks as RDKit's raw parse leaves them: `tag` per atom 0 none, 1 CHI_TETRAHEDRAL_CW,
/// 2 CHI_TETRAHEDRAL_CCW; `dir` per bond 0 NONE, 1 ENDUPRIGHT, 2 ENDDOWNRIGHT; `any` whether any.
struct StereoMarks {
  std::vector<int> tag, dir;
  bool any = false;
};

/// Reads `smiles` into `mol`'s atoms (z, charge, explicit_hs, aromatic, no_implicit, degree) and
/// bonds (bond_begin, bond_end, order, bond_aromatic) as RDKit's raw parse has them; n and m set,
/// valences and radicals left to the caller. With `stereo`, stereo marks are read into it (else a
/// SMILES with stereo marks is declined). False where the SMILES is outside what it reads; then
/// `why`, where given, gets the reason (a fixed string, for helix_featurize_steps_bench's counts).
bool read_smiles_arrays(const std::string& smiles, MolArrays& mol, StereoMarks* stereo = nullptr,
                        const char** why = nullptr);

}  // namespace sampan::helix
