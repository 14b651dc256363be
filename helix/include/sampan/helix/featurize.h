// sampan helix: molecules -> integer-featurized graphs (the input of the GNNs).
//
// Two featurizers, each with its vocabularies fixed in code (helix/src/featurize/vocabularies.h)
// rather than taken from RDKit's enums, whose sizes change between RDKit releases (ChiralType
// grew from 4 to 9 values in 2022.03; ogb PR #399 was the resulting crash):
//
//   "ogb"            OGB's smiles2graph (ogb/utils/features.py): 9 atom features with sizes
//                    [119, 5, 12, 12, 10, 6, 6, 2, 2] (atomic number, chirality, total degree,
//                    formal charge, total H count, radical electrons, hybridization, aromatic,
//                    in ring) and 3 bond features [5, 6, 2] (type, stereo, conjugated).
//   "pretrain_gnns"  Hu et al. 2020 (snap-stanford/pretrain-gnns, chem/loader.py): atom type and
//                    chirality tag, sizes [119, 4]; bond type and direction, sizes [5, 4]. Each has
//                    a last "other" bucket where Hu's lists (which raise on unknown values) stop;
//                    models add their own mask / self-loop ids after these sizes.
//
// Every feature is a category id in [0, size). Unknown values map to the last id ("misc"), as
// OGB's safe_index does. Graphs follow OGB's layout: atoms in RDKit order (no hydrogens added),
// every bond stored twice, bond k as edges 2k (begin -> end) and 2k+1 (end -> begin), both with
// the bond's features; no self-loops.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sampan::helix {

/// What a featurizer produces: names and vocabulary sizes of its atom and bond features.
struct FeaturizerSpec {
  std::string name;
  /// Bumped whenever any output of this featurizer changes (invalidates cached datasets).
  int version = 1;
  std::vector<std::string> atom_feature_names;
  std::vector<int64_t> atom_feature_sizes;
  std::vector<std::string> bond_feature_names;
  std::vector<int64_t> bond_feature_sizes;
};

/// The spec of "ogb" or "pretrain_gnns"; ValueError naming the known featurizers otherwise.
const FeaturizerSpec& featurizer_spec(const std::string& name);
/// The names of all featurizers.
std::vector<std::string> featurizer_names();

/// A molecule that could not be featurized: its position in the input (0-based index into the
/// list of molecules given), the row number in its file where known (1-based, header = row 1;
/// -1 where unknown), its text and why.
struct InvalidMolecule {
  int64_t index = 0;
  int64_t row = -1;
  std::string text;
  std::string reason;
};

/// Many molecules' graphs in flat arrays (the OGB layout, concatenated). Graph g owns atoms
/// [node_offsets[g], node_offsets[g+1]) and edges [edge_offsets[g], edge_offsets[g+1]); edge
/// endpoints are indices local to their graph.
struct GraphSet {
  std::string featurizer;
  int64_t n_atom_features = 0;
  int64_t n_bond_features = 0;
  std::vector<int64_t> node_offsets{0};  // [G + 1]
  std::vector<int64_t> edge_offsets{0};  // [G + 1]
  std::vector<int64_t> atom_features;    // [N, n_atom_features], row-major
  std::vector<int64_t> edge_source;      // [E], local atom index
  std::vector<int64_t> edge_target;      // [E], local atom index
  std::vector<int64_t> bond_features;    // [E, n_bond_features], row-major
  /// For each graph, the index of its molecule in the input list.
  std::vector<int64_t> source_index;
  /// The inputs that were skipped, in input order.
  std::vector<InvalidMolecule> invalid;

  int64_t num_graphs() const { return static_cast<int64_t>(node_offsets.size()) - 1; }
  int64_t num_nodes() const { return node_offsets.back(); }
  int64_t num_edges() const { return edge_offsets.back(); }
};

/// Featurizes SMILES strings in parallel (OpenMP over molecules; num_threads <= 0: sampan's
/// thread setting, sampan::get_num_threads / sp.set_num_threads). A SMILES that RDKit cannot
/// parse or sanitize is skipped and listed in `invalid` (with rows[i] as its row when `rows` is
/// given, else -1); it never aborts the others. Output order is input order.
GraphSet featurize_smiles(const std::vector<std::string>& smiles, const std::string& featurizer,
                          const std::vector<int64_t>& rows = {}, int num_threads = 0);

}  // namespace sampan::helix
