// md::GraphPotential: energies traced in C++ with jit::Tracer (a Lennard-Jones of core ops over
// the op deepmd::pair_list, and DeepPot::energy over deepmd::extended_system), replayed as MD
// potentials at other atom counts than the trace, against md::LennardJones and DeepPot::compute;
// the graph file round trip with its "potential" entry; the refusal of a graph that does not fit.
#include <gtest/gtest.h>

#include <cmath>

#include "deepmd_test_util.h"
#include "md_test_systems.h"
#include "sampan/deepmd/deep_pot.h"
#include "sampan/deepmd/md/graph_potential.h"
#include "sampan/deepmd/md/lennard_jones.h"
#include "sampan/deepmd/md/simulation.h"
#include "sampan/error.h"
#include "sampan/jit.h"
#include "sampan/op.h"
#include "sampan/ops.h"

using namespace sampan;
using namespace sampan::deepmd;
using namespace sampan::deepmd::md;

namespace {

constexpr double kEps = 0.0104, kSigma = 3.40, kRcut = 6.5;

// Shifted lj/cut, one type, with core ops only (the pair list from the op deepmd::pair_list).
Tensor lj_core_ops(const Tensor& positions, const Tensor&, const Tensor& box) {
  static OpHandle pair_list("deepmd::pair_list");
  auto p = pair_list(positions, box, kRcut, true);
  Tensor d = add(sub(index_select(positions, 0, select(p[0], 1, 1)), index_select(positions, 0, select(p[0], 1, 0))),
                 matmul(p[1], box));
  Tensor r2 = sum(mul(d, d), {1});
  Tensor sr6 = pow(div(scalar_tensor(kSigma * kSigma), r2), scalar_tensor(3.0));
  const double src6 = std::pow(kSigma * kSigma / (kRcut * kRcut), 3);
  Tensor u = sub(sub(mul(sr6, sr6), sr6), scalar_tensor(src6 * src6 - src6));
  return mul(sum(u), scalar_tensor(4 * kEps));
}

struct Inputs {
  Tensor positions, types, box;
};
Inputs inputs_of(const std::vector<double>& x, const std::vector<int>& t, const Box& box) {
  const int64_t n = static_cast<int64_t>(t.size());
  Inputs in;
  in.positions = from_vector(x, {n, 3}, DType::Float64);
  in.types = Tensor::empty({n}, DType::Int64);
  for (int64_t i = 0; i < n; ++i) in.types.data<int64_t>()[i] = t[i];
  in.box = box.any_periodic() ? from_vector(std::vector<double>(box.cell.begin(), box.cell.end()), {3, 3}, DType::Float64)
                              : zeros({3, 3}, DType::Float64);
  return in;
}

template <class F>
jit::Graph trace_energy(F energy, const Inputs& in) {
  jit::Tracer tracer({in.positions, in.types, in.box}, {"positions", "types", "box"},
                     {{"positions", {{0, "atoms"}}}, {"types", {{0, "atoms"}}}});
  Tensor e = energy(in.positions, in.types, in.box);
  return tracer.finish({e});
}

struct Eval {
  double e = 0;
  std::vector<double> f, w;
};
Eval eval(Potential& p, const std::vector<double>& x, const std::vector<int>& t, const Box& box) {
  Eval r;
  r.f.resize(x.size());
  r.w.resize(9);
  p.compute(x.data(), t.data(), static_cast<int64_t>(t.size()), box, &r.e, r.f.data(), r.w.data());
  return r;
}
double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}
double max_abs(const std::vector<double>& a) {
  double m = 0;
  for (double v : a) m = std::max(m, std::abs(v));
  return m;
}

State make_state(const md_test::System& sys) {
  State s;
  s.box = sys.box;
  s.positions = sys.positions;
  s.types = sys.types;
  s.masses = State::masses_from_types(sys.types, {39.948});
  s.velocities.assign(sys.positions.size(), 0.0);
  return s;
}

}  // namespace

TEST(GraphPotential, CoreOpLennardJonesTracedOnOneSizeMatchesLennardJonesOnAnother) {
  auto small = md_test::fcc(2, 5.26, 0.8, -0.5, 0.3, 0.2, false, 3);  // 32 atoms, rcut > half box
  GraphPotential traced(trace_energy(lj_core_ops, inputs_of(small.positions, small.types, small.box)), kRcut);
  LennardJones lj(1, {kEps}, {kSigma}, kRcut, true, 0.0);
  for (const auto& sys : {small, md_test::fcc(3, 5.26, 0.0, 0.0, 0.0, 0.2, false, 5)}) {  // 32 and 108 atoms
    Eval a = eval(traced, sys.positions, sys.types, sys.box), b = eval(lj, sys.positions, sys.types, sys.box);
    EXPECT_LT(std::abs(a.e - b.e), 1e-12) << sys.natoms() << " atoms";
    EXPECT_LT(max_diff(a.f, b.f), 1e-12);
    EXPECT_LT(max_diff(a.w, b.w), 1e-11);
    EXPECT_GT(max_abs(b.f), 1e-3);
  }
  // NVE with the replay: the trajectory of lj/cut (other summation order), energy conserved.
  auto sys = md_test::fcc(3, 5.26, 0.0, 0.0, 0.0, 0.2, false, 7);
  State s1 = make_state(sys), s2 = make_state(sys);
  initialize_velocities(s1, 120.0, 2, Units::codata2018());
  initialize_velocities(s2, 120.0, 2, Units::codata2018());
  VelocityVerlet nve1(2.0, Units::codata2018()), nve2(2.0, Units::codata2018());
  RunOptions o;
  o.steps = 25;
  o.thermo_every = 5;
  auto th1 = run(s1, traced, nve1, o);
  auto th2 = run(s2, lj, nve2, o);
  EXPECT_LT(max_diff(s1.positions, s2.positions), 1e-10);
  double emin = 1e300, emax = -1e300, kmin = 1e300, kmax = -1e300;
  for (const auto& t : th1) {
    emin = std::min(emin, t.total), emax = std::max(emax, t.total);
    kmin = std::min(kmin, t.kinetic), kmax = std::max(kmax, t.kinetic);
  }
  EXPECT_LT(emax - emin, 1e-5 * s1.natoms());
  EXPECT_GT(kmax - kmin, 1e-3);
}

TEST(GraphPotential, TracedDeepPotEqualsDeepPotAfterAGraphFileRoundTrip) {
  const std::string yaml = deepmd_test::golden_dir() + "/deeppot_sea.yaml";
  DEEPMD_SKIP_WITHOUT(yaml);
  DeepPot model = DeepPot::from_deepmd_yaml(yaml);
  const std::vector<double> x = {12.83, 2.56, 2.18, 12.09, 2.87, 2.74, 0.25, 3.32, 1.68,
                                 3.36,  3.00, 1.81, 3.51,  2.51, 2.60, 4.27, 3.22, 1.56};
  const std::vector<int> t = {0, 1, 1, 0, 1, 1};
  const Box box = Box::orthorhombic(13.0, 13.0, 13.0);
  auto energy = [&](const Tensor& p, const Tensor& ty, const Tensor& b) { return model.energy(p, ty, b); };
  GraphPotential traced(trace_energy(energy, inputs_of(x, t, box)), model.cutoff(), model.config.type_map);
  deepmd_test::TempDir dir("graph_potential");
  const std::string path = (dir.path / "traced.h5").string();
  traced.save(path);
  ASSERT_TRUE(GraphPotential::is_graph_file(path));
  EXPECT_FALSE(GraphPotential::is_graph_file(yaml));
  GraphPotential loaded = GraphPotential::load(path);
  EXPECT_EQ(loaded.cutoff(), 6.0);
  EXPECT_EQ(loaded.type_map(), model.config.type_map);
  // The traced frame, twelve atoms (the cell doubled along x: another atom count) and open space.
  std::vector<double> x12 = x;
  std::vector<int> t12 = t;
  for (int i = 0; i < 6; ++i) {
    x12.insert(x12.end(), {x[3 * i] + 13.0, x[3 * i + 1], x[3 * i + 2]});
    t12.push_back(t[i]);
  }
  struct Case {
    std::vector<double> x;
    std::vector<int> t;
    Box box;
  };
  double de = 0, df = 0, dw = 0;
  for (const Case& c : {Case{x, t, box}, Case{x12, t12, Box::orthorhombic(26.0, 13.0, 13.0)}, Case{x, t, Box::open()}}) {
    Eval ref = eval(model, c.x, c.t, c.box), got = eval(loaded, c.x, c.t, c.box);
    de = std::max(de, std::abs(got.e - ref.e));
    df = std::max(df, max_diff(got.f, ref.f));
    dw = std::max(dw, max_diff(got.w, ref.w));
    EXPECT_GT(max_abs(ref.f), 1e-3);
  }
  EXPECT_LE(de, 1e-12);
  EXPECT_LE(df, 1e-12);
  EXPECT_LE(dw, 1e-12);
  std::printf("traced DeepPot vs DeepPot (6, 12 atoms, open): max |dE| = %.2g eV, |dF| = %.2g eV/Å, |dW| = %.2g eV\n",
              de, df, dw);
}

TEST(GraphPotential, RefusesAGraphThatDoesNotTakePositionsTypesAndBox) {
  Tensor a = from_vector({1, 2, 3, 4, 5, 6}, {2, 3}), b = from_vector({1, 2, 3, 4, 5, 6}, {2, 3});
  jit::Tracer tracer({a, b}, {"x", "y"});
  jit::Graph g = tracer.finish({sum(mul(a, b))});
  try {
    GraphPotential p(g, 0.0, {}, "two.h5");
    FAIL() << "a graph of two inputs was accepted";
  } catch (const ValueError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("graph potential 'two.h5': the graph takes 2 inputs (x: float64 [2, 3], y: float64 [2, 3]); an "
                     "MD potential's graph takes 3: positions float64 [N, 3], types int64 [N], box float64 [3, 3]"),
              std::string::npos)
        << m;
  }
}
