// The MD pair loop of the Lennard-Jones potential over a ghosted half list (lj_kernels.h).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "md/lj_kernels.h"

namespace sampan::deepmd::kernels {

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

constexpr int64_t kRowChunk = 64;        // rows per scheduling chunk (half-list rows vary in length)
constexpr int64_t kParallelAtoms = 2048;  // below this, threads cost more than they save

// Energy and the six virial components (xx yy zz xy xz yz).
struct Tally {
  double e = 0, w[6] = {0, 0, 0, 0, 0, 0};
};

// The pair terms of one row shared by both passes: separation, fpair = -u'(r)/r (the force on j
// is fpair * d, on i minus that; 0 beyond the cutoff or for a pair of weight 0) and the weight.
struct PairTerms {
  double dx, dy, dz, r6inv, fpair, wij;
  bool inside;
};
template <bool kWeighted, bool kOneType>
inline __attribute__((always_inline)) PairTerms pair_terms(const LjGhostedPairs& a, const LjCoefficients& c,
                                                           double xi, double yi, double zi, int64_t row, double wi,
                                                           int64_t j, int64_t& k) {
  const double* x = a.x_ext;
  PairTerms t;
  t.dx = x[3 * j] - xi, t.dy = x[3 * j + 1] - yi, t.dz = x[3 * j + 2] - zi;
  const double r2 = t.dx * t.dx + t.dy * t.dy + t.dz * t.dz;
  k = kOneType ? 0 : row + a.types_ext[j];
  const double r2inv = 1.0 / r2;
  t.r6inv = r2inv * r2inv * r2inv;
  const double fpair = t.r6inv * (c.lj1[k] * t.r6inv - c.lj2[k]) * r2inv;
  t.inside = r2 < c.cutsq[k];
  t.wij = 1.0;
  if (kWeighted) {
    t.wij = wi + a.weight[j];
    t.inside = t.inside && t.wij != 0.0;
  }
  t.fpair = t.inside ? (kWeighted ? fpair * t.wij : fpair) : 0.0;
  return t;
}

// Rows [i0, i1) into the force rows f (accumulated). kWeighted: pairs weigh weight[i] + weight[j];
// kOneType: one type pair (coefficients are scalars). With `tally`, a second pass over each row
// sums energy and virial into t: the force pass is the same code on every step, so skipping the
// tally never changes a force bit (and a step without output pays nothing for it).
template <bool kWeighted, bool kOneType>
inline __attribute__((always_inline)) void rows_body(const LjGhostedPairs& a, const LjCoefficients& c, int64_t i0,
                                                     int64_t i1, bool tally, double* f, double* rf, Tally& t) {
  const double* x = a.x_ext;
  double* rx = rf;
  double* ry = rf + a.max_row;
  double* rz = rf + 2 * a.max_row;
  for (int64_t i = i0; i < i1; ++i) {
    const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    const int64_t row = kOneType ? 0 : a.types_ext[i] * c.ntypes;
    const double wi = kWeighted ? a.weight[i] : 0.0;
    const int32_t* nb = a.neighbors + a.offsets[i];
    const int64_t len = a.offsets[i + 1] - a.offsets[i];
    double fx = 0, fy = 0, fz = 0;
#pragma omp simd reduction(+ : fx, fy, fz)
    for (int64_t q = 0; q < len; ++q) {
      int64_t k;
      const PairTerms p = pair_terms<kWeighted, kOneType>(a, c, xi, yi, zi, row, wi, nb[q], k);
      rx[q] = p.dx * p.fpair, ry[q] = p.dy * p.fpair, rz[q] = p.dz * p.fpair;
      fx -= rx[q], fy -= ry[q], fz -= rz[q];
    }
    for (int64_t q = 0; q < len; ++q) {  // the j of a row are distinct, but lanes cannot scatter-add
      double* fj = f + 3 * static_cast<int64_t>(nb[q]);
      fj[0] += rx[q], fj[1] += ry[q], fj[2] += rz[q];
    }
    f[3 * i] += fx, f[3 * i + 1] += fy, f[3 * i + 2] += fz;
    if (!tally) continue;
    double e = 0, w0 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0, w5 = 0;
#pragma omp simd reduction(+ : e, w0, w1, w2, w3, w4, w5)
    for (int64_t q = 0; q < len; ++q) {
      int64_t k;
      const PairTerms p = pair_terms<kWeighted, kOneType>(a, c, xi, yi, zi, row, wi, nb[q], k);
      const double u = p.r6inv * (c.lj3[k] * p.r6inv - c.lj4[k]) - c.offset[k];
      e += p.inside ? (kWeighted ? u * p.wij : u) : 0.0;
      w0 += p.dx * p.dx * p.fpair, w1 += p.dy * p.dy * p.fpair, w2 += p.dz * p.dz * p.fpair;
      w3 += p.dx * p.dy * p.fpair, w4 += p.dx * p.dz * p.fpair, w5 += p.dy * p.dz * p.fpair;
    }
    t.e += e;
    t.w[0] += w0, t.w[1] += w1, t.w[2] += w2, t.w[3] += w3, t.w[4] += w4, t.w[5] += w5;
  }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void lj_rows(const LjGhostedPairs& a,
                                                                          const LjCoefficients& c, int64_t i0,
                                                                          int64_t i1, bool tally, double* f,
                                                                          double* rf, Tally& t) {
  const int variant = (a.weight ? 2 : 0) | (c.ntypes == 1 ? 1 : 0);
  switch (variant) {
    case 0: rows_body<false, false>(a, c, i0, i1, tally, f, rf, t); break;
    case 1: rows_body<false, true>(a, c, i0, i1, tally, f, rf, t); break;
    case 2: rows_body<true, false>(a, c, i0, i1, tally, f, rf, t); break;
    default: rows_body<true, true>(a, c, i0, i1, tally, f, rf, t); break;
  }
}

}  // namespace

void lj_ghosted_pairs(const LjGhostedPairs& a, const LjCoefficients& c, double* energy, double* f_ext, double* virial,
                      LjScratch& s) {
  const size_t nf = static_cast<size_t>(3 * a.nextended);
  std::memset(f_ext, 0, sizeof(double) * nf);
  const bool tally = energy || virial;
  const int nthreads = a.natoms >= kParallelAtoms ? std::max(1, omp_get_max_threads()) : 1;
  if (s.thread_forces.size() < static_cast<size_t>(nthreads)) s.thread_forces.resize(static_cast<size_t>(nthreads));
  if (s.row_forces.size() < static_cast<size_t>(nthreads)) s.row_forces.resize(static_cast<size_t>(nthreads));
  std::vector<Tally> tallies(static_cast<size_t>(nthreads));
  const int64_t chunks = (a.natoms + kRowChunk - 1) / kRowChunk;
#pragma omp parallel num_threads(nthreads) if (nthreads > 1)
  {
    const int tid = omp_get_thread_num();
    std::vector<double>& rf = s.row_forces[static_cast<size_t>(tid)];
    if (rf.size() < static_cast<size_t>(3 * a.max_row)) rf.resize(static_cast<size_t>(3 * a.max_row));
    double* f = f_ext;  // thread 0 accumulates into the output itself
    if (tid > 0) {
      std::vector<double>& mine = s.thread_forces[static_cast<size_t>(tid)];
      mine.assign(nf, 0.0);
      f = mine.data();
    }
    Tally& t = tallies[static_cast<size_t>(tid)];
    // Chunks dealt round robin: the same rows to the same thread for a given thread count.
#pragma omp for schedule(static, 1)
    for (int64_t ch = 0; ch < chunks; ++ch)
      lj_rows(a, c, ch * kRowChunk, std::min(a.natoms, (ch + 1) * kRowChunk), tally, f, rf.data(), t);
    // Then the other threads' rows added in thread order, each thread summing a range of entries.
    if (nthreads > 1) {
#pragma omp for schedule(static)
      for (int64_t k = 0; k < static_cast<int64_t>(nf); ++k) {
        double sum = f_ext[k];
        for (int u = 1; u < nthreads; ++u) sum += s.thread_forces[static_cast<size_t>(u)][static_cast<size_t>(k)];
        f_ext[k] = sum;
      }
    }
  }
  Tally total;
  for (const Tally& t : tallies) {
    total.e += t.e;
    for (int m = 0; m < 6; ++m) total.w[m] += t.w[m];
  }
  if (energy) *energy = total.e;
  if (virial) {
    const double* w = total.w;
    virial[0] = w[0], virial[4] = w[1], virial[8] = w[2];
    virial[1] = virial[3] = w[3], virial[2] = virial[6] = w[4], virial[5] = virial[7] = w[5];
  }
}

}  // namespace sampan::deepmd::kernels
