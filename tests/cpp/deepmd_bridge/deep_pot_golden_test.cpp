// The golden se_e2_a oracle: DeePMD-kit's own cross-backend test fixture (deeppot_sea.yaml, a tiny
// trained model, and deeppot-testcase.yaml: three 6-atom water configurations, periodic cubic, open,
// periodic 19x13x13, with atomic energies, forces and atomic virials from DeePMD-kit's PyTorch
// backend; block 1 also has descriptors and the fitting net's last hidden activations).
// DeePMD-kit's C++ API tests require 1e-10; so do we. This one test checks switching,
// normalisation with padding, sorting, embedding, G^T R, fitting, forces and virials.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>

#include "deepmd_test_util.h"
#include "sampan/deepmd/data.h"
#include "sampan/deepmd/deep_pot.h"
#include "sampan/ops.h"
#include "test_util.h"

using namespace sampan;
using sampan::deepmd::DeepPot;

namespace {

std::vector<double> doubles(const YAML::Node& node) {
  std::vector<double> out;
  for (const auto& x : node) out.push_back(x.as<double>());
  return out;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], want[k], tol) << what << " [" << k << "]";
}

}  // namespace

TEST(DeepPotGolden, ReproducesDeepmdKitEnergiesForcesVirialsDescriptors) {
  const std::string dir = deepmd_test::golden_dir();
  DEEPMD_SKIP_WITHOUT(dir + "/deeppot_sea.yaml");
  DeepPot pot = DeepPot::from_deepmd_yaml(dir + "/deeppot_sea.yaml");
  EXPECT_EQ(pot.config.sel, (std::vector<int64_t>{46, 92}));
  EXPECT_EQ(pot.config.descriptor_dim(), 24);
  YAML::Node cases = YAML::LoadFile(dir + "/deeppot-testcase.yaml")["results"];
  ASSERT_EQ(cases.size(), 3u);
  for (size_t b = 0; b < cases.size(); ++b) {
    SCOPED_TRACE("block " + std::to_string(b + 1));
    const YAML::Node block = cases[b];
    std::vector<double> coord = doubles(block["coord"]);
    std::vector<int64_t> types;
    for (const auto& t : block["atype"]) types.push_back(t.as<int64_t>());
    std::vector<double> box;
    if (block["box"] && !block["box"].IsNull()) box = doubles(block["box"]);
    auto ext = pot.extend(coord.data(), types.data(), 6, box.empty() ? nullptr : box.data());
    auto out = pot.evaluate(ext, true, false);
    expect_close(test::values(out.atom_energy), doubles(block["atomic_energy"]), 1e-10, "atomic energy");
    expect_close(test::values(out.force), doubles(block["force"]), 1e-10, "force");
    expect_close(test::values(out.atom_virial), doubles(block["atomic_virial"]), 1e-10, "atomic virial");
    // total virial = sum of atomic virials (DeePMD-kit's definition of the reference)
    std::vector<double> total(9, 0.0), atom = test::values(out.atom_virial), want = doubles(block["atomic_virial"]);
    for (size_t k = 0; k < want.size(); ++k) total[k % 9] += want[k];
    expect_close(test::values(out.virial), total, 1e-10, "virial");
    if (block["descriptor"]) expect_close(test::values(out.descriptor), doubles(block["descriptor"]), 1e-12, "descriptor");
    if (block["fit_ll"]) expect_close(test::values(out.fit_last), doubles(block["fit_ll"]), 1e-12, "fit_ll");
  }
}

// Saving to sampan's HDF5 model file and loading it back gives the same model, bit for bit.
TEST(DeepPotGolden, SaveLoadRoundTrip) {
  const std::string dir = deepmd_test::golden_dir();
  DEEPMD_SKIP_WITHOUT(dir + "/deeppot_sea.yaml");
  DeepPot pot = DeepPot::from_deepmd_yaml(dir + "/deeppot_sea.yaml");
  deepmd_test::TempDir tmp("model");
  const std::string file = (tmp.path / "model.h5").string();
  pot.save(file);
  DeepPot back = DeepPot::load(file);
  auto a = pot.parameters(), c = back.parameters();
  ASSERT_EQ(a.size(), c.size());
  for (size_t k = 0; k < a.size(); ++k) EXPECT_EQ(test::values(a[k]), test::values(c[k]));
  std::vector<double> coord = {0.1, 0.2, 0.3, 1.0, 0.4, 0.2, 0.3, 1.1, 0.1, 2.0, 2.1, 1.9};
  std::vector<int64_t> types = {0, 1, 1, 0};
  double e1, e2, f1[12], f2[12], v1[9], v2[9];
  int t4[4] = {0, 1, 1, 0};
  sampan::deepmd::Box open = sampan::deepmd::Box::open();
  pot.compute(coord.data(), t4, 4, open, &e1, f1, v1);
  back.compute(coord.data(), t4, 4, open, &e2, f2, v2);
  EXPECT_EQ(e1, e2);
  for (int k = 0; k < 12; ++k) EXPECT_EQ(f1[k], f2[k]);
  // not a model file: a clear error
  EXPECT_THROW(DeepPot::load(dir + "/missing.h5"), std::exception);
}

// On a real 192-atom water frame (unwrapped coordinates): DeepPot forces equal minus the central
// finite-difference gradient of its energy, and its virial the strain derivative.
TEST(DeepPotGolden, WaterFrameForcesAndVirialMatchFiniteDifferences) {
  const std::string dir = deepmd_test::golden_dir();
  DEEPMD_SKIP_WITHOUT(dir + "/deeppot_sea.yaml");
  DEEPMD_SKIP_WITHOUT(deepmd_test::water_system(3));
  DeepPot pot = DeepPot::from_deepmd_yaml(dir + "/deeppot_sea.yaml");
  // the per-type bias (about -3e4 eV in total) shifts no force; without it the differences of
  // energies are not drowned by rounding
  pot.bias_atom_e = zeros({2}, DType::Float64);
  auto system = sampan::deepmd::load_system(deepmd_test::water_system(3));
  std::vector<double> coord(system.coord.begin(), system.coord.begin() + 576);
  std::vector<double> cell(system.box.begin(), system.box.begin() + 9);
  std::vector<int64_t> types(system.atom_types.begin(), system.atom_types.end());
  auto energy = [&](const std::vector<double>& x, const std::vector<double>& h) {
    auto out = pot.evaluate(pot.extend(x.data(), types.data(), 192, h.data()), false, false);
    return test::values(out.energy)[0];
  };
  auto out = pot.evaluate(pot.extend(coord.data(), types.data(), 192, cell.data()), true, false);
  auto force = test::values(out.force), virial = test::values(out.virial);
  const double eps = 1e-5;
  for (int k : {0, 301, 575}) {
    auto p = coord, m = coord;
    p[k] += eps;
    m[k] -= eps;
    EXPECT_NEAR(force[k], -(energy(p, cell) - energy(m, cell)) / (2 * eps), 1e-7) << "component " << k;
  }
  for (auto [a, b] : std::vector<std::pair<int, int>>{{0, 0}, {1, 2}, {2, 1}, {2, 2}}) {
      auto deform = [&](std::vector<double> v, double e) {
        for (size_t i = 0; i < v.size() / 3; ++i) v[i * 3 + b] += e * v[i * 3 + a];
        return v;
      };
      const double fd = -(energy(deform(coord, eps), deform(cell, eps)) - energy(deform(coord, -eps), deform(cell, -eps))) / (2 * eps);
      EXPECT_NEAR(virial[b * 3 + a], fd, 1e-6 * (1 + std::fabs(fd))) << "a=" << a << " b=" << b;
  }
}

// compute_local (LAMMPS subdomain: owned atoms + explicit ghosts in open space) on the periodic
// water frame with its ghost images made explicit: the owned energy equals the periodic energy,
// and ghost forces folded onto their owners give the periodic forces.
TEST(DeepPotGolden, ComputeLocalWithExplicitGhostsMatchesPeriodic) {
  const std::string dir = deepmd_test::golden_dir();
  DEEPMD_SKIP_WITHOUT(dir + "/deeppot_sea.yaml");
  DEEPMD_SKIP_WITHOUT(deepmd_test::water_system(2));
  DeepPot pot = DeepPot::from_deepmd_yaml(dir + "/deeppot_sea.yaml");
  auto system = sampan::deepmd::load_system(deepmd_test::water_system(2));
  std::vector<int> types(system.atom_types.begin(), system.atom_types.end());
  double energy, force[576], virial[9];
  pot.compute(system.coord.data(), types.data(), 192, sampan::deepmd::Box::triclinic(system.box.data()), &energy, force,
              virial);
  // every image within rcut of an owned atom, from a model with a generous sel
  std::vector<int64_t> t64(system.atom_types.begin(), system.atom_types.end());
  auto ghosts = sampan::deepmd::build_extended_system(system.coord.data(), t64.data(), 192, system.box.data(), 6.0,
                                                      {400, 800});
  std::vector<int> ext_types(ghosts.types.begin(), ghosts.types.end());
  double local_energy;
  std::vector<double> local_force(static_cast<size_t>(ghosts.nall * 3));
  pot.compute_local(ghosts.coord.data(), ext_types.data(), 192, ghosts.nall, &local_energy, local_force.data());
  EXPECT_NEAR(local_energy, energy, 1e-9);
  std::vector<double> folded(576, 0.0);
  for (int64_t a = 0; a < ghosts.nall; ++a)
    for (int d = 0; d < 3; ++d) folded[ghosts.mapping[a] * 3 + d] += local_force[a * 3 + d];
  for (int k = 0; k < 576; ++k) EXPECT_NEAR(folded[k], force[k], 1e-10) << k;
}

// A periodic water frame replicated 2x1x2 (768 atoms) is the same crystal: energy 4 times the
// frame's and every copy's forces the frame's. 768 atoms is above the inference chunk (512
// centre atoms), so compute() takes the chunked path; it also matches the one-piece evaluation
// (grad mode on) to rounding.
TEST(DeepPotGolden, ReplicatedWaterFrameChunkedInferenceMatchesOneFrame) {
  const std::string dir = deepmd_test::golden_dir();
  DEEPMD_SKIP_WITHOUT(dir + "/deeppot_sea.yaml");
  DEEPMD_SKIP_WITHOUT(deepmd_test::water_system(3));
  DeepPot pot = DeepPot::from_deepmd_yaml(dir + "/deeppot_sea.yaml");
  auto system = sampan::deepmd::load_system(deepmd_test::water_system(3));
  const double* h = system.box.data();
  std::vector<int> types(system.atom_types.begin(), system.atom_types.end());
  double e1, f1[576], v1[9];
  pot.compute(system.coord.data(), types.data(), 192, sampan::deepmd::Box::triclinic(h), &e1, f1, v1);

  std::vector<double> coord, cell(h, h + 9);
  std::vector<int> big_types;
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 2; ++k) {
      for (int a = 0; a < 192; ++a) {
        for (int d = 0; d < 3; ++d) coord.push_back(system.coord[a * 3 + d] + i * h[d] + k * h[6 + d]);
        big_types.push_back(types[a]);
      }
    }
  for (int d = 0; d < 3; ++d) {
    cell[d] *= 2;
    cell[6 + d] *= 2;
  }
  const int n = 768;
  double e4, v4[9];
  std::vector<double> f4(n * 3);
  pot.compute(coord.data(), big_types.data(), n, sampan::deepmd::Box::triclinic(cell.data()), &e4, f4.data(), v4);
  EXPECT_NEAR(e4, 4 * e1, 1e-9 * std::fabs(e1));
  for (int copy = 0; copy < 4; ++copy)
    for (int k = 0; k < 576; ++k) ASSERT_NEAR(f4[copy * 576 + k], f1[k], 1e-10) << "copy " << copy << " component " << k;
  for (int k = 0; k < 9; ++k) EXPECT_NEAR(v4[k], 4 * v1[k], 1e-9 * (1 + std::fabs(v1[k])));

  std::vector<int64_t> t64(big_types.begin(), big_types.end());
  ASSERT_TRUE(sampan::grad_mode_enabled());
  auto whole = pot.evaluate(pot.extend(coord.data(), t64.data(), n, cell.data()), true, false);
  EXPECT_NEAR(test::values(whole.energy)[0], e4, 1e-12 * std::fabs(e4));
  auto fw = test::values(whole.force);
  for (int k = 0; k < n * 3; ++k) ASSERT_NEAR(fw[k], f4[k], 1e-12) << k;
}
