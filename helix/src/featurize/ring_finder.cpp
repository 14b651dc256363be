// Unique SSSR on a plain graph (see ring_finder.h for why and when it answers).
#include "featurize/ring_finder.h"

#include <algorithm>
#include <numeric>
#include "featurize/thread_scratch.h"

namespace sampan::helix {

namespace {

// Longest cycle enumerated inside a ring system with several independent cycles (shorter caps are
// tried first), most cycles kept and most depth-first steps taken: beyond these the system is left
// to RDKit (cages, large polycycles), which is rare in drug-like molecules and keeps the worst case
// bounded.
constexpr int kMaxCycleLength = 16;
constexpr size_t kMaxCycles = 512;
constexpr long kMaxSteps = 200000;

/// A cycle found by the enumeration: atoms in order and the bonds between them.
struct Cycle {
  std::vector<int> atoms, bonds;
};

struct Adjacency {
  std::vector<int> start;  // CSR offsets per atom
  std::vector<int> nbr;    // neighbour atom
  std::vector<int> bond;   // bond joining them
};

void make_adjacency(int n, const std::vector<int>& b, const std::vector<int>& e, Adjacency& adj,
                    std::vector<int>& fill, const std::vector<char>* keep = nullptr) {
  adj.start.assign(n + 1, 0);
  for (size_t k = 0; k < b.size(); ++k) {
    if (keep && !(*keep)[k]) continue;
    ++adj.start[b[k] + 1];
    ++adj.start[e[k] + 1];
  }
  for (int i = 0; i < n; ++i) adj.start[i + 1] += adj.start[i];
  adj.nbr.resize(adj.start[n]);
  adj.bond.resize(adj.start[n]);
  fill.assign(adj.start.begin(), adj.start.end() - 1);
  for (size_t k = 0; k < b.size(); ++k) {
    if (keep && !(*keep)[k]) continue;
    adj.nbr[fill[b[k]]] = e[k];
    adj.bond[fill[b[k]]++] = static_cast<int>(k);
    adj.nbr[fill[e[k]]] = b[k];
    adj.bond[fill[e[k]]++] = static_cast<int>(k);
  }
}

/// Arrays reused from call to call on each thread (no allocation once warm).
struct Workspace {
  Adjacency adj, cyc;
  std::vector<int> fill, parent, order, low, parent_bond, next, stack, system_of, edge_count, path_atoms,
      path_bonds, slot, queue, dist;
  std::vector<char> bridge, in_cycle, seen, on_path;
  std::vector<std::vector<int>> members;
  std::vector<Cycle> cycles;
  size_t num_cycles = 0;
  std::vector<std::vector<uint64_t>> basis;
  std::vector<int> pivots;
  std::vector<uint64_t> row;
};

/// Marks the bridges (bonds in no cycle): Tarjan's low-link over a depth-first search, iterative so
/// that long chains cannot overflow the stack.
void find_bridges(int n, const Adjacency& adj, size_t num_bonds, Workspace& w) {
  std::vector<char>& bridge = w.bridge;
  bridge.assign(num_bonds, 0);
  std::vector<int>&order = w.order, &low = w.low, &parent_bond = w.parent_bond, &next = w.next, &stack = w.stack;
  order.assign(n, -1);
  low.assign(n, 0);
  parent_bond.assign(n, -1);
  next.assign(n, 0);
  stack.clear();
  int counter = 0;
  for (int root = 0; root < n; ++root) {
    if (order[root] >= 0) continue;
    order[root] = low[root] = counter++;
    next[root] = adj.start[root];
    stack.push_back(root);
    while (!stack.empty()) {
      const int v = stack.back();
      if (next[v] < adj.start[v + 1]) {
        const int slot = next[v]++;
        const int w = adj.nbr[slot], k = adj.bond[slot];
        if (k == parent_bond[v]) continue;
        if (order[w] < 0) {
          order[w] = low[w] = counter++;
          parent_bond[w] = k;
          next[w] = adj.start[w];
          stack.push_back(w);
        } else {
          low[v] = std::min(low[v], order[w]);
        }
      } else {
        stack.pop_back();
        if (!stack.empty()) {
          const int u = stack.back();
          low[u] = std::min(low[u], low[v]);
          if (low[v] > order[u]) bridge[parent_bond[v]] = 1;
        }
      }
    }
  }
}

int find_root(std::vector<int>& parent, int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

/// Every simple cycle of the ring system (atoms `members`, adjacency restricted to its bonds) with
/// at most `cap` atoms, each once, into w.cycles[0 .. w.num_cycles): a cycle is found from its
/// smallest atom, in the direction whose second atom is smaller than its last. A path is extended
/// only while the shortest way back to the start still fits in `cap`. False when a cap on cycles or
/// steps is hit.
bool enumerate_cycles(const std::vector<int>& members, const Adjacency& adj, int cap, Workspace& w) {
  std::vector<int>&path_atoms = w.path_atoms, &path_bonds = w.path_bonds, &slot = w.slot, &queue = w.queue,
  &dist = w.dist;
  const int max_atom = members.back();  // sorted
  w.on_path.assign(max_atom + 1, 0);
  dist.assign(max_atom + 1, -1);
  w.num_cycles = 0;
  long steps = 0;
  for (int s : members) {
    // Distances back to s through atoms not smaller than s.
    for (int v : members) dist[v] = -1;
    dist[s] = 0;
    queue.assign(1, s);
    for (size_t q = 0; q < queue.size(); ++q) {
      const int v = queue[q];
      for (int i = adj.start[v]; i < adj.start[v + 1]; ++i) {
        const int x = adj.nbr[i];
        if (x > s && dist[x] < 0) {
          dist[x] = dist[v] + 1;
          queue.push_back(x);
        }
      }
    }
    path_atoms.assign(1, s);
    path_bonds.clear();
    slot.assign(1, adj.start[s]);
    w.on_path[s] = 1;
    while (!path_atoms.empty()) {
      if (++steps > kMaxSteps) return false;
      const int v = path_atoms.back();
      int& i = slot.back();
      if (i == adj.start[v + 1]) {
        w.on_path[v] = 0;
        path_atoms.pop_back();
        slot.pop_back();
        if (!path_bonds.empty()) path_bonds.pop_back();
        continue;
      }
      const int x = adj.nbr[i], k = adj.bond[i];
      ++i;
      if (x == s) {
        if (path_atoms.size() >= 3 && path_atoms[1] < path_atoms.back()) {
          if (w.num_cycles == kMaxCycles) return false;
          if (w.num_cycles == w.cycles.size()) w.cycles.emplace_back();
          Cycle& c = w.cycles[w.num_cycles++];
          c.atoms.assign(path_atoms.begin(), path_atoms.end());
          c.bonds.assign(path_bonds.begin(), path_bonds.end());
          c.bonds.push_back(k);
        }
        continue;
      }
      if (x < s || w.on_path[x] || dist[x] < 0 || static_cast<int>(path_atoms.size()) + dist[x] > cap) continue;
      w.on_path[x] = 1;
      path_atoms.push_back(x);
      path_bonds.push_back(k);
      slot.push_back(adj.start[x]);
    }
  }
  return true;
}

/// Appends a ring to rings[0 .. used), reusing the storage of earlier calls.
void add_ring(std::vector<FoundRing>& rings, size_t& used, const std::vector<int>& atoms, const std::vector<int>& bonds) {
  if (used == rings.size()) rings.emplace_back();
  rings[used].atoms.assign(atoms.begin(), atoms.end());
  rings[used].bonds.assign(bonds.begin(), bonds.end());
  ++used;
}

/// Picks the unique minimum cycle basis of rank `rank` from w.cycles (see ring_finder.h).
/// 1: found (appended to `rings`); 0: not unique; -1: the rank is not reached by these cycles.
int unique_minimum_basis(Workspace& w, int rank, int num_bonds, std::vector<FoundRing>& rings, size_t& used) {
  const size_t count = w.num_cycles;
  std::vector<Cycle>& cycles = w.cycles;
  // Shortest first (stable: the enumeration order breaks ties).
  std::stable_sort(cycles.begin(), cycles.begin() + count,
                   [](const Cycle& a, const Cycle& b) { return a.atoms.size() < b.atoms.size(); });
  const int words = (num_bonds + 63) / 64;
  if (w.basis.size() < static_cast<size_t>(rank)) w.basis.resize(rank);
  w.pivots.clear();
  int taken = 0;
  size_t longest = 0;
  const size_t used_before = used;
  std::vector<uint64_t>& row = w.row;
  row.resize(words);
  for (size_t ci = 0; ci < count && taken < rank; ++ci) {
    const Cycle& c = cycles[ci];
    std::fill(row.begin(), row.end(), 0);
    for (int k : c.bonds) row[k >> 6] |= uint64_t(1) << (k & 63);
    for (int r = 0; r < taken; ++r) {
      const int p = w.pivots[r];
      if (row[p >> 6] >> (p & 63) & 1) {
        for (int x = 0; x < words; ++x) row[x] ^= w.basis[r][x];
      }
    }
    int pivot = -1;
    for (int x = 0; x < words && pivot < 0; ++x) {
      if (row[x]) pivot = x * 64 + __builtin_ctzll(row[x]);
    }
    if (pivot < 0) continue;  // a sum of shorter cycles: never in a minimum basis
    w.basis[taken].assign(row.begin(), row.end());
    w.pivots.push_back(pivot);
    ++taken;
    longest = c.atoms.size();
    add_ring(rings, used, c.atoms, c.bonds);
  }
  if (taken != rank) {
    used = used_before;
    return -1;
  }
  // Unique (and nothing for a symmetrization to add) only if every cycle as short as the longest
  // ring taken was taken.
  size_t as_short = 0;
  for (size_t ci = 0; ci < count; ++ci) as_short += cycles[ci].atoms.size() <= longest;
  return as_short == static_cast<size_t>(rank) ? 1 : 0;
}

}  // namespace

namespace {

/// Marks the bonds that lie on a cycle (the non-bridges); its scratch (parent, adjacency, bridges)
/// comes from `w`, never `w.in_cycle`, so that may be the output.
void find_cycle_bonds_in(int n, const std::vector<int>& bond_begin, const std::vector<int>& bond_end,
                         std::vector<char>& in_cycle, Workspace& w) {
  const int m = static_cast<int>(bond_begin.size());
  in_cycle.assign(m, 0);
  if (m < 3) return;
  // Cycle rank E - V + C: zero means acyclic (most molecules have rings, but a quick exit is cheap).
  std::vector<int>& parent = w.parent;
  parent.resize(n);
  std::iota(parent.begin(), parent.end(), 0);
  int components = n;
  for (int k = 0; k < m; ++k) {
    int a = find_root(parent, bond_begin[k]), b = find_root(parent, bond_end[k]);
    if (a != b) {
      parent[a] = b;
      --components;
    }
  }
  if (m - n + components == 0) return;
  make_adjacency(n, bond_begin, bond_end, w.adj, w.fill);
  find_bridges(n, w.adj, m, w);
  for (int k = 0; k < m; ++k) in_cycle[k] = !w.bridge[k];
}

/// find_unique_sssr with its workspace passed in (see thread_scratch.h); with `all_on_cycles`, the
/// caller knows that every bond lies on a cycle (no acyclicity test or bridge search needed).
bool find_unique_sssr_in(int n, const std::vector<int>& bond_begin, const std::vector<int>& bond_end,
                         std::vector<FoundRing>& rings, Workspace& w, bool all_on_cycles) {
  size_t used = 0;  // rings[0 .. used) are this call's; storage beyond is reused
  const int m = static_cast<int>(bond_begin.size());
  if (m < 3 || n < 3) {
    rings.resize(0);
    return true;
  }
  std::vector<int>& parent = w.parent;
  std::vector<char>& in_cycle = w.in_cycle;
  if (all_on_cycles) {
    parent.resize(n);
    in_cycle.assign(m, 1);
  } else {
    find_cycle_bonds_in(n, bond_begin, bond_end, in_cycle, w);
    if (std::find(in_cycle.begin(), in_cycle.end(), 1) == in_cycle.end()) {  // acyclic
      rings.resize(0);
      return true;
    }
  }
  // Ring systems: atoms joined by cycle bonds.
  std::iota(parent.begin(), parent.end(), 0);
  for (int k = 0; k < m; ++k) {
    if (in_cycle[k]) parent[find_root(parent, bond_begin[k])] = find_root(parent, bond_end[k]);
  }
  std::vector<int>&system_of = w.system_of, &edge_count = w.edge_count;
  system_of.assign(n, -1);
  edge_count.clear();
  size_t systems = 0;
  for (int k = 0; k < m; ++k) {
    if (!in_cycle[k]) continue;
    const int root = find_root(parent, bond_begin[k]);
    if (system_of[root] < 0) {
      system_of[root] = static_cast<int>(systems++);
      if (w.members.size() < systems) w.members.emplace_back();
      w.members[systems - 1].clear();
      edge_count.push_back(0);
    }
    ++edge_count[system_of[root]];
  }
  w.seen.assign(n, 0);
  for (int k = 0; k < m; ++k) {
    if (!in_cycle[k]) continue;
    const int s = system_of[find_root(parent, bond_begin[k])];
    for (int a : {bond_begin[k], bond_end[k]}) {
      if (!w.seen[a]) {
        w.seen[a] = 1;
        w.members[s].push_back(a);
      }
    }
  }
  make_adjacency(n, bond_begin, bond_end, w.cyc, w.fill, &in_cycle);
  const Adjacency& cyc = w.cyc;
  for (size_t s = 0; s < systems; ++s) {
    std::vector<int>& members = w.members[s];
    std::sort(members.begin(), members.end());
    const int rank = edge_count[s] - static_cast<int>(members.size()) + 1;
    if (rank == 1) {
      // One cycle: walk it from its smallest atom.
      std::vector<int>&atoms = w.path_atoms, &bonds = w.path_bonds;
      atoms.clear();
      bonds.clear();
      int prev_bond = -1, v = members.front();
      do {
        atoms.push_back(v);
        int step = -1;
        for (int i = cyc.start[v]; i < cyc.start[v + 1]; ++i) {
          if (cyc.bond[i] != prev_bond) {
            step = i;
            break;
          }
        }
        prev_bond = cyc.bond[step];
        bonds.push_back(prev_bond);
        v = cyc.nbr[step];
      } while (v != members.front());
      add_ring(rings, used, atoms, bonds);
      continue;
    }
    // Short caps first: most ring systems are made of 5- and 6-membered rings.
    int found = -1;
    for (int cap : {7, 10, kMaxCycleLength}) {
      if (!enumerate_cycles(members, cyc, cap, w)) return false;
      found = unique_minimum_basis(w, rank, m, rings, used);
      if (found >= 0) break;
    }
    if (found != 1) return false;
  }
  rings.resize(used);
  return true;
}



}  // namespace

void find_cycle_bonds(int n, const std::vector<int>& bond_begin, const std::vector<int>& bond_end,
                      std::vector<char>& in_cycle) {
  find_cycle_bonds_in(n, bond_begin, bond_end, in_cycle, thread_scratch<Workspace>());
}

bool find_unique_sssr(int n, const std::vector<int>& bond_begin, const std::vector<int>& bond_end,
                      std::vector<FoundRing>& rings) {
  return find_unique_sssr_in(n, bond_begin, bond_end, rings, thread_scratch<Workspace>(), false);
}

bool find_unique_sssr_of_cycle_bonds(int n, const std::vector<int>& bond_begin, const std::vector<int>& bond_end,
                                     std::vector<FoundRing>& rings) {
  return find_unique_sssr_in(n, bond_begin, bond_end, rings, thread_scratch<Workspace>(), true);
}

}  // namespace sampan::helix
