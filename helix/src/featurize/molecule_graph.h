// One RDKit molecule -> its featurized graph, and the helpers that gather graphs into a GraphSet.
// Internal to helix (RDKit types): the readers (SMILES, CSV, SDF) all go through these.
#pragma once

#include <GraphMol/ROMol.h>
#include <GraphMol/RWMol.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sampan/helix/featurize.h"

namespace sampan::helix {

enum class FeaturizerKind { ogb, pretrain_gnns };

/// The featurizer called `name`; ValueError naming the known ones otherwise.
FeaturizerKind featurizer_kind(const std::string& name);

/// The graph of one molecule, with features of one featurizer (see featurize.h for the layout).
struct MoleculeGraph {
  int64_t num_atoms = 0;
  std::vector<int64_t> atom_features;  // [num_atoms, n_atom_features]
  std::vector<int64_t> edge_source;    // [2 * num_bonds]
  std::vector<int64_t> edge_target;
  std::vector<int64_t> bond_features;  // [2 * num_bonds, n_bond_features]
};

/// Fills `out` (cleared first) with the graph of `mol`.
void molecule_graph(const RDKit::ROMol& mol, FeaturizerKind kind, MoleculeGraph& out);

/// The 'ogb' graph of a SMILES by the fast path (ogb_fast.cpp: sampan's SMILES reader where it
/// reads the molecule, else RDKit's parse): true with `out` filled where the molecule is within
/// what that path models, false otherwise (then parse_smiles + molecule_graph,
/// the full path, gives the same features or RDKit's reason for rejecting the molecule).
/// With `times`, the thread CPU time of each step is added to it (bench/helix/featurize_steps.cpp).
struct FastPathTimes {
  enum Step {
    read, parse, scan, clean_up, property_cache, arrays, rings, rdkit_rings, kekulize, radicals, aromaticity,
    conjugation_hybridization, features, stereo_arrays, stereo, free, num_steps
  };
  static constexpr const char* names[num_steps] = {
      "sampan reader + RDKit valence table", "parse (SmilesToMol, no sanitization)", "scan for what the fast path takes", "cleanUp (RDKit)",
      "updatePropertyCache, strict (RDKit)", "molecule to arrays", "rings (bridges; unique SSSR for aromatics)",
      "rings (RDKit symmetrizeSSSR, SSSR not unique)", "Kekule form (arrays)", "assignRadicals (RDKit)",
      "aromaticity (arrays)", "conjugation + hybridization (arrays)", "features",
      "stereo (arrays: legacy CIP ranks and RDKit's rules, where certain)", "stereo (ring set; RDKit cleanupChirality, assignStereochemistry)", "free the molecule"};
  double seconds[num_steps] = {};
  int64_t molecules = 0;       // molecules that went all the way through the fast path
  int64_t read_molecules = 0;  // of which through sampan's reader (no RDKit molecule)
  int64_t stereo_molecules = 0;   // of which with stereo marks
  int64_t stereo_on_arrays = 0;   // of which settled on arrays (legacy_stereo.h), not by RDKit
  // Why the last molecule left sampan's reader for RDKit's parse (null: it did not), and why it
  // then left the fast path for the full path (null: it did not); fixed strings, for the steps
  // bench's counts per reason.
  const char* reader_decline = nullptr;
  const char* decline = nullptr;
};
/// With `declined`, a molecule declined before any change to RDKit's parse is handed back there
/// (for sanitize_parsed, saving a second parse); it stays null otherwise.
bool ogb_graph_fast(const std::string& smiles, MoleculeGraph& out, FastPathTimes* times = nullptr,
                    std::unique_ptr<RDKit::RWMol>* declined = nullptr);

/// A GraphSet with no graphs, ready to append to.
GraphSet empty_graph_set(const std::string& featurizer);

/// Appends `graph` as the next graph of `set`, from input `source_index`.
void append_graph(GraphSet& set, const MoleculeGraph& graph, int64_t source_index);

/// Parses a SMILES as RDKit's SmilesToMol with default parameters does (sanitized, explicit H
/// atoms removed, stereochemistry assigned: what OGB's Chem.MolFromSmiles does), skipping the
/// stereo perception where the molecule has no stereo marks. On failure returns null and sets
/// `reason` (a syntax error, or RDKit's sanitization message).
std::unique_ptr<RDKit::ROMol> parse_smiles(const std::string& smiles, std::string& reason);

/// parse_smiles after its first step: `mol` is RDKit's parse of `smiles` without sanitization.
std::unique_ptr<RDKit::ROMol> sanitize_parsed(const std::string& smiles, std::unique_ptr<RDKit::RWMol> mol,
                                              std::string& reason);

/// Silences RDKit's error and warning logs while alive (a bad SMILES is reported by helix once,
/// with its row, instead of by RDKit on stderr). Construct outside parallel regions.
class QuietRdkitLogs {
 public:
  QuietRdkitLogs();
  ~QuietRdkitLogs();
  QuietRdkitLogs(const QuietRdkitLogs&) = delete;
  QuietRdkitLogs& operator=(const QuietRdkitLogs&) = delete;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace sampan::helix
