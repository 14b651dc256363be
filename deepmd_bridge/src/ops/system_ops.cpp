// The neighbour search of the MD engine and of the DeePMD model as ops, so that an energy of
// (positions, types, box) written with ops traces into a graph (sp.jit.trace) that holds the
// search too and replays at any atom count:
//
//   deepmd::pair_list(positions [N,3], box [3,3], rcut, half) -> (pairs [P,2] int64, images [P,3])
//   deepmd::extended_system(positions [N,3], types [N] int64, box [3,3], rcut, sel)
//       -> (mapping [nall] int64, images [nall,3], nlist [N, sum(sel)] int64)
//
// Both are nondifferentiable: they return indices and integer image shifts (as float64, so that
// `matmul(images, box)` gives the Cartesian shifts). What depends on positions and box is built
// from them with differentiable core ops (index_select + matmul), so gradients reach both:
//   pair p:         r = x[pairs[p,1]] - x[pairs[p,0]] + images[p] . box
//   extended atom:  x_ext[k] = x[mapping[k]] + images[k] . box   (local atoms wrapped into the
//                   cell, ghosts their periodic images: DeepPot's extended system)
// Box: rows are the lattice vectors; an all-zero box means open boundaries. Sizes P and nall
// depend on the data (-1 in the shape functions). Units: Å.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <vector>

#include "ops/op_samples.h"
#include "sampan/deepmd/extended_system.h"
#include "sampan/deepmd/neighbor_list.h"
#include "sampan/op.h"
#include "sampan/ops.h"

namespace {

using namespace sampan;
using namespace sampan::deepmd;
using IntList = std::vector<int64_t>;

void check_positions(const TensorSpec& positions) {
  SAMPAN_CHECK(positions.dim() == 2 && (positions.shape[1] == 3), ValueError,
               "argument 'positions' must have shape [N, 3], got ", shape_str(positions.shape));
  SAMPAN_CHECK(positions.dtype == DType::Float64, TypeError, "argument 'positions' must be float64, got ",
               dtype_name(positions.dtype));
}

void check_box(const TensorSpec& box, const TensorSpec& positions) {
  SAMPAN_CHECK(box.shape == (Shape{3, 3}), ValueError,
               "argument 'box' must have shape [3, 3] (lattice vectors as rows; all zeros for open boundaries), got ",
               shape_str(box.shape));
  SAMPAN_CHECK(box.dtype == positions.dtype, TypeError, "argument 'box' must have the dtype of 'positions' (",
               dtype_name(positions.dtype), "), got ", dtype_name(box.dtype));
}

void check_rcut(double rcut) {
  SAMPAN_CHECK(rcut > 0 && std::isfinite(rcut), ValueError, "argument 'rcut' must be > 0 (Å), got ", rcut);
}

// The box as the search sees it: all zeros = open boundaries, else fully periodic.
struct Cell {
  bool periodic = false;
  double h[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
};

Cell read_cell(const Tensor& box) {
  Tensor b = box.contiguous();
  Cell c;
  for (int k = 0; k < 9; ++k) {
    c.h[k] = b.data<double>()[k];
    c.periodic = c.periodic || c.h[k] != 0.0;
  }
  return c;
}

Tensor as_int64(const std::vector<int64_t>& v, const Shape& shape) {
  Tensor t = Tensor::empty(shape, DType::Int64);
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}

void pair_list_kernel(const Tensor& positions, const Tensor& box, double rcut, bool half, Tensor& pairs,
                      Tensor& images) {
  const Tensor x = positions.contiguous();
  const int64_t n = x.size(0);
  const Cell cell = read_cell(box);
  const Box b = cell.periodic ? Box::triclinic(cell.h) : Box::open();
  NeighborList list = build_neighbor_list(x.data<double>(), n, b, rcut, half);
  const int64_t p = list.size();
  pairs = Tensor::empty({p, 2}, DType::Int64);
  images = Tensor::empty({p, 3}, DType::Float64);
  int64_t* ij = pairs.data<int64_t>();
  double* s = images.data<double>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = list.offsets[i]; k < list.offsets[i + 1]; ++k) {
      ij[2 * k] = i;
      ij[2 * k + 1] = list.neighbors[k];
      for (int d = 0; d < 3; ++d) s[3 * k + d] = list.shifts[3 * k + d];
    }
}

void extended_system_kernel(const Tensor& positions, const Tensor& types, const Tensor& box, double rcut,
                            const IntList& sel, Tensor& mapping, Tensor& images, Tensor& nlist) {
  const Tensor x = positions.contiguous(), t = types.contiguous();
  const int64_t n = x.size(0);
  const Cell cell = read_cell(box);
  ExtendedSystem ext =
      build_extended_system(x.data<double>(), t.data<int64_t>(), n, cell.periodic ? cell.h : nullptr, rcut, sel);
  static std::atomic<bool> warned{false};
  if (ext.any_overflow() && !warned.exchange(true))
    std::fprintf(stderr, "sampan deepmd::extended_system warning: %s; neighbours beyond sel are dropped, so MD with this "
                 "energy does not conserve it (increase sel; reported once per process)\n",
                 ext.overflow_message(sel).c_str());
  mapping = as_int64(ext.mapping, {ext.nall});
  nlist = as_int64(ext.nlist, {ext.nloc, ext.nnei});
  images = zeros({ext.nall, 3}, DType::Float64);
  if (!cell.periodic) return;  // open boundaries: the extended atoms are the atoms themselves
  // Each extended atom is its owner shifted by whole cell vectors (the wrap into the cell plus
  // the ghost's image): the integer shift is (x_ext - x_owner) . cell^-1, rounded.
  double inv[9];
  const double* h = cell.h;
  const double det = h[0] * (h[4] * h[8] - h[5] * h[7]) - h[1] * (h[3] * h[8] - h[5] * h[6]) +
                     h[2] * (h[3] * h[7] - h[4] * h[6]);
  inv[0] = (h[4] * h[8] - h[5] * h[7]) / det;
  inv[1] = (h[2] * h[7] - h[1] * h[8]) / det;
  inv[2] = (h[1] * h[5] - h[2] * h[4]) / det;
  inv[3] = (h[5] * h[6] - h[3] * h[8]) / det;
  inv[4] = (h[0] * h[8] - h[2] * h[6]) / det;
  inv[5] = (h[2] * h[3] - h[0] * h[5]) / det;
  inv[6] = (h[3] * h[7] - h[4] * h[6]) / det;
  inv[7] = (h[1] * h[6] - h[0] * h[7]) / det;
  inv[8] = (h[0] * h[4] - h[1] * h[3]) / det;
  double* s = images.data<double>();
  const double* xs = x.data<double>();
  for (int64_t k = 0; k < ext.nall; ++k) {
    const int64_t owner = ext.mapping[k];
    double d[3];
    for (int c = 0; c < 3; ++c) d[c] = ext.coord[3 * k + c] - xs[3 * owner + c];
    for (int c = 0; c < 3; ++c) s[3 * k + c] = std::round(d[0] * inv[c] + d[1] * inv[3 + c] + d[2] * inv[6 + c]);
  }
}

std::vector<TensorSpec> pair_list_shape(const TensorSpec& positions, const TensorSpec& box, double rcut, bool) {
  check_positions(positions);
  check_box(box, positions);
  check_rcut(rcut);
  return {TensorSpec{{-1, 2}, DType::Int64, positions.device}, TensorSpec{{-1, 3}, DType::Float64, positions.device}};
}

std::vector<TensorSpec> extended_system_shape(const TensorSpec& positions, const TensorSpec& types, const TensorSpec& box,
                                              double rcut, const IntList& sel) {
  check_positions(positions);
  SAMPAN_CHECK(types.shape == Shape{positions.shape[0]}, ValueError,
               "argument 'types' must have shape [N] = [", positions.shape[0],
               "] (one type per atom of 'positions'), got ", shape_str(types.shape));
  SAMPAN_CHECK(types.dtype == DType::Int64, TypeError, "argument 'types' must be int64, got ",
               dtype_name(types.dtype));
  check_box(box, positions);
  check_rcut(rcut);
  SAMPAN_CHECK(!sel.empty(), ValueError, "argument 'sel' must hold one neighbour count per type, got none");
  int64_t nnei = 0;
  for (size_t t = 0; t < sel.size(); ++t) {
    SAMPAN_CHECK(sel[t] >= 0, ValueError, "argument 'sel' entry ", t, " must be >= 0, got ", sel[t]);
    nnei += sel[t];
  }
  return {TensorSpec{{-1}, DType::Int64, positions.device}, TensorSpec{{-1, 3}, DType::Float64, positions.device},
          TensorSpec{{positions.shape[0], nnei}, DType::Int64, positions.device}};
}

// Samples: six atoms in a small triclinic cell (rcut beyond half of it: several images of a
// pair, self images), positions outside the cell (the wrap), and the same atoms in open space.
Tensor sample_positions() {
  return from_vector({0.1, 0.2, 0.3, 1.3, 0.4, -0.2, -0.6, 1.5, 0.8, 2.4, 2.1, 0.5, 0.3, -0.7, 1.9, 3.9, 0.2, 4.6},
                     {6, 3});
}
Tensor sample_box() { return from_vector({3.6, 0.0, 0.0, 0.4, 3.4, 0.0, -0.3, 0.5, 3.8}, {3, 3}); }

}  // namespace

SAMPAN_OP(deepmd, pair_list)
    .doc("The pairs within rcut (Å) by a cell list: pairs [P, 2] int64 rows (i, j) and images [P, 3] "
         "float64, the integer image shift n of each pair, so that r_ij = positions[j] - positions[i] + "
         "n . box (box: lattice vectors as rows; all zeros for open boundaries; positions need not be "
         "wrapped). A half list (each unordered pair once) unless half is false. Nondifferentiable: "
         "build r from positions and box with index_select and matmul(images, box) for gradients.")
    .args("positions", "box", "rcut", "half")
    .outputs("pairs", "images")
    .defaults({{"half", true}})
    .shape(pair_list_shape)
    .cpu(pair_list_kernel)
    .nondifferentiable()
    .sample([] { return Values{sample_positions(), sample_box(), 2.6, true}; })
    .sample([] { return Values{sample_positions(), zeros({3, 3}, DType::Float64), 2.6, false}; });

SAMPAN_OP(deepmd, extended_system)
    .doc("DeePMD's extended system of one frame (DeepPot's neighbour search, as an op): mapping [nall] "
         "int64, the local atom each extended atom copies (the first N are the atoms themselves, "
         "then the ghost images); images [nall, 3] float64, its integer cell shift from that atom "
         "(the wrap into the cell plus the ghost's image), so that x_ext = positions[mapping] + "
         "images . box; nlist [N, sum(sel)] int64 into the extended atoms, DeePMD-kit's formatting "
         "(blocks per neighbour type, sorted by distance, truncated to sel[t], -1 padding). box: "
         "lattice vectors as rows, all zeros for open boundaries. Nondifferentiable.")
    .args("positions", "types", "box", "rcut", "sel")
    .outputs("mapping", "images", "nlist")
    .shape(extended_system_shape)
    .cpu(extended_system_kernel)
    .nondifferentiable()
    .sample([] {
      return Values{sample_positions(), from_vector({0, 1, 1, 0, 1, 0}, {6}, DType::Int64), sample_box(), 2.6,
                    IntList{6, 9}};
    })
    .sample([] {
      return Values{sample_positions(), from_vector({0, 1, 1, 0, 1, 0}, {6}, DType::Int64),
                    zeros({3, 3}, DType::Float64), 3.0, IntList{2, 3}};
    });
