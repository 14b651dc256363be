// se_e2_a force and virial kernels on the CPU (see prod_force_virial_kernels.h). The per-slot
// arithmetic is in prod_force_virial_slot.h, shared with the CUDA twins
// (prod_force_virial_kernels.cu); this file holds only the loops around it.
#include "kernels/prod_force_virial_kernels.h"

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace sampan::deepmd::kernels {

namespace {
// Slots per block: each block's per-slot terms are computed in parallel into a buffer that stays
// in cache, then added serially in slot order, so the sums have one fixed order at any thread
// count (a buffer over all slots, 122 MB of virial terms for 12,288 water atoms, cost more in
// page faults and memory traffic than the arithmetic).
constexpr int64_t kSlotBlock = 4096;

// term(slot, out[width]) for the slots of each block in parallel, then add(i, slot, out) in slot
// order, i the slot's centre.
template <class T, int width, class Term, class Add>
void in_slot_blocks(int64_t nloc, int64_t nnei, Term term, Add add) {
  const int64_t slots = nloc * nnei;
  std::vector<T> block(static_cast<size_t>(std::min(slots, kSlotBlock) * width));
  for (int64_t first = 0; first < slots; first += kSlotBlock) {
    const int64_t last = std::min(slots, first + kSlotBlock);
#pragma omp parallel for schedule(static) if (omp_get_max_threads() > 1)
    for (int64_t slot = first; slot < last; ++slot) term(slot, &block[(slot - first) * width]);
    int64_t i = first / nnei, j = first - i * nnei;
    for (int64_t slot = first; slot < last; ++slot) {
      add(i, slot, &block[(slot - first) * width]);
      if (++j == nnei) j = 0, ++i;
    }
  }
}
}  // namespace

template <class T>
void prod_force_se_a_cpu(const T* net_deriv, const T* em_deriv, const int64_t* nlist, int64_t nloc, int64_t nall,
                         int64_t nnei, T* force) {
  for (int64_t k = 0; k < nall * 3; ++k) force[k] = 0;
  in_slot_blocks<T, 3>(
      nloc, nnei, [&](int64_t slot, T* q) { force_slot_vector(net_deriv, em_deriv, slot, q); },
      [&](int64_t i, int64_t slot, const T* q) { scatter_force_slot(i, nlist[slot], q, force, PlainAdd{}); });
}

template <class T>
void prod_force_se_a_grad_cpu(const T* grad_force, const T* em_deriv, const int64_t* nlist, int64_t nloc,
                              int64_t nnei, T* grad_net) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < nloc; ++i)
    for (int64_t j = 0; j < nnei; ++j) prod_force_grad_slot(grad_force, em_deriv, nlist, i, i * nnei + j, grad_net);
}

template <class T>
void prod_virial_se_a_cpu(const T* net_deriv, const T* em_deriv, const T* rij, const int64_t* nlist, int64_t nloc,
                          int64_t nall, int64_t nnei, T* virial, T* atom_virial) {
  for (int k = 0; k < 9; ++k) virial[k] = 0;
  for (int64_t k = 0; k < nall * 9; ++k) atom_virial[k] = 0;
  in_slot_blocks<T, 9>(
      nloc, nnei,
      [&](int64_t slot, T* w) {
        if (nlist[slot] >= 0) virial_slot_tensor(net_deriv, em_deriv, rij, slot, w);
      },
      [&](int64_t, int64_t slot, const T* w) {
        if (nlist[slot] >= 0) scatter_virial_slot(nlist[slot], w, virial, atom_virial, PlainAdd{});
      });
}

template <class T>
void prod_virial_se_a_grad_cpu(const T* grad_virial, const T* grad_atom_virial, const T* em_deriv, const T* rij,
                               const int64_t* nlist, int64_t nloc, int64_t nnei, T* grad_net) {
#pragma omp parallel for schedule(static)
  for (int64_t slot = 0; slot < nloc * nnei; ++slot)
    prod_virial_grad_slot(grad_virial, grad_atom_virial, em_deriv, rij, nlist, slot, grad_net);
}

#define SAMPAN_DEEPMD_INSTANTIATE(T)                                                                                  \
  template void prod_force_se_a_cpu<T>(const T*, const T*, const int64_t*, int64_t, int64_t, int64_t, T*);           \
  template void prod_force_se_a_grad_cpu<T>(const T*, const T*, const int64_t*, int64_t, int64_t, T*);               \
  template void prod_virial_se_a_cpu<T>(const T*, const T*, const T*, const int64_t*, int64_t, int64_t, int64_t, T*, \
                                        T*);                                                                         \
  template void prod_virial_se_a_grad_cpu<T>(const T*, const T*, const T*, const T*, const int64_t*, int64_t, int64_t, \
                                             T*);
SAMPAN_DEEPMD_INSTANTIATE(float)
SAMPAN_DEEPMD_INSTANTIATE(double)
#undef SAMPAN_DEEPMD_INSTANTIATE

}  // namespace sampan::deepmd::kernels
