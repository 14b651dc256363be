// The Lennard-Jones ops of the MD engine (namespace deepmd), over an explicit pair list so that
// they work in any box (the image shifts come from the neighbour list):
//
//   deepmd::lj_energy(pos [N,3], types [N] int64, pairs [P,2] int64, shifts [P,3],
//                     eps [T*T], sigma [T*T], rcut, shift) -> energy []
//   deepmd::lj_gradients(...same...) -> (grad_pos [N,3] = dE/dpos, grad_shifts [P,3] = dE/dshifts)
//
// lj_energy's vjp calls lj_gradients (an op, so it is recorded and a loss on forces can be
// differentiated again); lj_gradients is once-differentiable: its vjp, the Hessian-vector
// product, runs the kernel directly, and a third derivative raises. Units: eV, Å.
#include <cmath>
#include <sstream>

#include "md/lj_kernels.h"
#include "ops/op_samples.h"
#include "sampan/deepmd/md/lennard_jones.h"
#include "sampan/dispatch.h"
#include "sampan/op.h"
#include "sampan/ops.h"

namespace {

using namespace sampan;
namespace k = sampan::deepmd::kernels;
using FloatList = std::vector<double>;

int64_t table_size(const FloatList& eps) {
  const int64_t n = static_cast<int64_t>(std::llround(std::sqrt(static_cast<double>(eps.size()))));
  return n * n == static_cast<int64_t>(eps.size()) ? n : -1;
}

void check_specs(const TensorSpec& pos, const TensorSpec& types, const TensorSpec& pairs, const TensorSpec& shifts,
                 const FloatList& eps, const FloatList& sigma, double rcut) {
  SAMPAN_CHECK(pos.dim() == 2 && pos.shape[1] == 3, ValueError, "argument 'pos' must have shape [N, 3], got ",
               shape_str(pos.shape));
  SAMPAN_CHECK(pos.dtype == DType::Float32 || pos.dtype == DType::Float64, TypeError,
               "argument 'pos' must be float32 or float64, got ", dtype_name(pos.dtype));
  SAMPAN_CHECK(types.shape == Shape{pos.shape[0]}, ValueError, "argument 'types' must have shape [N] = [",
               pos.shape[0], "] (one type per atom of 'pos'), got ", shape_str(types.shape));
  SAMPAN_CHECK(types.dtype == DType::Int64, TypeError, "argument 'types' must be int64, got ", dtype_name(types.dtype));
  SAMPAN_CHECK(pairs.dim() == 2 && pairs.shape[1] == 2, ValueError,
               "argument 'pairs' must have shape [P, 2] (one row (i, j) per pair), got ", shape_str(pairs.shape));
  SAMPAN_CHECK(pairs.dtype == DType::Int64, TypeError, "argument 'pairs' must be int64, got ", dtype_name(pairs.dtype));
  SAMPAN_CHECK(shifts.shape == (Shape{pairs.shape[0], 3}), ValueError, "argument 'shifts' must have shape [P, 3] = [",
               pairs.shape[0], ", 3] (one Cartesian image shift per pair), got ", shape_str(shifts.shape));
  SAMPAN_CHECK(shifts.dtype == pos.dtype, TypeError, "argument 'shifts' must have the dtype of 'pos' (",
               dtype_name(pos.dtype), "), got ", dtype_name(shifts.dtype));
  SAMPAN_CHECK(!eps.empty() && table_size(eps) > 0, ValueError,
               "argument 'eps' must hold ntypes^2 values ([ntypes, ntypes] row-major), got ", eps.size());
  SAMPAN_CHECK(sigma.size() == eps.size(), ValueError, "argument 'sigma' must hold as many values as 'eps' (",
               eps.size(), "), got ", sigma.size());
  for (size_t q = 0; q < sigma.size(); ++q)
    SAMPAN_CHECK(sigma[q] > 0 && std::isfinite(sigma[q]) && std::isfinite(eps[q]), ValueError,
                 "arguments 'eps'/'sigma' entry ", q, " must be finite with sigma > 0, got eps = ", eps[q],
                 ", sigma = ", sigma[q]);
  SAMPAN_CHECK(rcut > 0 && std::isfinite(rcut), ValueError, "argument 'rcut' must be > 0 (Å), got ", rcut);
}

struct Inputs {
  Tensor pos, types, pairs, shifts;
  int64_t natoms, npairs;
  k::LjTable table;
};

Inputs prepare(const Tensor& pos, const Tensor& types, const Tensor& pairs, const Tensor& shifts, const FloatList& eps,
               const FloatList& sigma, double rcut, bool shift) {
  Inputs in{pos.contiguous(), types.contiguous(), pairs.contiguous(), shifts.contiguous(), pos.size(0), pairs.size(0),
            k::LjTable{table_size(eps), eps.data(), sigma.data(), rcut, shift}};
  int64_t bad = k::lj_first_bad_pair(in.pairs.data<int64_t>(), in.npairs, in.natoms);
  if (bad >= 0) {
    const int64_t* ij = in.pairs.data<int64_t>() + 2 * bad;
    SAMPAN_THROW(IndexError, "argument 'pairs' row ", bad, " is (", ij[0], ", ", ij[1],
                 "): atom indices must lie in [0, ", in.natoms, ")");
  }
  bad = k::lj_first_bad_type(in.types.data<int64_t>(), in.natoms, in.table.ntypes);
  SAMPAN_CHECK(bad < 0, ValueError, "argument 'types': atom ", bad, " has type ",
               (bad >= 0 ? in.types.data<int64_t>()[bad] : 0), ", expected a type in [0, ", in.table.ntypes,
               ") (the tables 'eps'/'sigma' are ", in.table.ntypes, " x ", in.table.ntypes, ")");
  return in;
}

void energy_kernel(const Tensor& pos, const Tensor& types, const Tensor& pairs, const Tensor& shifts,
                   const FloatList& eps, const FloatList& sigma, double rcut, bool shift, Tensor& energy) {
  Inputs in = prepare(pos, types, pairs, shifts, eps, sigma, rcut, shift);
  visit_floating(pos.dtype(), "deepmd::lj_energy", [&](auto tag) {
    using T = typename decltype(tag)::type;
    k::lj_energy_pairs<T>(in.pos.data<T>(), in.types.data<int64_t>(), in.pairs.data<int64_t>(), in.shifts.data<T>(),
                          in.npairs, in.table, energy.data<T>());
  });
}

void gradients_kernel(const Tensor& pos, const Tensor& types, const Tensor& pairs, const Tensor& shifts,
                      const FloatList& eps, const FloatList& sigma, double rcut, bool shift, Tensor& grad_pos,
                      Tensor& grad_shifts) {
  Inputs in = prepare(pos, types, pairs, shifts, eps, sigma, rcut, shift);
  visit_floating(pos.dtype(), "deepmd::lj_gradients", [&](auto tag) {
    using T = typename decltype(tag)::type;
    k::lj_gradients_pairs<T>(in.pos.data<T>(), in.natoms, in.types.data<int64_t>(), in.pairs.data<int64_t>(),
                             in.shifts.data<T>(), in.npairs, in.table, grad_pos.data<T>(), grad_shifts.data<T>());
  });
}

struct Attrs {
  FloatList eps, sigma;
  double rcut;
  bool shift;
};
Attrs attrs(const VjpContext& c) {
  return {c.attr<FloatList>(4), c.attr<FloatList>(5), c.attr<double>(6), c.attr<bool>(7)};
}

// dE/dpos and dE/dshifts times the scalar output gradient.
Grads energy_vjp(const VjpContext& c) {
  Grads grads(4);
  if (!c.needs_grad(0) && !c.needs_grad(3)) return grads;
  Attrs a = attrs(c);
  static const OpHandle gradients("deepmd::lj_gradients");
  auto g = gradients(c.input(0), c.input(1), c.input(2), c.input(3), a.eps, a.sigma, a.rcut, a.shift);
  Tensor go = c.grad_output(0);
  if (c.needs_grad(0)) grads[0] = mul(g[0], go);
  if (c.needs_grad(3)) grads[3] = mul(g[1], go);
  return grads;
}

// Cotangents (c_pos, c_shifts) of (dE/dpos, dE/dshifts): the Hessian of E applied to them.
Grads gradients_vjp(const VjpContext& c) {
  Grads grads(4);
  if (!c.needs_grad(0) && !c.needs_grad(3)) return grads;
  Attrs a = attrs(c);
  Inputs in = prepare(c.input(0), c.input(1), c.input(2), c.input(3), a.eps, a.sigma, a.rcut, a.shift);
  Tensor cp = c.grad_output(0).contiguous(), cs = c.grad_output(1).contiguous();
  Tensor hp = Tensor::empty(in.pos.shape(), in.pos.dtype(), in.pos.device());
  Tensor hs = Tensor::empty(in.shifts.shape(), in.shifts.dtype(), in.shifts.device());
  visit_floating(in.pos.dtype(), "deepmd::lj_gradients", [&](auto tag) {
    using T = typename decltype(tag)::type;
    k::lj_hvp_pairs<T>(in.pos.data<T>(), in.natoms, in.types.data<int64_t>(), in.pairs.data<int64_t>(),
                       in.shifts.data<T>(), in.npairs, in.table, cp.data<T>(), cs.data<T>(), hp.data<T>(),
                       hs.data<T>());
  });
  if (c.needs_grad(0)) grads[0] = hp;
  if (c.needs_grad(3)) grads[3] = hs;
  return grads;
}

TensorSpec energy_shape(const TensorSpec& pos, const TensorSpec& types, const TensorSpec& pairs,
                        const TensorSpec& shifts, const FloatList& eps, const FloatList& sigma, double rcut, bool) {
  check_specs(pos, types, pairs, shifts, eps, sigma, rcut);
  return TensorSpec{{}, pos.dtype, pos.device};
}
std::vector<TensorSpec> gradients_shape(const TensorSpec& pos, const TensorSpec& types, const TensorSpec& pairs,
                                        const TensorSpec& shifts, const FloatList& eps, const FloatList& sigma,
                                        double rcut, bool) {
  check_specs(pos, types, pairs, shifts, eps, sigma, rcut);
  return {pos, shifts};
}

constexpr const char* kLjDoc =
    "u_ab(r) = 4 eps_ab ((sigma_ab/r)^12 - (sigma_ab/r)^6) for r < rcut (minus u_ab(rcut) when "
    "`shift`), LAMMPS pair_style lj/cut in units metal (eV, Å), summed over the rows (i, j) of "
    "`pairs` (int64 [P, 2], each unordered pair once) with r = |pos[j] - pos[i] + shifts[p]| "
    "(shifts [P, 3]: the pair's Cartesian periodic image shift, from a neighbour list). types: "
    "int64 [N] in [0, T); eps, sigma: [T, T] row-major, flattened.";

}  // namespace

SAMPAN_OP(deepmd, lj_energy)
    .doc(std::string("Lennard-Jones energy (0-d tensor, eV). ") + kLjDoc +
         " Differentiable twice in pos and shifts (the gradient is deepmd.lj_gradients).")
    .args("pos", "types", "pairs", "shifts", "eps", "sigma", "rcut", "shift")
    .outputs("energy")
    .shape(energy_shape)
    .cpu(energy_kernel)
    .vjp(energy_vjp)
    .dtypes({DType::Float32, DType::Float64})
    .sample(sampan::deepmd::samples::lj);

SAMPAN_OP(deepmd, lj_gradients)
    .doc(std::string("Gradients of deepmd.lj_energy: (dE/dpos [N, 3], dE/dshifts [P, 3]); the forces are "
                     "-dE/dpos. Once differentiable (its vjp is the Hessian-vector product). ") + kLjDoc)
    .args("pos", "types", "pairs", "shifts", "eps", "sigma", "rcut", "shift")
    .outputs("grad_pos", "grad_shifts")
    .shape(gradients_shape)
    .cpu(gradients_kernel)
    .vjp(gradients_vjp)
    .once_differentiable()
    .dtypes({DType::Float32, DType::Float64})
    .sample(sampan::deepmd::samples::lj);
