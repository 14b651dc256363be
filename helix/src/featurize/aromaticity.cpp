// RDKit's Kekulé check and aromaticity model on arrays (see aromaticity.h for the rules).
#include "featurize/aromaticity.h"

#include <GraphMol/PeriodicTable.h>

#include <algorithm>
#include "featurize/thread_scratch.h"

namespace sampan::helix {

namespace {

// A fused system of more candidate rings than this is left to RDKit (the combinations of up to
// six rings grow quickly; such systems are rare in drug-like molecules).
constexpr size_t kMaxFusedRings = 10;
// RDKit: rings larger than this do not fuse with others for aromaticity (a porphyrin's outer ring
// is just below it).
constexpr size_t kMaxFusedAromaticRingSize = 24;
// Depth-first search budget for the Kekulé matching.
constexpr long kMaxMatchingSteps = 20000;

enum Donor { vacant, one, two, one_or_two, any, none };

const RDKit::PeriodicTable& table() { return *Elements::get().table; }

/// Perfect matching of the `candidate` atoms over `usable` bonds by depth-first search, always
/// extending the candidate with the fewest options. False when none exists or the budget runs out.
bool match_all(const MolArrays& mol, const std::vector<char>& usable, std::vector<char>& matched,
               std::vector<char>& double_bond, long& steps) {
  if (++steps > kMaxMatchingSteps) return false;
  int best = -1, best_options = 1 << 30;
  for (int i = 0; i < mol.n; ++i) {
    if (!matched[i]) continue;  // `matched` holds 1 for candidates still waiting
    int options = 0;
    for (int p = mol.start[i]; p < mol.start[i + 1]; ++p) {
      const int k = mol.incident[p];
      const int j = mol.bond_begin[k] == i ? mol.bond_end[k] : mol.bond_begin[k];
      options += usable[k] && matched[j];
    }
    if (options < best_options) {
      best = i;
      best_options = options;
    }
  }
  if (best < 0) return true;  // every candidate matched
  if (best_options == 0) return false;
  for (int p = mol.start[best]; p < mol.start[best + 1]; ++p) {
    const int k = mol.incident[p];
    const int j = mol.bond_begin[k] == best ? mol.bond_end[k] : mol.bond_begin[k];
    if (!usable[k] || !matched[j]) continue;
    matched[best] = matched[j] = 0;
    double_bond[k] = 1;
    if (match_all(mol, usable, matched, double_bond, steps)) return true;
    double_bond[k] = 0;
    matched[best] = matched[j] = 1;
    if (steps > kMaxMatchingSteps) return false;
  }
  return false;
}

/// The atom at the other end of the first multiple bond of `i` outside every ring, or -1.
int non_cyclic_multiple_bond_partner(const MolArrays& mol, int i) {
  for (int p = mol.start[i]; p < mol.start[i + 1]; ++p) {
    const int k = mol.incident[p];
    if (!mol.bond_in_ring[k] && mol.order[k] >= 2) return mol.bond_begin[k] == i ? mol.bond_end[k] : mol.bond_begin[k];
  }
  return -1;
}

bool has_cyclic_multiple_bond(const MolArrays& mol, int i) {
  for (int p = mol.start[i]; p < mol.start[i + 1]; ++p) {
    const int k = mol.incident[p];
    if (mol.bond_in_ring[k] && mol.order[k] >= 2) return true;
  }
  return false;
}

/// RDKit's getAtomDonorTypeArom (exocyclic multiple bonds to more electronegative atoms take an
/// electron).
Donor donor_type(const MolArrays& mol, int i) {
  if (mol.z[i] == 0) return any;
  const int electrons = count_atom_electrons(mol, i);
  if (electrons < 0) return none;
  const int partner = non_cyclic_multiple_bond_partner(mol, i);
  if (electrons == 0) {
    if (partner >= 0) return vacant;
    return has_cyclic_multiple_bond(mol, i) ? one : none;
  }
  if (electrons == 1) {
    if (partner >= 0) return table().moreElectroNegative(mol.z[partner], mol.z[i]) ? vacant : one;
    if (mol.explicit_valence[i] != mol.degree[i] + mol.explicit_hs[i]) return one;  // has a multiple bond
    if (mol.charge[i] == 1) return vacant;  // tropylium, cyclopropenyl cation
    return none;
  }
  int n = electrons;
  if (partner >= 0 && table().moreElectroNegative(mol.z[partner], mol.z[i])) --n;
  return n % 2 == 1 ? one : two;
}

/// RDKit's isAtomCandForArom with its default options. Sets `uncertain` where RDKit would fail.
bool aromatic_candidate(const MolArrays& mol, int i, Donor donor, bool& uncertain) {
  const int z = mol.z[i];
  if (z > 18 && z != 34 && z != 52) return false;
  if (donor == none) return false;
  const int dv = Elements::get().default_valence[z];
  if (dv > 0) {
    const int effective = z - mol.charge[i];
    if (effective < 0 || effective > 118) {
      uncertain = true;
      return false;
    }
    if (mol.explicit_valence[i] + mol.implicit_valence[i] > Elements::get().default_valence[effective]) return false;
  }
  // Radicals disqualify heteroatoms and charged carbons (RDKit GitHub issues 432 and 1936; the
  // charged carbon found by fast_path_test's fuzz: "C1=CC=C([C+]C=C1)C" is not aromatic).
  if (mol.radicals[i] && (z != 6 || mol.charge[i] != 0)) return false;
  if (mol.explicit_valence[i] - mol.degree[i] > 1) {
    int multiple = 0;
    for (int p = mol.start[i]; p < mol.start[i + 1]; ++p) multiple += mol.order[mol.incident[p]] >= 2;
    if (multiple > 1) return false;
  }
  return true;
}

void electron_range(Donor d, int& lo, int& hi) {
  switch (d) {
    case any: lo = 0, hi = 2; break;
    case one_or_two: lo = 1, hi = 2; break;
    case one: lo = hi = 1; break;
    case two: lo = hi = 2; break;
    default: lo = hi = 0;
  }
}

/// Kekulé form: atoms still waiting for a double bond (reused from call to call on each thread).
struct KekuleScratch {
  std::vector<char> waiting, ring_aromatic;
};

/// Arrays reused from call to call on each thread.
struct Workspace {
  std::vector<char> seen, candidate, in_candidate, done_system, in_union, done_atom;
  std::vector<Donor> donor;
  std::vector<int> candidate_rings, bond_count, fused, comb, chosen, atoms, stack, reached, rings_of_atom;
  std::vector<std::vector<int>> neighbours;
};

/// Whether the rings `chosen` (indices into the candidate rings) form one connected piece of the
/// ring-neighbour graph.
bool connected(const std::vector<int>& chosen, const std::vector<std::vector<int>>& neighbours, std::vector<int>& stack,
               std::vector<int>& seen) {
  stack.assign(1, chosen.front());
  seen.assign(1, chosen.front());
  while (!stack.empty()) {
    const int r = stack.back();
    stack.pop_back();
    for (int s : neighbours[r]) {
      if (std::find(chosen.begin(), chosen.end(), s) != chosen.end() &&
          std::find(seen.begin(), seen.end(), s) == seen.end()) {
        seen.push_back(s);
        stack.push_back(s);
      }
    }
  }
  return seen.size() == chosen.size();
}

}  // namespace

const Elements& Elements::get() {
  static const Elements elements = [] {
    Elements e;
    e.table = RDKit::PeriodicTable::getTable();
    for (int z = 0; z <= 118; ++z) {
      e.default_valence[z] = e.table->getDefaultValence(z);
      e.outer_electrons[z] = e.table->getNouterElecs(z);
    }
    return e;
  }();
  return elements;
}

int count_atom_electrons(const MolArrays& mol, int i) {
  const Elements& el = Elements::get();
  const int z = mol.z[i];
  const int dv = el.default_valence[z];
  if (dv <= 1) return -1;  // univalent elements are neither aromatic nor conjugated
  const int degree = mol.degree[i] + mol.total_hs(i);
  if (degree > 3) return -1;
  const int lone = std::max(el.outer_electrons[z] - dv - mol.charge[i], 0);
  int electrons = (dv - degree) + lone - mol.radicals[i];
  // With a triple (or two double) bonds only one electron goes to the ring.
  if (electrons > 1 && mol.explicit_valence[i] - mol.degree[i] > 1) electrons = 1;
  return electrons;
}

void MolArrays::build_incidence() {
  start.assign(n + 1, 0);
  for (int k = 0; k < m; ++k) {
    ++start[bond_begin[k] + 1];
    ++start[bond_end[k] + 1];
  }
  for (int i = 0; i < n; ++i) start[i + 1] += start[i];
  incident.resize(2 * m);
  std::vector<int> fill(start.begin(), start.end() - 1);
  for (int k = 0; k < m; ++k) {
    incident[fill[bond_begin[k]]++] = k;
    incident[fill[bond_end[k]]++] = k;
  }
}

bool kekulize_arrays(MolArrays& mol, std::vector<char>& double_bond) {
  double_bond.assign(mol.m, 0);
  bool any_aromatic = false;
  KekuleScratch& scratch = thread_scratch<KekuleScratch>();
  // The aromatic bonds that can take a double bond: those in rings. An aromatic bond outside every
  // ring (the unwritten bond between two aromatic rings, "c1ccccc1c1ccccc1": RDKit's parse makes
  // it aromatic) stays single in RDKit's Kekulé form and ends a plain single bond (RDKit fails to
  // kekulize "c1cccc1c1cccc1", whose only Kekulé form needs it double), and counts one towards its
  // atoms' single-bond order sum as any aromatic bond does.
  std::vector<char>& ring_aromatic = scratch.ring_aromatic;
  ring_aromatic.assign(mol.m, 0);
  for (int k = 0; k < mol.m; ++k) {
    if (!mol.bond_aromatic[k]) continue;
    // An aromatic bond must join aromatic atoms (RDKit rejects the others).
    if (!mol.aromatic[mol.bond_begin[k]] || !mol.aromatic[mol.bond_end[k]]) return false;
    ring_aromatic[k] = mol.bond_in_ring[k];
    any_aromatic = true;
  }
  std::vector<char>& waiting = scratch.waiting;
  waiting.assign(mol.n, 0);
  for (int i = 0; i < mol.n; ++i) {
    if (!mol.aromatic[i]) continue;
    any_aromatic = true;
    if (mol.z[i] == 0 || mol.radicals[i]) return false;  // dummies may or may not take a double bond
    bool ring_bond = false;
    int single_order = mol.total_hs(i);
    for (int p = mol.start[i]; p < mol.start[i + 1]; ++p) {
      const int k = mol.incident[p];
      ring_bond |= ring_aromatic[k] != 0;
      single_order += mol.bond_aromatic[k] ? 1 : mol.order[k];
    }
    // An aromatic atom without an aromatic ring bond: RDKit rejects it outside rings; left to it.
    if (!ring_bond) return false;
    const int charge = mol.charge[i];
    int dv = Elements::get().default_valence[mol.z[i]] + charge;
    const int total = mol.explicit_valence[i] + mol.implicit_valence[i];
    const auto& valences = table().getValenceList(mol.z[i]);
    for (size_t v = 1; total > dv && v < valences.size() && valences[v] > 0; ++v) dv = valences[v] + charge;
    if (mol.degree[i] + mol.implicit_valence[i] >= dv) continue;  // no room for a double bond
    if (dv == single_order + 1) {
      waiting[i] = 1;
    } else if (mol.no_implicit[i] && dv == single_order + 2) {
      return false;  // a double bond or a radical: RDKit's choice is not predicted here
    }
  }
  if (!any_aromatic) return true;
  long steps = 0;
  if (!match_all(mol, ring_aromatic, waiting, double_bond, steps)) return false;
  // The Kekulé form: aromatic bonds single or double.
  for (int k = 0; k < mol.m; ++k) {
    if (mol.bond_aromatic[k]) mol.order[k] = double_bond[k] ? 2 : 1;
  }
  for (int i = 0; i < mol.n; ++i) {
    if (!mol.aromatic[i]) continue;
    int valence = mol.explicit_hs[i];
    for (int p = mol.start[i]; p < mol.start[i + 1]; ++p) valence += mol.order[mol.incident[p]];
    mol.explicit_valence[i] = valence;
  }
  return true;
}

bool ring_atom_candidates(const MolArrays& mol, std::vector<char>& candidate) {
  candidate.assign(mol.n, 0);
  bool uncertain = false;
  for (int k = 0; k < mol.m; ++k) {
    if (!mol.bond_in_ring[k]) continue;
    for (int i : {mol.bond_begin[k], mol.bond_end[k]}) {
      if (candidate[i] & 2) continue;  // decided
      candidate[i] = 2 | (aromatic_candidate(mol, i, donor_type(mol, i), uncertain) ? 1 : 0);
    }
  }
  for (char& c : candidate) c &= 1;
  return !uncertain;
}

bool perceive_aromaticity(const MolArrays& mol, const std::vector<FoundRing>& rings, std::vector<char>& atom_aromatic,
                          std::vector<char>& bond_aromatic, int& largest_system) {
  largest_system = 0;
  atom_aromatic.assign(mol.n, 0);
  bond_aromatic.assign(mol.m, 0);
  Workspace& w = thread_scratch<Workspace>();
  std::vector<char>&seen = w.seen, &candidate = w.candidate;
  seen.assign(mol.n, 0);
  candidate.assign(mol.n, 0);
  std::vector<Donor>& donor = w.donor;
  donor.assign(mol.n, none);
  bool uncertain = false;
  std::vector<int>& candidate_rings = w.candidate_rings;  // indices into `rings`
  candidate_rings.clear();
  for (size_t r = 0; r < rings.size(); ++r) {
    bool all_candidates = true, all_dummies = true;
    for (int a : rings[r].atoms) {
      if (mol.z[a] != 0) all_dummies = false;
      if (seen[a]) {
        if (!candidate[a]) all_candidates = false;
        continue;
      }
      seen[a] = 1;
      donor[a] = donor_type(mol, a);
      candidate[a] = aromatic_candidate(mol, a, donor[a], uncertain);
      if (!candidate[a]) all_candidates = false;
    }
    if (all_candidates && !all_dummies) candidate_rings.push_back(static_cast<int>(r));
  }
  if (uncertain) return false;
  const int nc = static_cast<int>(candidate_rings.size());
  if (nc == 0) return true;
  // Rings sharing a bond are neighbours (large rings excepted).
  std::vector<std::vector<int>>& neighbours = w.neighbours;
  if (neighbours.size() < static_cast<size_t>(nc)) neighbours.resize(nc);
  for (int x = 0; x < nc; ++x) neighbours[x].clear();
  for (int x = 0; x < nc; ++x) {
    const auto& bx = rings[candidate_rings[x]].bonds;
    if (bx.size() > kMaxFusedAromaticRingSize) continue;
    for (int y = x + 1; y < nc; ++y) {
      const auto& by = rings[candidate_rings[y]].bonds;
      if (by.size() > kMaxFusedAromaticRingSize) continue;
      bool share = false;
      for (int k : bx) share |= std::find(by.begin(), by.end(), k) != by.end();
      if (share) {
        neighbours[x].push_back(y);
        neighbours[y].push_back(x);
      }
    }
  }
  // Every atom of a candidate ring: when all of them are aromatic, larger combinations stop.
  std::vector<char>& in_candidate = w.in_candidate;
  in_candidate.assign(mol.n, 0);
  int candidate_atoms = 0;
  for (int x = 0; x < nc; ++x) {
    for (int a : rings[candidate_rings[x]].atoms) {
      if (!in_candidate[a]) {
        in_candidate[a] = 1;
        ++candidate_atoms;
      }
    }
  }
  std::vector<char>&done_system = w.done_system, &in_union = w.in_union, &done_atom = w.done_atom;
  done_system.assign(nc, 0);
  in_union.assign(mol.n, 0);
  std::vector<int>& bond_count = w.bond_count;
  bond_count.assign(mol.m, 0);
  std::vector<int>&fused = w.fused, &comb = w.comb, &chosen = w.chosen, &atoms = w.atoms;
  for (int first = 0; first < nc; ++first) {
    if (done_system[first]) continue;
    // The fused system of `first`.
    fused.assign(1, first);
    done_system[first] = 1;
    for (size_t q = 0; q < fused.size(); ++q) {
      for (int s : neighbours[fused[q]]) {
        if (!done_system[s]) {
          done_system[s] = 1;
          fused.push_back(s);
        }
      }
    }
    const int nrings = static_cast<int>(fused.size());
    largest_system = std::max(largest_system, nrings);
    if (static_cast<size_t>(nrings) > kMaxFusedRings) return false;
    if (nrings > 1) {
      // Only ortho-fused systems (two rings share at most one bond, an atom is in at most two
      // rings): on peri-fused and bridged systems (phenalene-like cores, cyclophanes) RDKit's
      // outcome differs from these rules for some molecules of HIV.
      std::vector<int>& rings_of_atom = w.rings_of_atom;
      rings_of_atom.assign(mol.n, 0);
      for (int x : fused) {
        for (int at : rings[candidate_rings[x]].atoms) {
          if (++rings_of_atom[at] > 2) return false;
        }
        for (int y : fused) {
          if (y <= x) continue;
          int shared = 0;
          for (int k : rings[candidate_rings[x]].bonds) {
            const auto& by = rings[candidate_rings[y]].bonds;
            shared += std::find(by.begin(), by.end(), k) != by.end();
          }
          if (shared > 1) return false;
        }
      }
    }
    done_atom.assign(mol.n, 0);
    int done_count = 0;
    for (int size = 1; size <= std::min(nrings, 6); ++size) {
      if (done_count == candidate_atoms) break;
      // All combinations of `size` rings of the system.
      comb.resize(size);
      for (int i = 0; i < size; ++i) comb[i] = i;
      while (true) {
        chosen.resize(size);
        for (int i = 0; i < size; ++i) chosen[i] = fused[comb[i]];
        if (connected(chosen, neighbours, w.stack, w.reached)) {
          // Huckel's rule over the union of the chosen rings' atoms.
          int lo = 0, hi = 0;
          atoms.clear();
          for (int x : chosen) {
            for (int a : rings[candidate_rings[x]].atoms) {
              if (!in_union[a]) {
                in_union[a] = 1;
                atoms.push_back(a);
                int l, h;
                electron_range(donor[a], l, h);
                lo += l;
                hi += h;
              }
            }
          }
          for (int a : atoms) in_union[a] = 0;
          bool aromatic = false;
          if (hi >= 6) {
            for (int e = lo; e <= hi && !aromatic; ++e) aromatic = (e - 2) % 4 == 0;
          } else if (hi == 2) {
            aromatic = true;
          }
          if (aromatic) {
            for (int a : atoms) {
              atom_aromatic[a] = 1;
              if (!done_atom[a]) {
                done_atom[a] = 1;
                ++done_count;
              }
            }
            for (int x : chosen) {
              for (int k : rings[candidate_rings[x]].bonds) ++bond_count[k];
            }
            for (int x : chosen) {
              for (int k : rings[candidate_rings[x]].bonds) {
                if (bond_count[k] == 1) bond_aromatic[k] = 1;
              }
            }
            for (int x : chosen) {
              for (int k : rings[candidate_rings[x]].bonds) bond_count[k] = 0;
            }
          }
        }
        // Next combination in lexicographic order.
        int i = size - 1;
        while (i >= 0 && comb[i] == nrings - size + i) --i;
        if (i < 0) break;
        ++comb[i];
        for (int j = i + 1; j < size; ++j) comb[j] = comb[j - 1] + 1;
      }
    }
  }
  return true;
}

}  // namespace sampan::helix
