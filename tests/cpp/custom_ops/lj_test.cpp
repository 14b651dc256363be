// The Lennard-Jones example op library (examples/lennard_jones), loaded the way a user
// loads theirs: load_op_library on the shared object that sampan_add_op_library built. check_op
// on all four ops (first and second order), then physics: the analytic two-atom energy, forces
// against finite differences of the energy, Newton's third law, periodic images, the box
// gradient against the virial, double backward through forces, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include "lj_op.h"
#include "sampan/autograd.h"
#include "sampan/op_library.h"
#include "sampan/ops.h"
#include "sampan/testing/check_op.h"
#include "../thrown_message.h"

#ifndef SAMPAN_LJ_LIBRARY
#error "SAMPAN_LJ_LIBRARY (path of libsampan_lj.so) is defined by examples/lennard_jones/CMakeLists.txt"
#endif

using namespace sampan;
using sampan::test::thrown_message;

namespace {

// Loads the library once per process (a second dlopen of the same file registers nothing).
const std::vector<std::string>& lj_library_ops() {
  static const std::vector<std::string> ops = load_op_library(SAMPAN_LJ_LIBRARY);
  return ops;
}

class LennardJones : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(lj_library_ops().size(), 4u); }
};

Tensor int_pairs(const std::vector<int64_t>& flat) {
  Tensor t = Tensor::empty({static_cast<int64_t>(flat.size() / 2), 2}, DType::Int64);
  std::copy(flat.begin(), flat.end(), t.data<int64_t>());
  return t;
}

Tensor all_pairs(int64_t n) {
  std::vector<int64_t> flat;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      flat.push_back(i);
      flat.push_back(j);
    }
  return int_pairs(flat);
}

// Six atoms in a 5.0 x 5.5 x 6.0 box: 11 of the 15 pairs within rcut = 2.4, 8 of them through
// the periodic boundary (in all three directions); no distance within 0.15 of rcut and none
// below 1.05 sigma, so finite differences are smooth.
constexpr double kEps = 1.0, kSigma = 1.0, kRcut = 2.4;
Tensor sample_pos() {
  return from_vector({3.26, 5.12, 5.22, 3.76, 1.27, 0.17, 3.00, 1.19, 5.13,
                      4.46, 0.85, 4.50, 0.40, 1.61, 4.04, 3.82, 0.60, 3.29},
                     {6, 3});
}
Tensor sample_box() { return from_vector({5.0, 5.5, 6.0}, {3}); }

// A jittered simple-cubic lattice of n^3 atoms with spacing a (a liquid-like configuration).
Tensor lattice(int n, double a, double jitter, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-jitter, jitter);
  std::vector<double> v;
  for (int x = 0; x < n; ++x)
    for (int y = 0; y < n; ++y)
      for (int z = 0; z < n; ++z) {
        v.push_back(a * (x + 0.5) + u(rng));
        v.push_back(a * (y + 0.5) + u(rng));
        v.push_back(a * (z + 0.5) + u(rng));
      }
  return from_vector(v, {static_cast<int64_t>(n) * n * n, 3});
}

double lj_formula(double r, double eps, double sigma, double rcut) {
  auto plain = [&](double x) { return 4 * eps * (std::pow(sigma / x, 12) - std::pow(sigma / x, 6)); };
  return r < rcut ? plain(r) - plain(rcut) : 0.0;
}

double energy_of(const Tensor& pos, const Tensor& pairs, const Tensor& box, double eps = kEps,
                 double sigma = kSigma, double rcut = kRcut) {
  NoGradGuard ng;
  return md::lj_energy(pos, pairs, box, eps, sigma, rcut).item();
}

}  // namespace

TEST_F(LennardJones, LibraryRegistersFourOpsWithSchemas) {
  auto ops = lj_library_ops();
  std::sort(ops.begin(), ops.end());
  EXPECT_EQ(ops, (std::vector<std::string>{"md::lj_box_grad", "md::lj_energy", "md::lj_forces", "md::lj_hvp"}));
  const OpSchema& s = find_op("md::lj_energy");
  EXPECT_EQ(s.signature(),
            "lj_energy(pos: Tensor, pairs: Tensor, box: Tensor, eps: float, sigma: float, rcut: float) -> energy");
  EXPECT_EQ(s.library, SAMPAN_LJ_LIBRARY);
  EXPECT_NE(s.doc.find("minimum-image"), std::string::npos) << s.doc;
  EXPECT_TRUE(find_op("md::lj_hvp").once_differentiable);
  EXPECT_TRUE(s.kernels.count(DeviceType::CPU));
}

TEST_F(LennardJones, EnergyPassesCheckOpFirstAndSecondOrder) {
  auto r = check_op("md::lj_energy", {sample_pos(), all_pairs(6), sample_box(), kEps, kSigma, kRcut});
  EXPECT_TRUE(r.ok) << r.summary();
}

TEST_F(LennardJones, ForcesPassCheckOpFirstAndSecondOrder) {
  // First order: the Hessian (lj_hvp); second order: the third derivative (lj_hvp's vjp).
  auto r = check_op("md::lj_forces", {sample_pos(), all_pairs(6), sample_box(), kEps, kSigma, kRcut});
  EXPECT_TRUE(r.ok) << r.summary();
}

TEST_F(LennardJones, BoxGradPassesCheckOp) {
  auto r = check_op("md::lj_box_grad", {sample_pos(), all_pairs(6), sample_box(), kEps, kSigma, kRcut});
  EXPECT_TRUE(r.ok) << r.summary();
}

TEST_F(LennardJones, HessianVectorProductPassesCheckOpAndIsOnceDifferentiable) {
  std::vector<double> v, vb = {0.3, -0.2, 0.5};
  for (int i = 0; i < 18; ++i) v.push_back(std::sin(1.7 * i + 0.3));
  auto r = check_op("md::lj_hvp", {sample_pos(), all_pairs(6), sample_box(), from_vector(v, {6, 3}),
                                   from_vector(vb, {3}), kEps, kSigma, kRcut});
  EXPECT_TRUE(r.ok) << r.summary();
  bool noted = false;
  for (auto& n : r.notes) noted = noted || n.find("once-differentiable: a second derivative raised") != std::string::npos;
  EXPECT_TRUE(noted) << r.summary();
}

TEST_F(LennardJones, TwoAtomEnergyMatchesTheFormula) {
  const double eps = 0.7, sigma = 1.1, rcut = 2.8;
  Tensor box = from_vector({10.0, 10.0, 10.0}, {3});
  for (double r : {1.0, 1.2, 1.2345, 2.0, 2.79, 2.81, 4.0}) {
    Tensor pos = from_vector({1.0, 2.0, 3.0, 1.0 + r / std::sqrt(3.0), 2.0 + r / std::sqrt(3.0),
                              3.0 + r / std::sqrt(3.0)}, {2, 3});
    EXPECT_NEAR(energy_of(pos, int_pairs({0, 1}), box, eps, sigma, rcut), lj_formula(r, eps, sigma, rcut),
                1e-12 * (1 + std::abs(lj_formula(r, eps, sigma, rcut))))
        << "r = " << r;
  }
  // The shift makes the energy continuous at the cutoff.
  Tensor just_inside = from_vector({0, 0, 0, rcut - 1e-9, 0, 0}, {2, 3});
  EXPECT_NEAR(energy_of(just_inside, int_pairs({0, 1}), box, eps, sigma, rcut), 0.0, 1e-8);
  // The minimum of the plain potential is at 2^(1/6) sigma, where the force vanishes.
  const double rmin = std::pow(2.0, 1.0 / 6.0) * sigma;
  Tensor at_min = from_vector({0, 0, 0, rmin, 0, 0}, {2, 3});
  Tensor f = md::lj_forces(at_min, int_pairs({0, 1}), box, eps, sigma, rcut);
  EXPECT_NEAR(f.data<double>()[0], 0.0, 1e-12);
}

TEST_F(LennardJones, ForcesAreMinusTheFiniteDifferenceGradient) {
  Tensor pos = lattice(3, 1.15, 0.08, 7);  // 27 atoms, box 3.45: rcut 1.7
  Tensor box = from_vector({3.45, 3.45, 3.45}, {3});
  Tensor pairs = all_pairs(27);
  const double rcut = 1.7;
  Tensor f = md::lj_forces(pos, pairs, box, kEps, kSigma, rcut);
  const double h = 1e-6;
  double max_err = 0, max_f = 0;
  for (int64_t i = 0; i < pos.numel(); ++i) {
    Tensor plus = pos.clone(), minus = pos.clone();
    plus.data<double>()[i] += h;
    minus.data<double>()[i] -= h;
    double numeric = -(energy_of(plus, pairs, box, kEps, kSigma, rcut) - energy_of(minus, pairs, box, kEps, kSigma, rcut)) / (2 * h);
    max_err = std::max(max_err, std::abs(numeric - f.data<double>()[i]));
    max_f = std::max(max_f, std::abs(f.data<double>()[i]));
  }
  EXPECT_GT(max_f, 1.0);  // the configuration is not trivially at rest
  EXPECT_LT(max_err, 1e-6 * max_f) << "max |F + dE/dx| = " << max_err << " for max |F| = " << max_f;
}

TEST_F(LennardJones, ForcesObeyNewtonsThirdLaw) {
  Tensor pos = lattice(4, 1.2, 0.1, 11);
  Tensor box = from_vector({4.8, 4.8, 4.8}, {3});
  Tensor f = md::lj_forces(pos, all_pairs(64), box, kEps, kSigma, 2.4);
  double sum[3] = {0, 0, 0}, scale = 0;
  for (int64_t a = 0; a < 64; ++a)
    for (int k = 0; k < 3; ++k) {
      sum[k] += f.data<double>()[3 * a + k];
      scale = std::max(scale, std::abs(f.data<double>()[3 * a + k]));
    }
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(sum[k], 0.0, 1e-12 * scale * 64) << "component " << k;
}

TEST_F(LennardJones, PeriodicImagesAreTheNearestCopies) {
  Tensor box = from_vector({6.0, 7.0, 8.0}, {3});
  Tensor pairs = int_pairs({0, 1});
  // x = 0.3 and x = 5.2 in a box of 6 are 1.1 apart through the boundary (not 4.9).
  Tensor across = from_vector({0.3, 1.0, 1.0, 5.2, 1.0, 1.0}, {2, 3});
  Tensor inside = from_vector({2.0, 1.0, 1.0, 3.1, 1.0, 1.0}, {2, 3});
  EXPECT_NEAR(energy_of(across, pairs, box), lj_formula(1.1, kEps, kSigma, kRcut), 1e-12);
  EXPECT_NEAR(energy_of(across, pairs, box), energy_of(inside, pairs, box), 1e-12);
  // Repulsive at 1.1 sigma: atom 0 is pushed to +x (away from its image of atom 1 at -0.8).
  Tensor f = md::lj_forces(across, pairs, box, kEps, kSigma, kRcut);
  EXPECT_GT(f.data<double>()[0], 0.0);
  EXPECT_LT(f.data<double>()[3], 0.0);
  // Every image of an atom is the same atom: shifting a whole configuration by any vector, or one
  // atom by a box vector, changes nothing.
  Tensor pos = sample_pos(), shifted = sample_pos().clone(), moved = sample_pos().clone();
  const double shift[3] = {2.7, -13.1, 40.2}, L[3] = {5.0, 5.5, 6.0};
  for (int a = 0; a < 6; ++a)
    for (int k = 0; k < 3; ++k) shifted.data<double>()[3 * a + k] += shift[k];
  for (int k = 0; k < 3; ++k) moved.data<double>()[3 * 2 + k] += (k - 1) * 3 * L[k];
  const double e = energy_of(pos, all_pairs(6), sample_box());
  EXPECT_NEAR(energy_of(shifted, all_pairs(6), sample_box()), e, 1e-11);
  EXPECT_NEAR(energy_of(moved, all_pairs(6), sample_box()), e, 1e-11);
}

TEST_F(LennardJones, BoxGradientOfScaledConfigurationIsTheVirial) {
  // With pos = s * L, dE/dL_k = sum_pairs u'(r) d_k^2 / (r L_k) = -W_k / L_k (virial W).
  Tensor box = from_vector({5.0, 5.5, 6.0}, {3}).requires_grad_();
  Tensor scaled = div(sample_pos(), from_vector({5.0, 5.5, 6.0}, {3}));
  Tensor e = md::lj_energy(mul(scaled, box), all_pairs(6), box, kEps, kSigma, kRcut);
  auto g = grad({e}, {box});
  const double L[3] = {5.0, 5.5, 6.0};
  double expected[3] = {0, 0, 0};
  const double* x = sample_pos().data<double>();
  for (int i = 0; i < 6; ++i)
    for (int j = i + 1; j < 6; ++j) {
      double d[3], r2 = 0;
      for (int k = 0; k < 3; ++k) {
        double dx = x[3 * j + k] - x[3 * i + k];
        d[k] = dx - L[k] * std::nearbyint(dx / L[k]);
        r2 += d[k] * d[k];
      }
      double r = std::sqrt(r2);
      if (r >= kRcut) continue;
      double du = 4 * kEps * (-12 * std::pow(kSigma / r, 12) + 6 * std::pow(kSigma / r, 6)) / r;
      for (int k = 0; k < 3; ++k) expected[k] += du * d[k] * d[k] / (r * L[k]);
    }
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(g[0].data<double>()[k], expected[k], 1e-10 * (1 + std::abs(expected[k])));
}

TEST_F(LennardJones, DoubleBackwardThroughForces) {
  // The training-on-forces path: F = -dE/dx with create_graph, loss = sum F^2, d loss / dx.
  Tensor pos0 = lattice(2, 1.3, 0.1, 3);
  Tensor box = from_vector({2.6, 2.6, 2.6}, {3});
  Tensor pairs = all_pairs(8);
  const double rcut = 1.3;
  Tensor pos = pos0.clone().requires_grad_();
  Tensor e = md::lj_energy(pos, pairs, box, kEps, kSigma, rcut);
  Tensor f = neg(grad({e}, {pos}, {}, /*create_graph=*/true, /*retain_graph=*/true)[0]);
  Tensor loss = sum(mul(f, f));
  Tensor g = grad({loss}, {pos})[0];
  auto loss_at = [&](const Tensor& p) {
    NoGradGuard ng;
    Tensor ff = md::lj_forces(p, pairs, box, kEps, kSigma, rcut);
    return sum(mul(ff, ff)).item();
  };
  const double h = 1e-6;
  for (int64_t i = 0; i < pos0.numel(); ++i) {
    Tensor plus = pos0.clone(), minus = pos0.clone();
    plus.data<double>()[i] += h;
    minus.data<double>()[i] -= h;
    double numeric = (loss_at(plus) - loss_at(minus)) / (2 * h);
    EXPECT_NEAR(g.data<double>()[i], numeric, 1e-5 * (1 + std::abs(numeric))) << "element " << i;
  }
}

TEST_F(LennardJones, FourthDerivativeFailsLoudly) {
  Tensor pos = sample_pos().requires_grad_();
  Tensor e = md::lj_energy(pos, all_pairs(6), sample_box(), kEps, kSigma, kRcut);
  Tensor g1 = grad({e}, {pos}, {}, true, true)[0];
  Tensor g2 = grad({sum(mul(g1, g1))}, {pos}, {}, true, true)[0];  // through the Hessian
  Tensor g3 = grad({sum(mul(g2, g2))}, {pos}, {}, true, true)[0];  // through the third derivative
  std::string m = thrown_message([&] { grad({sum(mul(g3, g3))}, {pos}); });  // would need the fourth
  EXPECT_NE(m.find("md::lj_hvp"), std::string::npos) << m;
}

TEST_F(LennardJones, Float32MatchesFloat64) {
  Tensor pos = sample_pos(), box = sample_box();
  double e64 = energy_of(pos, all_pairs(6), box);
  double e32 = energy_of(pos.to(DType::Float32), all_pairs(6), box.to(DType::Float32));
  EXPECT_NEAR(e32, e64, 1e-5 * (1 + std::abs(e64)));
  EXPECT_EQ(md::lj_forces(pos.to(DType::Float32), all_pairs(6), box.to(DType::Float32), kEps, kSigma, kRcut).dtype(),
            DType::Float32);
}

TEST_F(LennardJones, BadArgumentsRaiseClearErrors) {
  Tensor pos = sample_pos(), box = sample_box();
  std::string m;
  m = thrown_message([&] { md::lj_energy(pos, int_pairs({0, 1, 2, 9}), box, kEps, kSigma, kRcut); });
  EXPECT_NE(m.find("md::lj_energy"), std::string::npos) << m;
  EXPECT_NE(m.find("'pairs' row 1 is (2, 9)"), std::string::npos) << m;
  EXPECT_NE(m.find("[0, 6)"), std::string::npos) << m;
  EXPECT_THROW(md::lj_energy(pos, int_pairs({0, 1, 2, 9}), box, kEps, kSigma, kRcut), IndexError);
  EXPECT_THROW(md::lj_energy(pos, int_pairs({3, 3}), box, kEps, kSigma, kRcut), ValueError);
  m = thrown_message([&] { md::lj_energy(pos, all_pairs(6), box, kEps, kSigma, 2.6); });
  EXPECT_NE(m.find("minimum-image"), std::string::npos) << m;
  EXPECT_NE(m.find("box[0] = 5"), std::string::npos) << m;
  EXPECT_THROW(md::lj_energy(pos, all_pairs(6).to(DType::Float64), box, kEps, kSigma, kRcut), TypeError);
  m = thrown_message([&] { md::lj_energy(zeros({4, 2}, DType::Float64), all_pairs(4), box, kEps, kSigma, kRcut); });
  EXPECT_NE(m.find("'pos' must have shape [N, 3], got [4, 2]"), std::string::npos) << m;
  EXPECT_THROW(md::lj_energy(pos, all_pairs(6), box.to(DType::Float32), kEps, kSigma, kRcut), TypeError);
  EXPECT_THROW(md::lj_energy(pos, all_pairs(6), box, kEps, -1.0, kRcut), ValueError);
  EXPECT_THROW(md::lj_energy(pos, all_pairs(6), from_vector({5.0, -5.5, 6.0}, {3}), kEps, kSigma, kRcut), ValueError);
}

TEST_F(LennardJones, SecondLibraryWithTheSameOpsIsRefusedNamingBoth) {
  // A copy of the library under another name registers the same op names again.
  std::string copy = ::testing::TempDir() + "libsampan_lj_copy.so";
  {
    std::ifstream src(SAMPAN_LJ_LIBRARY, std::ios::binary);
    std::ofstream dst(copy, std::ios::binary);
    dst << src.rdbuf();
  }
  std::string m = thrown_message([&] { load_op_library(copy); });
  EXPECT_NE(m.find("registered twice"), std::string::npos) << m;
  EXPECT_NE(m.find(SAMPAN_LJ_LIBRARY), std::string::npos) << m;
  EXPECT_NE(m.find(copy), std::string::npos) << m;
  std::remove(copy.c_str());
  // The first library's ops are untouched.
  EXPECT_EQ(find_op("md::lj_energy").library, SAMPAN_LJ_LIBRARY);
}
