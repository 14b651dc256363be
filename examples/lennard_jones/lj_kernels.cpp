// Lennard-Jones CPU kernels (see lj_kernels.h for the formulas and the contracts).
//
// Every pass has two phases: a per-pair phase, in parallel with OpenMP, that writes one small
// vector per pair into a buffer, and a serial phase that sums those into atoms and the box in
// pair order. The expensive arithmetic is parallel, the sums are in a fixed order, so results are
// bit-identical from run to run whatever the thread count (check_op tests determinism).
#include "lj_kernels.h"

#include <algorithm>
#include <vector>

namespace lj {

namespace {

// Below this many pairs a parallel region costs more than it saves.
constexpr int64_t kParallelPairs = 4096;

// Computes q = pair_vector(i, j, d, n, r2) for every pair, then writes the J^T map of those
// vectors: out_pos = sign * (sum_p q at j minus q at i) and out_box = sum_p -n * q (both are
// zeroed first; either may be null).
template <class T, class PairVector>
void apply_pair_jacobian_transpose(const T* pos, int64_t natoms, const int64_t* pairs, int64_t npairs,
                                   const T* box, PairVector pair_vector, T sign, T* out_pos, T* out_box) {
  std::vector<T> q(static_cast<size_t>(3 * npairs)), image(static_cast<size_t>(3 * npairs));
#pragma omp parallel for schedule(static) if (npairs > kParallelPairs)
  for (int64_t p = 0; p < npairs; ++p) {
    const int64_t i = pairs[2 * p], j = pairs[2 * p + 1];
    T d[3], n[3];
    const T r2 = separation(pos, i, j, box, d, n);
    pair_vector(i, j, d, n, r2, &q[3 * p]);
    for (int k = 0; k < 3; ++k) image[3 * p + k] = n[k];
  }
  if (out_pos) std::fill(out_pos, out_pos + 3 * natoms, T(0));
  T box_acc[3] = {0, 0, 0};
  for (int64_t p = 0; p < npairs; ++p) {
    const int64_t i = pairs[2 * p], j = pairs[2 * p + 1];
    for (int k = 0; k < 3; ++k) {
      const T v = q[3 * p + k];
      if (out_pos) {
        out_pos[3 * j + k] += sign * v;
        out_pos[3 * i + k] -= sign * v;
      }
      box_acc[k] -= image[3 * p + k] * v;
    }
  }
  if (out_box)
    for (int k = 0; k < 3; ++k) out_box[k] = box_acc[k];
}

}  // namespace

int64_t first_bad_pair_cpu(const int64_t* pairs, int64_t npairs, int64_t natoms) {
  for (int64_t p = 0; p < npairs; ++p) {
    const int64_t i = pairs[2 * p], j = pairs[2 * p + 1];
    if (i < 0 || i >= natoms || j < 0 || j >= natoms || i == j) return p;
  }
  return -1;
}

template <class T>
void energy_cpu(const T* pos, const int64_t* pairs, int64_t npairs, const T* box, Params<T> p, T* energy) {
  // Fixed blocks summed in order: the result does not depend on the number of threads. The sum
  // runs in double also for float32 positions (a large system's energy loses digits otherwise).
  constexpr int64_t kBlock = 2048;
  const int64_t nblocks = (npairs + kBlock - 1) / kBlock;
  std::vector<double> partial(static_cast<size_t>(nblocks), 0.0);
#pragma omp parallel for schedule(static) if (npairs > kParallelPairs)
  for (int64_t b = 0; b < nblocks; ++b) {
    double e = 0;
    const int64_t end = std::min(npairs, (b + 1) * kBlock);
    for (int64_t q = b * kBlock; q < end; ++q) {
      T d[3], n[3];
      e += radial(separation(pos, pairs[2 * q], pairs[2 * q + 1], box, d, n), p).u;
    }
    partial[static_cast<size_t>(b)] = e;
  }
  double total = 0;
  for (double e : partial) total += e;
  energy[0] = static_cast<T>(total);
}

template <class T>
void forces_cpu(const T* pos, int64_t natoms, const int64_t* pairs, int64_t npairs, const T* box,
                Params<T> p, T* forces, T* box_grad) {
  // dE/dd = g d per pair; forces are minus its J^T image on the atoms.
  auto pair_vector = [&](int64_t, int64_t, const T* d, const T*, T r2, T* q) {
    const T g = radial(r2, p).g;
    for (int k = 0; k < 3; ++k) q[k] = g * d[k];
  };
  apply_pair_jacobian_transpose(pos, natoms, pairs, npairs, box, pair_vector, T(-1), forces, box_grad);
}

template <class T>
void hvp_cpu(const T* pos, int64_t natoms, const int64_t* pairs, int64_t npairs, const T* box,
             Params<T> p, const T* v_pos, const T* v_box, T* h_pos, T* h_box) {
  // Hessian of u(|d|) over d: g I + h d d^T.
  auto pair_vector = [&](int64_t i, int64_t j, const T* d, const T* n, T r2, T* q) {
    const Radial<T> f = radial(r2, p);
    T D[3];
    direction(v_pos, v_box, i, j, n, D);
    const T dD = dot3(d, D);
    for (int k = 0; k < 3; ++k) q[k] = f.g * D[k] + f.h * dD * d[k];
  };
  apply_pair_jacobian_transpose(pos, natoms, pairs, npairs, box, pair_vector, T(1), h_pos, h_box);
}

template <class T>
void third_cpu(const T* pos, int64_t natoms, const int64_t* pairs, int64_t npairs, const T* box,
               Params<T> p, const T* v_pos, const T* v_box, const T* c_pos, const T* c_box,
               T* t_pos, T* t_box) {
  // Gradient over d of C^T (g I + h d d^T) D.
  auto pair_vector = [&](int64_t i, int64_t j, const T* d, const T* n, T r2, T* q) {
    const Radial<T> f = radial(r2, p);
    T D[3], C[3];
    direction(v_pos, v_box, i, j, n, D);
    direction(c_pos, c_box, i, j, n, C);
    const T dD = dot3(d, D), dC = dot3(d, C), CD = dot3(C, D);
    for (int k = 0; k < 3; ++k)
      q[k] = (f.h * CD + f.k * dC * dD) * d[k] + f.h * (dD * C[k] + dC * D[k]);
  };
  apply_pair_jacobian_transpose(pos, natoms, pairs, npairs, box, pair_vector, T(1), t_pos, t_box);
}

#define LJ_INSTANTIATE(T)                                                                          \
  template void energy_cpu<T>(const T*, const int64_t*, int64_t, const T*, Params<T>, T*);         \
  template void forces_cpu<T>(const T*, int64_t, const int64_t*, int64_t, const T*, Params<T>, T*, \
                              T*);                                                                 \
  template void hvp_cpu<T>(const T*, int64_t, const int64_t*, int64_t, const T*, Params<T>,        \
                           const T*, const T*, T*, T*);                                            \
  template void third_cpu<T>(const T*, int64_t, const int64_t*, int64_t, const T*, Params<T>,      \
                             const T*, const T*, const T*, const T*, T*, T*);
LJ_INSTANTIATE(float)
LJ_INSTANTIATE(double)
#undef LJ_INSTANTIATE

}  // namespace lj
