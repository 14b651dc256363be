// Scaffold and random splits (see sampan/helix/split.h).
#include <GraphMol/ChemTransforms/ChemTransforms.h>
#include <GraphMol/GraphMol.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <unordered_map>

#include "featurize/molecule_graph.h"
#include "sampan/error.h"
#include "sampan/threads.h"
#include "sampan/helix/split.h"

namespace sampan::helix {

namespace {

void check_fractions(double frac_train, double frac_valid, double frac_test) {
  SAMPAN_CHECK(frac_train >= 0 && frac_valid >= 0 && frac_test >= 0 &&
                   std::abs(frac_train + frac_valid + frac_test - 1.0) < 1e-6,
               ValueError, "helix split: fractions must be >= 0 and sum to 1, got ", frac_train, ", ",
               frac_valid, ", ", frac_test);
}

/// Scaffold groups: the molecule indices of each distinct key, in order of first appearance.
std::vector<std::vector<int64_t>> group_by_scaffold(const std::vector<std::string>& scaffolds) {
  std::unordered_map<std::string, size_t> group_of;
  std::vector<std::vector<int64_t>> groups;
  for (size_t i = 0; i < scaffolds.size(); ++i) {
    auto [it, added] = group_of.emplace(scaffolds[i], groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(static_cast<int64_t>(i));
  }
  return groups;
}

/// splitmix64 (Steele, Lea, Flood 2014): a small generator with a fixed, portable output.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, bound) without modulo bias (rejection of the short last interval).
  uint64_t below(uint64_t bound) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t r;
    do r = next(); while (r >= limit);
    return r % bound;
  }
};

}  // namespace

std::vector<int64_t> seeded_permutation(int64_t n, uint64_t seed) {
  std::vector<int64_t> p(n);
  for (int64_t i = 0; i < n; ++i) p[i] = i;
  SplitMix64 rng{seed};
  for (int64_t i = n - 1; i > 0; --i) std::swap(p[i], p[rng.below(static_cast<uint64_t>(i) + 1)]);
  return p;
}

std::vector<std::string> murcko_scaffolds(const std::vector<std::string>& smiles, bool include_chirality,
                                          int num_threads) {
  const int64_t n = static_cast<int64_t>(smiles.size());
  std::vector<std::string> out(n), errors(n);
  {
    QuietRdkitLogs quiet;
    const int threads = num_threads > 0 ? num_threads : sampan::get_num_threads();
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
    for (int64_t i = 0; i < n; ++i) {
      std::unique_ptr<RDKit::ROMol> mol = parse_smiles(smiles[i], errors[i]);
      if (!mol) continue;
      try {
        // As MurckoScaffold.GetScaffoldForMol: decompose, then recompute the properties and the
        // symmetrized SSSR before writing the canonical SMILES (isomeric when chirality counts).
        std::unique_ptr<RDKit::ROMol> scaffold(RDKit::MurckoDecompose(*mol));
        scaffold->clearComputedProps();
        scaffold->updatePropertyCache();
        RDKit::MolOps::symmetrizeSSSR(*scaffold);
        out[i] = RDKit::MolToSmiles(*scaffold, include_chirality);
      } catch (const std::exception& e) {
        errors[i] = detail::concat("scaffold failed: ", e.what());
      }
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    SAMPAN_CHECK(errors[i].empty(), ValueError, "helix.murcko_scaffolds: molecule ", i, " ('", smiles[i],
                 "'): ", errors[i]);
  }
  return out;
}

Split scaffold_split(const std::vector<std::string>& scaffolds, double frac_train, double frac_valid,
                     double frac_test) {
  check_fractions(frac_train, frac_valid, frac_test);
  std::vector<std::vector<int64_t>> groups = group_by_scaffold(scaffolds);
  // Largest groups first; among equal sizes, the group whose first molecule comes later first
  // (Python's sorted(key=(len, first index), reverse=True) in the reference implementations).
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    if (a.size() != b.size()) return a.size() > b.size();
    return a.front() > b.front();
  });
  const double n = static_cast<double>(scaffolds.size());
  const double train_cutoff = frac_train * n, valid_cutoff = (frac_train + frac_valid) * n;
  Split s;
  for (const auto& g : groups) {
    const double size = static_cast<double>(g.size());
    if (static_cast<double>(s.train.size()) + size > train_cutoff) {
      if (static_cast<double>(s.train.size() + s.valid.size()) + size > valid_cutoff) {
        s.test.insert(s.test.end(), g.begin(), g.end());
      } else {
        s.valid.insert(s.valid.end(), g.begin(), g.end());
      }
    } else {
      s.train.insert(s.train.end(), g.begin(), g.end());
    }
  }
  return s;
}

Split random_scaffold_split(const std::vector<std::string>& scaffolds, uint64_t seed, double frac_train,
                            double frac_valid, double frac_test) {
  check_fractions(frac_train, frac_valid, frac_test);
  std::vector<std::vector<int64_t>> groups = group_by_scaffold(scaffolds);
  const std::vector<int64_t> order = seeded_permutation(static_cast<int64_t>(groups.size()), seed);
  const double n = static_cast<double>(scaffolds.size());
  const size_t n_valid = static_cast<size_t>(std::floor(frac_valid * n));
  const size_t n_test = static_cast<size_t>(std::floor(frac_test * n));
  Split s;
  for (int64_t k : order) {
    const auto& g = groups[k];
    if (s.valid.size() + g.size() <= n_valid) {
      s.valid.insert(s.valid.end(), g.begin(), g.end());
    } else if (s.test.size() + g.size() <= n_test) {
      s.test.insert(s.test.end(), g.begin(), g.end());
    } else {
      s.train.insert(s.train.end(), g.begin(), g.end());
    }
  }
  return s;
}

Split random_split(int64_t n, uint64_t seed, double frac_train, double frac_valid, double frac_test) {
  check_fractions(frac_train, frac_valid, frac_test);
  SAMPAN_CHECK(n >= 0, ValueError, "helix.random_split: n must be >= 0, got ", n);
  const std::vector<int64_t> p = seeded_permutation(n, seed);
  const int64_t n_train = static_cast<int64_t>(frac_train * static_cast<double>(n));
  const int64_t n_valid = static_cast<int64_t>(frac_valid * static_cast<double>(n));
  Split s;
  s.train.assign(p.begin(), p.begin() + n_train);
  s.valid.assign(p.begin() + n_train, p.begin() + n_train + n_valid);
  s.test.assign(p.begin() + n_train + n_valid, p.end());
  return s;
}

}  // namespace sampan::helix
