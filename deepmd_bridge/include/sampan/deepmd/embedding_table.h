// Model compression (DeePMD-kit's `dp compress`): an se_e2_a embedding net s~ -> G(s~) [M]
// replaced by a table of quintic polynomials, one per interval and output column, that match the
// net's value, first and second derivative at both ends of every interval (so the tabulated G is
// C^2, and energies, forces and the force-training second derivative all follow from it).
//
// The grid: intervals of `step` cover [lower, upper), the range of s~ that the training data can
// produce (s = sw(r)/r lies in [0, 1/min_dist]; s~ = (s - davg) / dstd over the net's columns,
// rounded outward to whole steps); intervals of 10 * step then cover
// [upper, upper + (extrapolate - 1) (upper - lower)), for atoms closer than any in the data.
// Beyond the table the value is held at the nearest end (zero derivatives; a warning-free but
// unphysical regime, as in DeePMD-kit: choose min_dist from the data).
#pragma once

#include <cstdint>

#include "sampan/tensor.h"

namespace sampan::deepmd {

struct DenseNet;

struct EmbeddingTable {
  Tensor table;  ///< [intervals, 6, M] float64: coefficients of t^0..t^5, t = s~ - left end
  double lower = 0, upper = 0, stride0 = 0, stride1 = 0;

  int64_t intervals() const { return table.defined() ? table.size(0) : 0; }
  /// The end of the extrapolated range (where values start to be held).
  double extrapolated() const;
  /// G [rows, M] at s [rows, 1] (the op deepmd::tabulated_embedding; differentiable to any order).
  Tensor forward(const Tensor& s) const;
};

/// The net's value and first two derivatives at points x [n, 1] (forward mode through its
/// layers): {G, dG/ds, d2G/ds2}, each [n, M].
std::vector<Tensor> embedding_derivatives(const DenseNet& net, const Tensor& x);

/// The table of `net` on [lower, upper) (rounded outward to whole steps) and its extrapolated range.
EmbeddingTable tabulate_embedding(const DenseNet& net, double lower, double upper, double step, double extrapolate);

}  // namespace sampan::deepmd
