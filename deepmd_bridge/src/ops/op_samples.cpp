// deepmd_bridge: the se_e2_a ops' sample arguments (op_samples.h).
#include "op_samples.h"

#include <random>
#include <vector>

#include "sampan/deepmd/extended_system.h"
#include "sampan/deepmd/md/lennard_jones.h"
#include "sampan/deepmd/neighbor_list.h"
#include "sampan/ops.h"
#include "sampan/testing/samples.h"

namespace sampan::deepmd::samples {

SeA se_a() {
  const std::vector<double> xyz = {0.0, 0.0, 0.0,  1.1, 0.2, -0.1, -0.3, 1.4, 0.5,
                                   2.2, 1.9, 0.4,  0.4, -0.6, 1.7, 3.6, 0.1, 0.9};
  const std::vector<int64_t> types = {0, 1, 1, 0, 1, 0};
  ExtendedSystem ext = build_extended_system(xyz.data(), types.data(), 6, nullptr, SeA::rcut, {2, 3});
  auto ints = [](const auto& v, const Shape& s) {
    return cast(from_vector(std::vector<double>(v.begin(), v.end()), s), DType::Int64);
  };
  using sample_args::uniform;
  SeA s;
  s.coord = from_vector(ext.coord, {ext.nall, 3});
  s.atype = ints(ext.types, {ext.nall});
  s.nlist = ints(ext.nlist, {ext.nloc, ext.nnei});
  s.nall = ext.nall;
  const int64_t nloc = ext.nloc, nnei = ext.nnei;
  s.davg = uniform({2, nnei * 4}, -0.1, 0.1, 11);
  s.dstd = uniform({2, nnei * 4}, 0.5, 1.5, 12);
  s.net_deriv = uniform({nloc, nnei * 4}, -1, 1, 13);
  s.em_deriv = uniform({nloc, nnei * 12}, -1, 1, 14);
  s.rij = uniform({nloc, nnei * 3}, -2, 2, 15);
  s.grad_virial = uniform({9}, -1, 1, 16);
  s.grad_atom_virial = uniform({s.nall, 9}, -1, 1, 17);
  s.grad_force = uniform({s.nall, 3}, -1, 1, 18);
  return s;
}

Tensor gather_rows() { return from_vector({0, 1, 4, 4, 2, 3, 4, 1, 0, 2, 4, 4}, {12}, DType::Int64); }

Values lj() {
  const double a = 4.2, cell[9] = {a, 0, 0, 0.6, a, 0, -0.3, 0.4, a};
  const Box box = Box::triclinic(cell);
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> jitter(-0.25, 0.25);
  const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  std::vector<double> pos, types;
  for (int b = 0; b < 4; ++b) {
    for (int d = 0; d < 3; ++d)
      pos.push_back(basis[b][0] * cell[d] + basis[b][1] * cell[3 + d] + basis[b][2] * cell[6 + d] + jitter(rng));
    types.push_back(b % 3 == 0 ? 1 : 0);
  }
  const double rcut = 5.0;
  NeighborList list = build_neighbor_list(pos.data(), 4, box, rcut, true);
  auto [pairs, shifts] = md::pair_tensors(list, box);
  return {from_vector(pos, {4, 3}), from_vector(types, {4}, DType::Int64), pairs, shifts,
          std::vector<double>{0.0104, 0.012, 0.012, 0.015}, std::vector<double>{3.4, 3.3, 3.3, 3.2}, rcut, true};
}

}  // namespace sampan::deepmd::samples
