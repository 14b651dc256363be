// DeepPot: the se_e2_a energy model (DeePMD-kit's "standard" model with an se_e2_a descriptor
// and an energy fitting net), written with sampan ops so that one implementation serves Python
// training (through thin bindings), the C++ MD engine and LAMMPS (as a Potential), without Python.
//
// Per centre atom i (Zhang et al., NeurIPS 2018; DeePMD-kit docs "se_e2_a"):
//   em_i = normalised env matrix [nnei, 4] (deepmd::prod_env_mat_a)
//   G_i = embedding net of each neighbour's s~ (column 0), one net per neighbour type
//         (type_one_side) or per (centre, neighbour) type pair       [nnei, M]
//   T_i = G_i^T em_i / nnei                                         [M, 4]
//   D_i = T_i T_i[:axis_neuron]^T, flattened                         [M * axis_neuron]
//   E_i = fitting net of the centre type (D_i) + bias_atom_e[type] + out_bias[type]
// E = sum_i E_i; forces and virials from dE/d em by deepmd::prod_force_se_a / prod_virial_se_a.
// Layers: y = tanh(x W + b) (times idt with timesteps), plus x when out = in, or [x, x] when
// out = 2 in (ResNet); the fitting net ends in a linear layer to one output.
// Units: Å, eV, eV/Å, eV (virial).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sampan/deepmd/embedding_table.h"
#include "sampan/deepmd/extended_system.h"
#include "sampan/deepmd/potential.h"
#include "sampan/tensor.h"

namespace sampan::deepmd {

/// One dense layer of an embedding or fitting net.
struct DenseLayer {
  Tensor w;    ///< [in, out]
  Tensor b;    ///< [out]
  Tensor idt;  ///< [out] timestep (resnet_dt) or undefined
  bool resnet = false;
  bool tanh = true;  ///< false: linear (the fitting net's output layer)
  Tensor forward(const Tensor& x) const;
};

struct DenseNet {
  std::vector<DenseLayer> layers;
  Tensor forward(const Tensor& x) const;
};

struct SeAConfig {
  std::vector<std::string> type_map;
  double rcut = 6.0;
  double rcut_smth = 0.5;
  std::vector<int64_t> sel;
  std::vector<int64_t> neuron = {25, 50, 100};
  int64_t axis_neuron = 16;
  bool type_one_side = true;
  bool resnet_dt = false;  ///< of the embedding nets
  std::vector<int64_t> fitting_neuron = {240, 240, 240};
  bool fitting_resnet_dt = true;

  int64_t ntypes() const { return static_cast<int64_t>(sel.size()); }
  int64_t nnei() const;
  int64_t descriptor_dim() const { return neuron.back() * axis_neuron; }
};

/// What one evaluation returns (tensors; forces and virials folded onto local atoms).
struct DeepPotOutput {
  Tensor energy;        ///< [] eV
  Tensor atom_energy;   ///< [nloc]
  Tensor force;         ///< [nloc, 3] eV/Å (undefined unless asked)
  Tensor virial;        ///< [9] eV, = -dE/d strain (undefined unless asked)
  Tensor atom_virial;   ///< [nloc, 9] (undefined unless asked)
  Tensor descriptor;    ///< [nloc, M * axis_neuron]
  Tensor fit_last;      ///< [nloc, last fitting width]: activations before the output layer
};

class DeepPot : public Potential {
 public:
  DeepPot() = default;
  /// A freshly initialised model (W ~ N(0, 1/sqrt(in+out)), b ~ N(0, 1), idt ~ N(0.1, 0.001),
  /// as DeePMD-kit's dpmodel); davg = 0, dstd = 1, biases 0 until statistics are set.
  DeepPot(SeAConfig config, uint64_t seed);

  SeAConfig config;
  Tensor davg, dstd;           ///< [ntypes, nnei*4]
  std::vector<DenseNet> embeddings;  ///< [ntypes] (type_one_side) or [ntypes*ntypes] (centre*ntypes+neighbour)
  std::vector<DenseNet> fittings;    ///< [ntypes], by centre type
  Tensor bias_atom_e;          ///< [ntypes] eV
  Tensor out_bias;             ///< [ntypes] eV, added after the fitting net (DeePMD-kit's out_bias)

  /// Model compression (embedding_table.h): one table per embedding net, in the order of
  /// `embeddings`, used in their place everywhere (evaluate, energy, MD, LAMMPS, training of the
  /// fitting nets). Empty: not compressed.
  std::vector<EmbeddingTable> tables;
  struct Compression {
    double min_dist = 0, step = 0, extrapolate = 0;
  } compression;  ///< the settings the tables were made with (zeros: not compressed)
  bool compressed() const { return !tables.empty(); }
  /// Tabulates every embedding net for neighbours no closer than min_dist (Å): the range of s~ of
  /// each net is [min over its columns of -davg/dstd, max of (1/min_dist - davg)/dstd], with
  /// intervals of `step`, extended by `extrapolate` (DeePMD-kit's dp compress -s, -e).
  void compress(double min_dist, double step = 0.01, double extrapolate = 5.0);
  /// G = embedding net k of s [rows, 1], or its table when compressed.
  Tensor embed(size_t k, const Tensor& s) const;

  /// The device of the model's tensors (davg's: to() keeps them together); evaluate() runs the
  /// network there, with the neighbour search and the index bookkeeping on the host.
  Device device() const { return davg.defined() ? davg.device() : Device{}; }
  /// Moves every tensor of the model (statistics, weights, tables) to `device`: each copy is made
  /// before any is installed, so a failed move (no GPU) leaves the model as it was. Parameters
  /// become new tensors: take parameters() after moving.
  void to(const Device& device);

  /// Trainable tensors (embedding and fitting weights, biases, timesteps), in a fixed order.
  std::vector<Tensor> parameters() const;
  /// "embedding.0.layer.1.w" ..., in the order of parameters().
  std::vector<std::string> parameter_names() const;

  /// The extended system of one frame for this model (cell: 3x3 rows or null for open boundaries).
  ExtendedSystem extend(const double* coord, const int64_t* types, int64_t natoms, const double* cell) const;

  /// Evaluates one frame. With `forces`, computes forces and virials (dE/d em by autograd);
  /// with `create_graph` they stay differentiable in the parameters (training on forces).
  DeepPotOutput evaluate(const ExtendedSystem& ext, bool forces = true, bool create_graph = false) const;

  /// Atomic energies [nloc] from the normalised env matrix em [nloc, nnei*4] (the network part).
  /// With the neighbour list `nlist` [nloc, nnei] (int64, -1 for an empty slot) that em was made
  /// from, the embedding nets run once per distinct empty-slot row instead of once per empty slot
  /// (em's rows of empty slots are -davg/dstd of (centre type, slot), prod_env_mat_a): the same
  /// numbers, about a third less work on liquid water. Without it every row is evaluated.
  Tensor atomic_energy(const Tensor& em, const Tensor& centre_types, Tensor* descriptor = nullptr,
                       Tensor* fit_last = nullptr, const Tensor& nlist = Tensor()) const;

  /// The total energy (0-d, eV) of positions [N, 3] float64, types [N] int64 and box [3, 3]
  /// float64 (lattice vectors as rows; all zeros for open boundaries), every step a registered
  /// op and no attribute depending on N: the neighbour search is the op deepmd::extended_system,
  /// the extended coordinates are positions[mapping] + images . box (so gradients reach the
  /// positions and the box), and the per-type nets run on every centre, selected by 0/1 masks of
  /// the types. What sp.jit.trace records as a graph that replays at any atom count; its
  /// gradients are DeepPot's forces and virial (equal to evaluate() to rounding).
  Tensor energy(const Tensor& positions, const Tensor& types, const Tensor& box) const;

  // Potential
  void compute(const double* positions, const int* types, int64_t natoms, const Box& box, double* energy, double* forces,
               double* virial) override;
  /// Owned atoms [0, nlocal) plus ghosts in open space (LAMMPS's subdomain): energy of the owned
  /// atoms, forces on all natoms (ghost forces for the caller's reverse communication).
  void compute_local(const double* positions, const int* types, int64_t nlocal, int64_t natoms, double* energy,
                     double* forces) override;
  double cutoff() const override { return config.rcut; }
  int ntypes() const override { return static_cast<int>(config.ntypes()); }
  std::string describe() const override;
  /// Evaluations by compute / compute_local in which some centre had more neighbours than sel
  /// (those beyond sel are dropped, as in DeePMD-kit: the energy then jumps when a neighbour
  /// crosses rank sel, and MD does not conserve it). The first one is reported on stderr.
  int64_t sel_overflow_evaluations = 0;

  /// Writes the model as an HDF5 file (sampan io tree; atomic) that load() reads back.
  void save(const std::string& path) const;
  static DeepPot load(const std::string& path);
  /// Imports DeePMD-kit's backend-neutral serialization (dpmodel YAML, e.g. deeppot_sea.yaml) of
  /// an se_e2_a energy model. Errors name the YAML path of the missing or unexpected entry.
  static DeepPot from_deepmd_yaml(const std::string& path);

  /// Checks shapes of all parameters against the config (ValueError naming the tensor).
  void validate() const;
};

}  // namespace sampan::deepmd
