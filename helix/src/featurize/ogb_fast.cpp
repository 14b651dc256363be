// The 'ogb' featurizer's fast path: the parts of RDKit's sanitization that OGB's features read,
// with the costly ones re-stated on plain arrays, for the molecules where the outcome is certain.
//
// What Chem.MolFromSmiles does (and OGB then featurizes) is SmilesToMol with default parameters:
// parse, removeHs with sanitizeMol, legacy stereo perception. Measured per molecule (first 3,000
// HIV molecules, one thread, CPU time; build/bench/helix_featurize_steps_bench) the costly steps
// are the parse (~17 us), symmetrizeSSSR (~17), the stereo perception (~22; skipped without stereo
// marks), Kekulize (~10), setAromaticity (~7), setConjugation (~6), removeHs (~3), two property
// cache passes (~3.5 each) and adjustHs (~3): RDKit's per-atom object access, not the algorithms.
// The molecule as parsed comes from sampan's own SMILES reader where it reads the SMILES
// (smiles_reader.h: RDKit's raw parse as arrays, no RDKit molecule at all) with RDKit's valences
// and radicals from a per-thread table of RDKit's answers per kind of atom (rdkit_valence_table.h),
// where cleanUp cannot change anything (stereo marks included: the reader gives the chiral tags
// and bond directions of RDKit's parse, and the stereo step on arrays decides them where certain);
// otherwise (H atoms, isotopes, nitro groups written 5-valent, stereo that RDKit's own step must
// decide, ...) and wherever a later step needs RDKit's molecule (an SSSR that is not unique),
// from RDKit's parse (sanitize=false), cleanUp and strict
// property cache (which decide charges, valences, hydrogen counts and valence errors). Then:
//  - rings: find_unique_sssr (ring_finder.h) where the SSSR is provably unique, RDKit's
//    symmetrizeSSSR otherwise;
//  - Kekulé form and aromaticity: RDKit's rules on arrays (aromaticity.h), then RDKit's own
//    assignRadicals on the Kekulé bond orders (only where bracket atoms exist);
//  - the molecule is taken only when the perceived aromatic atoms and bonds are exactly those
//    written (then the final molecule is the written one, so adjustHs and the second property
//    cache pass change nothing: hydrogen counts and valences are those of the first pass), or
//    when perception only adds aromatic rings (Kekulé-written ones) and turns aromatic bonds
//    outside rings single (then adjustHs and the property cache of the final form come from
//    RDKit's valence table on the reader's path, from RDKit itself on RDKit's parse, where only
//    wholly Kekulé-written molecules are taken): either way no Kekulé bond shows in the features;
//  - setConjugation and setHybridization on arrays by RDKit's rules (ConjugHybrid.cpp: a bond is
//    conjugated when aromatic, or when it joins a multiple or aromatic bond through an atom with
//    2-3 substituents to a neighbour with at most 3, both able to conjugate; hybridization from
//    bonds plus lone pairs);
//  - removeHs and clearComputedProps are skipped: the path takes no molecule with H atoms;
//  - stereo marks ('@' '@@' tags, '/' '\' bond directions; RDKit's parse reads them): RDKit's
//    legacy stereo perception re-stated on the arrays (legacy_stereo.h: CIP ranks, which tags and
//    double-bond marks survive) where its outcome is certain, 98% of Tox21's stereo-marked SMILES;
//    otherwise RDKit's cleanupChirality and legacy stereo perception on its parse once the
//    properties they read are set from the arrays (apply_rdkit_stereo), instead of RDKit's whole
//    sanitization first.
// Anything else goes to the full path (parse_smiles, RDKit throughout): H atoms, chiral tags other
// than '@' '@@', bond stereo, query or dative bonds, written aromatic rings that RDKit does not
// keep aromatic (their Kekulé bonds would show), dummy aromatic atoms, any RDKit error (so that the message is
// RDKit's). tests/cpp/helix/fast_path_test.cpp compares both paths molecule by molecule, and
// bench/helix/compare_ogb.py the result with OGB's smiles2graph on every MoleculeNet molecule.
#include <GraphMol/GraphMol.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/PeriodicTable.h>
#include <GraphMol/RingInfo.h>
#include <GraphMol/SmilesParse/SmilesParse.h>

#include <cstdlib>
#include <ctime>
#include <exception>

#include "featurize/aromaticity.h"
#include "featurize/legacy_stereo.h"
#include "featurize/molecule_graph.h"
#include "featurize/rdkit_valence_table.h"
#include "featurize/ring_finder.h"
#include "featurize/smiles_reader.h"
#include "featurize/vocabularies.h"
#include "featurize/thread_scratch.h"

namespace sampan::helix {

namespace {

/// RDKit's rule for atoms that can take part in conjugation (isAtomConjugCand): first-row atoms,
/// or heavier ones outside groups 15 and 16 (a P or S next to an aromatic ring is not conjugated;
/// RDKit Issue211), or a group-16 atom with one neighbour; and electrons to give (countAtomElec).
bool conjugation_candidate(const MolArrays& mol, int i, int total_degree) {
  const int z = mol.z[i];
  const int outer = Elements::get().outer_electrons[z];
  return (z <= 10 || (outer != 5 && outer != 6) || (outer == 6 && total_degree < 2)) &&
         count_atom_electrons(mol, i) > 0;
}

/// RDKit's setHybridization for an atom without chiral tag and without zero-order or dative bonds:
/// the number of bonds plus lone pairs (radicals counted below an octet) picks S/SP/SP2/SP3...;
/// four of them with a conjugated bond and at most three neighbours is SP2 (O=CO's second O).
RDKit::Atom::HybridizationType hybridization(const MolArrays& mol, int i, int total_degree, bool has_conjugated_bond) {
  const int z = mol.z[i];
  if (z == 0) return RDKit::Atom::UNSPECIFIED;
  int norbs = total_degree;
  if (z < 89) {
    const int outer = Elements::get().outer_electrons[z];
    const int valence = mol.explicit_valence[i] + mol.implicit_valence[i];
    const int charge = mol.charge[i];
    const int free_electrons = outer - (valence + charge);
    if (valence + outer - charge < 8) {
      const int radicals = mol.radicals[i];
      norbs = total_degree + (free_electrons - radicals) / 2 + radicals;
    } else {
      norbs = total_degree + free_electrons / 2;
    }
  }
  switch (norbs) {
    case 0:
    case 1: return RDKit::Atom::S;
    case 2: return RDKit::Atom::SP;
    case 3: return RDKit::Atom::SP2;
    case 4: return (total_degree > 3 || !has_conjugated_bond) ? RDKit::Atom::SP3 : RDKit::Atom::SP2;
    case 5: return RDKit::Atom::SP3D;
    case 6: return RDKit::Atom::SP3D2;
    default: return RDKit::Atom::UNSPECIFIED;
  }
}

/// Largest fused system of candidate aromatic rings taken (see ogb_graph_fast).
constexpr int kMaxFusedSystem = 3;

/// Adds the thread CPU time since the last lap to one step of `times` (when given).
class StepClock {
 public:
  explicit StepClock(FastPathTimes* times) : times_(times) {
    if (times_) last_ = now();
  }
  void lap(FastPathTimes::Step step) {
    if (!times_) return;
    const double t = now();
    times_->seconds[step] += t - last_;
    last_ = t;
  }

 private:
  static double now() {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
  }
  FastPathTimes* times_;
  double last_ = 0;
};

/// Per-thread arrays reused from molecule to molecule (no allocation once warm).
struct Scratch {
  MolArrays mol;
  std::vector<int> total_degree, substituents, written_valence, hybrid, system_of, candidate_root, sub_begin,
      sub_end, sub_bond;
  std::vector<char> in_ring, candidate, conjugated, double_bond, perceived_atoms, perceived_bonds, ring_candidate,
      needed_system;
  std::vector<RDKit::Bond::BondType> type;
  std::vector<RDKit::Atom::HybridizationType> hybridization_type;  // RDKit's, for the stereo step
  std::vector<FoundRing> rings;
  // Stereo marks as parsed (legacy_stereo.h), and its answer.
  std::vector<int> tag, dir, isotope, chirality, bond_stereo;
  LegacyStereoScratch legacy;
  StereoMarks marks;  // as sampan's reader reads them
  const char* why = nullptr;  // why the last step declined (a fixed string; FastPathTimes's counts)
};

int find_root(std::vector<int>& parent, int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

/// The SSSR rings that RDKit's aromaticity perception can use, into scratch.rings (after the
/// Kekulé form and radicals, with bond_in_ring set). It only looks at rings whose atoms are all
/// aromaticity candidates, so a ring system (atoms joined by ring bonds) where the candidate atoms
/// and the ring bonds between them form no cycle has no such ring and is skipped; the others are
/// passed whole to find_unique_sssr (the SSSR of a ring system does not depend on the rest of the
/// molecule). Mostly this leaves out saturated systems: cages like adamantane, whose SSSR is not
/// unique, then need no RDKit ring perception at all. False where the rings are not certain (an
/// atom's candidacy uncertain, or an SSSR that is not unique).
bool find_aromaticity_rings(Scratch& s) {
  const MolArrays& a = s.mol;
  const int n = a.n, m = a.m;
  std::vector<FoundRing>& rings = s.rings;
  bool any_ring_bond = false;
  for (int k = 0; k < m && !any_ring_bond; ++k) any_ring_bond = a.bond_in_ring[k] != 0;
  if (!any_ring_bond) {
    rings.clear();
    return true;
  }
  if (!ring_atom_candidates(a, s.ring_candidate)) return find_unique_sssr(n, a.bond_begin, a.bond_end, rings);
  // Ring systems, and a union-find over candidate atoms joined by ring bonds: a bond joining two
  // candidates already connected closes a cycle of candidates in its system.
  std::vector<int>&system_of = s.system_of, &candidate_root = s.candidate_root;
  system_of.resize(n);
  candidate_root.resize(n);
  for (int i = 0; i < n; ++i) system_of[i] = candidate_root[i] = i;
  for (int k = 0; k < m; ++k) {
    if (a.bond_in_ring[k]) system_of[find_root(system_of, a.bond_begin[k])] = find_root(system_of, a.bond_end[k]);
  }
  std::vector<char>& needed = s.needed_system;  // by root atom
  needed.assign(n, 0);
  bool any_needed = false;
  for (int k = 0; k < m; ++k) {
    const int i = a.bond_begin[k], j = a.bond_end[k];
    if (!a.bond_in_ring[k] || !s.ring_candidate[i] || !s.ring_candidate[j]) continue;
    const int ri = find_root(candidate_root, i), rj = find_root(candidate_root, j);
    if (ri != rj) {
      candidate_root[ri] = rj;
    } else {
      needed[find_root(system_of, i)] = 1;
      any_needed = true;
    }
  }
  if (!any_needed) {
    rings.clear();
    return true;
  }
  std::vector<int>&sub_begin = s.sub_begin, &sub_end = s.sub_end, &sub_bond = s.sub_bond;
  sub_begin.clear();
  sub_end.clear();
  sub_bond.clear();
  for (int k = 0; k < m; ++k) {
    if (!a.bond_in_ring[k] || !needed[find_root(system_of, a.bond_begin[k])]) continue;
    sub_begin.push_back(a.bond_begin[k]);
    sub_end.push_back(a.bond_end[k]);
    sub_bond.push_back(k);
  }
  if (!find_unique_sssr_of_cycle_bonds(n, sub_begin, sub_end, rings)) return false;
  for (FoundRing& r : rings) {
    for (int& k : r.bonds) k = sub_bond[k];
  }
  return true;
}

/// How the array steps ended: the graph is made, the molecule is left to the full path, or (on
/// sampan's reader, without an RDKit molecule) a step needs RDKit's molecule.
enum class Outcome { done, declined, needs_rdkit };

/// The array steps, from rings to features, on `scratch.mol` and `scratch.type` (the molecule as
/// parsed, with RDKit's property cache values). `mol` is RDKit's molecule where there is one (the
/// RDKit-parse path), null on sampan's reader's path.
Outcome featurize_arrays(Scratch& scratch, RDKit::RWMol* mol, MoleculeGraph& out, StepClock& clock) {
  auto declined = [&scratch](const char* why) {
    scratch.why = why;
    return Outcome::declined;
  };
  auto needs_rdkit = [&scratch](const char* why) {
    scratch.why = why;
    return Outcome::needs_rdkit;
  };
  MolArrays& a = scratch.mol;
  const int n = a.n, m = a.m;
  std::vector<RDKit::Bond::BondType>& type = scratch.type;
  // Ring membership: a bond is in a ring of the SSSR exactly when it lies on a cycle (every bond
  // of a cycle is in some cycle of any cycle basis, and RDKit's symmetrized SSSR is a superset of
  // one), i.e. when it is not a bridge. The rings themselves are needed only for aromaticity (below).
  find_cycle_bonds(n, a.bond_begin, a.bond_end, a.bond_in_ring);
  std::vector<char>& in_ring = scratch.in_ring;
  in_ring.assign(n, 0);
  for (int k = 0; k < m; ++k) {
    if (a.bond_in_ring[k]) in_ring[a.bond_begin[k]] = in_ring[a.bond_end[k]] = 1;
  }
  clock.lap(FastPathTimes::rings);

  // Kekulé form, radicals on it (RDKit's assignRadicals reads bond orders), aromaticity.
  std::vector<char>& double_bond = scratch.double_bond;
  scratch.written_valence.assign(a.explicit_valence.begin(), a.explicit_valence.end());
  if (!kekulize_arrays(a, double_bond)) return declined("Kekule form not certain on arrays (or none)");
  clock.lap(FastPathTimes::kekulize);
  // assignRadicals only looks at atoms without implicit hydrogens (bracket atoms), and reads bond
  // orders: where such an atom has aromatic bonds, it runs on the Kekulé bond types (as in
  // RDKit's sanitization, which kekulizes first).
  bool any_no_implicit = false, kekule_needed = false;
  for (int i = 0; i < n; ++i) {
    if (!a.no_implicit[i]) continue;
    any_no_implicit = true;
    kekule_needed |= a.aromatic[i] != 0;
  }
  if (any_no_implicit && !mol) {
    // sampan's reader: RDKit's assignRadicals asked once per kind of bracket atom.
    for (int i = 0; i < n; ++i) {
      if (!a.no_implicit[i]) continue;
      a.radicals[i] = rdkit_radicals(a, i, double_bond);
      if (a.radicals[i] < 0) return needs_rdkit("radicals outside the table's range");
    }
  } else if (any_no_implicit) {
    if (kekule_needed) {
      for (int k = 0; k < m; ++k) {
        if (a.bond_aromatic[k]) {
          mol->getBondWithIdx(k)->setBondType(double_bond[k] ? RDKit::Bond::DOUBLE : RDKit::Bond::SINGLE);
        }
      }
    }
    RDKit::MolOps::assignRadicals(*mol);
    if (kekule_needed) {
      for (int k = 0; k < m; ++k) {
        if (a.bond_aromatic[k]) mol->getBondWithIdx(k)->setBondType(RDKit::Bond::AROMATIC);
      }
    }
    for (int i = 0; i < n; ++i) {
      if (a.no_implicit[i]) a.radicals[i] = static_cast<int>(mol->getAtomWithIdx(i)->getNumRadicalElectrons());
    }
  }
  clock.lap(FastPathTimes::radicals);
  // The smallest set of smallest rings, of the ring systems where aromaticity can arise.
  std::vector<FoundRing>& rings = scratch.rings;
  if (!find_aromaticity_rings(scratch)) {
    // Not provably unique: RDKit's own ring set.
    if (!mol) return needs_rdkit("SSSR of an aromatic ring system not unique");
    RDKit::VECT_INT_VECT symmetrized;
    RDKit::MolOps::symmetrizeSSSR(*mol, symmetrized);
    const auto& atom_rings = mol->getRingInfo()->atomRings();
    const auto& bond_rings = mol->getRingInfo()->bondRings();
    rings.resize(atom_rings.size());
    for (size_t r = 0; r < atom_rings.size(); ++r) rings[r] = {atom_rings[r], bond_rings[r]};
    clock.lap(FastPathTimes::rdkit_rings);
  } else {
    clock.lap(FastPathTimes::rings);
  }
  std::vector<char>&perceived_atoms = scratch.perceived_atoms, &perceived_bonds = scratch.perceived_bonds;
  int largest_system = 0;
  if (!perceive_aromaticity(a, rings, perceived_atoms, perceived_bonds, largest_system)) {
    return declined("aromaticity: fused system too large or not ortho-fused");
  }
  // Taken where RDKit's perception gives back exactly what was written (then the molecule ends
  // in its written form: no Kekulé bond shows, and hydrogen counts and valences are those computed
  // above), or where nothing was written aromatic (Kekulé-written benzene: the Kekulé form is the
  // written one; the perceived aromaticity is then set on the molecule and RDKit's adjustHs and
  // strict property cache give the final hydrogen counts, as in its sanitization). On sampan's
  // reader also where every atom and ring bond written aromatic stays aromatic and more becomes
  // aromatic (a Kekulé-written ring beside written aromatic ones: chromone's pyranone ring), and
  // where aromatic bonds outside rings become single (biphenyl written "c1ccccc1c1ccccc1"): no
  // Kekulé bond shows there either (what RDKit's Kekulé form does not keep aromatic was written
  // single, double or triple), and the final hydrogen counts come from RDKit's valence table
  // (rdkit_adjust_hs). RDKit's parse declines those, as before.
  bool written_aromatic = false, same = true, lost = false;
  for (int i = 0; i < n; ++i) {
    written_aromatic |= a.aromatic[i] != 0;
    same &= perceived_atoms[i] == a.aromatic[i];
    lost |= a.aromatic[i] && !perceived_atoms[i];
  }
  for (int k = 0; k < m; ++k) {
    same &= perceived_bonds[k] == a.bond_aromatic[k];
    lost |= a.bond_aromatic[k] && a.bond_in_ring[k] && !perceived_bonds[k];
  }
  if (!same && written_aromatic && (mol || lost)) return declined("aromaticity perceived other than written");
  // Fused systems of more than three candidate rings are left to RDKit: there its outcome
  // depends on details of its ring-combination search that are not re-stated here (porphyrins
  // and large polycyclic aromatics in HIV and in rdkit-data's NCI set differ otherwise).
  if (largest_system > kMaxFusedSystem) return declined("aromaticity: fused candidate system over 3 rings");
  // Back to the written valences: what setConjugation and setHybridization read in RDKit's
  // sanitization (it does not recompute them between Kekulize and adjustHs).
  a.explicit_valence.swap(scratch.written_valence);
  const bool newly_aromatic = !same;
  if (newly_aromatic && !mol) {
    // The final bond types (RDKit's setAromaticity): perceived aromatic single and double bonds
    // become aromatic; aromatic bonds outside rings stay single as in the Kekulé form.
    for (int k = 0; k < m; ++k) {
      if (perceived_bonds[k]) {
        if (type[k] == RDKit::Bond::SINGLE || type[k] == RDKit::Bond::DOUBLE) type[k] = RDKit::Bond::AROMATIC;
      } else if (a.bond_aromatic[k]) {
        type[k] = RDKit::Bond::SINGLE;
      }
    }
  } else if (newly_aromatic) {
    for (int i = 0; i < n; ++i) {
      if (perceived_atoms[i]) mol->getAtomWithIdx(i)->setIsAromatic(true);
    }
    for (int k = 0; k < m; ++k) {
      if (!perceived_bonds[k]) continue;
      RDKit::Bond* b = mol->getBondWithIdx(k);
      b->setIsAromatic(true);
      if (type[k] == RDKit::Bond::SINGLE || type[k] == RDKit::Bond::DOUBLE) {
        b->setBondType(RDKit::Bond::AROMATIC);
        type[k] = RDKit::Bond::AROMATIC;
      }
    }
  }
  clock.lap(FastPathTimes::aromaticity);

  // Conjugation and hybridization on arrays (see the file comment).
  const std::vector<int>&start = a.start, &incident = a.incident;
  std::vector<int>&total_degree = scratch.total_degree, &substituents = scratch.substituents;
  std::vector<char>& candidate = scratch.candidate;
  total_degree.resize(n);
  substituents.resize(n);
  candidate.resize(n);
  for (int i = 0; i < n; ++i) {
    total_degree[i] = a.degree[i] + a.total_hs(i);
    substituents[i] = total_degree[i];
    candidate[i] = conjugation_candidate(a, i, total_degree[i]);
  }
  std::vector<char>& conjugated = scratch.conjugated;
  conjugated.assign(perceived_bonds.begin(), perceived_bonds.end());
  for (int i = 0; i < n; ++i) {
    if (!candidate[i] || substituents[i] < 2 || substituents[i] > 3) continue;
    for (int p = start[i]; p < start[i + 1]; ++p) {
      const int k1 = incident[p];
      // getValenceContrib >= 1.5: double, triple and aromatic bonds.
      if (type[k1] == RDKit::Bond::SINGLE) continue;
      for (int q = start[i]; q < start[i + 1]; ++q) {
        const int k2 = incident[q];
        if (k2 == k1) continue;
        const int j = a.bond_begin[k2] == i ? a.bond_end[k2] : a.bond_begin[k2];
        if (substituents[j] > 3 || !candidate[j]) continue;
        conjugated[k1] = conjugated[k2] = 1;
      }
    }
  }
  std::vector<int>& hybrid = scratch.hybrid;
  hybrid.resize(n);
  scratch.hybridization_type.resize(n);
  for (int i = 0; i < n; ++i) {
    bool has_conjugated_bond = false;
    for (int p = start[i]; p < start[i + 1]; ++p) has_conjugated_bond |= conjugated[incident[p]] != 0;
    scratch.hybridization_type[i] = hybridization(a, i, total_degree[i], has_conjugated_bond);
    hybrid[i] = static_cast<int>(vocab::ogb_hybridization_id(scratch.hybridization_type[i]));
  }
  if (newly_aromatic && !mol) {
    // RDKit's adjustHs and strict property cache on the final form, from its valence table.
    if (!rdkit_adjust_hs(a, perceived_atoms, type)) return needs_rdkit("final hydrogens outside the valence table");
    for (int i = 0; i < n; ++i) total_degree[i] = a.degree[i] + a.total_hs(i);
  } else if (newly_aromatic) {
    // RDKit's own last steps on the aromatic molecule: hydrogen counts of its final form.
    RDKit::MolOps::adjustHs(*mol);
    mol->updatePropertyCache(true);
    for (int i = 0; i < n; ++i) {
      const RDKit::Atom* atom = mol->getAtomWithIdx(i);
      a.explicit_hs[i] = static_cast<int>(atom->getNumExplicitHs());
      a.implicit_valence[i] = atom->getImplicitValence();
      total_degree[i] = a.degree[i] + a.total_hs(i);
    }
  }
  clock.lap(FastPathTimes::conjugation_hybridization);

  out.num_atoms = n;
  out.atom_features.assign(static_cast<size_t>(n) * 9, 0);
  out.edge_source.resize(2 * m);
  out.edge_target.resize(2 * m);
  out.bond_features.assign(static_cast<size_t>(2 * m) * 3, 0);
  for (int i = 0; i < n; ++i) {
    int64_t* f = out.atom_features.data() + static_cast<size_t>(i) * 9;
    f[0] = vocab::range_index(a.z[i], 1, 118);
    f[1] = 0;  // chiral tags: set by the stereo step where the SMILES has stereo marks
    f[2] = vocab::range_index(total_degree[i], 0, 10);
    f[3] = vocab::range_index(a.charge[i], -5, 5);
    f[4] = vocab::range_index(a.total_hs(i), 0, 8);
    f[5] = vocab::range_index(a.radicals[i], 0, 4);
    f[6] = hybrid[i];
    f[7] = perceived_atoms[i];
    f[8] = in_ring[i];
  }
  for (int k = 0; k < m; ++k) {
    out.edge_source[2 * k] = a.bond_begin[k];
    out.edge_target[2 * k] = a.bond_end[k];
    out.edge_source[2 * k + 1] = a.bond_end[k];
    out.edge_target[2 * k + 1] = a.bond_begin[k];
    int64_t* f = out.bond_features.data() + static_cast<size_t>(2 * k) * 3;
    f[0] = vocab::ogb_bond_type_id(type[k]);
    f[1] = 0;  // STEREONONE; set by the stereo step where the SMILES has stereo marks
    f[2] = conjugated[k];
    std::copy(f, f + 3, f + 3);
  }
  clock.lap(FastPathTimes::features);
  return Outcome::done;
}

/// Whether the stereo marks of a molecule featurize_arrays took are within the fast path (else
/// it goes to the full path): false where a tagged atom is not sp3 by the array rules (RDKit's
/// setHybridization treats tagged atoms otherwise: a neutral 4-coordinate S with '@@' is SP3 in
/// RDKit, SP3D by the untagged rule; found by the fuzz in fast_path_test.cpp; RDKit's
/// cleanupChirality, which clears tags off atoms that are not sp3, then has nothing to do), or is
/// not B, C, N, Si, P, S, As or Se (a tagged metal with a bracket H, e.g. "O[Ti@@H](O)CO", ends with
/// other hydrogen counts in RDKit's full path: found by the fuzz on stereo-marked MoleculeNet
/// SMILES, then by a sweep over elements).
bool tagged_atoms_within_path(const Scratch& scratch) {
  const MolArrays& a = scratch.mol;
  for (int i = 0; i < a.n; ++i) {
    if (!scratch.tag[i]) continue;
    const int z = a.z[i];
    const bool stereo_element = z == 5 || z == 6 || z == 7 || z == 14 || z == 15 || z == 16 || z == 33 || z == 34;
    if (!stereo_element || scratch.hybridization_type[i] != RDKit::Atom::SP3) return false;
  }
  return true;
}

constexpr const char* kTaggedOutsidePath = "tagged atom not sp3 or not B C N Si P S As Se";

/// RDKit's own stereo step, where stereo_on_arrays declined (tagged_atoms_within_path must hold):
/// its cleanupChirality and legacy stereo perception (assignStereochemistry with cleanIt, force and
/// flagPossible, as SmilesToMol) on its parse, after the properties they read are set from the
/// arrays: hybridization, conjugation, aromaticity (already the final one on `mol`, see
/// featurize_arrays), hydrogen counts (RDKit's property cache), and the ring set (the stereo
/// perception asks for ring sizes, e.g. no double-bond stereo in rings under 8 atoms, 3-rings for
/// N centres): the SSSR of all ring systems where it is provably unique (then it is what RDKit's
/// symmetrizeSSSR gives: nothing of the same size can be swapped in or added, see ring_finder.h),
/// RDKit's symmetrizeSSSR otherwise. This skips RDKit's Kekulize, aromaticity, conjugation and
/// hybridization passes and removeHs.
void apply_rdkit_stereo(Scratch& scratch, RDKit::RWMol& mol, MoleculeGraph& out) {
  const MolArrays& a = scratch.mol;
  const int n = a.n, m = a.m;
  for (int i = 0; i < n; ++i) mol.getAtomWithIdx(i)->setHybridization(scratch.hybridization_type[i]);
  for (int k = 0; k < m; ++k) mol.getBondWithIdx(k)->setIsConjugated(scratch.conjugated[k] != 0);
  if (!mol.getRingInfo()->isInitialized()) {
    // Every bond on a cycle (bond_in_ring, set by featurize_arrays), whole ring systems.
    std::vector<int>&sub_begin = scratch.sub_begin, &sub_end = scratch.sub_end, &sub_bond = scratch.sub_bond;
    sub_begin.clear();
    sub_end.clear();
    sub_bond.clear();
    for (int k = 0; k < m; ++k) {
      if (!a.bond_in_ring[k]) continue;
      sub_begin.push_back(a.bond_begin[k]);
      sub_end.push_back(a.bond_end[k]);
      sub_bond.push_back(k);
    }
    std::vector<FoundRing>& rings = scratch.rings;
    rings.clear();
    if (sub_bond.empty() || find_unique_sssr_of_cycle_bonds(n, sub_begin, sub_end, rings)) {
      RDKit::RingInfo* info = mol.getRingInfo();
      info->initialize();
      for (FoundRing& r : rings) {
        for (int& k : r.bonds) k = sub_bond[k];
        info->addRing(r.atoms, r.bonds);
      }
    } else {
      RDKit::MolOps::symmetrizeSSSR(mol);
    }
  }
  RDKit::MolOps::cleanupChirality(mol);
  RDKit::MolOps::assignStereochemistry(mol, /*cleanIt=*/true, /*force=*/true, /*flagPossibleStereoCenters=*/true);
  for (int i = 0; i < n; ++i) {
    out.atom_features[static_cast<size_t>(i) * 9 + 1] = vocab::ogb_chirality(*mol.getAtomWithIdx(i));
  }
  for (int k = 0; k < m; ++k) {
    const int64_t stereo = vocab::ogb_bond_stereo(*mol.getBondWithIdx(k));
    out.bond_features[static_cast<size_t>(2 * k) * 3 + 1] = stereo;
    out.bond_features[static_cast<size_t>(2 * k + 1) * 3 + 1] = stereo;
  }
}

/// The stereo features by legacy_stereo_on_arrays (RDKit's legacy perception re-stated) where it
/// is certain: false where RDKit's own step must decide.
bool stereo_on_arrays(const std::string& smiles, Scratch& scratch, MoleculeGraph& out) {
  // Atom-map numbers enter RDKit's CIP invariant, and a CXSMILES extension can carry stereo
  // information of its own: both are left to RDKit (':' also catches the rare ':' bond).
  if (smiles.find_first_of(":| ") != std::string::npos) {
    scratch.why = "stereo: atom map or CXSMILES";
    return false;
  }
  // SAMPAN_HELIX_RDKIT_STEREO=1: RDKit's stereo step for every stereo-marked molecule, as before
  // legacy_stereo.h (to measure both in one build, or to rule the arrays out).
  static const bool rdkit_only = [] {
    const char* v = std::getenv("SAMPAN_HELIX_RDKIT_STEREO");
    return v && std::string(v) == "1";
  }();
  if (rdkit_only) {
    scratch.why = "stereo: SAMPAN_HELIX_RDKIT_STEREO=1";
    return false;
  }
  const MolArrays& a = scratch.mol;
  if (!legacy_stereo_on_arrays(a, scratch.type, scratch.tag, scratch.dir, scratch.isotope, scratch.legacy,
                               scratch.chirality, scratch.bond_stereo)) {
    scratch.why = scratch.legacy.why;
    return false;
  }
  for (int i = 0; i < a.n; ++i) out.atom_features[static_cast<size_t>(i) * 9 + 1] = scratch.chirality[i];
  for (int k = 0; k < a.m; ++k) {
    out.bond_features[static_cast<size_t>(2 * k) * 3 + 1] = scratch.bond_stereo[k];
    out.bond_features[static_cast<size_t>(2 * k + 1) * 3 + 1] = scratch.bond_stereo[k];
  }
  return true;
}

/// Whether RDKit's cleanUp could change the molecule (then it is left to RDKit's parse): it
/// rewrites neutral 5-valent N with double bonds to O or a triple bond to N (nitro, azide), neutral
/// P with a double bond to O and another to C or P, and neutral Cl, Br, I with valence 3, 5 or 7
/// to their charge-separated forms. Declined more broadly here: a neutral N with a multiple bond
/// and a bond order sum above 3, a neutral P with two multiple bonds (aromatic ones included), a
/// neutral Cl, Br or I with a bond order sum above 1.
bool clean_up_could_apply(const MolArrays& a) {
  for (int i = 0; i < a.n; ++i) {
    if (a.charge[i] != 0) continue;
    const int z = a.z[i];
    if (z != 7 && z != 15 && z != 17 && z != 35 && z != 53) continue;
    int twice_order_sum = 2 * a.explicit_hs[i], multiple = 0, aromatic = 0;
    for (int p = a.start[i]; p < a.start[i + 1]; ++p) {
      const int k = a.incident[p];
      if (a.bond_aromatic[k]) {
        twice_order_sum += 3;
        ++aromatic;
      } else {
        twice_order_sum += 2 * a.order[k];
        multiple += a.order[k] > 1;
      }
    }
    if (z == 7 && multiple > 0 && twice_order_sum > 6) return true;
    if (z == 15 && multiple > 0 && multiple + aromatic > 1) return true;
    if (z >= 17 && twice_order_sum > 2) return true;
  }
  return false;
}

/// The graph by sampan's SMILES reader and RDKit's valence table (no RDKit molecule): true where
/// taken, false where the RDKit-parse path must decide. Stereo-marked SMILES are read too (the
/// reader gives the chiral tags and bond directions of RDKit's parse) and taken where the stereo
/// step on arrays decides them; where it declines (RDKit's own step needs its molecule) the
/// RDKit-parse path starts over. SAMPAN_HELIX_READER_STEREO=0 leaves every stereo-marked SMILES to
/// RDKit's parse, as before (to measure both in one build, or to rule the reader's marks out).
bool ogb_graph_from_reader(const std::string& smiles, Scratch& scratch, MoleculeGraph& out, StepClock& clock,
                           FastPathTimes* times) {
  static const bool reader_stereo = [] {
    const char* v = std::getenv("SAMPAN_HELIX_READER_STEREO");
    return !(v && std::string(v) == "0");
  }();
  MolArrays& a = scratch.mol;
  StereoMarks& marks = scratch.marks;
  if (!read_smiles_arrays(smiles, a, reader_stereo ? &marks : nullptr, &scratch.why)) return false;
  a.build_incidence();
  if (clean_up_could_apply(a)) {
    scratch.why = "cleanUp could apply (5-valent N, P, hypervalent halogen)";
    return false;
  }
  if (!fill_rdkit_valences(a)) {
    scratch.why = "RDKit valence error, or an atom outside the table's range";
    return false;
  }
  scratch.type.resize(a.m);
  for (int k = 0; k < a.m; ++k) {
    scratch.type[k] = a.bond_aromatic[k] ? RDKit::Bond::AROMATIC
                      : a.order[k] == 2  ? RDKit::Bond::DOUBLE
                      : a.order[k] == 3  ? RDKit::Bond::TRIPLE
                                         : RDKit::Bond::SINGLE;
  }
  clock.lap(FastPathTimes::read);
  if (featurize_arrays(scratch, nullptr, out, clock) != Outcome::done) return false;
  if (!reader_stereo || !marks.any) return true;
  // The stereo step on arrays, with the marks as RDKit's parse has them (no isotopes: the reader
  // declines them).
  scratch.tag.swap(marks.tag);
  scratch.dir.swap(marks.dir);
  scratch.isotope.assign(a.n, 0);
  if (!tagged_atoms_within_path(scratch)) {
    scratch.why = kTaggedOutsidePath;
    return false;
  }
  const bool on_arrays = stereo_on_arrays(smiles, scratch, out);
  clock.lap(FastPathTimes::stereo_arrays);
  if (!on_arrays) return false;
  if (times) {
    ++times->stereo_molecules;
    ++times->stereo_on_arrays;
  }
  return true;
}

}  // namespace

bool ogb_graph_fast(const std::string& smiles, MoleculeGraph& out, FastPathTimes* times,
                    std::unique_ptr<RDKit::RWMol>* declined) {
  if (smiles.empty()) return false;
  StepClock clock(times);
  Scratch& scratch = thread_scratch<Scratch>();
  scratch.why = nullptr;
  if (times) times->reader_decline = times->decline = nullptr;
  // The reason a molecule leaves the fast path (for the steps bench's counts); false.
  auto fail = [&](const char* why) {
    if (times) times->decline = why ? why : "unexplained";
    return false;
  };
  try {
    if (ogb_graph_from_reader(smiles, scratch, out, clock, times)) {
      if (times) {
        ++times->molecules;
        ++times->read_molecules;
      }
      return true;
    }
  } catch (const std::exception&) {
    // RDKit's answer for an atom kind threw in an unexpected way: RDKit's parse decides.
    scratch.why = "RDKit threw on an atom kind";
  }
  if (times) times->reader_decline = scratch.why ? scratch.why : "reader path: unexplained";
  scratch.why = nullptr;
  clock.lap(FastPathTimes::read);
  try {
    RDKit::SmilesParserParams raw;
    raw.sanitize = false;
    raw.removeHs = false;
    std::unique_ptr<RDKit::RWMol> mol(RDKit::SmilesToMol(smiles, raw));
    clock.lap(FastPathTimes::parse);
    if (!mol) return fail("RDKit's parse failed");
    // Declined before any change: the parse goes back to the caller.
    auto decline = [&](const char* why) {
      if (declined) *declined = std::move(mol);
      return fail(why);
    };
    if (mol->hasProp(RDKit::common_properties::_NeedsQueryScan)) return decline("query atoms or bonds");
    const int n = static_cast<int>(mol->getNumAtoms()), m = static_cast<int>(mol->getNumBonds());
    // Stereo marks as SMILES writes them ('@' '@@' tetrahedral tags, '/' '\' bond directions)
    // are taken: the stereo step settles them at the end. Other tags ('@TH', '@SP', ...) and
    // H atoms (removeHs would change the neighbours the tags refer to) go to the full path.
    bool stereo_marks = false;
    std::vector<int>&tag = scratch.tag, &dir = scratch.dir;
    tag.assign(n, 0);
    dir.assign(m, 0);
    for (const RDKit::Atom* a : mol->atoms()) {
      if (a->getAtomicNum() == 1) return decline("H atoms");
      switch (a->getChiralTag()) {
        case RDKit::Atom::CHI_UNSPECIFIED: break;
        case RDKit::Atom::CHI_TETRAHEDRAL_CW: tag[a->getIdx()] = 1; stereo_marks = true; break;
        case RDKit::Atom::CHI_TETRAHEDRAL_CCW: tag[a->getIdx()] = 2; stereo_marks = true; break;
        default: return decline("chiral tag other than '@' '@@'");
      }
    }
    for (const RDKit::Bond* b : mol->bonds()) {
      switch (b->getBondType()) {
        case RDKit::Bond::SINGLE:
        case RDKit::Bond::DOUBLE:
        case RDKit::Bond::TRIPLE:
        case RDKit::Bond::AROMATIC: break;
        default: return decline("bond type other than single, double, triple, aromatic");
      }
      switch (b->getBondDir()) {
        case RDKit::Bond::NONE: break;
        case RDKit::Bond::ENDUPRIGHT: dir[b->getIdx()] = 1; stereo_marks = true; break;
        case RDKit::Bond::ENDDOWNRIGHT: dir[b->getIdx()] = 2; stereo_marks = true; break;
        default: return decline("bond direction other than '/' '\\'");
      }
      if (b->getStereo() != RDKit::Bond::STEREONONE) return decline("bond stereo set by the parse");
    }
    clock.lap(FastPathTimes::scan);
    RDKit::MolOps::cleanUp(*mol);
    clock.lap(FastPathTimes::clean_up);
    mol->updatePropertyCache(true);
    clock.lap(FastPathTimes::property_cache);

    // The molecule as written (after cleanUp) as arrays, with RDKit's valences.
    MolArrays& a = scratch.mol;
    a.n = n;
    a.m = m;
    a.z.resize(n);
    a.charge.resize(n);
    a.degree.resize(n);
    a.explicit_hs.resize(n);
    a.implicit_valence.resize(n);
    a.explicit_valence.resize(n);
    a.radicals.resize(n);
    a.aromatic.resize(n);
    a.no_implicit.resize(n);
    scratch.isotope.resize(n);
    for (const RDKit::Atom* atom : mol->atoms()) {
      const int i = static_cast<int>(atom->getIdx());
      a.z[i] = atom->getAtomicNum();
      a.charge[i] = atom->getFormalCharge();
      a.degree[i] = static_cast<int>(atom->getDegree());
      a.explicit_hs[i] = static_cast<int>(atom->getNumExplicitHs());
      a.implicit_valence[i] = atom->getImplicitValence();
      a.explicit_valence[i] = atom->getExplicitValence();
      a.radicals[i] = static_cast<int>(atom->getNumRadicalElectrons());
      a.aromatic[i] = atom->getIsAromatic();
      a.no_implicit[i] = atom->getNoImplicit();
      scratch.isotope[i] = static_cast<int>(atom->getIsotope());
    }
    a.bond_begin.resize(m);
    a.bond_end.resize(m);
    a.order.resize(m);
    a.bond_aromatic.resize(m);
    std::vector<RDKit::Bond::BondType>& type = scratch.type;
    type.resize(m);
    for (const RDKit::Bond* b : mol->bonds()) {
      const int k = static_cast<int>(b->getIdx());
      a.bond_begin[k] = static_cast<int>(b->getBeginAtomIdx());
      a.bond_end[k] = static_cast<int>(b->getEndAtomIdx());
      type[k] = b->getBondType();
      a.bond_aromatic[k] = b->getIsAromatic();
      a.order[k] = type[k] == RDKit::Bond::DOUBLE ? 2 : type[k] == RDKit::Bond::TRIPLE ? 3 : 1;
      // A bond flagged aromatic must be of type AROMATIC (and the reverse) for the rules here.
      if (a.bond_aromatic[k] != (type[k] == RDKit::Bond::AROMATIC)) return fail("aromatic flag and bond type disagree");
    }
    a.build_incidence();
    clock.lap(FastPathTimes::arrays);

    if (featurize_arrays(scratch, mol.get(), out, clock) != Outcome::done) return fail(scratch.why);
    if (stereo_marks) {
      if (!tagged_atoms_within_path(scratch)) return fail(kTaggedOutsidePath);
      const bool on_arrays = stereo_on_arrays(smiles, scratch, out);
      clock.lap(FastPathTimes::stereo_arrays);
      if (!on_arrays) {
        apply_rdkit_stereo(scratch, *mol, out);
        clock.lap(FastPathTimes::stereo);
      }
      if (times) {
        ++times->stereo_molecules;
        times->stereo_on_arrays += on_arrays;
      }
    }
    mol.reset();
    clock.lap(FastPathTimes::free);
    if (times) ++times->molecules;
    return true;
  } catch (const std::exception&) {
    return fail("RDKit threw (the full path reports its reason)");
  }
}

}  // namespace sampan::helix
