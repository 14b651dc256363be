// The se_e2_a operators of namespace `deepmd` (DeePMD-kit's ProdEnvMatA, ProdForceSeA,
// ProdVirialSeA and the two gradient maps), declared through the custom-op interface. Kernels
// are plain functions in src/kernels (CPU loops in .cpp, CUDA twins in .cu over the same per-slot
// functions); this file checks arguments, dispatches on the dtype and the device, and writes the
// vjps. The .cuda kernels are registered where the library is built with nvcc
// (SAMPAN_CUDA_KERNELS); they compile but have not run on a GPU yet.
//
// How the derivatives chain (what force training needs):
//   prod_force_se_a is bilinear in (net_deriv, em_deriv); its vjp in net_deriv is the op
//   prod_force_se_a_grad, whose vjp in its gradient argument is prod_force_se_a again (the two
//   are transposes of each other), so force losses differentiate to any order; the em_deriv
//   parts are written with framework ops (gather, mul, sum). The same holds for
//   prod_virial_se_a / prod_virial_se_a_grad.
//   prod_env_mat_a is once differentiable: its vjp (in coord, davg, dstd) runs a kernel with the
//   analytic Hessian of the env-matrix rows; a second derivative through it raises. Training
//   never needs one: em_deriv depends on coordinates only.
#include <cstring>
#include <string>
#include <vector>

#include "kernels/env_mat_kernels.h"
#include "kernels/prod_force_virial_kernels.h"
#include "sampan/dispatch.h"
#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "sampan/testing/samples.h"
#include "op_samples.h"
#include "run_on_device.h"

namespace sampan::deepmd {

namespace {

void check_float(const TensorSpec& t, const char* op, const char* name) {
  SAMPAN_CHECK(t.dtype == DType::Float32 || t.dtype == DType::Float64, TypeError, op, ": argument '", name,
               "' must be float32 or float64, got ", dtype_name(t.dtype));
}
void check_same_dtype(const TensorSpec& t, const TensorSpec& like, const char* op, const char* name) {
  SAMPAN_CHECK(t.dtype == like.dtype, TypeError, op, ": argument '", name, "' must have dtype ", dtype_name(like.dtype),
               ", got ", dtype_name(t.dtype));
}
void check_nlist(const TensorSpec& nlist, const char* op) {
  SAMPAN_CHECK(nlist.dtype == DType::Int64, TypeError, op, ": argument 'nlist' must be int64, got ", dtype_name(nlist.dtype));
  SAMPAN_CHECK(nlist.dim() == 2, ValueError, op, ": argument 'nlist' must have shape [nloc, nnei], got ",
               shape_str(nlist.shape));
}
void check_shape(const TensorSpec& t, const Shape& want, const char* op, const char* name, const char* meaning) {
  SAMPAN_CHECK(t.shape == want, ValueError, op, ": argument '", name, "' must have shape ", shape_str(want), " (", meaning,
               "), got ", shape_str(t.shape));
}

// ------------------------------------------------------------------------------------------
// Devices: one struct per device forwards to its kernels, so each op kernel is written once.
// ------------------------------------------------------------------------------------------

struct Cpu {
  static int64_t first_outside_range(const int64_t* v, int64_t n, int64_t lo, int64_t hi) {
    for (int64_t k = 0; k < n; ++k)
      if (v[k] < lo || v[k] >= hi) return k;
    return -1;
  }
  static void to_host(void* host, const void* data, size_t nbytes) { std::memcpy(host, data, nbytes); }
  template <class T, class... A> static void env_mat(A... a) { kernels::prod_env_mat_a_cpu<T>(a...); }
  template <class T, class... A> static void env_mat_backward(A... a) { kernels::prod_env_mat_a_backward_cpu<T>(a...); }
  template <class T, class... A> static void force(A... a) { kernels::prod_force_se_a_cpu<T>(a...); }
  template <class T, class... A> static void force_grad(A... a) { kernels::prod_force_se_a_grad_cpu<T>(a...); }
  template <class T, class... A> static void virial(A... a) { kernels::prod_virial_se_a_cpu<T>(a...); }
  template <class T, class... A> static void virial_grad(A... a) { kernels::prod_virial_se_a_grad_cpu<T>(a...); }
};

#if defined(SAMPAN_CUDA_KERNELS)
struct Cuda {
  static int64_t first_outside_range(const int64_t* v, int64_t n, int64_t lo, int64_t hi) {
    return run_device([&] { return kernels::first_outside_range_cuda(v, n, lo, hi); });
  }
  static void to_host(void* host, const void* data, size_t nbytes) {
    run_device([&] { kernels::copy_to_host_cuda(host, data, nbytes); });
  }
  template <class T, class... A> static void env_mat(A... a) {
    run_device([&] { kernels::prod_env_mat_a_cuda<T>(a...); });
  }
  template <class T, class... A> static void env_mat_backward(A... a) {
    run_device([&] { kernels::prod_env_mat_a_backward_cuda<T>(a...); });
  }
  template <class T, class... A> static void force(A... a) { run_device([&] { kernels::prod_force_se_a_cuda<T>(a...); }); }
  template <class T, class... A> static void force_grad(A... a) {
    run_device([&] { kernels::prod_force_se_a_grad_cuda<T>(a...); });
  }
  template <class T, class... A> static void virial(A... a) { run_device([&] { kernels::prod_virial_se_a_cuda<T>(a...); }); }
  template <class T, class... A> static void virial_grad(A... a) {
    run_device([&] { kernels::prod_virial_se_a_grad_cuda<T>(a...); });
  }
};
#endif

// Values the shape function cannot see: neighbour indices inside [-1, nall), types in range.
template <class Dev> void check_nlist_values(const Tensor& nlist, int64_t nall, const char* op) {
  const int64_t k = Dev::first_outside_range(nlist.data<int64_t>(), nlist.numel(), -1, nall);
  if (k < 0) return;
  const int64_t nnei = nlist.size(1);
  int64_t value;
  Dev::to_host(&value, nlist.data<int64_t>() + k, sizeof(value));
  SAMPAN_CHECK(false, ValueError, op, ": nlist[", k / nnei, ", ", k % nnei, "] = ", value, " is outside [-1, ", nall, ")");
}

Tensor c(const Tensor& t) { return t.is_contiguous() ? t : t.contiguous(); }

// ------------------------------------------------------------------------------------------
// Helpers written with framework ops (differentiable to any order)
// ------------------------------------------------------------------------------------------

// 1 for filled slots, 0 for empty ones, as [nloc, nnei, 1] in `dtype`.
Tensor slot_mask(const Tensor& nlist, DType dtype) {
  Tensor m = cast(ge(nlist, scalar_tensor(0, DType::Int64)), dtype);
  return reshape(m, {nlist.size(0), nlist.size(1), 1});
}

// rows x[nlist[i, j]] as [nloc, nnei, k], zero for empty slots.
Tensor gather_neighbors(const Tensor& x, const Tensor& nlist) {
  const int64_t nloc = nlist.size(0), nnei = nlist.size(1);
  Tensor safe = maximum(nlist, scalar_tensor(0, DType::Int64));
  Tensor rows = index_select(x, 0, reshape(safe, {nloc * nnei}));
  return mul(reshape(rows, {nloc, nnei, x.size(1)}), slot_mask(nlist, x.dtype()));
}

// D[i, j, :] = g[nlist[i, j]] - g[i] for filled slots, 0 otherwise: [nloc, nnei, 3].
Tensor neighbor_minus_centre(const Tensor& g, const Tensor& nlist) {
  const int64_t nloc = nlist.size(0);
  Tensor centre = reshape(slice(g, 0, 0, nloc), {nloc, 1, 3});
  return sub(gather_neighbors(g, nlist), mul(centre, slot_mask(nlist, g.dtype())));
}

// a [nloc, nnei*4] (x) D [nloc, nnei, 3] -> [nloc, nnei*12]: the em_deriv-gradient form a_q D_b.
Tensor outer_q_b(const Tensor& a, const Tensor& D) {
  const int64_t nloc = D.size(0), nnei = D.size(1);
  Tensor r = mul(reshape(a, {nloc, nnei, 4, 1}), reshape(D, {nloc, nnei, 1, 3}));
  return reshape(r, {nloc, nnei * 12});
}

// G [nloc, nnei, 3, 3] = grad_virial + grad_atom_virial[n], zero for empty slots.
Tensor virial_cotangent(const Tensor& grad_virial, const Tensor& grad_atom_virial, const Tensor& nlist) {
  const int64_t nloc = nlist.size(0), nnei = nlist.size(1);
  Tensor G = add(reshape(grad_virial, {1, 1, 9}), gather_neighbors(grad_atom_virial, nlist));
  G = mul(G, slot_mask(nlist, grad_virial.dtype()));
  return reshape(G, {nloc, nnei, 3, 3});
}

// Gradients of sum_{ijq ab} h_q d_qa R_b G_ab in em_deriv ([nloc, nnei*12]) and rij ([nloc, nnei*3]).
std::pair<Tensor, Tensor> virial_deriv_rij_grads(const Tensor& h, const Tensor& em_deriv, const Tensor& rij,
                                                 const Tensor& G, bool want_deriv, bool want_rij) {
  const int64_t nloc = G.size(0), nnei = G.size(1);
  Tensor R = reshape(rij, {nloc, nnei, 1, 3});
  Tensor g_deriv, g_rij;
  if (want_deriv) {
    Tensor GR = sum(mul(G, R), {3});  // (G R)_a = sum_b G_ab R_b: [nloc, nnei, 3]
    g_deriv = outer_q_b(h, GR);
  }
  if (want_rij) {
    Tensor d = reshape(em_deriv, {nloc, nnei, 4, 3});
    Tensor f = sum(mul(reshape(h, {nloc, nnei, 4, 1}), d), {2});        // f_a = sum_q h_q d_qa
    Tensor gR = sum(mul(reshape(f, {nloc, nnei, 3, 1}), G), {2});       // sum_a f_a G_ab
    g_rij = reshape(gR, {nloc, nnei * 3});
  }
  return {g_deriv, g_rij};
}

// ------------------------------------------------------------------------------------------
// Kernels (op layer)
// ------------------------------------------------------------------------------------------

template <class Dev>
void prod_env_mat_a_kernel(const Tensor& coord_in, const Tensor& atype_in, const Tensor& nlist_in, const Tensor& davg_in,
                           const Tensor& dstd_in, double rcut, double rcut_smth, Tensor& em, Tensor& em_deriv,
                           Tensor& rij) {
  const char* op = "deepmd::prod_env_mat_a";
  Tensor coord = c(coord_in), atype = c(atype_in), nlist = c(nlist_in), davg = c(davg_in), dstd = c(dstd_in);
  const int64_t nall = coord.size(0), nloc = nlist.size(0), nnei = nlist.size(1), ntypes = davg.size(0);
  check_nlist_values<Dev>(nlist, nall, op);
  const int64_t* t = atype.data<int64_t>();
  const int64_t bad_type = Dev::first_outside_range(t, nall, 0, ntypes);
  if (bad_type >= 0) {
    int64_t value;
    Dev::to_host(&value, t + bad_type, sizeof(value));
    SAMPAN_CHECK(false, ValueError, op, ": atype[", bad_type, "] = ", value, " is outside [0, ", ntypes,
                 ") (ntypes = rows of davg)");
  }
  visit_floating(coord.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* s = dstd.data<T>();
    std::vector<T> host_dstd(static_cast<size_t>(dstd.numel()));
    Dev::to_host(host_dstd.data(), s, sizeof(T) * host_dstd.size());
    for (size_t k = 0; k < host_dstd.size(); ++k)
      SAMPAN_CHECK(host_dstd[k] != T(0), ValueError, op, ": dstd has a zero at flat index ", k);
    Dev::template env_mat<T>(coord.data<T>(), t, nlist.data<int64_t>(), davg.data<T>(), s, nloc, nnei,
                             static_cast<T>(rcut), static_cast<T>(rcut_smth), em.data<T>(), em_deriv.data<T>(),
                             rij.data<T>());
  });
}

// The backward kernel of prod_env_mat_a (its vjp): gradients in coord, davg and dstd.
template <class Dev>
Grads prod_env_mat_a_backward(const VjpContext& ctx) {
  Tensor coord = c(ctx.input(0)), atype = c(ctx.input(1)), nlist = c(ctx.input(2)), dstd = c(ctx.input(4));
  Tensor em = c(ctx.output(0).detach()), em_deriv = c(ctx.output(1).detach());
  Tensor g_em = c(ctx.grad_output(0)), g_deriv = c(ctx.grad_output(1)), g_rij = c(ctx.grad_output(2));
  const int64_t nall = coord.size(0), nloc = nlist.size(0), nnei = nlist.size(1), ntypes = dstd.size(0);
  Tensor g_coord = Tensor::empty({nall, 3}, coord.dtype(), coord.device());
  Tensor g_davg = Tensor::empty(dstd.shape(), coord.dtype(), coord.device());
  Tensor g_dstd = Tensor::empty(dstd.shape(), coord.dtype(), coord.device());
  visit_floating(coord.dtype(), "deepmd::prod_env_mat_a (backward)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Dev::template env_mat_backward<T>(
        coord.data<T>(), atype.data<int64_t>(), nlist.data<int64_t>(), dstd.data<T>(), em.data<T>(), em_deriv.data<T>(),
        g_em.data<T>(), g_deriv.data<T>(), g_rij.data<T>(), nloc, nall, ntypes, nnei,
        static_cast<T>(ctx.attr<double>(5)), static_cast<T>(ctx.attr<double>(6)), g_coord.data<T>(), g_davg.data<T>(),
        g_dstd.data<T>());
  });
  return {g_coord, Tensor(), Tensor(), g_davg, g_dstd};
}

template <class Dev>
void prod_force_kernel(const Tensor& net_deriv, const Tensor& em_deriv, const Tensor& nlist_in, int64_t nall,
                       Tensor& force) {
  const char* op = "deepmd::prod_force_se_a";
  Tensor nlist = c(nlist_in);
  check_nlist_values<Dev>(nlist, nall, op);
  visit_floating(net_deriv.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    Dev::template force<T>(c(net_deriv).data<T>(), c(em_deriv).data<T>(), nlist.data<int64_t>(), nlist.size(0), nall,
                           nlist.size(1), force.data<T>());
  });
}

template <class Dev>
void prod_force_grad_kernel(const Tensor& grad_force, const Tensor& em_deriv, const Tensor& nlist_in, Tensor& grad_net) {
  const char* op = "deepmd::prod_force_se_a_grad";
  Tensor nlist = c(nlist_in);
  check_nlist_values<Dev>(nlist, grad_force.size(0), op);
  visit_floating(grad_force.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    Dev::template force_grad<T>(c(grad_force).data<T>(), c(em_deriv).data<T>(), nlist.data<int64_t>(),
                                nlist.size(0), nlist.size(1), grad_net.data<T>());
  });
}

template <class Dev>
void prod_virial_kernel(const Tensor& net_deriv, const Tensor& em_deriv, const Tensor& rij, const Tensor& nlist_in,
                        int64_t nall, Tensor& virial, Tensor& atom_virial) {
  const char* op = "deepmd::prod_virial_se_a";
  Tensor nlist = c(nlist_in);
  check_nlist_values<Dev>(nlist, nall, op);
  visit_floating(net_deriv.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    Dev::template virial<T>(c(net_deriv).data<T>(), c(em_deriv).data<T>(), c(rij).data<T>(),
                            nlist.data<int64_t>(), nlist.size(0), nall, nlist.size(1), virial.data<T>(),
                            atom_virial.data<T>());
  });
}

template <class Dev>
void prod_virial_grad_kernel(const Tensor& grad_virial, const Tensor& grad_atom_virial, const Tensor& em_deriv,
                             const Tensor& rij, const Tensor& nlist_in, Tensor& grad_net) {
  const char* op = "deepmd::prod_virial_se_a_grad";
  Tensor nlist = c(nlist_in);
  check_nlist_values<Dev>(nlist, grad_atom_virial.size(0), op);
  visit_floating(grad_virial.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    Dev::template virial_grad<T>(c(grad_virial).data<T>(), c(grad_atom_virial).data<T>(), c(em_deriv).data<T>(),
                                 c(rij).data<T>(), nlist.data<int64_t>(), nlist.size(0), nlist.size(1),
                                 grad_net.data<T>());
  });
}

// ------------------------------------------------------------------------------------------
// Shape functions
// ------------------------------------------------------------------------------------------

void check_force_args(const TensorSpec& a, const TensorSpec& d, const TensorSpec& nlist, const char* op,
                      const char* a_name) {
  check_float(a, op, a_name);
  check_same_dtype(d, a, op, "em_deriv");
  check_nlist(nlist, op);
  const int64_t nloc = nlist.shape[0], nnei = nlist.shape[1];
  check_shape(a, {nloc, nnei * 4}, op, a_name, "[nloc, nnei*4]");
  check_shape(d, {nloc, nnei * 12}, op, "em_deriv", "[nloc, nnei*4*3]");
}

const std::vector<DType> kFloatTypes = {DType::Float32, DType::Float64};

}  // namespace

SAMPAN_OP(deepmd, prod_env_mat_a)
    .doc("se_e2_a environment matrix (DeePMD-kit ProdEnvMatA) from extended coordinates and a formatted "
         "neighbour list. coord [nall, 3] (Å; ghosts are explicit periodic images), atype [nall] int64, "
         "nlist [nloc, nnei] int64 (-1 = empty slot; slots grouped by neighbour type, sel per type), "
         "davg, dstd [ntypes, nnei*4]. Rows (s, s x/r, s y/r, s z/r) with s = sw(r)/r, DeePMD's C^2 switch "
         "between rcut_smth and rcut, normalised as (row - davg[t_i]) / dstd[t_i]; empty slots give "
         "-davg/dstd. Returns em [nloc, nnei*4], em_deriv [nloc, nnei*4*3] (d em / d x_i), rij [nloc, nnei*3] "
         "(x_n - x_i). Once differentiable in coord, davg and dstd.")
    .args("coord", "atype", "nlist", "davg", "dstd", "rcut", "rcut_smth")
    .outputs("em", "em_deriv", "rij")
    .shape([](const TensorSpec& coord, const TensorSpec& atype, const TensorSpec& nlist, const TensorSpec& davg,
              const TensorSpec& dstd, double rcut, double rcut_smth) {
      const char* op = "deepmd::prod_env_mat_a";
      check_float(coord, op, "coord");
      SAMPAN_CHECK(coord.dim() == 2 && coord.shape[1] == 3, ValueError, op, ": argument 'coord' must have shape [nall, 3], got ",
                   shape_str(coord.shape));
      SAMPAN_CHECK(atype.dtype == DType::Int64, TypeError, op, ": argument 'atype' must be int64, got ", dtype_name(atype.dtype));
      check_shape(atype, {coord.shape[0]}, op, "atype", "[nall]");
      check_nlist(nlist, op);
      const int64_t nloc = nlist.shape[0], nnei = nlist.shape[1];
      SAMPAN_CHECK(nloc <= coord.shape[0], ValueError, op, ": nlist has ", nloc, " centre rows but coord only ",
                   coord.shape[0], " atoms");
      check_same_dtype(davg, coord, op, "davg");
      check_same_dtype(dstd, coord, op, "dstd");
      SAMPAN_CHECK(davg.dim() == 2 && davg.shape[1] == nnei * 4, ValueError, op,
                   ": argument 'davg' must have shape [ntypes, nnei*4] = [ntypes, ", nnei * 4, "], got ", shape_str(davg.shape));
      check_shape(dstd, davg.shape, op, "dstd", "the shape of davg");
      SAMPAN_CHECK(rcut > 0 && rcut_smth >= 0 && rcut_smth < rcut, ValueError, op,
                   ": need 0 <= rcut_smth < rcut, got rcut_smth = ", rcut_smth, ", rcut = ", rcut);
      return std::vector<TensorSpec>{TensorSpec{{nloc, nnei * 4}, coord.dtype, coord.device},
                                     TensorSpec{{nloc, nnei * 12}, coord.dtype, coord.device},
                                     TensorSpec{{nloc, nnei * 3}, coord.dtype, coord.device}};
    })
    .cpu(prod_env_mat_a_kernel<Cpu>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(prod_env_mat_a_kernel<Cuda>)
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
#if defined(SAMPAN_CUDA_KERNELS)
      if (ctx.input(0).device().is_cuda()) return prod_env_mat_a_backward<Cuda>(ctx);
#endif
      return prod_env_mat_a_backward<Cpu>(ctx);
    })
    .once_differentiable()
    .dtypes(kFloatTypes)
    .sample([] { auto s = samples::se_a(); return Values{s.coord, s.atype, s.nlist, s.davg, s.dstd, s.rcut, s.rcut_smth}; });

SAMPAN_OP(deepmd, prod_force_se_a)
    .doc("Forces from dE/d em (DeePMD-kit ProdForceSeA): force [nall, 3] with F_i -= sum a d and "
         "F_n += sum a d for each filled slot (i, j) -> n. net_deriv [nloc, nnei*4], em_deriv [nloc, nnei*12], "
         "nlist [nloc, nnei] int64, nall = number of extended atoms (ghost forces still to be folded onto "
         "their owners). Differentiable to any order (the vjp in net_deriv is prod_force_se_a_grad).")
    .args("net_deriv", "em_deriv", "nlist", "nall")
    .outputs("force")
    .shape([](const TensorSpec& a, const TensorSpec& d, const TensorSpec& nlist, int64_t nall) {
      const char* op = "deepmd::prod_force_se_a";
      check_force_args(a, d, nlist, op, "net_deriv");
      SAMPAN_CHECK(nall >= nlist.shape[0], ValueError, op, ": nall = ", nall, " is smaller than nloc = ", nlist.shape[0]);
      return TensorSpec{{nall, 3}, a.dtype, a.device};
    })
    .cpu(prod_force_kernel<Cpu>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(prod_force_kernel<Cuda>)
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      static OpHandle force_grad("deepmd::prod_force_se_a_grad");
      Tensor g = ctx.grad_output(0), a = ctx.input(0), d = ctx.input(1), nlist = ctx.input(2);
      Grads grads(3);
      if (ctx.needs_grad(0)) grads[0] = force_grad(g, d, nlist)[0];
      if (ctx.needs_grad(1)) grads[1] = outer_q_b(a, neighbor_minus_centre(g, nlist));
      return grads;
    })
    .dtypes(kFloatTypes)
    .cuda_nondeterministic()  // forces/virials scatter with atomicAdd on the GPU
    .sample([] { auto s = samples::se_a(); return Values{s.net_deriv, s.em_deriv, s.nlist, s.nall}; });

SAMPAN_OP(deepmd, prod_force_se_a_grad)
    .doc("The transpose of prod_force_se_a in net_deriv (DeePMD-kit ProdForceSeAGrad): grad_net [nloc, nnei*4] "
         "from grad_force [nall, 3], grad_net[i,j,q] = sum_b em_deriv[i,j,q,b] (g[n,b] - g[i,b]). Linear in "
         "grad_force; its vjp there is prod_force_se_a, so force losses differentiate to any order.")
    .args("grad_force", "em_deriv", "nlist")
    .outputs("grad_net")
    .shape([](const TensorSpec& g, const TensorSpec& d, const TensorSpec& nlist) {
      const char* op = "deepmd::prod_force_se_a_grad";
      check_float(g, op, "grad_force");
      check_same_dtype(d, g, op, "em_deriv");
      check_nlist(nlist, op);
      const int64_t nloc = nlist.shape[0], nnei = nlist.shape[1];
      SAMPAN_CHECK(g.dim() == 2 && g.shape[1] == 3 && g.shape[0] >= nloc, ValueError, op,
                   ": argument 'grad_force' must have shape [nall, 3] with nall >= nloc = ", nloc, ", got ", shape_str(g.shape));
      check_shape(d, {nloc, nnei * 12}, op, "em_deriv", "[nloc, nnei*4*3]");
      return TensorSpec{{nloc, nnei * 4}, g.dtype, g.device};
    })
    .cpu(prod_force_grad_kernel<Cpu>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(prod_force_grad_kernel<Cuda>)
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      static OpHandle force("deepmd::prod_force_se_a");
      Tensor h = ctx.grad_output(0), g = ctx.input(0), d = ctx.input(1), nlist = ctx.input(2);
      Grads grads(3);
      if (ctx.needs_grad(0)) grads[0] = force(h, d, nlist, g.size(0))[0];
      if (ctx.needs_grad(1)) grads[1] = outer_q_b(h, neighbor_minus_centre(g, nlist));
      return grads;
    })
    .dtypes(kFloatTypes)
    .sample([] { auto s = samples::se_a(); return Values{s.grad_force, s.em_deriv, s.nlist}; });

SAMPAN_OP(deepmd, prod_virial_se_a)
    .doc("Virial from dE/d em (DeePMD-kit ProdVirialSeA): virial [9] W_ab = sum a d_a R_b over filled slots "
         "(eV, XX XY XZ YX ...; = -dE/d strain) and atom_virial [nall, 9], each slot's term given to the "
         "neighbour atom. net_deriv [nloc, nnei*4], em_deriv [nloc, nnei*12], rij [nloc, nnei*3], nlist, nall. "
         "Differentiable to any order (vjp in net_deriv: prod_virial_se_a_grad).")
    .args("net_deriv", "em_deriv", "rij", "nlist", "nall")
    .outputs("virial", "atom_virial")
    .shape([](const TensorSpec& a, const TensorSpec& d, const TensorSpec& rij, const TensorSpec& nlist, int64_t nall) {
      const char* op = "deepmd::prod_virial_se_a";
      check_force_args(a, d, nlist, op, "net_deriv");
      check_same_dtype(rij, a, op, "rij");
      check_shape(rij, {nlist.shape[0], nlist.shape[1] * 3}, op, "rij", "[nloc, nnei*3]");
      SAMPAN_CHECK(nall >= nlist.shape[0], ValueError, op, ": nall = ", nall, " is smaller than nloc = ", nlist.shape[0]);
      return std::vector<TensorSpec>{TensorSpec{{9}, a.dtype, a.device}, TensorSpec{{nall, 9}, a.dtype, a.device}};
    })
    .cpu(prod_virial_kernel<Cpu>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(prod_virial_kernel<Cuda>)
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      static OpHandle virial_grad("deepmd::prod_virial_se_a_grad");
      Tensor gv = ctx.grad_output(0), gav = ctx.grad_output(1);
      Tensor a = ctx.input(0), d = ctx.input(1), rij = ctx.input(2), nlist = ctx.input(3);
      Grads grads(4);
      if (ctx.needs_grad(0)) grads[0] = virial_grad(gv, gav, d, rij, nlist)[0];
      if (ctx.needs_grad(1) || ctx.needs_grad(2)) {
        auto [g_deriv, g_rij] =
            virial_deriv_rij_grads(a, d, rij, virial_cotangent(gv, gav, nlist), ctx.needs_grad(1), ctx.needs_grad(2));
        grads[1] = g_deriv;
        grads[2] = g_rij;
      }
      return grads;
    })
    .dtypes(kFloatTypes)
    .cuda_nondeterministic()  // forces/virials scatter with atomicAdd on the GPU
    .sample([] { auto s = samples::se_a(); return Values{s.net_deriv, s.em_deriv, s.rij, s.nlist, s.nall}; });

SAMPAN_OP(deepmd, prod_virial_se_a_grad)
    .doc("The transpose of prod_virial_se_a in net_deriv (DeePMD-kit ProdVirialSeAGrad, plus the atom-virial "
         "term): grad_net[i,j,q] = sum_ab G_ab em_deriv[i,j,q,a] rij[i,j,b] with G = grad_virial + "
         "grad_atom_virial[n]. grad_virial [9], grad_atom_virial [nall, 9]. Its vjp in the two gradients is "
         "prod_virial_se_a.")
    .args("grad_virial", "grad_atom_virial", "em_deriv", "rij", "nlist")
    .outputs("grad_net")
    .shape([](const TensorSpec& gv, const TensorSpec& gav, const TensorSpec& d, const TensorSpec& rij,
              const TensorSpec& nlist) {
      const char* op = "deepmd::prod_virial_se_a_grad";
      check_float(gv, op, "grad_virial");
      check_same_dtype(gav, gv, op, "grad_atom_virial");
      check_same_dtype(d, gv, op, "em_deriv");
      check_same_dtype(rij, gv, op, "rij");
      check_nlist(nlist, op);
      const int64_t nloc = nlist.shape[0], nnei = nlist.shape[1];
      check_shape(gv, {9}, op, "grad_virial", "[9]");
      SAMPAN_CHECK(gav.dim() == 2 && gav.shape[1] == 9 && gav.shape[0] >= nloc, ValueError, op,
                   ": argument 'grad_atom_virial' must have shape [nall, 9] with nall >= nloc = ", nloc, ", got ",
                   shape_str(gav.shape));
      check_shape(d, {nloc, nnei * 12}, op, "em_deriv", "[nloc, nnei*4*3]");
      check_shape(rij, {nloc, nnei * 3}, op, "rij", "[nloc, nnei*3]");
      return TensorSpec{{nloc, nnei * 4}, gv.dtype, gv.device};
    })
    .cpu(prod_virial_grad_kernel<Cpu>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(prod_virial_grad_kernel<Cuda>)
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      static OpHandle virial("deepmd::prod_virial_se_a");
      Tensor h = ctx.grad_output(0), gv = ctx.input(0), gav = ctx.input(1), d = ctx.input(2), rij = ctx.input(3),
             nlist = ctx.input(4);
      Grads grads(5);
      if (ctx.needs_grad(0) || ctx.needs_grad(1)) {
        auto vt = virial(h, d, rij, nlist, gav.size(0));
        if (ctx.needs_grad(0)) grads[0] = vt[0];
        if (ctx.needs_grad(1)) grads[1] = vt[1];
      }
      if (ctx.needs_grad(2) || ctx.needs_grad(3)) {
        auto [g_deriv, g_rij] =
            virial_deriv_rij_grads(h, d, rij, virial_cotangent(gv, gav, nlist), ctx.needs_grad(2), ctx.needs_grad(3));
        grads[2] = g_deriv;
        grads[3] = g_rij;
      }
      return grads;
    })
    .dtypes(kFloatTypes)
    .sample([] { auto s = samples::se_a(); return Values{s.grad_virial, s.grad_atom_virial, s.em_deriv, s.rij, s.nlist}; });

}  // namespace sampan::deepmd

/// Referenced by the tests so that the linker keeps this library (and its op registrations).
extern "C" int sampan_deepmd_bridge_registered() { return 1; }
