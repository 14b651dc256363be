// sampan helix: train/valid/test splits of molecule datasets.
//
// scaffold_split is the deterministic Bemis–Murcko split of Hu et al. 2020 (pretrain-gnns
// chem/splitters.py), PaddleHelix (ScaffoldSplitter) and DeepChem: molecules are grouped by the
// canonical SMILES of their Murcko scaffold (chirality included); groups are sorted by size, ties
// by their first molecule index, both descending; each group goes to train while train stays
// <= frac_train * N, else to valid while train + valid stays <= (frac_train + frac_valid) * N,
// else to test. No seed: the split is the same every time (it reproduces the counts of
// shared/data/moleculenet/SOURCE.md and the official ogbg-molhiv split sizes).
//
// random_scaffold_split follows Hu et al.'s random_scaffold_split: the scaffold groups in a
// seeded random order fill valid up to floor(frac_valid * N), then test up to
// floor(frac_test * N); the rest is train. random_split shuffles molecules: train gets
// int(frac_train * N), valid int(frac_valid * N), test the rest.
//
// Seeded shuffles use helix's own generator (splitmix64 + Fisher–Yates with unbiased draws),
// so a seed gives the same split on every platform and compiler.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sampan::helix {

struct Split {
  std::vector<int64_t> train, valid, test;  // molecule indices, each sorted within its group order
};

/// The canonical SMILES of each molecule's Bemis–Murcko scaffold (RDKit's MurckoDecompose, as
/// rdkit.Chem.Scaffolds.MurckoScaffold.MurckoScaffoldSmiles): "" for a molecule without rings.
/// A SMILES RDKit cannot read is a ValueError naming its index (datasets hold valid molecules).
std::vector<std::string> murcko_scaffolds(const std::vector<std::string>& smiles,
                                          bool include_chirality = true, int num_threads = 0);

/// Deterministic scaffold split of molecules with the given scaffold keys (see above).
Split scaffold_split(const std::vector<std::string>& scaffolds, double frac_train = 0.8,
                     double frac_valid = 0.1, double frac_test = 0.1);

/// Seeded random-scaffold split (Hu et al.); the scaffold groups in order of first appearance
/// are shuffled with `seed`.
Split random_scaffold_split(const std::vector<std::string>& scaffolds, uint64_t seed,
                            double frac_train = 0.8, double frac_valid = 0.1, double frac_test = 0.1);

/// Seeded random split of n molecules.
Split random_split(int64_t n, uint64_t seed, double frac_train = 0.8, double frac_valid = 0.1,
                   double frac_test = 0.1);

/// A uniformly random permutation of 0..n-1 from `seed` (splitmix64, Fisher–Yates).
std::vector<int64_t> seeded_permutation(int64_t n, uint64_t seed);

}  // namespace sampan::helix
