// RDKit's legacy stereo perception on arrays, where certain (see legacy_stereo.h for the rules).
#include "featurize/legacy_stereo.h"

#include <GraphMol/PeriodicTable.h>

#include <algorithm>
#include <numeric>

namespace sampan::helix {

namespace {

using Key = LegacyStereoScratch::Key;

/// Dense ranks of `keys` in increasing order (equal keys share a rank; ranks 0, 1, 2, ... without
/// gaps), as RDKit's Rankers::rankVect; returns the number of distinct keys.
template <class Key>
int dense_ranks(const std::vector<Key>& keys, int n, std::vector<int>& order, std::vector<int>& ranks) {
  order.resize(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int i, int j) { return keys[i] < keys[j]; });
  ranks.resize(n);
  int rank = 0;
  for (int p = 0; p < n; ++p) {
    if (p > 0 && keys[order[p - 1]] < keys[order[p]]) ++rank;
    ranks[order[p]] = rank;
  }
  return n == 0 ? 0 : rank + 1;
}

/// Twice the bond order as the CIP ranking counts a neighbour (aromatic 1.5 -> 3), with RDKit's
/// exception for a double bond to a 3- or 4-connected P (d-orbital bonds of quadriligant atoms
/// are neglected: the P=O oxygen sees its P once).
int neighbour_weight(const MolArrays& a, RDKit::Bond::BondType t, int neighbour) {
  switch (t) {
    case RDKit::Bond::SINGLE: return 2;
    case RDKit::Bond::AROMATIC: return 3;
    case RDKit::Bond::DOUBLE:
      return a.z[neighbour] == 15 && (a.degree[neighbour] == 3 || a.degree[neighbour] == 4) ? 1 : 4;
    case RDKit::Bond::TRIPLE: return 6;
    default: return 0;
  }
}

int other_atom(const MolArrays& a, int k, int i) { return a.bond_begin[k] == i ? a.bond_end[k] : a.bond_begin[k]; }

/// One end of a double bond as the legacy perception sees it: no neighbour bond with a direction
/// (no stereo from this end, whatever the ranks), two neighbours of equal rank (tied: a later
/// re-ranking could separate them), or the direction of its higher-ranked neighbour, read as
/// leaving the double-bond atom (`conflict` where both neighbours carry the same direction).
struct DoubleBondEnd {
  enum State { no_direction, tied, directed } state = no_direction;
  int direction = 0;  // 1 up, 2 down
  bool conflict = false;
};

DoubleBondEnd double_bond_end(const MolArrays& a, const std::vector<int>& dir, const std::vector<int>& ranks,
                              int atom, int double_bond) {
  int nbr[2] = {-1, -1}, d[2] = {0, 0}, count = 0;
  bool seen = false;
  for (int p = a.start[atom]; p < a.start[atom + 1]; ++p) {
    const int k = a.incident[p];
    if (k == double_bond) continue;
    int bond_dir = dir[k];
    if (bond_dir != 0) {
      seen = true;
      // A direction is written from the bond's begin atom; seen from its end atom it flips.
      if (a.bond_begin[k] != atom) bond_dir = 3 - bond_dir;
    }
    if (count < 2) {
      nbr[count] = other_atom(a, k, atom);
      d[count] = bond_dir;
    }
    ++count;
  }
  DoubleBondEnd end;
  if (!seen) return end;
  if (count == 2 && ranks[nbr[0]] == ranks[nbr[1]]) {
    end.state = DoubleBondEnd::tied;
    return end;
  }
  if (count == 2) {
    if (d[0] == 0) d[0] = 3 - d[1];
    if (d[1] == 0) d[1] = 3 - d[0];
    end.conflict = d[0] == d[1];
  }
  end.state = DoubleBondEnd::directed;
  end.direction = (count == 1 || ranks[nbr[0]] > ranks[nbr[1]]) ? d[0] : d[1];
  return end;
}

int find_root(std::vector<int>& parent, int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

}  // namespace

bool legacy_cip_ranks(const MolArrays& a, const std::vector<RDKit::Bond::BondType>& type,
                      const std::vector<int>& isotope, LegacyStereoScratch& s, std::vector<int>& ranks,
                      const std::vector<int>* pairs) {
  const int n = a.n;
  if (n > kMaxAtoms) return false;
  // Invariant: atomic number (7 bits), mass deviation (10 bits, 512 = none; a heavier isotope
  // counts one more than its difference), atom-map number + 1 (10 bits; none here, 0).
  std::vector<int>& invariant = s.invariant;
  invariant.resize(n);
  for (int i = 0; i < n; ++i) {
    if (a.degree[i] > kMaxDegree || a.total_hs(i) > 32) return false;
    int mass = 0;
    if (isotope[i]) {
      mass = isotope[i] - RDKit::PeriodicTable::getTable()->getMostCommonIsotope(a.z[i]);
      if (mass >= 0) mass += 1;
    }
    mass += 512;
    mass = mass < 0 ? 0 : mass % 1024;
    invariant[i] = (((a.z[i] % 128) << 10) | mass) << 10;
  }
  int num_ranks = dense_ranks(invariant, n, s.order, ranks);
  auto pairs_apart = [&] {
    if (!pairs) return false;
    for (size_t p = 0; p < pairs->size(); p += 2) {
      if (ranks[(*pairs)[p]] == ranks[(*pairs)[p + 1]]) return false;
    }
    return true;
  };
  if (pairs_apart()) return true;
  // RDKit keys each atom by [atomic number, ranks of earlier rounds..., this round's neighbour
  // values] and compares the keys lexicographically (padded with -1). Each round's rank orders the
  // atoms as the key it came from, so [atomic number, earlier ranks] compares as the last rank
  // alone. The neighbour values (rank + 1, highest first, each repeated by its weight, then one 0
  // per hydrogen) never increase along the key, so they compare as their runs: a higher value
  // wins, and of two runs of one value the longer one (the shorter is followed by something
  // smaller, or by the end). So the key here is 16-bit fields, most significant first: the rank,
  // then one field per run, value * 64 + length + 1 (lengths stay under 64: at most 6 per
  // neighbour, 32 hydrogens), then 0s (RDKit's -1 padding, below every run). At most 7 runs
  // (6 neighbours and the hydrogens): 8 fields, one 128-bit integer per atom.
  std::vector<Key>& keys = s.keys;
  keys.resize(n);
  // Each atom's neighbours and their weights, once (CSR over a.start).
  std::vector<int>& nbr = s.nbr;
  nbr.resize(2 * a.m);
  for (int i = 0; i < n; ++i) {
    for (int p = a.start[i]; p < a.start[i + 1]; ++p) {
      const int k = a.incident[p], j = other_atom(a, k, i);
      nbr[p] = j * 8 + neighbour_weight(a, type[k], j);
    }
  }
  const int max_iterations = n / 2 + 1;
  int last_num_ranks = -1;
  for (int iteration = 0; num_ranks < n && iteration < max_iterations && last_num_ranks < num_ranks; ++iteration) {
    for (int i = 0; i < n; ++i) {
      // Neighbour values by decreasing rank (insertion sort: at most kMaxDegree neighbours).
      int value[kMaxDegree], count = 0;
      for (int p = a.start[i]; p < a.start[i + 1]; ++p) {
        int v = (ranks[nbr[p] / 8] + 1) * 64 + nbr[p] % 8;
        int y = count++;
        for (; y > 0 && value[y - 1] / 64 < v / 64; --y) value[y] = value[y - 1];
        value[y] = v;
      }
      Key key = static_cast<Key>(ranks[i]) << 112;
      int field = 6, run = -1;
      for (int x = 0; x <= count; ++x) {
        const int next = x < count ? value[x] : -1;
        if (run >= 0 && next >= 0 && run / 64 == next / 64) {
          run += next % 64;  // same value: one longer run
          continue;
        }
        if (run >= 0) key |= static_cast<Key>(run + 1) << (16 * field--);
        run = next;
      }
      if (a.total_hs(i) > 0) key |= static_cast<Key>(a.total_hs(i) + 1) << (16 * field);  // the run of 0s
      keys[i] = key;
    }
    last_num_ranks = num_ranks;
    num_ranks = dense_ranks(keys, n, s.order, ranks);
    if (pairs_apart()) break;
  }
  return true;
}

bool legacy_stereo_on_arrays(const MolArrays& a, const std::vector<RDKit::Bond::BondType>& type,
                             const std::vector<int>& tag, const std::vector<int>& dir, const std::vector<int>& isotope,
                             LegacyStereoScratch& s, std::vector<int>& chirality, std::vector<int>& bond_stereo) {
  const int n = a.n, m = a.m;
  s.why = nullptr;
  auto decline = [&s](const char* why) {
    s.why = why;
    return false;
  };
  // Tagged atoms: only neutral carbons with four heavy neighbours, or three and one hydrogen
  // (always legal centres; RDKit's rules for N, P, S, As, Se and unusual valences are not
  // re-stated here).
  bool any_tag = false;
  for (int i = 0; i < n; ++i) {
    if (!tag[i]) continue;
    any_tag = true;
    if (a.z[i] != 6 || a.charge[i] != 0 || a.radicals[i] != 0) return decline("stereo: tagged atom not a neutral C");
    const int hs = a.total_hs(i);
    if (!((a.degree[i] == 4 && hs == 0) || (a.degree[i] == 3 && hs == 1))) {
      return decline("stereo: tagged C without 4 heavy neighbours or 3 and an H");
    }
  }
  // The pairs of atoms whose order decides something: the neighbours of each tagged atom, and
  // the two other neighbours at each end of a double bond with directions around both ends.
  std::vector<int>& pairs = s.pairs;
  pairs.clear();
  auto add_neighbour_pairs = [&](int i, int skip_bond) {
    for (int p = a.start[i]; p < a.start[i + 1]; ++p) {
      if (a.incident[p] == skip_bond) continue;
      for (int q = a.start[i]; q < p; ++q) {
        if (a.incident[q] == skip_bond) continue;
        pairs.push_back(other_atom(a, a.incident[p], i));
        pairs.push_back(other_atom(a, a.incident[q], i));
      }
    }
  };
  auto has_direction_around = [&](int i, int skip_bond) {
    for (int p = a.start[i]; p < a.start[i + 1]; ++p) {
      if (a.incident[p] != skip_bond && dir[a.incident[p]] != 0) return true;
    }
    return false;
  };
  for (int i = 0; i < n; ++i) {
    if (tag[i]) add_neighbour_pairs(i, -1);
  }
  for (int k = 0; k < m; ++k) {
    if (type[k] != RDKit::Bond::DOUBLE) continue;
    const int b = a.bond_begin[k], e = a.bond_end[k];
    if (!has_direction_around(b, k) || !has_direction_around(e, k)) continue;
    add_neighbour_pairs(b, k);
    add_neighbour_pairs(e, k);
  }
  std::vector<int>& ranks = s.ranks;
  if (!legacy_cip_ranks(a, type, isotope, s, ranks, &pairs)) return decline("stereo: CIP ranks beyond the packed keys");

  // First pass (assignAtomChiralCodes, assignBondStereoCodes on the constitutional ranks).
  bool changed = false, unresolved = false;
  chirality.assign(n, 0);
  std::vector<char>& tied = s.tied;
  tied.assign(n, 0);
  for (int i = 0; i < n && any_tag; ++i) {
    if (!tag[i]) continue;
    bool distinct = true;
    for (int p = a.start[i]; p < a.start[i + 1] && distinct; ++p) {
      const int rp = ranks[other_atom(a, a.incident[p], i)];
      for (int q = a.start[i]; q < p; ++q) distinct &= ranks[other_atom(a, a.incident[q], i)] != rp;
    }
    if (distinct) {
      chirality[i] = tag[i];  // an R/S code is given: the tag stays
      changed = true;
    } else {
      tied[i] = 1;
      unresolved = true;
    }
  }
  bond_stereo.assign(m, 0);
  for (int k = 0; k < m; ++k) {
    if (type[k] != RDKit::Bond::DOUBLE) continue;
    const int b = a.bond_begin[k], e = a.bond_end[k];
    if (a.degree[b] < 2 || a.degree[b] > 3 || a.degree[e] < 2 || a.degree[e] > 3) continue;
    const DoubleBondEnd begin_end = double_bond_end(a, dir, ranks, b, k);
    const DoubleBondEnd end_end = double_bond_end(a, dir, ranks, e, k);
    if (begin_end.state == DoubleBondEnd::no_direction || end_end.state == DoubleBondEnd::no_direction) continue;
    // Directions at both ends of a ring double bond: its smallest ring (stereo only from 8 atoms
    // up) would decide.
    if (a.bond_in_ring[k]) return decline("stereo: ring double bond with directions at both ends");
    if (begin_end.state == DoubleBondEnd::tied || end_end.state == DoubleBondEnd::tied) {
      unresolved = true;
      continue;
    }
    changed = true;  // a conflict (STEREONONE, directions dropped) counts as a change too
    if (begin_end.conflict || end_end.conflict) continue;
    bond_stereo[k] = begin_end.direction == end_end.direction ? 1 /* Z */ : 2 /* E */;
  }
  // A re-ranking pass could separate the tied ones.
  if (unresolved && changed) return decline("stereo: tie beside a labelled centre or bond (re-ranking)");
  if (!unresolved) return true;

  // Nothing was assigned: the ranks stay constitutional. Tied tagged atoms lose their tag unless
  // they are ring-stereo candidates with another such atom in their ring system.
  std::vector<char>& candidate = s.candidate;
  candidate.assign(n, 0);
  int candidates = 0;
  for (int i = 0; i < n; ++i) {
    if (!tied[i]) continue;
    int non_ring = 0, ring = 0, non_ring_rank[2] = {-1, -1}, ring_ranks[4], distinct_ring = 0;
    for (int p = a.start[i]; p < a.start[i + 1]; ++p) {
      const int k = a.incident[p], j = other_atom(a, k, i);
      if (!a.bond_in_ring[k]) {
        if (non_ring < 2) non_ring_rank[non_ring] = ranks[j];
        ++non_ring;
      } else {
        bool fresh = true;
        for (int r = 0; r < distinct_ring; ++r) fresh &= ring_ranks[r] != ranks[j];
        if (fresh) ring_ranks[distinct_ring++] = ranks[j];
        ++ring;
      }
    }
    if (ring == 0) continue;  // not in a ring
    bool c = false;
    if (non_ring == 2) c = non_ring_rank[0] != non_ring_rank[1];
    if (non_ring == 1) c = ring >= 2;
    if (non_ring == 0) c = (ring == 4 && distinct_ring == 3) || (ring == 3 && distinct_ring == 2);
    candidate[i] = c;
    candidates += c;
  }
  if (candidates < 2) return true;
  std::vector<int>& system_of = s.system_of;
  system_of.resize(n);
  std::iota(system_of.begin(), system_of.end(), 0);
  for (int k = 0; k < m; ++k) {
    if (a.bond_in_ring[k]) system_of[find_root(system_of, a.bond_begin[k])] = find_root(system_of, a.bond_end[k]);
  }
  for (int i = 0; i < n; ++i) {
    if (!candidate[i]) continue;
    for (int j = 0; j < n; ++j) {
      if (j != i && candidate[j] && find_root(system_of, i) == find_root(system_of, j)) {
        chirality[i] = tag[i];
        break;
      }
    }
  }
  return true;
}

}  // namespace sampan::helix
