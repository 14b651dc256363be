// Lennard-Jones kernels (formulas in lj_kernels.h).
#include "md/lj_kernels.h"

#include <cmath>
#include <cstring>

namespace sampan::deepmd::kernels {

int64_t lj_first_bad_pair(const int64_t* pairs, int64_t npairs, int64_t natoms) {
  for (int64_t p = 0; p < npairs; ++p)
    if (pairs[2 * p] < 0 || pairs[2 * p] >= natoms || pairs[2 * p + 1] < 0 || pairs[2 * p + 1] >= natoms) return p;
  return -1;
}

int64_t lj_first_bad_type(const int64_t* types, int64_t natoms, int64_t ntypes) {
  for (int64_t i = 0; i < natoms; ++i)
    if (types[i] < 0 || types[i] >= ntypes) return i;
  return -1;
}

namespace {
template <class T> inline T separation(const T* pos, const T* shifts, int64_t p, int64_t i, int64_t j, T d[3]) {
  T r2 = 0;
  for (int k = 0; k < 3; ++k) {
    d[k] = pos[3 * j + k] - pos[3 * i + k] + shifts[3 * p + k];
    r2 += d[k] * d[k];
  }
  return r2;
}
}  // namespace

template <class T>
void lj_energy_pairs(const T* pos, const int64_t* types, const int64_t* pairs, const T* shifts, int64_t npairs,
                     const LjTable& table, T* energy) {
  T e = 0;
  for (int64_t p = 0; p < npairs; ++p) {
    const int64_t i = pairs[2 * p], j = pairs[2 * p + 1];
    T d[3];
    e += lj_radial<T>(separation(pos, shifts, p, i, j, d), table, types[i], types[j]).u;
  }
  energy[0] = e;
}

template <class T>
void lj_gradients_pairs(const T* pos, int64_t natoms, const int64_t* types, const int64_t* pairs, const T* shifts,
                        int64_t npairs, const LjTable& table, T* grad_pos, T* grad_shifts) {
  if (grad_pos) std::memset(grad_pos, 0, sizeof(T) * static_cast<size_t>(3 * natoms));
  for (int64_t p = 0; p < npairs; ++p) {
    const int64_t i = pairs[2 * p], j = pairs[2 * p + 1];
    T d[3];
    const T g = lj_radial<T>(separation(pos, shifts, p, i, j, d), table, types[i], types[j]).g;
    for (int k = 0; k < 3; ++k) {
      const T q = g * d[k];  // dE/dd
      if (grad_shifts) grad_shifts[3 * p + k] = q;
      if (grad_pos) {
        grad_pos[3 * j + k] += q;
        grad_pos[3 * i + k] -= q;
      }
    }
  }
}

template <class T>
void lj_hvp_pairs(const T* pos, int64_t natoms, const int64_t* types, const int64_t* pairs, const T* shifts,
                  int64_t npairs, const LjTable& table, const T* v_pos, const T* v_shifts, T* h_pos, T* h_shifts) {
  if (h_pos) std::memset(h_pos, 0, sizeof(T) * static_cast<size_t>(3 * natoms));
  for (int64_t p = 0; p < npairs; ++p) {
    const int64_t i = pairs[2 * p], j = pairs[2 * p + 1];
    T d[3], D[3];
    const LjRadial<T> f = lj_radial<T>(separation(pos, shifts, p, i, j, d), table, types[i], types[j]);
    // D = J v: the change of d along (v_pos, v_shifts).
    for (int k = 0; k < 3; ++k) D[k] = v_pos[3 * j + k] - v_pos[3 * i + k] + (v_shifts ? v_shifts[3 * p + k] : T(0));
    const T dD = d[0] * D[0] + d[1] * D[1] + d[2] * D[2];
    for (int k = 0; k < 3; ++k) {
      const T q = f.g * D[k] + f.h * dD * d[k];  // Hessian of u over d applied to D; then J^T q
      if (h_shifts) h_shifts[3 * p + k] = q;
      if (h_pos) {
        h_pos[3 * j + k] += q;
        h_pos[3 * i + k] -= q;
      }
    }
  }
}

#define SAMPAN_LJ_INSTANTIATE(T)                                                                                   \
  template void lj_energy_pairs<T>(const T*, const int64_t*, const int64_t*, const T*, int64_t, const LjTable&, T*); \
  template void lj_gradients_pairs<T>(const T*, int64_t, const int64_t*, const int64_t*, const T*, int64_t,          \
                                      const LjTable&, T*, T*);                                                       \
  template void lj_hvp_pairs<T>(const T*, int64_t, const int64_t*, const int64_t*, const T*, int64_t, const LjTable&, \
                                const T*, const T*, T*, T*);
SAMPAN_LJ_INSTANTIATE(float)
SAMPAN_LJ_INSTANTIATE(double)
#undef SAMPAN_LJ_INSTANTIATE

}  // namespace sampan::deepmd::kernels
