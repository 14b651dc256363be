// Lennard-Jones kernels (formulas in lj_kernels.h).
#include "md/lj_kernels.h"

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

void lj_full_list(const double* vectors, const int64_t* offsets, const int64_t* neighbors, int64_t natoms,
                  int64_t nlocal, const int* types, const LjTable& table, double* atom_energy, double* forces,
                  double* atom_virial) {
#pragma omp parallel for schedule(static) if (natoms >= 1024)
  for (int64_t i = 0; i < natoms; ++i) {
    double e = 0, f[3] = {0, 0, 0}, w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    const bool i_owned = i < nlocal;
    for (int64_t p = offsets[i]; p < offsets[i + 1]; ++p) {
      const double* d = vectors + 3 * p;
      const int64_t j = neighbors[p];
      const double weight = (i_owned ? 0.5 : 0.0) + (j < nlocal ? 0.5 : 0.0);
      if (weight == 0.0) continue;
      const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      const LjRadial<double> rad = lj_radial<double>(r2, table, types[i], types[j]);
      if (i_owned) e += 0.5 * rad.u;
      // Force on i: -dE/dx_i = +weight g d (d = x_j - x_i); virial of the pair -g d (x) d, half to i.
      const double wg = weight * rad.g, hg = 0.5 * wg;
      for (int a = 0; a < 3; ++a) {
        f[a] += wg * d[a];
        for (int b = a; b < 3; ++b) w[3 * a + b] -= hg * d[a] * d[b];
      }
    }
    if (atom_energy) atom_energy[i] = e;
    if (forces)
      for (int a = 0; a < 3; ++a) forces[3 * i + a] = f[a];
    if (atom_virial) {
      w[3] = w[1], w[6] = w[2], w[7] = w[5];  // symmetric: the lower triangle mirrors the upper
      for (int a = 0; a < 9; ++a) atom_virial[9 * i + a] = w[a];
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
