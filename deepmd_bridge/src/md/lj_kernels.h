// Lennard-Jones kernels: plain functions over pointers (no Tensor), used by the ops
// deepmd::lj_energy / deepmd::lj_gradients (over a pair list) and by the LennardJones Potential
// (over a full neighbour list with separation vectors).
//
// Pair potential between types a and b (LAMMPS pair_style lj/cut, `units metal`: eV and Å):
//   u(r) = 4 eps_ab [(sigma_ab / r)^12 - (sigma_ab / r)^6] - shift_ab   for r < rcut, else 0,
//   shift_ab = u_unshifted(rcut) when energy shifting is on (LAMMPS pair_modify shift yes), else 0.
// With r the length of d = x_j - x_i + s (s: the pair's Cartesian image shift), everything is a
// function of r^2:
//   g = u'(r) / r = -24 eps (2 s12 - s6) / r^2        s6 = (sigma^2 / r^2)^3, s12 = s6^2
//   h = g'(r) / r = 96 eps (7 s12 - 2 s6) / r^4
// so dE/dd = g d, and the Hessian of u over d applied to D is g D + h (d . D) d.
#pragma once

#include <cstdint>
#include <vector>

namespace sampan::deepmd::kernels {

/// Per-type-pair parameters: eps and sigma are [ntypes, ntypes] row-major (eV, Å), symmetric.
struct LjTable {
  int64_t ntypes;
  const double* eps;
  const double* sigma;
  double rcut;
  bool shift;
};

template <class T> struct LjRadial {
  T u, g, h;
};

/// u, g, h at squared distance r2 for the type pair (a, b); zeros at or beyond rcut.
template <class T> inline LjRadial<T> lj_radial(T r2, const LjTable& t, int64_t a, int64_t b) {
  LjRadial<T> f{0, 0, 0};
  const T rc = static_cast<T>(t.rcut);
  if (r2 >= rc * rc) return f;
  const T eps = static_cast<T>(t.eps[a * t.ntypes + b]), sigma = static_cast<T>(t.sigma[a * t.ntypes + b]);
  const T inv_r2 = T(1) / r2;
  const T s2 = sigma * sigma * inv_r2;
  const T s6 = s2 * s2 * s2, s12 = s6 * s6;
  f.u = T(4) * eps * (s12 - s6);
  if (t.shift) {
    const T c2 = sigma * sigma / (rc * rc);
    const T c6 = c2 * c2 * c2;
    f.u -= T(4) * eps * (c6 * c6 - c6);
  }
  f.g = T(-24) * eps * (T(2) * s12 - s6) * inv_r2;
  f.h = T(96) * eps * (T(7) * s12 - T(2) * s6) * inv_r2 * inv_r2;
  return f;
}

// ---- Over a pair list: pos [natoms, 3], types [natoms], pairs [npairs, 2] (each unordered pair
// once), shifts [npairs, 3] Cartesian (d = pos[j] - pos[i] + shifts[p]). T = float or double.
// Sums run serially in pair order, so results are bitwise reproducible. ----

/// Index of the first pair with an atom index outside [0, natoms), or -1.
int64_t lj_first_bad_pair(const int64_t* pairs, int64_t npairs, int64_t natoms);
/// Index of the first atom whose type lies outside [0, ntypes), or -1.
int64_t lj_first_bad_type(const int64_t* types, int64_t natoms, int64_t ntypes);

/// energy[0] = sum over pairs of u.
template <class T>
void lj_energy_pairs(const T* pos, const int64_t* types, const int64_t* pairs, const T* shifts, int64_t npairs,
                     const LjTable& table, T* energy);

/// grad_pos = dE/dpos [natoms, 3] and grad_shifts = dE/dshifts [npairs, 3] (either may be null).
template <class T>
void lj_gradients_pairs(const T* pos, int64_t natoms, const int64_t* types, const int64_t* pairs, const T* shifts,
                        int64_t npairs, const LjTable& table, T* grad_pos, T* grad_shifts);

/// (h_pos, h_shifts) = Hessian of E over (pos, shifts) applied to (v_pos, v_shifts).
template <class T>
void lj_hvp_pairs(const T* pos, int64_t natoms, const int64_t* types, const int64_t* pairs, const T* shifts,
                  int64_t npairs, const LjTable& table, const T* v_pos, const T* v_shifts, T* h_pos, T* h_shifts);

// ---- The MD path: a half list in ghost form (md/ghost_list.h: periodic images are explicit ghost
// atoms, neighbours are 4-byte extended indices), LAMMPS's coefficient form (lj1 = 48 eps
// sigma^12, lj2 = 24 eps sigma^6, lj3 = 4 eps sigma^12, lj4 = 4 eps sigma^6, per type pair, so no
// power or division beyond 1/r^2 per pair). The pairs of a row are evaluated in SIMD lanes (a
// clone per instruction set) and their forces on j added in row order after; rows are split over
// OpenMP threads in chunks, each thread with its own force rows, summed in thread order. So the
// bits depend on the thread count and the CPU's vector width, and nothing else.
//
// A pair weighs weight[i] + weight[j] with weight = 1/2 for owned atoms and 0 for the others (weight null: every
// atom owned, every pair weighs 1), so E sums the atomic energies e_i = 1/2 sum_j u_ij of the
// owned atoms. f_ext [nextended, 3] = -dE/dx_ext (overwritten); virial [9] (may be null) = sum
// over pairs of weight * d (x) f_j. Energy and virial are tallied only when asked for (as LAMMPS's
// eflag / vflag), in a pass of their own: a step that needs neither skips their arithmetic, and
// the forces are the same bits either way. ----
struct LjCoefficients {
  int64_t ntypes = 0;
  std::vector<double> lj1, lj2, lj3, lj4, offset, cutsq;  // [ntypes * ntypes]
  explicit LjCoefficients(const LjTable& t);
};

/// Buffers reused from call to call (per-thread force rows, per-row pair forces).
struct LjScratch {
  std::vector<std::vector<double>> thread_forces;
  std::vector<std::vector<double>> row_forces;
};

struct LjGhostedPairs {
  const double* x_ext;      // [nextended, 3]
  const int* types_ext;     // [nextended]
  int64_t nextended;
  int64_t natoms;           // rows: the first natoms extended atoms
  const int64_t* offsets;   // [natoms + 1]
  const int32_t* neighbors; // extended indices
  int64_t max_row;
  const double* weight;     // [nextended] 0.5 owned / 0 not, or null (all owned)
};

void lj_ghosted_pairs(const LjGhostedPairs& pairs, const LjCoefficients& c, double* energy, double* f_ext,
                      double* virial, LjScratch& scratch);

}  // namespace sampan::deepmd::kernels
