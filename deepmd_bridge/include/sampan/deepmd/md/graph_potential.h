// A traced energy graph as a Potential: any `energy(positions, types, box)` written with ops
// (a custom op library's Lennard-Jones, a pair potential of core ops, DeepPot::energy), traced
// with sp.jit.trace or jit::Tracer and replayed by sampan::jit with no Python, drives the MD
// engine and the LAMMPS pair style sampan/deepmd through the same code.
//
// The graph's inputs, in this order: positions float64 [N, 3] (Å, unwrapped as the engine keeps
// them), types int64 [N] (0-based), box float64 [3, 3] (lattice vectors as rows; all zeros for
// open boundaries); its first output is the energy (eV, one value). N is best traced as a
// symbolic dimension ("atoms") so that one graph runs any system size.
//
//   forces  F = -dE/dpositions                             (sampan::grad through the replay)
//   virial  W = -(dE/dX^T X + dE/dH^T H)                    (eV; -dE/d(strain) with positions X
//            and cell H strained together, W_ab = -sum_i dE/dx_ia x_ib: DeepPot's layout, which
//            matters where W is not symmetric, e.g. per-component davg/dstd)
// The energy must depend on the box only through periodic images (as x_j - x_i + n . H), which
// is what makes W the strain derivative; with an all-zero box W = -X^T dE/dX.
//
// A graph file may carry an entry "potential" {cutoff, type_map} (written by save()); the
// cutoff sizes LAMMPS's ghost shell, the type names map LAMMPS types and name masses.
#pragma once

#include <string>
#include <vector>

#include "sampan/deepmd/potential.h"
#include "sampan/jit.h"

namespace sampan::deepmd::md {

class GraphPotential : public Potential {
 public:
  /// Refuses (ValueError naming what the graph takes and what a potential graph must take) a
  /// graph whose inputs or outputs do not fit. `source` names the graph in messages.
  explicit GraphPotential(jit::Graph graph, double cutoff = 0.0, std::vector<std::string> type_map = {},
                          std::string source = "traced graph");
  /// Reads a graph file (jit::load) and its optional "potential" entry.
  static GraphPotential load(const std::string& path);
  /// Writes the graph file (jit::save) with the "potential" entry {cutoff, type_map}.
  void save(const std::string& path, bool embed_libraries = false) const;
  /// True when `path` is a sampan graph file (its top-level key format is "sampan-graph").
  static bool is_graph_file(const std::string& path);

  void compute(const double* positions, const int* types, int64_t natoms, const Box& box, double* energy,
               double* forces, double* virial) override;
  /// 0 when unknown (a graph saved without the "potential" entry).
  double cutoff() const override { return cutoff_; }
  /// The length of type_map, 0 when unknown.
  int ntypes() const override { return static_cast<int>(type_map_.size()); }
  std::string describe() const override;

  const jit::Graph& graph() const { return graph_; }
  const std::vector<std::string>& type_map() const { return type_map_; }
  void set_cutoff(double cutoff);
  void set_type_map(std::vector<std::string> type_map) { type_map_ = std::move(type_map); }

 private:
  jit::Graph graph_;
  double cutoff_ = 0.0;
  std::vector<std::string> type_map_;
  std::string source_;
};

}  // namespace sampan::deepmd::md
