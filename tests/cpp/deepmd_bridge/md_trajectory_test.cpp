// Trajectories: H5MD files read back by our reader and checked object by object with the HDF5
// C API (the layout of the H5MD 1.1 specification), atomic writes, extended XYZ export.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "md_test_systems.h"
#include "sampan/deepmd/md/lennard_jones.h"
#include "sampan/deepmd/md/simulation.h"
#include "sampan/error.h"

using namespace sampan::deepmd;
using namespace sampan::deepmd::md;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("sampan_md_traj_" + std::to_string(static_cast<long>(::getpid())));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

State small_state() {
  md_test::System sys = md_test::fcc(2, 5.3, 0.7, -0.4, 0.3, 0.1, true, 3);
  State s;
  s.box = sys.box;
  s.positions = sys.positions;
  s.types = sys.types;
  s.masses = State::masses_from_types(sys.types, sys.masses);
  initialize_velocities(s, 100.0, 1, Units::codata2018());
  return s;
}

std::vector<int32_t> int_attribute(hid_t file, const char* object, const char* name) {
  hid_t attr = H5Aopen_by_name(file, object, name, H5P_DEFAULT, H5P_DEFAULT);
  EXPECT_GE(attr, 0) << object << " has no attribute " << name;
  if (attr < 0) return {};
  hid_t space = H5Aget_space(attr);
  std::vector<int32_t> v(static_cast<size_t>(H5Sget_simple_extent_npoints(space)));
  H5Aread(attr, H5T_NATIVE_INT32, v.data());
  H5Sclose(space);
  H5Aclose(attr);
  return v;
}

}  // namespace

TEST(MdTrajectory, H5mdRoundTripAndLayout) {
  TempDir dir;
  const std::string path = (dir.path / "traj.h5").string();
  State s = small_state();
  LennardJones lj(2, {0.0104, 0.012, 0.012, 0.015}, {3.4, 3.3, 3.3, 3.2}, 6.0, true);
  VelocityVerlet nve(2.0);
  std::vector<std::vector<double>> expected_positions, expected_velocities;
  std::vector<double> expected_pe;
  {
    TrajectoryOptions opt;
    opt.forces = true;
    opt.type_names = {"Ar", "Kr"};
    H5mdWriter writer(path, s, opt);
    RunOptions o;
    o.steps = 30;
    o.thermo_every = 10;
    o.trajectory = &writer;
    o.trajectory_every = 10;
    o.on_thermo = [&](const Thermo& t) {
      expected_positions.push_back(s.positions);
      expected_velocities.push_back(s.velocities);
      expected_pe.push_back(t.potential);
    };
    run(s, lj, nve, o);
    EXPECT_FALSE(fs::exists(path)) << "the final name must appear only at close()";
    writer.close();
  }
  ASSERT_TRUE(fs::exists(path));
  for (auto& e : fs::directory_iterator(dir.path))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << "left behind: " << e.path();

  Trajectory t = read_h5md(path);
  ASSERT_EQ(t.frames(), 4);
  EXPECT_EQ(t.natoms, s.natoms());
  EXPECT_EQ(t.steps, (std::vector<int64_t>{0, 10, 20, 30}));
  EXPECT_NEAR(t.times[3], 30 * 0.002, 1e-15);
  for (int f = 0; f < 4; ++f) {
    EXPECT_EQ(t.positions[f], expected_positions[f]);
    EXPECT_EQ(t.velocities[f], expected_velocities[f]);
    EXPECT_EQ(t.observables["potential_energy"][f], expected_pe[f]);
    EXPECT_EQ(std::vector<double>(s.box.cell.begin(), s.box.cell.end()), t.cells[f]);
  }
  EXPECT_EQ(t.forces.size(), 4u);
  EXPECT_EQ(t.species, s.types);
  EXPECT_EQ(t.masses, s.masses);
  EXPECT_EQ(t.type_names, (std::vector<std::string>{"Ar", "Kr"}));
  EXPECT_EQ(t.boundary, (std::vector<std::string>{"periodic", "periodic", "periodic"}));
  EXPECT_EQ(t.observables.size(), 5u);

  // The layout, object by object, as the H5MD 1.1 specification names it.
  hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  EXPECT_EQ(int_attribute(file, "h5md", "version"), (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(int_attribute(file, "particles/all/box", "dimension"), (std::vector<int32_t>{3}));
  for (const char* obj : {"h5md/author", "h5md/creator", "particles/all/position/step", "particles/all/position/time",
                          "particles/all/velocity/value", "particles/all/force/value", "particles/all/box/edges/value",
                          "observables/temperature/value", "observables/pressure/value"})
    EXPECT_GT(H5Oexists_by_name(file, obj, H5P_DEFAULT), 0) << obj;
  EXPECT_GT(H5Aexists_by_name(file, "h5md/author", "name", H5P_DEFAULT), 0);
  EXPECT_GT(H5Aexists_by_name(file, "particles/all/position/value", "unit", H5P_DEFAULT), 0);
  H5Fclose(file);
}

TEST(MdTrajectory, ExtendedXyzExport) {
  TempDir dir;
  State s = small_state();
  LennardJones lj(2, {0.0104, 0.012, 0.012, 0.015}, {3.4, 3.3, 3.3, 3.2}, 6.0, true);
  VelocityVerlet nve(2.0);
  const std::string h5 = (dir.path / "t.h5").string(), xyz = (dir.path / "t.xyz").string(),
                    direct = (dir.path / "direct.xyz").string();
  {
    TrajectoryOptions opt;
    opt.type_names = {"Ar", "Kr"};
    H5mdWriter writer(h5, s, opt);
    ExtxyzWriter xw(direct, {"Ar", "Kr"});
    RunOptions o;
    o.steps = 4;
    o.trajectory = &writer;
    o.trajectory_every = 2;
    o.xyz = &xw;
    o.xyz_every = 2;
    run(s, lj, nve, o);
  }
  h5md_to_extxyz(h5, xyz);
  for (const auto& path : {xyz, direct}) {
    std::ifstream in(path);
    std::string line;
    int frames = 0;
    while (std::getline(in, line)) {
      ASSERT_EQ(std::stoll(line), s.natoms()) << path;
      std::getline(in, line);
      EXPECT_NE(line.find("Lattice=\""), std::string::npos);
      EXPECT_NE(line.find("Properties=species:S:1:pos:R:3:velo:R:3"), std::string::npos) << line;
      EXPECT_NE(line.find("pbc=\"T T T\""), std::string::npos);
      EXPECT_NE(line.find("step=" + std::to_string(2 * frames)), std::string::npos) << line;
      for (int64_t i = 0; i < s.natoms(); ++i) {
        std::getline(in, line);
        std::istringstream row(line);
        std::string name;
        double x[6];
        row >> name >> x[0] >> x[1] >> x[2] >> x[3] >> x[4] >> x[5];
        ASSERT_FALSE(row.fail()) << line;
        EXPECT_EQ(name, s.types[i] == 0 ? "Ar" : "Kr");
        if (frames == 2) EXPECT_NEAR(x[0], s.positions[3 * i], 1e-8 * (1 + std::abs(x[0])));
      }
      ++frames;
    }
    EXPECT_EQ(frames, 3) << path;
  }
}

TEST(MdTrajectory, ErrorsNameThePath) {
  TempDir dir;
  State s = small_state();
  try {
    H5mdWriter w((dir.path / "missing" / "t.h5").string(), s);
    FAIL() << "a missing folder was accepted";
  } catch (const sampan::IOError& e) {
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
  }
  const std::string not_h5 = (dir.path / "x.h5").string();
  std::ofstream(not_h5) << "not hdf5";
  try {
    read_h5md(not_h5);
    FAIL() << "a text file was read as H5MD";
  } catch (const sampan::IOError& e) {
    EXPECT_NE(std::string(e.what()).find(not_h5), std::string::npos) << e.what();
  }
}
