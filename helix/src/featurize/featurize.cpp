// Featurization of molecules into OGB-layout integer graphs (see sampan/helix/featurize.h).
#include "sampan/helix/featurize.h"

#include <GraphMol/GraphMol.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <RDGeneral/RDLog.h>

#include <algorithm>
#include <exception>

#include "featurize/molecule_graph.h"
#include "featurize/vocabularies.h"
#include "sampan/error.h"
#include "sampan/threads.h"

namespace sampan::helix {

namespace {

FeaturizerSpec make_ogb_spec() {
  FeaturizerSpec s;
  s.name = "ogb";
  s.version = 1;
  s.atom_feature_names = {"atomic_num", "chirality", "degree", "formal_charge", "num_hs",
                          "num_radical_electrons", "hybridization", "is_aromatic", "is_in_ring"};
  s.atom_feature_sizes = {119, 5, 12, 12, 10, 6, 6, 2, 2};
  s.bond_feature_names = {"bond_type", "bond_stereo", "is_conjugated"};
  s.bond_feature_sizes = {5, 6, 2};
  return s;
}

FeaturizerSpec make_pretrain_gnns_spec() {
  FeaturizerSpec s;
  s.name = "pretrain_gnns";
  s.version = 1;
  s.atom_feature_names = {"atom_type", "chirality"};
  s.atom_feature_sizes = {119, 4};
  s.bond_feature_names = {"bond_type", "bond_direction"};
  s.bond_feature_sizes = {5, 4};
  return s;
}

void ogb_atom_features(const RDKit::Atom& a, int64_t* f) {
  f[0] = vocab::ogb_atomic_num(a);
  f[1] = vocab::ogb_chirality(a);
  f[2] = vocab::ogb_degree(a);
  f[3] = vocab::ogb_formal_charge(a);
  f[4] = vocab::ogb_num_hs(a);
  f[5] = vocab::ogb_radical_electrons(a);
  f[6] = vocab::ogb_hybridization(a);
  f[7] = a.getIsAromatic() ? 1 : 0;
  // IsInRing in Python = RingInfo::numAtomRings(idx) != 0 (the SSSR set made by sanitization).
  f[8] = a.getOwningMol().getRingInfo()->numAtomRings(a.getIdx()) != 0 ? 1 : 0;
}

void ogb_bond_features(const RDKit::Bond& b, int64_t* f) {
  f[0] = vocab::ogb_bond_type(b);
  f[1] = vocab::ogb_bond_stereo(b);
  f[2] = b.getIsConjugated() ? 1 : 0;
}

void hu_atom_features(const RDKit::Atom& a, int64_t* f) {
  f[0] = vocab::hu_atom_type(a);
  f[1] = vocab::hu_chirality(a);
}

void hu_bond_features(const RDKit::Bond& b, int64_t* f) {
  f[0] = vocab::hu_bond_type(b);
  f[1] = vocab::hu_bond_direction(b);
}

/// Whether the molecule carries anything the stereo perception works on: a chiral tag, a bond
/// direction (/ \ or a wedge) or a bond stereo mark.
bool has_stereo_marks(const RDKit::ROMol& mol) {
  for (const RDKit::Atom* a : mol.atoms()) {
    if (a->getChiralTag() != RDKit::Atom::CHI_UNSPECIFIED) return true;
  }
  for (const RDKit::Bond* b : mol.bonds()) {
    if (b->getBondDir() != RDKit::Bond::NONE || b->getStereo() != RDKit::Bond::STEREONONE) return true;
  }
  return false;
}

}  // namespace

const FeaturizerSpec& featurizer_spec(const std::string& name) {
  static const FeaturizerSpec ogb = make_ogb_spec();
  static const FeaturizerSpec hu = make_pretrain_gnns_spec();
  switch (featurizer_kind(name)) {
    case FeaturizerKind::ogb: return ogb;
    case FeaturizerKind::pretrain_gnns: return hu;
  }
  return ogb;
}

std::vector<std::string> featurizer_names() { return {"ogb", "pretrain_gnns"}; }

FeaturizerKind featurizer_kind(const std::string& name) {
  if (name == "ogb") return FeaturizerKind::ogb;
  if (name == "pretrain_gnns") return FeaturizerKind::pretrain_gnns;
  SAMPAN_THROW(ValueError, "helix: unknown featurizer '", name,
               "'; expected 'ogb' or 'pretrain_gnns'");
}

void molecule_graph(const RDKit::ROMol& mol, FeaturizerKind kind, MoleculeGraph& out) {
  const FeaturizerSpec& spec = featurizer_spec(kind == FeaturizerKind::ogb ? "ogb" : "pretrain_gnns");
  const size_t na = spec.atom_feature_sizes.size(), nb = spec.bond_feature_sizes.size();
  const int64_t num_atoms = mol.getNumAtoms(), num_bonds = mol.getNumBonds();
  out.num_atoms = num_atoms;
  out.atom_features.assign(num_atoms * na, 0);
  out.edge_source.resize(2 * num_bonds);
  out.edge_target.resize(2 * num_bonds);
  out.bond_features.assign(2 * num_bonds * nb, 0);
  for (const RDKit::Atom* atom : mol.atoms()) {
    int64_t* f = out.atom_features.data() + atom->getIdx() * na;
    if (kind == FeaturizerKind::ogb) ogb_atom_features(*atom, f); else hu_atom_features(*atom, f);
  }
  for (const RDKit::Bond* bond : mol.bonds()) {
    const int64_t k = bond->getIdx(), i = bond->getBeginAtomIdx(), j = bond->getEndAtomIdx();
    // Bond k -> edges 2k (i -> j) and 2k + 1 (j -> i), both with the bond's features (OGB order).
    out.edge_source[2 * k] = i;
    out.edge_target[2 * k] = j;
    out.edge_source[2 * k + 1] = j;
    out.edge_target[2 * k + 1] = i;
    int64_t* f = out.bond_features.data() + 2 * k * nb;
    if (kind == FeaturizerKind::ogb) ogb_bond_features(*bond, f); else hu_bond_features(*bond, f);
    std::copy(f, f + nb, f + nb);
  }
}

GraphSet empty_graph_set(const std::string& featurizer) {
  const FeaturizerSpec& spec = featurizer_spec(featurizer);
  GraphSet set;
  set.featurizer = spec.name;
  set.n_atom_features = static_cast<int64_t>(spec.atom_feature_sizes.size());
  set.n_bond_features = static_cast<int64_t>(spec.bond_feature_sizes.size());
  return set;
}

void append_graph(GraphSet& set, const MoleculeGraph& g, int64_t source_index) {
  set.node_offsets.push_back(set.node_offsets.back() + g.num_atoms);
  set.edge_offsets.push_back(set.edge_offsets.back() + static_cast<int64_t>(g.edge_source.size()));
  set.atom_features.insert(set.atom_features.end(), g.atom_features.begin(), g.atom_features.end());
  set.edge_source.insert(set.edge_source.end(), g.edge_source.begin(), g.edge_source.end());
  set.edge_target.insert(set.edge_target.end(), g.edge_target.begin(), g.edge_target.end());
  set.bond_features.insert(set.bond_features.end(), g.bond_features.begin(), g.bond_features.end());
  set.source_index.push_back(source_index);
}

std::unique_ptr<RDKit::ROMol> parse_smiles(const std::string& smiles, std::string& reason) {
  if (smiles.empty()) {
    reason = "empty SMILES";
    return nullptr;
  }
  std::unique_ptr<RDKit::RWMol> mol;
  try {
    RDKit::SmilesParserParams raw;
    raw.sanitize = false;
    raw.removeHs = false;
    mol.reset(RDKit::SmilesToMol(smiles, raw));
  } catch (const std::exception& e) {
    reason = detail::concat("RDKit rejected the molecule: ", e.what());
    return nullptr;
  }
  if (!mol) {
    reason = "RDKit could not parse the SMILES (syntax error)";
    return nullptr;
  }
  return sanitize_parsed(smiles, std::move(mol), reason);
}

std::unique_ptr<RDKit::ROMol> sanitize_parsed(const std::string& smiles, std::unique_ptr<RDKit::RWMol> mol,
                                              std::string& reason) {
  try {
    // RDKit's SmilesToMol with default parameters parses, then removes H atoms with
    // sanitization, then runs the legacy stereo perception (assignStereochemistry with cleanIt,
    // force and flagPossible). The same steps are done here one by one, so that the stereo
    // perception (about a quarter of the parse time: it ranks atoms by CIP) can be skipped for
    // the molecules where it cannot change anything: no chiral tag and no bond direction or
    // stereo mark. Parity with Chem.MolFromSmiles is checked on every MoleculeNet molecule by
    // bench/helix/compare_ogb.py.
    if (mol->hasProp(RDKit::common_properties::_NeedsQueryScan)) {
      // Query bonds in the SMILES: SmilesToMol orders ring perception differently; use it as is.
      mol.reset(RDKit::SmilesToMol(smiles));
      if (!mol) reason = "RDKit could not parse the SMILES (syntax error)";
      return mol;
    }
    RDKit::MolOps::removeHs(*mol, /*implicitOnly=*/false, /*updateExplicitCount=*/true, /*sanitize=*/true);
    if (has_stereo_marks(*mol)) {
      RDKit::MolOps::assignStereochemistry(*mol, /*cleanIt=*/true, /*force=*/true, /*flagPossible=*/true);
    }
    return mol;
  } catch (const std::exception& e) {
    // MolSanitizeException (valence, kekulization ...) and anything else RDKit throws.
    reason = detail::concat("RDKit rejected the molecule: ", e.what());
    return nullptr;
  }
}

struct QuietRdkitLogs::State {
  RDLog::LogStateSetter setter;  // disables all RDKit logs, restores them on destruction
};
QuietRdkitLogs::QuietRdkitLogs() : state_(std::make_unique<State>()) {}
QuietRdkitLogs::~QuietRdkitLogs() = default;

GraphSet featurize_smiles(const std::vector<std::string>& smiles, const std::string& featurizer,
                          const std::vector<int64_t>& rows, int num_threads) {
  const FeaturizerKind kind = featurizer_kind(featurizer);
  SAMPAN_CHECK(rows.empty() || rows.size() == smiles.size(), ValueError,
               "helix.featurize_smiles: ", rows.size(), " row numbers for ", smiles.size(), " SMILES");
  const int64_t n = static_cast<int64_t>(smiles.size());
  // Molecules are featurized in blocks of consecutive inputs, each block's graphs appended to one
  // flat GraphSet (a few growing arrays per block instead of four per molecule: RDKit allocates
  // many small objects per molecule, and thousands of small graph arrays kept alive among them
  // fragmented the heap enough to cost ~20% of the time), then the blocks are joined in order.
  constexpr int64_t block_size = 64;
  const int64_t num_blocks = (n + block_size - 1) / block_size;
  std::vector<GraphSet> blocks(num_blocks, empty_graph_set(featurizer));
  std::vector<std::string> reasons(n);
  std::vector<char> ok(n, 0);
  {
    QuietRdkitLogs quiet;
    const int threads = num_threads > 0 ? num_threads : sampan::get_num_threads();
    // Molecules vary from 1 to ~500 atoms: dynamic blocks keep the threads evenly loaded.
#pragma omp parallel num_threads(threads)
    {
      MoleculeGraph graph;  // per-thread scratch, reused
#pragma omp for schedule(dynamic, 1)
      for (int64_t blk = 0; blk < num_blocks; ++blk) {
        for (int64_t i = blk * block_size; i < std::min(n, (blk + 1) * block_size); ++i) {
          std::unique_ptr<RDKit::RWMol> parsed;  // the fast path's parse, where it declined unchanged
          if (kind == FeaturizerKind::ogb && ogb_graph_fast(smiles[i], graph, nullptr, &parsed)) {
            append_graph(blocks[blk], graph, i);
            ok[i] = 1;
            continue;
          }
          std::unique_ptr<RDKit::ROMol> mol = parsed ? sanitize_parsed(smiles[i], std::move(parsed), reasons[i])
                                                     : parse_smiles(smiles[i], reasons[i]);
          if (!mol) continue;
          try {
            molecule_graph(*mol, kind, graph);
            append_graph(blocks[blk], graph, i);
            ok[i] = 1;
          } catch (const std::exception& e) {
            reasons[i] = detail::concat("featurization failed: ", e.what());
          }
        }
      }
    }
  }
  GraphSet set = empty_graph_set(featurizer);
  int64_t total_atoms = 0, total_edges = 0;
  for (const GraphSet& b : blocks) {
    total_atoms += b.num_nodes();
    total_edges += b.num_edges();
  }
  set.atom_features.reserve(total_atoms * set.n_atom_features);
  set.edge_source.reserve(total_edges);
  set.edge_target.reserve(total_edges);
  set.bond_features.reserve(total_edges * set.n_bond_features);
  for (GraphSet& b : blocks) {
    for (int64_t g = 0; g < b.num_graphs(); ++g) {
      set.node_offsets.push_back(set.node_offsets.back() + b.node_offsets[g + 1] - b.node_offsets[g]);
      set.edge_offsets.push_back(set.edge_offsets.back() + b.edge_offsets[g + 1] - b.edge_offsets[g]);
    }
    set.atom_features.insert(set.atom_features.end(), b.atom_features.begin(), b.atom_features.end());
    set.edge_source.insert(set.edge_source.end(), b.edge_source.begin(), b.edge_source.end());
    set.edge_target.insert(set.edge_target.end(), b.edge_target.begin(), b.edge_target.end());
    set.bond_features.insert(set.bond_features.end(), b.bond_features.begin(), b.bond_features.end());
    set.source_index.insert(set.source_index.end(), b.source_index.begin(), b.source_index.end());
    b = GraphSet();  // free as we go
  }
  for (int64_t i = 0; i < n; ++i) {
    if (!ok[i]) set.invalid.push_back({i, rows.empty() ? -1 : rows[i], smiles[i], reasons[i]});
  }
  return set;
}

}  // namespace sampan::helix
