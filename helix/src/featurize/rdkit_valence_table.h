// RDKit's valence model, asked once per kind of atom: the values its property cache and
// assignRadicals give an atom depend only on the atom (element, aromatic flag, charge, written
// hydrogens, whether it is a bracket atom) and on how many bonds of each type it has. So instead
// of re-stating RDKit's rules, the fast path builds a tiny molecule with one such atom, lets RDKit
// compute its values, and remembers them (per thread) for every later atom of the same kind.
// This is what lets sampan's SMILES reader (smiles_reader.h) skip RDKit's molecule entirely while
// keeping RDKit's hydrogen counts, valences, valence errors and radicals exactly.
#pragma once

#include "featurize/aromaticity.h"

namespace sampan::helix {

/// Fills `mol.explicit_valence` and `mol.implicit_valence` of every atom as RDKit's strict
/// updatePropertyCache does on the molecule as parsed (reading z, aromatic, no_implicit, charge,
/// explicit_hs and the bonds' order and aromatic flag), and sets radicals to 0 (as parsed).
/// False where RDKit would throw for some atom (a valence error: the caller leaves the molecule to
/// RDKit, which reports it) or an atom is outside the table's range.
bool fill_rdkit_valences(MolArrays& mol);

/// RDKit's assignRadicals for bracket atom i (no_implicit) with the molecule's aromatic bonds in
/// the Kekulé form `double_bond` (as in its sanitization, which kekulizes first): its number of
/// radical electrons, or -1 where outside the table's range.
int rdkit_radicals(const MolArrays& mol, int i, const std::vector<char>& double_bond);

}  // namespace sampan::helix
