// Model deviation of an ensemble in the LAMMPS pair style: DeePMD-kit's definitions, the same
// as python/sampan/deepmd/model_devi.py (tests/python/test_deepmd_model_devi.py checks that the
// two give the same numbers). With k over the K models and std the population standard deviation:
//   force, atom i: e_i = sqrt(sum_xyz std_k(F_i)^2); max/min/avg over the atoms;
//   virial / natoms: s_c = std_k(W_c / N) for the 9 components; max, min, sqrt(mean_c s_c^2).
// The file has the 7 columns of DeePMD-kit's pair_style deepmd (no devi_e).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace sampan::deepmd::lammps {

inline constexpr const char* kModelDeviColumns[] = {"step",       "max_devi_v", "min_devi_v", "avg_devi_v",
                                                     "max_devi_f", "min_devi_f", "avg_devi_f"};

/// e_i of one atom from its K forces, stored as f[3 * k + c].
inline double atom_force_deviation(const double* f, int nmodels) {
  double total = 0;
  for (int c = 0; c < 3; ++c) {
    double mean = 0;
    for (int k = 0; k < nmodels; ++k) mean += f[3 * k + c];
    mean /= nmodels;
    for (int k = 0; k < nmodels; ++k) total += (f[3 * k + c] - mean) * (f[3 * k + c] - mean);
  }
  return std::sqrt(total / nmodels);
}

struct Deviation {
  double max = 0, min = std::numeric_limits<double>::infinity(), avg = 0;
};

/// The virial columns from the K virials per atom, stored as w[9 * k + c].
inline Deviation virial_deviation(const double* w, int nmodels) {
  Deviation d;
  double squares = 0;
  for (int c = 0; c < 9; ++c) {
    double mean = 0, var = 0;
    for (int k = 0; k < nmodels; ++k) mean += w[9 * k + c];
    mean /= nmodels;
    for (int k = 0; k < nmodels; ++k) var += (w[9 * k + c] - mean) * (w[9 * k + c] - mean);
    const double s = std::sqrt(var / nmodels);
    d.max = std::max(d.max, s);
    d.min = std::min(d.min, s);
    squares += s * s;
  }
  d.avg = std::sqrt(squares / 9);
  return d;
}

inline std::string model_devi_header() {
  char buf[64];
  std::string line = "#";
  std::snprintf(buf, sizeof buf, "%11s", kModelDeviColumns[0]);
  line += buf;
  for (int c = 1; c < 7; ++c) {
    std::snprintf(buf, sizeof buf, "%19s", kModelDeviColumns[c]);
    line += buf;
  }
  return line + "\n";
}

/// One row: the step in 12 characters, each value %19.6e (the layout of model_devi.py).
inline std::string model_devi_row(long long step, const Deviation& v, const Deviation& f) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%12lld%19.6e%19.6e%19.6e%19.6e%19.6e%19.6e\n", step, v.max, v.min, v.avg, f.max,
                f.min, f.avg);
  return buf;
}

}  // namespace sampan::deepmd::lammps
