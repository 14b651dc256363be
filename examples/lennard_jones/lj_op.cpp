// A custom physics op users can copy: the Lennard-Jones pair potential over a neighbour list in
// an orthorhombic periodic box, with forces and a double-backward path.
//
//   md::lj_energy(pos [N,3], pairs [P,2] int64, box [3], eps, sigma, rcut) -> energy []
//   md::lj_forces(...same...)   -> forces [N,3] = -dE/dpos         (the vjp of lj_energy)
//   md::lj_box_grad(...same...) -> dE/dbox [3] at fixed positions    (the vjp of lj_energy)
//   md::lj_hvp(pos, pairs, box, v_pos, v_box, eps, sigma, rcut) -> (h_pos, h_box)
//                                   Hessian-vector product          (the vjp of the two above)
//
// How the derivatives chain: lj_energy's vjp calls the ops lj_forces and lj_box_grad, whose
// vjps call the op lj_hvp, so gradients of forces (training on forces, check_op's second order)
// work. lj_hvp is once-differentiable: its vjp, the third derivative, runs a kernel directly;
// a fourth derivative raises. The box is differentiable too (dE/dbox at fixed Cartesian
// positions; the stress follows by writing pos = scaled * box, autograd adds the rest).
//
// Layout of this example: kernels are plain functions over pointers (lj_kernels.h, .cpp, and the
// CUDA twin .cu); this file only checks arguments, picks the dtype and device, and declares the
// ops. Units: reduced (energy eps, length sigma); the potential is shifted to 0 at rcut.
#include <cmath>
#include <cstring>
#include <sstream>

#include "lj_kernels.h"
#include "lj_op.h"
#include "sampan/dispatch.h"
#include "sampan/ops.h"

namespace {

using namespace sampan;

// ---------------------------------------------------------------------------------------------
// Argument checks. Shapes and dtypes in the shape functions (no data); values in the kernels.
// The dispatcher puts "op 'md::...': " in front of these messages.
// ---------------------------------------------------------------------------------------------

void check_specs(const TensorSpec& pos, const TensorSpec& pairs, const TensorSpec& box, double eps,
                 double sigma, double rcut) {
  SAMPAN_CHECK(pos.dim() == 2 && pos.shape[1] == 3, ValueError,
               "argument 'pos' must have shape [N, 3], got ", shape_str(pos.shape));
  SAMPAN_CHECK(pos.dtype == DType::Float32 || pos.dtype == DType::Float64, TypeError,
               "argument 'pos' must be float32 or float64, got ", dtype_name(pos.dtype));
  SAMPAN_CHECK(pairs.dim() == 2 && pairs.shape[1] == 2, ValueError,
               "argument 'pairs' must have shape [P, 2] (one row (i, j) per pair), got ",
               shape_str(pairs.shape));
  SAMPAN_CHECK(pairs.dtype == DType::Int64, TypeError, "argument 'pairs' must be int64, got ",
               dtype_name(pairs.dtype));
  SAMPAN_CHECK(box.shape == Shape{3}, ValueError,
               "argument 'box' must have shape [3] (orthorhombic box lengths), got ", shape_str(box.shape));
  SAMPAN_CHECK(box.dtype == pos.dtype, TypeError, "argument 'box' must have the dtype of 'pos' (",
               dtype_name(pos.dtype), "), got ", dtype_name(box.dtype));
  SAMPAN_CHECK(std::isfinite(eps), ValueError, "argument 'eps' must be finite, got ", eps);
  SAMPAN_CHECK(sigma > 0 && std::isfinite(sigma), ValueError, "argument 'sigma' must be > 0, got ", sigma);
  SAMPAN_CHECK(rcut > 0 && std::isfinite(rcut), ValueError, "argument 'rcut' must be > 0, got ", rcut);
}

void check_direction(const char* name, const TensorSpec& v, const TensorSpec& like, const char* like_name) {
  SAMPAN_CHECK(v.shape == like.shape, ValueError, "argument '", name, "' must have the shape of '",
               like_name, "' ", shape_str(like.shape), ", got ", shape_str(v.shape));
  SAMPAN_CHECK(v.dtype == like.dtype, TypeError, "argument '", name, "' must have the dtype of '",
               like_name, "' (", dtype_name(like.dtype), "), got ", dtype_name(v.dtype));
}

// ---------------------------------------------------------------------------------------------
// Devices: one struct per device forwards to its kernels, so each op kernel is written once.
// ---------------------------------------------------------------------------------------------

struct Cpu {
  static int64_t first_bad_pair(const int64_t* pairs, int64_t npairs, int64_t natoms) {
    return lj::first_bad_pair_cpu(pairs, npairs, natoms);
  }
  static void to_host(void* host, const void* data, size_t nbytes) { std::memcpy(host, data, nbytes); }
  template <class T, class... A> static void energy(A... a) { lj::energy_cpu<T>(a...); }
  template <class T, class... A> static void forces(A... a) { lj::forces_cpu<T>(a...); }
  template <class T, class... A> static void hvp(A... a) { lj::hvp_cpu<T>(a...); }
  template <class T, class... A> static void third(A... a) { lj::third_cpu<T>(a...); }
};

#if defined(SAMPAN_CUDA_KERNELS)
struct Cuda {
  static int64_t first_bad_pair(const int64_t* pairs, int64_t npairs, int64_t natoms) {
    return lj::first_bad_pair_cuda(pairs, npairs, natoms);
  }
  static void to_host(void* host, const void* data, size_t nbytes) { lj::copy_to_host_cuda(host, data, nbytes); }
  template <class T, class... A> static void energy(A... a) { lj::energy_cuda<T>(a...); }
  template <class T, class... A> static void forces(A... a) { lj::forces_cuda<T>(a...); }
  template <class T, class... A> static void hvp(A... a) { lj::hvp_cuda<T>(a...); }
  template <class T, class... A> static void third(A... a) { lj::third_cuda<T>(a...); }
};
// CUDA launchers report errors as std::runtime_error (the .cu file knows nothing of sampan).
template <class F> void run_device(F f) {
  try {
    f();
  } catch (const sampan::RuntimeError&) {
    throw;
  } catch (const std::runtime_error& e) {
    throw sampan::RuntimeError(e.what());
  }
}
#else
template <class F> void run_device(F f) { f(); }
#endif

// Contiguous inputs, checked for what the shape function cannot see: atom indices and the box.
struct Inputs {
  Tensor pos, pairs, box;
  int64_t natoms, npairs;
};

template <class Dev> Inputs prepare(const Tensor& pos, const Tensor& pairs, const Tensor& box, double rcut) {
  Inputs in{pos.contiguous(), pairs.contiguous(), box.contiguous(), pos.size(0), pairs.size(0)};
  double lengths[3];
  visit_floating(in.box.dtype(), "md::lj", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T host[3];
    Dev::to_host(host, in.box.template data<T>(), sizeof(host));
    for (int k = 0; k < 3; ++k) lengths[k] = static_cast<double>(host[k]);
  });
  for (int k = 0; k < 3; ++k) {
    SAMPAN_CHECK(lengths[k] > 0 && std::isfinite(lengths[k]), ValueError,
                 "argument 'box' must hold three positive lengths, got box[", k, "] = ", lengths[k]);
    // Beyond half the box a pair has more than one image within rcut; the minimum image misses them.
    SAMPAN_CHECK(2 * rcut <= lengths[k], ValueError, "rcut = ", rcut, " exceeds half the box length box[",
                 k, "] = ", lengths[k], "; the minimum-image convention needs rcut <= min(box) / 2");
  }
  int64_t bad = Dev::first_bad_pair(in.pairs.template data<int64_t>(), in.npairs, in.natoms);
  if (bad >= 0) {
    int64_t ij[2];
    Dev::to_host(ij, in.pairs.template data<int64_t>() + 2 * bad, sizeof(ij));
    std::ostringstream os;
    os << "argument 'pairs' row " << bad << " is (" << ij[0] << ", " << ij[1] << ")";
    SAMPAN_CHECK(ij[0] != ij[1], ValueError, os.str(), ": an atom cannot pair with itself");
    SAMPAN_THROW(IndexError, os.str(), ": atom indices must lie in [0, ", in.natoms,
                 ") for 'pos' with ", in.natoms, " atoms");
  }
  return in;
}

// Calls f(type_tag<T>, Params<T>) with T = the floating dtype of pos.
template <class F> void with_params(const Inputs& in, double eps, double sigma, double rcut, F f) {
  visit_floating(in.pos.dtype(), "md::lj", [&](auto tag) {
    using T = typename decltype(tag)::type;
    f(tag, lj::Params<T>{static_cast<T>(eps), static_cast<T>(sigma), static_cast<T>(rcut)});
  });
}

// ---------------------------------------------------------------------------------------------
// Kernels (Tensor layer). Outputs arrive allocated, contiguous, on the inputs' device.
// ---------------------------------------------------------------------------------------------

template <class Dev>
void energy_kernel(const Tensor& pos, const Tensor& pairs, const Tensor& box, double eps, double sigma,
                   double rcut, Tensor& energy) {
  Inputs in = prepare<Dev>(pos, pairs, box, rcut);
  with_params(in, eps, sigma, rcut, [&](auto tag, auto p) {
    using T = typename decltype(tag)::type;
    run_device([&] {
      Dev::template energy<T>(in.pos.data<T>(), in.pairs.data<int64_t>(), in.npairs, in.box.data<T>(), p,
                              energy.data<T>());
    });
  });
}

template <class Dev>
void forces_kernel(const Tensor& pos, const Tensor& pairs, const Tensor& box, double eps, double sigma,
                   double rcut, Tensor& forces) {
  Inputs in = prepare<Dev>(pos, pairs, box, rcut);
  with_params(in, eps, sigma, rcut, [&](auto tag, auto p) {
    using T = typename decltype(tag)::type;
    run_device([&] {
      Dev::template forces<T>(in.pos.data<T>(), in.natoms, in.pairs.data<int64_t>(), in.npairs,
                              in.box.data<T>(), p, forces.data<T>(), static_cast<T*>(nullptr));
    });
  });
}

template <class Dev>
void box_grad_kernel(const Tensor& pos, const Tensor& pairs, const Tensor& box, double eps, double sigma,
                     double rcut, Tensor& box_grad) {
  Inputs in = prepare<Dev>(pos, pairs, box, rcut);
  with_params(in, eps, sigma, rcut, [&](auto tag, auto p) {
    using T = typename decltype(tag)::type;
    run_device([&] {
      Dev::template forces<T>(in.pos.data<T>(), in.natoms, in.pairs.data<int64_t>(), in.npairs,
                              in.box.data<T>(), p, static_cast<T*>(nullptr), box_grad.data<T>());
    });
  });
}

template <class Dev>
void hvp_kernel(const Tensor& pos, const Tensor& pairs, const Tensor& box, const Tensor& v_pos,
                const Tensor& v_box, double eps, double sigma, double rcut, Tensor& h_pos, Tensor& h_box) {
  Inputs in = prepare<Dev>(pos, pairs, box, rcut);
  Tensor vp = v_pos.contiguous(), vb = v_box.contiguous();
  with_params(in, eps, sigma, rcut, [&](auto tag, auto p) {
    using T = typename decltype(tag)::type;
    run_device([&] {
      Dev::template hvp<T>(in.pos.data<T>(), in.natoms, in.pairs.data<int64_t>(), in.npairs,
                           in.box.data<T>(), p, static_cast<const T*>(vp.data<T>()),
                           static_cast<const T*>(vb.data<T>()), h_pos.data<T>(), h_box.data<T>());
    });
  });
}

// The third derivative contracted with (v_pos, v_box) and (c_pos, c_box): lj_hvp's vjp. Not an
// op: it only runs inside that once-differentiable vjp, where nothing is recorded.
template <class Dev>
std::vector<Tensor> third_derivative(const Tensor& pos, const Tensor& pairs, const Tensor& box,
                                     const Tensor& v_pos, const Tensor& v_box, const Tensor& c_pos,
                                     const Tensor& c_box, double eps, double sigma, double rcut) {
  Inputs in = prepare<Dev>(pos, pairs, box, rcut);
  Tensor vp = v_pos.contiguous(), vb = v_box.contiguous(), cp = c_pos.contiguous(), cb = c_box.contiguous();
  Tensor t_pos = Tensor::empty(pos.shape(), pos.dtype(), pos.device());
  Tensor t_box = Tensor::empty(box.shape(), box.dtype(), box.device());
  with_params(in, eps, sigma, rcut, [&](auto tag, auto p) {
    using T = typename decltype(tag)::type;
    run_device([&] {
      Dev::template third<T>(in.pos.data<T>(), in.natoms, in.pairs.data<int64_t>(), in.npairs,
                             in.box.data<T>(), p, static_cast<const T*>(vp.data<T>()),
                             static_cast<const T*>(vb.data<T>()), static_cast<const T*>(cp.data<T>()),
                             static_cast<const T*>(cb.data<T>()), t_pos.data<T>(), t_box.data<T>());
    });
  });
  return {t_pos, t_box};
}

// ---------------------------------------------------------------------------------------------
// vjps, written with ops (lj_hvp's excepted: it is once-differentiable).
// ---------------------------------------------------------------------------------------------

struct Attrs {
  double eps, sigma, rcut;
};
Attrs attrs_at(const VjpContext& c, size_t first) {
  return {c.attr<double>(first), c.attr<double>(first + 1), c.attr<double>(first + 2)};
}

// dE/dpos = -forces, dE/dbox = lj_box_grad, both times the scalar output gradient.
Grads energy_vjp(const VjpContext& c) {
  Tensor pos = c.input(0), pairs = c.input(1), box = c.input(2), g = c.grad_output(0);
  Attrs a = attrs_at(c, 3);
  Grads grads(3);
  if (c.needs_grad(0)) grads[0] = mul(md::lj_forces(pos, pairs, box, a.eps, a.sigma, a.rcut), neg(g));
  if (c.needs_grad(2)) grads[2] = mul(md::lj_box_grad(pos, pairs, box, a.eps, a.sigma, a.rcut), g);
  return grads;
}

// d(w . forces)/d(pos, box) = -H (w, 0).
Grads forces_vjp(const VjpContext& c) {
  Tensor pos = c.input(0), pairs = c.input(1), box = c.input(2), w = c.grad_output(0);
  Attrs a = attrs_at(c, 3);
  if (!c.needs_grad(0) && !c.needs_grad(2)) return Grads(3);
  auto h = md::lj_hvp(pos, pairs, box, w, zeros_like(box), a.eps, a.sigma, a.rcut);
  return {neg(h[0]), Tensor(), neg(h[1])};
}

// d(w . dE/dbox)/d(pos, box) = H (0, w).
Grads box_grad_vjp(const VjpContext& c) {
  Tensor pos = c.input(0), pairs = c.input(1), box = c.input(2), w = c.grad_output(0);
  Attrs a = attrs_at(c, 3);
  if (!c.needs_grad(0) && !c.needs_grad(2)) return Grads(3);
  auto h = md::lj_hvp(pos, pairs, box, zeros_like(pos), w, a.eps, a.sigma, a.rcut);
  return {h[0], Tensor(), h[1]};
}

// Cotangents (c_pos, c_box) of (h_pos, h_box) = H v: over (pos, box) the third derivative
// contracted with v and c; over v, H c (the Hessian is symmetric).
Grads hvp_vjp(const VjpContext& c) {
  Tensor pos = c.input(0), pairs = c.input(1), box = c.input(2), v_pos = c.input(3), v_box = c.input(4);
  Tensor c_pos = c.grad_output(0), c_box = c.grad_output(1);
  Attrs a = attrs_at(c, 5);
  Grads grads(5);
  if (c.needs_grad(0) || c.needs_grad(2)) {
    std::vector<Tensor> t;
#if defined(SAMPAN_CUDA_KERNELS)
    if (pos.device().is_cuda())
      t = third_derivative<Cuda>(pos, pairs, box, v_pos, v_box, c_pos, c_box, a.eps, a.sigma, a.rcut);
    else
#endif
      t = third_derivative<Cpu>(pos, pairs, box, v_pos, v_box, c_pos, c_box, a.eps, a.sigma, a.rcut);
    grads[0] = t[0];
    grads[2] = t[1];
  }
  if (c.needs_grad(3) || c.needs_grad(4)) {
    auto h = md::lj_hvp(pos, pairs, box, c_pos, c_box, a.eps, a.sigma, a.rcut);
    grads[3] = h[0];
    grads[4] = h[1];
  }
  return grads;
}

// ---------------------------------------------------------------------------------------------
// Shape functions
// ---------------------------------------------------------------------------------------------

TensorSpec energy_shape(const TensorSpec& pos, const TensorSpec& pairs, const TensorSpec& box, double eps,
                        double sigma, double rcut) {
  check_specs(pos, pairs, box, eps, sigma, rcut);
  return TensorSpec{{}, pos.dtype, pos.device};
}
TensorSpec forces_shape(const TensorSpec& pos, const TensorSpec& pairs, const TensorSpec& box, double eps,
                        double sigma, double rcut) {
  check_specs(pos, pairs, box, eps, sigma, rcut);
  return pos;
}
TensorSpec box_grad_shape(const TensorSpec& pos, const TensorSpec& pairs, const TensorSpec& box, double eps,
                          double sigma, double rcut) {
  check_specs(pos, pairs, box, eps, sigma, rcut);
  return box;
}
std::vector<TensorSpec> hvp_shape(const TensorSpec& pos, const TensorSpec& pairs, const TensorSpec& box,
                                  const TensorSpec& v_pos, const TensorSpec& v_box, double eps, double sigma,
                                  double rcut) {
  check_specs(pos, pairs, box, eps, sigma, rcut);
  check_direction("v_pos", v_pos, pos, "pos");
  check_direction("v_box", v_box, box, "box");
  return {pos, box};
}

constexpr const char* kPotentialDoc =
    "u(r) = 4 eps ((sigma/r)^12 - (sigma/r)^6) - u(rcut) for r < rcut, else 0 (energy-shifted "
    "cut, reduced units), summed over the rows (i, j) of `pairs` (int64 [P, 2], each pair once), "
    "with r the minimum-image distance of pos[j] - pos[i] in the orthorhombic periodic box "
    "`box` [3] (requires rcut <= min(box) / 2). pos: [N, 3] float32 or float64.";

}  // namespace

SAMPAN_OP(md, lj_energy)
    .doc(std::string("Lennard-Jones energy (0-d tensor). ") + kPotentialDoc +
         " Differentiable in pos (gradient: -lj_forces) and box (lj_box_grad), twice.")
    .args("pos", "pairs", "box", "eps", "sigma", "rcut")
    .outputs("energy")
    .shape(energy_shape)
    .cpu(energy_kernel<Cpu>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(energy_kernel<Cuda>)
#endif
    .vjp(energy_vjp)
    .dtypes({DType::Float32, DType::Float64});

SAMPAN_OP(md, lj_forces)
    .doc(std::string("Lennard-Jones forces -dE/dpos, [N, 3], of the energy md.lj_energy: ") + kPotentialDoc +
         " Differentiable (its vjp is md.lj_hvp), so losses on forces can be trained.")
    .args("pos", "pairs", "box", "eps", "sigma", "rcut")
    .outputs("forces")
    .shape(forces_shape)
    .cpu(forces_kernel<Cpu>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(forces_kernel<Cuda>)
#endif
    .vjp(forces_vjp)
    .dtypes({DType::Float32, DType::Float64});

SAMPAN_OP(md, lj_box_grad)
    .doc(std::string("dE/dbox, [3], of md.lj_energy at fixed Cartesian positions (the change of the "
                     "periodic images). ") + kPotentialDoc)
    .args("pos", "pairs", "box", "eps", "sigma", "rcut")
    .outputs("box_grad")
    .shape(box_grad_shape)
    .cpu(box_grad_kernel<Cpu>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(box_grad_kernel<Cuda>)
#endif
    .vjp(box_grad_vjp)
    .dtypes({DType::Float32, DType::Float64});

SAMPAN_OP(md, lj_hvp)
    .doc(std::string("Hessian of md.lj_energy over (pos, box) applied to (v_pos [N, 3], v_box [3]): "
                     "(h_pos, h_box). Once differentiable (a fourth derivative raises). ") + kPotentialDoc)
    .args("pos", "pairs", "box", "v_pos", "v_box", "eps", "sigma", "rcut")
    .outputs("h_pos", "h_box")
    .shape(hvp_shape)
    .cpu(hvp_kernel<Cpu>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(hvp_kernel<Cuda>)
#endif
    .vjp(hvp_vjp)
    .once_differentiable()
    .dtypes({DType::Float32, DType::Float64});
