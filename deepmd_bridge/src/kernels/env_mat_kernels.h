// se_e2_a environment matrix kernels: plain functions over pointers and sizes (no Tensor).
//
// Notation (DeePMD-kit's): nloc centre atoms, nall = nloc + ghost images, nnei = sum(sel) neighbour
// slots per centre. `nlist[i * nnei + j]` is an index into the nall extended atoms or -1 for an
// empty slot. For a filled slot R = x_n - x_i (extended coordinates, so no periodic images here)
// and r = |R|, the raw row is (s, s x/r, s y/r, s z/r) with s = sw(r)/r and sw DeePMD's smooth
// switch between rcut_smth and rcut (C^2). The normalised row is (raw - davg[t_i]) / dstd[t_i];
// an empty slot has raw row 0, hence the coordinate-independent normalised row -davg/dstd
// (DeePMD's padding semantics, which the golden model test checks).
// em_deriv stores d(row)/d(x_i) = -d(row)/dR divided by dstd, laid out [nloc, nnei, 4, 3].
#pragma once

// The per-slot bodies (and smooth_switch) are in env_mat_slot.h, shared with the CUDA twins.
#include <cstdint>

#include "kernels/env_mat_slot.h"

namespace sampan::deepmd::kernels {

/// Forward: em [nloc, nnei*4], em_deriv [nloc, nnei*12], rij [nloc, nnei*3].
/// davg, dstd: [ntypes, nnei*4]; types: [nall] in [0, ntypes).
template <class T>
void prod_env_mat_a_cpu(const T* coord, const int64_t* types, const int64_t* nlist, const T* davg, const T* dstd,
                        int64_t nloc, int64_t nnei, T rcut, T rcut_smth, T* em, T* em_deriv, T* rij);

/// Backward of prod_env_mat_a given the gradients of its three outputs (any may be null = zero):
/// grad_coord [nall, 3], grad_davg and grad_dstd [ntypes, nnei*4] (all overwritten). Uses the
/// analytic Hessian of each row for the em_deriv gradient. em, em_deriv: the forward outputs.
template <class T>
void prod_env_mat_a_backward_cpu(const T* coord, const int64_t* types, const int64_t* nlist, const T* dstd,
                                 const T* em, const T* em_deriv, const T* grad_em, const T* grad_em_deriv,
                                 const T* grad_rij, int64_t nloc, int64_t nall, int64_t ntypes, int64_t nnei,
                                 T rcut, T rcut_smth, T* grad_coord, T* grad_davg, T* grad_dstd);

// ---- CUDA twins (env_mat_kernels.cu, compiled only where nvcc exists): the same contracts over
// device pointers, one thread per slot over the same per-slot functions. The backward scatters
// with atomicAdd, so its last bits may differ from the CPU's fixed order and between runs. ----
#if defined(SAMPAN_CUDA_KERNELS)
template <class T>
void prod_env_mat_a_cuda(const T* coord, const int64_t* types, const int64_t* nlist, const T* davg, const T* dstd,
                         int64_t nloc, int64_t nnei, T rcut, T rcut_smth, T* em, T* em_deriv, T* rij);
template <class T>
void prod_env_mat_a_backward_cuda(const T* coord, const int64_t* types, const int64_t* nlist, const T* dstd,
                                  const T* em, const T* em_deriv, const T* grad_em, const T* grad_em_deriv,
                                  const T* grad_rij, int64_t nloc, int64_t nall, int64_t ntypes, int64_t nnei,
                                  T rcut, T rcut_smth, T* grad_coord, T* grad_davg, T* grad_dstd);
#endif

}  // namespace sampan::deepmd::kernels
