// RDKit's valence model, asked once per kind of atom: the values its property cache and
// assignRadicals give an atom depend only on the atom (element, aromatic flag, charge, written
// hydrogens, whether it is a bracket atom) and on how many bonds of each type it has. So instead
// of re-stating RDKit's rules, the fast path builds a tiny molecule with one such atom, lets RDKit
// compute its values, and remembers them (per thread) for every later atom of the same kind.
// This is what lets sampan's SMILES reader (smiles_reader.h) skip RDKit's molecule entirely while
// keeping RDKit's hydrogen counts, valences, valence errors and radicals exactly.
#pragma once

#include <GraphMol/Bond.h>

#include <vector>

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

/// RDKit's last two sanitization steps where aromaticity perception changed the molecule (a
/// Kekulé-written ring became aromatic, an aromatic bond outside rings became single): adjustHs
/// (an atom whose implicit valence in the final form, computed without strictness, is below the
/// one cached on the form as parsed keeps the difference as explicit hydrogens: pyrrole's N-H
/// written "C1=CNC=C1") and the strict property cache of the final form. The final form: atom i
/// aromatic where `atom_aromatic[i]`, bond k of type `type[k]`; `mol` holds the values as parsed
/// (explicit_hs, implicit_valence) and gets the final explicit_hs, explicit_valence and
/// implicit_valence. False where RDKit would throw for some atom, an atom is outside the table's
/// range, or an atom has radicals (the table's answers assume none).
bool rdkit_adjust_hs(MolArrays& mol, const std::vector<char>& atom_aromatic,
                     const std::vector<RDKit::Bond::BondType>& type);

}  // namespace sampan::helix
