// Forces and virials of an se_e2_a model from dE/d(env matrix) (DeePMD-kit's ProdForceSeA,
// ProdVirialSeA and their gradient maps). Plain functions over pointers and sizes.
//
// net_deriv a [nloc, nnei*4] = dE/d em; em_deriv d [nloc, nnei, 4, 3] = d em / d x_i;
// rij R [nloc, nnei, 3] = x_n - x_i; nlist [nloc, nnei] (-1 = empty slot).
// Force:  F_i -= sum_q a d (centre), F_n += sum_q a d (neighbour n = nlist[i, j]); empty slots
// (n = -1) contribute nothing.
// Virial: W_ab = sum_{i,j,q} a d_a R_b (= -sum over pairs dE/dR_a R_b); the pair's term also goes
// to atom_virial[n] (the neighbour), DeePMD-kit's per-atom split.
#pragma once

// The per-slot bodies are in prod_force_virial_slot.h, shared with the CUDA twins.
#include <cstddef>
#include <cstdint>

#include "kernels/prod_force_virial_slot.h"

namespace sampan::deepmd::kernels {

/// force [nall, 3] (overwritten).
template <class T>
void prod_force_se_a_cpu(const T* net_deriv, const T* em_deriv, const int64_t* nlist, int64_t nloc, int64_t nall,
                         int64_t nnei, T* force);

/// The transpose of prod_force in net_deriv: grad_net [nloc, nnei*4] from grad_force [nall, 3]:
/// grad_net[i,j,q] = sum_b d[i,j,q,b] (g[n,b] - g[i,b]).
template <class T>
void prod_force_se_a_grad_cpu(const T* grad_force, const T* em_deriv, const int64_t* nlist, int64_t nloc,
                              int64_t nnei, T* grad_net);

/// virial [9] and atom_virial [nall, 9] (overwritten).
template <class T>
void prod_virial_se_a_cpu(const T* net_deriv, const T* em_deriv, const T* rij, const int64_t* nlist, int64_t nloc,
                          int64_t nall, int64_t nnei, T* virial, T* atom_virial);

/// The transpose of prod_virial in net_deriv: grad_net[i,j,q] = sum_ab G_ab d_a R_b with
/// G = grad_virial + grad_atom_virial[n] (grad_atom_virial may be null).
template <class T>
void prod_virial_se_a_grad_cpu(const T* grad_virial, const T* grad_atom_virial, const T* em_deriv, const T* rij,
                               const int64_t* nlist, int64_t nloc, int64_t nnei, T* grad_net);

// ---- CUDA twins (prod_force_virial_kernels.cu, compiled only where nvcc exists): the same
// contracts over device pointers, one thread per slot over the same per-slot functions. Forces
// and virials scatter with atomicAdd, so their last bits may differ from the CPU's fixed order and
// between runs; the two gradient maps gather only and are deterministic. ----
#if defined(SAMPAN_CUDA_KERNELS)
template <class T>
void prod_force_se_a_cuda(const T* net_deriv, const T* em_deriv, const int64_t* nlist, int64_t nloc, int64_t nall,
                          int64_t nnei, T* force);
template <class T>
void prod_force_se_a_grad_cuda(const T* grad_force, const T* em_deriv, const int64_t* nlist, int64_t nloc,
                               int64_t nnei, T* grad_net);
template <class T>
void prod_virial_se_a_cuda(const T* net_deriv, const T* em_deriv, const T* rij, const int64_t* nlist, int64_t nloc,
                           int64_t nall, int64_t nnei, T* virial, T* atom_virial);
template <class T>
void prod_virial_se_a_grad_cuda(const T* grad_virial, const T* grad_atom_virial, const T* em_deriv, const T* rij,
                                const int64_t* nlist, int64_t nloc, int64_t nnei, T* grad_net);

/// Index of the first value outside [lo, hi), or -1 (the op layer's nlist and atype checks).
int64_t first_outside_range_cuda(const int64_t* values, int64_t n, int64_t lo, int64_t hi);
/// Copies `nbytes` from device to host (the op layer checks dstd for zeros on the host).
void copy_to_host_cuda(void* host, const void* device, size_t nbytes);
#endif

}  // namespace sampan::deepmd::kernels
