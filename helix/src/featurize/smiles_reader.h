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
// Anything else is declined (false) and the caller uses RDKit's parser: stereo ('@', '/', '\'),
// hydrogen atoms, isotopes, atom classes, '*', ':', '$', '~', '%(nnn)', a bond symbol between two
// aromatic atoms other than '-', unclosed rings, a ring closure that would repeat a bond, and
// every syntax error (so that the message reported is RDKit's).
#pragma once

#include <string>

#include "featurize/aromaticity.h"

namespace sampan::helix {

/// Reads `smiles` into `mol`'s atoms (z, charge, explicit_hs, aromatic, no_implicit, degree) and
/// bonds (bond_begin, bond_end, order, bond_aromatic) as RDKit's raw parse has them; n and m set,
/// valences and radicals left to the caller. False where the SMILES is outside what it reads.
bool read_smiles_arrays(const std::string& smiles, MolArrays& mol);

}  // namespace sampan::helix
