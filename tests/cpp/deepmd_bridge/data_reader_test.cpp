// DeePMD system reading: the real water data (float32 deepmd/npy) and malformed inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numeric>

#include "data/npy_reader.h"
#include "deepmd_test_util.h"
#include "sampan/deepmd/data.h"
#include "sampan/error.h"

using sampan::deepmd::load_system;
using sampan::deepmd::System;
using sampan::deepmd::detail::read_npy;
using sampan::deepmd::detail::write_npy;
namespace fs = std::filesystem;

namespace {

template <class F> std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

void write_text(const fs::path& file, const std::string& text) {
  std::ofstream out(file);
  out << text;
}

// A two-atom periodic system in deepmd/npy form with `frames` frames per set, float64.
void make_npy_system(const fs::path& root, int sets, int frames) {
  write_text(root / "type.raw", "0 1\n");
  write_text(root / "type_map.raw", "O\nH\n");
  for (int s = 0; s < sets; ++s) {
    fs::path set = root / ("set.00" + std::to_string(s));
    fs::create_directories(set);
    std::vector<double> coord(frames * 6), box(frames * 9, 0.0), energy(frames), force(frames * 6);
    for (int f = 0; f < frames; ++f) {
      for (int k = 0; k < 6; ++k) coord[f * 6 + k] = 0.1 * k + f + 10 * s;
      for (int k = 0; k < 6; ++k) force[f * 6 + k] = -0.5 * k;
      box[f * 9 + 0] = box[f * 9 + 4] = box[f * 9 + 8] = 5.0;
      energy[f] = -1.5 * f - s;
    }
    write_npy((set / "coord.npy").string(), {frames, 6}, coord);
    write_npy((set / "box.npy").string(), {frames, 9}, box);
    write_npy((set / "energy.npy").string(), {frames}, energy);
    write_npy((set / "force.npy").string(), {frames, 2, 3}, force);
  }
}

}  // namespace

// Values checked against numpy.load of the same files (independent reader): data_0 has one set of
// 80 frames of 192 atoms (64 O then 128 H), float32, cubic box 12.444661 Å, no virial.
TEST(DeepmdDataReader, WaterSystemFloat32) {
  DEEPMD_SKIP_WITHOUT(deepmd_test::water_system(0));
  System system = load_system(deepmd_test::water_system(0));
  EXPECT_EQ(system.natoms(), 192);
  EXPECT_EQ(system.nframes, 80);
  ASSERT_EQ(system.type_map.size(), 2u);
  EXPECT_EQ(system.type_map[0], "O");
  EXPECT_EQ(system.type_map[1], "H");
  EXPECT_EQ(system.type_counts(), (std::vector<int64_t>{64, 128}));
  EXPECT_TRUE(system.periodic);
  EXPECT_EQ(system.coord.size(), 80u * 576u);
  EXPECT_EQ(system.force.size(), 80u * 576u);
  EXPECT_EQ(system.energy.size(), 80u);
  EXPECT_FALSE(system.has_virial());
  EXPECT_FLOAT_EQ(static_cast<float>(system.coord[0]), 7.538786f);
  EXPECT_FLOAT_EQ(static_cast<float>(system.coord[1]), 2.05621f);
  EXPECT_FLOAT_EQ(static_cast<float>(system.energy[0]), -29943.906f);
  EXPECT_FLOAT_EQ(static_cast<float>(system.energy[1]), -29943.787f);
  EXPECT_FLOAT_EQ(static_cast<float>(system.force[0]), 0.6219969f);
  EXPECT_FLOAT_EQ(static_cast<float>(system.box[0]), 12.444661f);
  EXPECT_EQ(system.box[1], 0.0);
  // Unwrapped coordinates are kept as stored: some lie outside [0, L).
  double lo = *std::min_element(system.coord.begin(), system.coord.end());
  double hi = *std::max_element(system.coord.begin(), system.coord.end());
  EXPECT_TRUE(lo < 0.0 || hi > 12.444661);
  // Energy per atom is about -155.96 eV (reference note: E ≈ -29943.6 eV per frame).
  EXPECT_NEAR(system.energy[0] / 192.0, -155.96, 0.05);
}

TEST(DeepmdDataReader, MultipleSetsConcatenateInOrder) {
  DEEPMD_SKIP_WITHOUT(deepmd_test::water_system(1));
  System system = load_system(deepmd_test::water_system(1));
  EXPECT_EQ(system.nframes, 160);
  // first frame of set.001 (numpy: coord[0,0] = 7.3031473, force[0,0] = 0.32436448, energy -29944.06)
  EXPECT_FLOAT_EQ(static_cast<float>(system.coord[80 * 576]), 7.3031473f);
  EXPECT_FLOAT_EQ(static_cast<float>(system.force[80 * 576]), 0.32436448f);
  EXPECT_FLOAT_EQ(static_cast<float>(system.energy[80]), -29944.06f);
}

TEST(DeepmdDataReader, NpyRoundTripAndShapes) {
  deepmd_test::TempDir dir("npy");
  std::vector<double> values = {1.0, -2.5, 3.25, 1e-300, -0.0, 7.0};
  write_npy((dir.path / "a.npy").string(), {2, 3}, values);
  auto array = read_npy((dir.path / "a.npy").string());
  EXPECT_EQ(array.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(array.descr, "<f8");
  EXPECT_EQ(array.data, values);
  write_npy((dir.path / "b.npy").string(), {6}, values);
  EXPECT_EQ(read_npy((dir.path / "b.npy").string()).shape, (std::vector<int64_t>{6}));
}

TEST(DeepmdDataReader, SyntheticNpySystemFloat64) {
  deepmd_test::TempDir dir("sys");
  make_npy_system(dir.path, 2, 3);
  System system = load_system(dir.path.string());
  EXPECT_EQ(system.nframes, 6);
  EXPECT_EQ(system.natoms(), 2);
  EXPECT_DOUBLE_EQ(system.coord[6 * 3 + 1], 0.1 + 10.0);  // set 1, frame 0, value 1
  EXPECT_DOUBLE_EQ(system.energy[4], -1.5 - 1.0);         // set 1, frame 1
  EXPECT_DOUBLE_EQ(system.force[5], -2.5);
}

TEST(DeepmdDataReader, RawFormatMatchesNpy) {
  deepmd_test::TempDir dir("raw");
  write_text(dir.path / "type.raw", "1\n0\n");
  write_text(dir.path / "nopbc", "");
  write_text(dir.path / "coord.raw", "0 0 0 1 0 0\n0 0 0 0 2 0\n");
  write_text(dir.path / "energy.raw", "-1.0\n-2.0\n");
  write_text(dir.path / "force.raw", "1 2 3 4 5 6\n-1 -2 -3 -4 -5 -6\n");
  System system = load_system(dir.path.string());
  EXPECT_FALSE(system.periodic);
  EXPECT_TRUE(system.box.empty());
  EXPECT_EQ(system.nframes, 2);
  EXPECT_EQ(system.atom_types, (std::vector<int>{1, 0}));
  EXPECT_DOUBLE_EQ(system.coord[10], 2.0);
  EXPECT_DOUBLE_EQ(system.force[7], -2.0);
  EXPECT_DOUBLE_EQ(system.energy[1], -2.0);
}

TEST(DeepmdDataReader, ErrorsNameFileFrameAndMismatch) {
  {  // wrong number of values per frame
    deepmd_test::TempDir dir("bad1");
    make_npy_system(dir.path, 1, 2);
    write_npy((dir.path / "set.000" / "coord.npy").string(), {2, 5}, std::vector<double>(10, 0.0));
    std::string message = error_of([&] { load_system(dir.path.string()); });
    EXPECT_NE(message.find("coord.npy"), std::string::npos) << message;
    EXPECT_NE(message.find("2 atoms x 3 = 6"), std::string::npos) << message;
    EXPECT_NE(message.find("has 5 values per frame"), std::string::npos) << message;
  }
  {  // frame count disagrees between files of one set
    deepmd_test::TempDir dir("bad2");
    make_npy_system(dir.path, 1, 2);
    write_npy((dir.path / "set.000" / "energy.npy").string(), {3}, {1.0, 2.0, 3.0});
    std::string message = error_of([&] { load_system(dir.path.string()); });
    EXPECT_NE(message.find("energy.npy: 3 frames, but coord.npy in the same set has 2"), std::string::npos) << message;
  }
  {  // a non-finite value names the frame
    deepmd_test::TempDir dir("bad3");
    make_npy_system(dir.path, 1, 3);
    std::vector<double> force(18, 0.0);
    force[2 * 6 + 4] = std::nan("");
    write_npy((dir.path / "set.000" / "force.npy").string(), {3, 6}, force);
    std::string message = error_of([&] { load_system(dir.path.string()); });
    EXPECT_NE(message.find("force.npy: frame 2"), std::string::npos) << message;
    EXPECT_NE(message.find("value 4 is not finite"), std::string::npos) << message;
  }
  {  // raw line with a missing value names line and frame
    deepmd_test::TempDir dir("bad4");
    write_text(dir.path / "type.raw", "0 0\n");
    write_text(dir.path / "nopbc", "");
    write_text(dir.path / "coord.raw", "0 0 0 1 0 0\n0 0 0 0 2\n");
    std::string message = error_of([&] { load_system(dir.path.string()); });
    EXPECT_NE(message.find("coord.raw: line 2 (frame 1): expected 2 atoms x 3 = 6 values, got 5"), std::string::npos) << message;
  }
  {  // periodic system without box
    deepmd_test::TempDir dir("bad5");
    make_npy_system(dir.path, 1, 1);
    fs::remove(dir.path / "set.000" / "box.npy");
    std::string message = error_of([&] { load_system(dir.path.string()); });
    EXPECT_NE(message.find("box.npy (required for a periodic system"), std::string::npos) << message;
  }
  {  // truncated payload and bad magic
    deepmd_test::TempDir dir("bad6");
    make_npy_system(dir.path, 1, 2);
    fs::path coord = dir.path / "set.000" / "coord.npy";
    fs::resize_file(coord, fs::file_size(coord) - 8);
    std::string message = error_of([&] { load_system(dir.path.string()); });
    EXPECT_NE(message.find("truncated data"), std::string::npos) << message;
    write_text(coord, "not numpy at all");
    message = error_of([&] { load_system(dir.path.string()); });
    EXPECT_NE(message.find("bad magic"), std::string::npos) << message;
  }
  {  // type beyond type_map; label missing in a later set only
    deepmd_test::TempDir dir("bad7");
    make_npy_system(dir.path, 2, 1);
    fs::remove(dir.path / "set.001" / "energy.npy");
    std::string message = error_of([&] { load_system(dir.path.string()); });
    EXPECT_NE(message.find("energy.npy is missing but earlier sets have energy"), std::string::npos) << message;
    write_text(dir.path / "type.raw", "0 2\n");
    message = error_of([&] { load_system(dir.path.string()); });
    EXPECT_NE(message.find("atom 1 has type 2 but type_map.raw names only 2 types"), std::string::npos) << message;
  }
  EXPECT_NE(error_of([] { load_system("/nonexistent/system"); }).find("not a directory"), std::string::npos);
}
