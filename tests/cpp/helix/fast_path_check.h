// Shared by the helix fast-path and SMILES-reader tests: the fast path against RDKit's full path
// for one SMILES, and the real molecules both tests read (Debian rdkit-data's NCI set).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "featurize/molecule_graph.h"
#include "sampan/helix/featurize.h"

namespace sampan::helix::test_support {

inline const char* kNciSmilesPath = "/usr/share/RDKit/Data/NCI/first_5K.smi";

/// The SMILES of kNciSmilesPath in file order; empty where rdkit-data is not installed.
inline std::vector<std::string> nci_smiles() {
  std::vector<std::string> out;
  std::ifstream in(kNciSmilesPath);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string smiles;
    fields >> smiles;
    if (!smiles.empty()) out.push_back(smiles);
  }
  return out;
}

/// Whether the fast path took `smiles`; where it did, expects RDKit to accept the molecule and the
/// full path (complete SmilesToMol, then molecule_graph) to give identical features.
/// With `times`, the fast path's step times and counts are added to it.
inline bool expect_fast_path_matches_full_path(const std::string& smiles, FastPathTimes* times = nullptr) {
  MoleculeGraph fast, full;
  if (!ogb_graph_fast(smiles, fast, times)) return false;
  std::string reason;
  std::unique_ptr<RDKit::ROMol> mol = parse_smiles(smiles, reason);
  EXPECT_TRUE(mol) << smiles << ": the fast path featurized a molecule RDKit rejects";
  if (!mol) return true;
  molecule_graph(*mol, FeaturizerKind::ogb, full);
  EXPECT_EQ(fast.num_atoms, full.num_atoms) << smiles;
  EXPECT_EQ(fast.atom_features, full.atom_features) << smiles;
  EXPECT_EQ(fast.edge_source, full.edge_source) << smiles;
  EXPECT_EQ(fast.edge_target, full.edge_target) << smiles;
  EXPECT_EQ(fast.bond_features, full.bond_features) << smiles;
  return true;
}

}  // namespace sampan::helix::test_support
