// Lennard-Jones kernels: plain functions over pointers (no sampan::Tensor), CPU and CUDA twins.
//
// The potential, per pair (i, j) of the list, in reduced units (energy eps, length sigma):
//
//   u(r) = 4 eps [(sigma/r)^12 - (sigma/r)^6] - u_c   for r < rcut,   0 beyond,
//   u_c  = 4 eps [(sigma/rcut)^12 - (sigma/rcut)^6]   (energy shift: u is continuous at rcut;
//                                                      the force keeps its small jump there)
//
// r is the minimum-image distance in an orthorhombic periodic box L:
//   d = x_j - x_i - L * n,   n = rint((x_j - x_i) / L)   (per component; n is locally constant)
// which is the nearest image only while rcut <= min(L) / 2 (the op layer checks this).
// Each pair is counted once (a half list): list (i, j) or (j, i), not both.
//
// Every derivative is a function of r^2 (no square root):
//   g = u'/r = -24 eps (2 s12 - s6) / r^2              s6 = (sigma^2/r^2)^3, s12 = s6^2
//   h = g'/r =  96 eps (7 s12 - 2 s6) / r^4
//   k = h'/r = -384 eps (28 s12 - 5 s6) / r^6
// With J = d d / d(pos, box) (constant, since n is), the gradient of E = sum_p u(r_p) over
// (pos, box) is J^T (g d), its Hessian-vector product J^T (g D + h (d.D) d) with D = J v, and the
// third derivative contracted with v and c (C = J c):
//   J^T [ h (C.D) d + k (d.C)(d.D) d + h ((d.D) C + (d.C) D) ].
// Applying J^T to a per-pair vector q: grad_pos[j] += q, grad_pos[i] -= q, grad_box += -n * q.
#pragma once

#include <math.h>  // rint, rintf: the same names on the host and in CUDA device code

#include <cstddef>
#include <cstdint>

#include "sampan/host_device.h"  // SAMPAN_HOST_DEVICE: one body for the CPU loop and the CUDA kernel

namespace lj {

/// Parameters of the pair potential (reduced units: eps sets energy, sigma length).
template <class T> struct Params {
  T eps, sigma, rcut;
};

/// u, g, h, k at one pair distance (see the header comment); zeros beyond the cutoff.
template <class T> struct Radial {
  T u, g, h, k;
};

SAMPAN_HOST_DEVICE inline float round_to_int(float x) { return rintf(x); }
SAMPAN_HOST_DEVICE inline double round_to_int(double x) { return rint(x); }

/// Minimum-image separation of pair (i, j): fills d = x_j - x_i - L n and n; returns |d|^2.
template <class T>
SAMPAN_HOST_DEVICE inline T separation(const T* pos, int64_t i, int64_t j, const T* box, T d[3], T n[3]) {
  T r2 = 0;
  for (int k = 0; k < 3; ++k) {
    T dx = pos[3 * j + k] - pos[3 * i + k];
    n[k] = round_to_int(dx / box[k]);
    d[k] = dx - box[k] * n[k];
    r2 += d[k] * d[k];
  }
  return r2;
}

/// The radial functions at r^2 (all four; the compiler drops what a caller does not use).
template <class T> SAMPAN_HOST_DEVICE inline Radial<T> radial(T r2, const Params<T>& p) {
  Radial<T> f{0, 0, 0, 0};
  if (r2 >= p.rcut * p.rcut) return f;
  T inv_r2 = T(1) / r2;
  T s2 = p.sigma * p.sigma * inv_r2;
  T s6 = s2 * s2 * s2, s12 = s6 * s6;
  T c2 = p.sigma * p.sigma / (p.rcut * p.rcut);
  T c6 = c2 * c2 * c2;
  f.u = T(4) * p.eps * (s12 - s6) - T(4) * p.eps * (c6 * c6 - c6);
  f.g = T(-24) * p.eps * (T(2) * s12 - s6) * inv_r2;
  f.h = T(96) * p.eps * (T(7) * s12 - T(2) * s6) * inv_r2 * inv_r2;
  f.k = T(-384) * p.eps * (T(28) * s12 - T(5) * s6) * inv_r2 * inv_r2 * inv_r2;
  return f;
}

/// D = J v for one pair: v_pos[j] - v_pos[i] - v_box * n (v_box may be null: zero).
template <class T>
SAMPAN_HOST_DEVICE inline void direction(const T* v_pos, const T* v_box, int64_t i, int64_t j, const T n[3], T D[3]) {
  for (int k = 0; k < 3; ++k)
    D[k] = v_pos[3 * j + k] - v_pos[3 * i + k] - (v_box ? v_box[k] * n[k] : T(0));
}

template <class T> SAMPAN_HOST_DEVICE inline T dot3(const T a[3], const T b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// ---- CPU (lj_kernels.cpp; instantiated for float and double) ----
// pos [natoms, 3], pairs [npairs, 2] (int64), box [3], all contiguous. Outputs are overwritten;
// an output pointer may be null when that result is not wanted. Deterministic: pair terms are
// computed in parallel (OpenMP) and summed in a fixed order.

/// Index of the first invalid pair (atom out of [0, natoms) or i == j), or -1.
int64_t first_bad_pair_cpu(const int64_t* pairs, int64_t npairs, int64_t natoms);

/// energy[0] = E.
template <class T>
void energy_cpu(const T* pos, const int64_t* pairs, int64_t npairs, const T* box, Params<T> p, T* energy);

/// forces = -dE/dpos [natoms, 3]; box_grad = dE/dbox [3] (at fixed Cartesian positions).
template <class T>
void forces_cpu(const T* pos, int64_t natoms, const int64_t* pairs, int64_t npairs, const T* box,
                Params<T> p, T* forces, T* box_grad);

/// (h_pos, h_box) = H (v_pos, v_box), H the Hessian of E over (pos, box). v_box may be null.
template <class T>
void hvp_cpu(const T* pos, int64_t natoms, const int64_t* pairs, int64_t npairs, const T* box,
             Params<T> p, const T* v_pos, const T* v_box, T* h_pos, T* h_box);

/// (t_pos, t_box) = third derivative of E contracted with (v_pos, v_box) and (c_pos, c_box).
template <class T>
void third_cpu(const T* pos, int64_t natoms, const int64_t* pairs, int64_t npairs, const T* box,
               Params<T> p, const T* v_pos, const T* v_box, const T* c_pos, const T* c_box,
               T* t_pos, T* t_box);

// ---- CUDA (lj_kernels.cu, compiled only where nvcc exists): same contracts, device pointers.
// Scatter uses atomics, so results may differ from the CPU in the last bits. ----
#if defined(SAMPAN_CUDA_KERNELS)
int64_t first_bad_pair_cuda(const int64_t* pairs, int64_t npairs, int64_t natoms);
/// Copies `nbytes` from device to host (the op layer reads the 3 box lengths to check rcut).
void copy_to_host_cuda(void* host, const void* device, size_t nbytes);
template <class T>
void energy_cuda(const T* pos, const int64_t* pairs, int64_t npairs, const T* box, Params<T> p, T* energy);
template <class T>
void forces_cuda(const T* pos, int64_t natoms, const int64_t* pairs, int64_t npairs, const T* box,
                 Params<T> p, T* forces, T* box_grad);
template <class T>
void hvp_cuda(const T* pos, int64_t natoms, const int64_t* pairs, int64_t npairs, const T* box,
              Params<T> p, const T* v_pos, const T* v_box, T* h_pos, T* h_box);
template <class T>
void third_cuda(const T* pos, int64_t natoms, const int64_t* pairs, int64_t npairs, const T* box,
                Params<T> p, const T* v_pos, const T* v_box, const T* c_pos, const T* c_box,
                T* t_pos, T* t_box);
#endif

}  // namespace lj
