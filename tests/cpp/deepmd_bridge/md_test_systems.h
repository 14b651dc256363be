// Small test systems for the MD tests: perturbed fcc argon-like crystals and liquids in
// orthorhombic or triclinic boxes, reproducible from a seed.
#pragma once

#include <random>
#include <vector>

#include "sampan/deepmd/neighbor_list.h"

namespace md_test {

struct System {
  sampan::deepmd::Box box;
  std::vector<double> positions;  // [N, 3] Å
  std::vector<int> types;
  std::vector<double> masses;     // per type, amu
  int64_t natoms() const { return static_cast<int64_t>(types.size()); }
};

/// n x n x n fcc cells of lattice constant a (Å), the box tilted by (xy, xz, yz) (LAMMPS's
/// restricted triclinic form), atoms displaced uniformly by up to `jitter` Å. Every third atom is
/// type 1 when two_types, else all are type 0.
inline System fcc(int n, double a, double xy, double xz, double yz, double jitter, bool two_types, uint64_t seed) {
  System s;
  const double L = n * a;
  const double cell[9] = {L, 0, 0, xy, L, 0, xz, yz, L};
  s.box = sampan::deepmd::Box::triclinic(cell);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-jitter, jitter);
  const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  int64_t count = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k)
        for (auto& b : basis) {
          double f[3] = {(i + b[0]) / n, (j + b[1]) / n, (k + b[2]) / n};
          for (int d = 0; d < 3; ++d)
            s.positions.push_back(f[0] * cell[d] + f[1] * cell[3 + d] + f[2] * cell[6 + d] + u(rng));
          s.types.push_back(two_types && count % 3 == 0 ? 1 : 0);
          ++count;
        }
  s.masses = two_types ? std::vector<double>{39.948, 83.798} : std::vector<double>{39.948};
  return s;
}

}  // namespace md_test
