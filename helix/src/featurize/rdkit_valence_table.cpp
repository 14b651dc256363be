// RDKit's valence model, asked once per kind of atom (see rdkit_valence_table.h).
#include "featurize/rdkit_valence_table.h"

#include <GraphMol/GraphMol.h>
#include <GraphMol/MolOps.h>

#include <cstdint>
#include <exception>
#include "featurize/thread_scratch.h"

namespace sampan::helix {

namespace {

/// The kind of an atom: everything RDKit's per-atom valence code reads. Bond counts by type:
/// single, double, triple, aromatic (and, for radicals, how many aromatic bonds are double in the
/// Kekulé form).
struct AtomKind {
  int z, charge, hs, singles, doubles, triples, aromatics, aromatic_doubles;
  bool aromatic, no_implicit;

  /// A 32-bit key, or false where a field is out of the packed range (the caller declines).
  bool pack(uint32_t& key) const {
    if (z < 1 || z > 118 || charge < -7 || charge > 7 || hs < 0 || hs > 7 || singles > 15 || doubles > 7 ||
        triples > 3 || aromatics > 7 || aromatic_doubles > aromatics) {
      return false;
    }
    key = static_cast<uint32_t>(z) | static_cast<uint32_t>(aromatic) << 7 | static_cast<uint32_t>(no_implicit) << 8 |
          static_cast<uint32_t>(charge + 8) << 9 | static_cast<uint32_t>(hs) << 13 |
          static_cast<uint32_t>(singles) << 16 | static_cast<uint32_t>(doubles) << 20 |
          static_cast<uint32_t>(triples) << 23 | static_cast<uint32_t>(aromatics) << 25 |
          static_cast<uint32_t>(aromatic_doubles) << 28;
    return true;
  }

  /// A molecule with this atom (index 0) and one carbon neighbour per bond (without implicit
  /// hydrogens, aromatic across aromatic bonds), its bonds as parsed.
  void build(RDKit::RWMol& mol) const {
    auto* atom = new RDKit::Atom(z);
    atom->setIsAromatic(aromatic);
    atom->setFormalCharge(charge);
    atom->setNoImplicit(no_implicit);
    atom->setNumExplicitHs(hs);
    mol.addAtom(atom, false, true);
    auto add = [&](RDKit::Bond::BondType type, bool is_aromatic) {
      auto* neighbour = new RDKit::Atom(6);
      neighbour->setNoImplicit(true);
      neighbour->setIsAromatic(is_aromatic);
      const unsigned j = mol.addAtom(neighbour, false, true);
      const unsigned k = mol.addBond(0u, j, type) - 1;
      mol.getBondWithIdx(k)->setIsAromatic(is_aromatic);
    };
    for (int b = 0; b < singles; ++b) add(RDKit::Bond::SINGLE, false);
    for (int b = 0; b < doubles; ++b) add(RDKit::Bond::DOUBLE, false);
    for (int b = 0; b < triples; ++b) add(RDKit::Bond::TRIPLE, false);
    for (int b = 0; b < aromatics; ++b) add(RDKit::Bond::AROMATIC, true);
  }
};

/// RDKit's strict explicit and implicit valence of the atom, packed as explicit * 256 + implicit,
/// or -1 where RDKit throws (a valence error).
int32_t ask_rdkit_valences(const AtomKind& kind) {
  try {
    RDKit::RWMol mol;
    kind.build(mol);
    RDKit::Atom* atom = mol.getAtomWithIdx(0);
    const int explicit_valence = atom->calcExplicitValence(true);
    const int implicit_valence = atom->calcImplicitValence(true);
    if (explicit_valence < 0 || explicit_valence > 255 || implicit_valence < 0 || implicit_valence > 255) return -1;
    return explicit_valence * 256 + implicit_valence;
  } catch (const std::exception&) {
    return -1;
  }
}

/// RDKit's assignRadicals on the atom after its aromatic bonds are given their Kekulé types (the
/// property cache computed on the form as parsed, as in sanitization), -1 where RDKit throws.
int32_t ask_rdkit_radicals(const AtomKind& kind) {
  try {
    RDKit::RWMol mol;
    kind.build(mol);
    mol.updatePropertyCache(false);
    int doubles_left = kind.aromatic_doubles;
    for (RDKit::Bond* bond : mol.bonds()) {
      if (bond->getBondType() != RDKit::Bond::AROMATIC) continue;
      bond->setBondType(doubles_left > 0 ? RDKit::Bond::DOUBLE : RDKit::Bond::SINGLE);
      --doubles_left;
    }
    RDKit::MolOps::assignRadicals(mol);
    return static_cast<int32_t>(mol.getAtomWithIdx(0)->getNumRadicalElectrons());
  } catch (const std::exception&) {
    return -1;
  }
}

/// A per-thread memo from packed keys to RDKit's answers (open addressing; a few hundred kinds of
/// atom occur in practice, so it never fills; if it did, answers are computed without keeping them).
class Memo {
 public:
  template <class Ask>
  int32_t get(uint32_t key, const AtomKind& kind, Ask ask) {
    uint32_t slot = (key * 2654435761u) >> (32 - kBits);
    for (int probe = 0; probe < 64; ++probe, slot = (slot + 1) & (kSize - 1)) {
      if (keys_[slot] == key + 1) return values_[slot];
      if (keys_[slot] == 0) {
        const int32_t value = ask(kind);
        keys_[slot] = key + 1;
        values_[slot] = value;
        return value;
      }
    }
    return ask(kind);
  }

 private:
  static constexpr int kBits = 12;
  static constexpr uint32_t kSize = 1u << kBits;
  uint32_t keys_[kSize] = {};  // key + 1; 0 marks an empty slot
  int32_t values_[kSize] = {};
};

/// The two tables (distinct types, so that each thread has one of each).
struct ValenceMemo : Memo {};
struct RadicalsMemo : Memo {};

/// The atom's kind from the arrays (bonds counted as parsed; aromatic ones also by Kekulé form
/// when `double_bond` is given).
AtomKind atom_kind(const MolArrays& mol, int i, const std::vector<char>* double_bond) {
  AtomKind kind{mol.z[i], mol.charge[i], mol.explicit_hs[i], 0, 0, 0, 0, 0, mol.aromatic[i] != 0,
                mol.no_implicit[i] != 0};
  for (int p = mol.start[i]; p < mol.start[i + 1]; ++p) {
    const int k = mol.incident[p];
    if (mol.bond_aromatic[k]) {
      ++kind.aromatics;
      if (double_bond && (*double_bond)[k]) ++kind.aromatic_doubles;
    } else if (mol.order[k] == 1) {
      ++kind.singles;
    } else if (mol.order[k] == 2) {
      ++kind.doubles;
    } else {
      ++kind.triples;
    }
  }
  return kind;
}

}  // namespace

bool fill_rdkit_valences(MolArrays& mol) {
  Memo& memo = thread_scratch<ValenceMemo>();
  mol.explicit_valence.resize(mol.n);
  mol.implicit_valence.resize(mol.n);
  mol.radicals.assign(mol.n, 0);
  for (int i = 0; i < mol.n; ++i) {
    const AtomKind kind = atom_kind(mol, i, nullptr);
    uint32_t key;
    if (!kind.pack(key)) return false;
    const int32_t value = memo.get(key, kind, ask_rdkit_valences);
    if (value < 0) return false;
    mol.explicit_valence[i] = value / 256;
    mol.implicit_valence[i] = value % 256;
  }
  return true;
}

bool rdkit_adjust_hs(MolArrays& mol, const std::vector<char>& atom_aromatic,
                     const std::vector<RDKit::Bond::BondType>& type) {
  Memo& memo = thread_scratch<ValenceMemo>();
  for (int i = 0; i < mol.n; ++i) {
    if (mol.radicals[i]) return false;
    AtomKind kind{mol.z[i], mol.charge[i], mol.explicit_hs[i], 0, 0, 0, 0, 0, atom_aromatic[i] != 0,
                  mol.no_implicit[i] != 0};
    for (int p = mol.start[i]; p < mol.start[i + 1]; ++p) {
      switch (type[mol.incident[p]]) {
        case RDKit::Bond::SINGLE: ++kind.singles; break;
        case RDKit::Bond::DOUBLE: ++kind.doubles; break;
        case RDKit::Bond::TRIPLE: ++kind.triples; break;
        case RDKit::Bond::AROMATIC: ++kind.aromatics; break;
        default: return false;
      }
    }
    uint32_t key;
    if (!kind.pack(key)) return false;
    // RDKit's values without strictness equal the strict ones wherever the strict ones exist (the
    // strict calculation only adds the throw).
    int32_t value = memo.get(key, kind, ask_rdkit_valences);
    if (value < 0) return false;
    const int lost = mol.implicit_valence[i] - value % 256;
    if (lost > 0) {
      kind.hs += lost;
      if (!kind.pack(key)) return false;
      value = memo.get(key, kind, ask_rdkit_valences);
      if (value < 0) return false;
      mol.explicit_hs[i] = kind.hs;
    }
    mol.explicit_valence[i] = value / 256;
    mol.implicit_valence[i] = value % 256;
  }
  return true;
}

int rdkit_radicals(const MolArrays& mol, int i, const std::vector<char>& double_bond) {
  Memo& memo = thread_scratch<RadicalsMemo>();
  const AtomKind kind = atom_kind(mol, i, &double_bond);
  uint32_t key;
  if (!kind.pack(key)) return -1;
  return memo.get(key, kind, ask_rdkit_radicals);
}

}  // namespace sampan::helix
