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

LjCoefficients::LjCoefficients(const LjTable& t) : ntypes(t.ntypes) {
  const size_t n = static_cast<size_t>(t.ntypes * t.ntypes);
  lj1.resize(n), lj2.resize(n), lj3.resize(n), lj4.resize(n), offset.resize(n), cutsq.resize(n);
  for (size_t k = 0; k < n; ++k) {
    const double s6 = std::pow(t.sigma[k], 6.0);
    lj1[k] = 48.0 * t.eps[k] * s6 * s6;
    lj2[k] = 24.0 * t.eps[k] * s6;
    lj3[k] = 4.0 * t.eps[k] * s6 * s6;
    lj4[k] = 4.0 * t.eps[k] * s6;
    const double ratio = t.sigma[k] / t.rcut;
    offset[k] = t.shift ? 4.0 * t.eps[k] * (std::pow(ratio, 12.0) - std::pow(ratio, 6.0)) : 0.0;
    cutsq[k] = t.rcut * t.rcut;
  }
}

namespace {
// kAllOwned: nlocal == natoms, every pair weighs 1 (the common case, without the weight logic).
template <bool kAllOwned>
void lj_half_list_impl(const double* x, const double* cell, const int64_t* offsets, const int64_t* neighbors,
                       const int32_t* shifts, int64_t natoms, int64_t nlocal, const int* types,
                       const LjCoefficients& c, double* energy, double* forces, double* virial) {
  std::memset(forces, 0, sizeof(double) * static_cast<size_t>(3 * natoms));
  double e = 0, w[6] = {0, 0, 0, 0, 0, 0};  // xx yy zz xy xz yz
  for (int64_t i = 0; i < natoms; ++i) {
    const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    const bool i_owned = i < nlocal;
    const int64_t row = types[i] * c.ntypes;
    double fx = 0, fy = 0, fz = 0;
    for (int64_t p = offsets[i]; p < offsets[i + 1]; ++p) {
      const int64_t j = neighbors[p];
      double weight = 1.0;
      if (!kAllOwned) {
        weight = (i_owned ? 0.5 : 0.0) + (j < nlocal ? 0.5 : 0.0);
        if (weight == 0.0) continue;
      }
      double dx = x[3 * j] - xi, dy = x[3 * j + 1] - yi, dz = x[3 * j + 2] - zi;
      const int32_t* n = shifts + 3 * p;
      if (n[0] | n[1] | n[2]) {  // most pairs are in the same image
        dx += n[0] * cell[0] + n[1] * cell[3] + n[2] * cell[6];
        dy += n[0] * cell[1] + n[1] * cell[4] + n[2] * cell[7];
        dz += n[0] * cell[2] + n[1] * cell[5] + n[2] * cell[8];
      }
      const double r2 = dx * dx + dy * dy + dz * dz;
      const int64_t k = row + types[j];
      if (r2 >= c.cutsq[k]) continue;
      const double r2inv = 1.0 / r2;
      const double r6inv = r2inv * r2inv * r2inv;
      // fpair = -u'(r)/r: the force on j is fpair * d, on i minus that.
      double fpair = r6inv * (c.lj1[k] * r6inv - c.lj2[k]) * r2inv;
      double u = r6inv * (c.lj3[k] * r6inv - c.lj4[k]) - c.offset[k];
      if (!kAllOwned) fpair *= weight, u *= weight;
      e += u;
      fx -= dx * fpair, fy -= dy * fpair, fz -= dz * fpair;
      forces[3 * j] += dx * fpair, forces[3 * j + 1] += dy * fpair, forces[3 * j + 2] += dz * fpair;
      w[0] += dx * dx * fpair, w[1] += dy * dy * fpair, w[2] += dz * dz * fpair;
      w[3] += dx * dy * fpair, w[4] += dx * dz * fpair, w[5] += dy * dz * fpair;
    }
    forces[3 * i] += fx, forces[3 * i + 1] += fy, forces[3 * i + 2] += fz;
  }
  if (energy) *energy = e;
  if (virial) {
    virial[0] = w[0], virial[4] = w[1], virial[8] = w[2];
    virial[1] = virial[3] = w[3], virial[2] = virial[6] = w[4], virial[5] = virial[7] = w[5];
  }
}
}  // namespace

void lj_half_list(const double* x, const double* cell, const int64_t* offsets, const int64_t* neighbors,
                  const int32_t* shifts, int64_t natoms, int64_t nlocal, const int* types, const LjCoefficients& c,
                  double* energy, double* forces, double* virial) {
  if (nlocal >= natoms)
    lj_half_list_impl<true>(x, cell, offsets, neighbors, shifts, natoms, nlocal, types, c, energy, forces, virial);
  else
    lj_half_list_impl<false>(x, cell, offsets, neighbors, shifts, natoms, nlocal, types, c, energy, forces, virial);
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
