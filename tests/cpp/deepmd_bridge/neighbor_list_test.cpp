// Neighbour lists by cell lists against the brute-force search over every image, on random and
// water boxes: orthorhombic, triclinic, open, mixed, unwrapped coordinates, boxes smaller than
// the cutoff; and the neighbour counts of DeePMD's water data against LAMMPS's (reference note
// deepmd.md §9.1: `compute coord/atom` at 6 Å over all 400 frames).
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "deepmd_test_util.h"
#include "sampan/deepmd/neighbor_list.h"
#include "sampan/error.h"

using namespace sampan::deepmd;

namespace {

// Uniform random positions x = s . cell with s in [lo, hi) per direction (unwrapped when the
// interval leaves [0, 1)).
std::vector<double> random_positions(const Box& box, int64_t n, double lo, double hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> x(static_cast<size_t>(3 * n));
  for (int64_t i = 0; i < n; ++i) {
    double s[3] = {u(rng), u(rng), u(rng)};
    for (int d = 0; d < 3; ++d)
      x[3 * i + d] = s[0] * box.cell[d] + s[1] * box.cell[3 + d] + s[2] * box.cell[6 + d];
  }
  return x;
}

// The cell-list list equals the brute-force one pair for pair (same j, shift, vector to 1e-12),
// and every vector equals x_j - x_i + n . cell recomputed here.
void expect_same_as_brute_force(const std::vector<double>& x, const Box& box, double rcut, bool half,
                                int64_t min_pairs = 1) {
  const int64_t n = static_cast<int64_t>(x.size() / 3);
  NeighborList fast = build_neighbor_list(x.data(), n, box, rcut, half);
  NeighborList slow = brute_force_neighbor_list(x.data(), n, box, rcut, half);
  sort_rows(fast);
  ASSERT_EQ(fast.offsets, slow.offsets) << "neighbour counts differ";
  ASSERT_EQ(fast.neighbors, slow.neighbors);
  ASSERT_EQ(fast.shifts, slow.shifts);
  ASSERT_GE(fast.size(), min_pairs) << "the test system has too few pairs to test anything";
  for (int64_t i = 0; i < n; ++i)
    for (int64_t p = fast.offsets[i]; p < fast.offsets[i + 1]; ++p) {
      int64_t j = fast.neighbors[p];
      const int32_t* s = &fast.shifts[3 * p];
      double r2 = 0;
      for (int d = 0; d < 3; ++d) {
        double want = x[3 * j + d] - x[3 * i + d] + s[0] * box.cell[d] + s[1] * box.cell[3 + d] + s[2] * box.cell[6 + d];
        ASSERT_NEAR(fast.vectors[3 * p + d], want, 1e-12);
        r2 += want * want;
      }
      ASSERT_LT(r2, rcut * rcut);
    }
  if (!half) {
    // A full list is symmetric: (i, j, n) implies (j, i, -n); a half list has half its pairs.
    NeighborList half_list = build_neighbor_list(x.data(), n, box, rcut, true);
    EXPECT_EQ(2 * half_list.size(), fast.size());
  }
}

const double kSkewed[9] = {10.0, 0.0, 0.0, 3.1, 9.0, 0.0, -2.2, 1.7, 11.0};

}  // namespace

TEST(NeighborList, OrthorhombicRandomMatchesBruteForce) {
  Box box = Box::orthorhombic(14.0, 15.5, 17.0);
  auto x = random_positions(box, 400, 0.0, 1.0, 1);
  expect_same_as_brute_force(x, box, 4.0, false, 1000);
  expect_same_as_brute_force(x, box, 4.0, true, 500);
}

TEST(NeighborList, TriclinicUnwrappedMatchesBruteForce) {
  Box box = Box::triclinic(kSkewed);
  // Coordinates spread over several images, as DeePMD's unwrapped water data.
  auto x = random_positions(box, 300, -2.3, 3.1, 2);
  expect_same_as_brute_force(x, box, 3.7, false, 500);
  expect_same_as_brute_force(x, box, 3.7, true, 250);
}

TEST(NeighborList, BoxSmallerThanCutoffVisitsEveryImage) {
  // Heights about 4 Å and rcut 6.5 Å: each atom meets its own images and the other atoms several
  // times with different shifts.
  const double small[9] = {4.5, 0.0, 0.0, 1.0, 4.2, 0.0, 0.5, -0.8, 4.0};
  Box box = Box::triclinic(small);
  auto x = random_positions(box, 5, -1.0, 2.0, 3);
  expect_same_as_brute_force(x, box, 6.5, false, 100);
  expect_same_as_brute_force(x, box, 6.5, true, 50);
  // A single atom in a cubic box of 3 Å with rcut 3.5: its 6 face images (3 Å) and 12 edge
  // images (4.24 Å) are outside except the faces; the count is known analytically.
  Box cube = Box::orthorhombic(3, 3, 3);
  std::vector<double> one = {0.3, 0.1, 2.9};
  NeighborList l = build_neighbor_list(one.data(), 1, cube, 3.5);
  EXPECT_EQ(l.size(), 6);
  // rcut 4.3 > 3 sqrt(2): the 12 edge images join.
  EXPECT_EQ(build_neighbor_list(one.data(), 1, cube, 4.3).size(), 18);
}

TEST(NeighborList, OpenAndMixedBoundariesMatchBruteForce) {
  Box open = Box::open();
  Box span = Box::orthorhombic(12, 12, 12);
  auto x = random_positions(span, 250, -0.5, 0.5, 4);
  expect_same_as_brute_force(x, open, 3.5, false, 500);
  expect_same_as_brute_force(x, open, 3.5, true, 250);
  // A slab: periodic in x and y, open in z (as LAMMPS's "p p f").
  Box slab = Box::triclinic(kSkewed);
  slab.periodic = {true, true, false};
  auto y = random_positions(slab, 250, -0.5, 1.5, 5);
  expect_same_as_brute_force(y, slab, 3.5, false, 200);
  // Sparse atoms far apart: the grid is capped, not one cell per cutoff volume of empty space.
  std::vector<double> far = {0, 0, 0, 1.0, 0, 0, 1e6, 0, 0, 1e6, 1e6, 2.0};
  NeighborList l = build_neighbor_list(far.data(), 4, open, 1.5);
  EXPECT_EQ(l.size(), 2);
  EXPECT_EQ(l.neighbors[0], 1);
}

TEST(NeighborList, RowsAreInAtomOrderAndIndependentOfThreads) {
  Box box = Box::triclinic(kSkewed);
  auto x = random_positions(box, 500, 0.0, 1.0, 6);
  NeighborList a = build_neighbor_list(x.data(), 500, box, 3.0);
  NeighborList b = build_neighbor_list(x.data(), 500, box, 3.0);
  EXPECT_EQ(a.neighbors, b.neighbors);
  EXPECT_EQ(a.shifts, b.shifts);
  EXPECT_EQ(a.vectors, b.vectors);
}

TEST(NeighborList, BadInputsRaiseClearErrors) {
  std::vector<double> x = {0, 0, 0, 1, 1, 1};
  Box box = Box::orthorhombic(5, 5, 5);
  try {
    build_neighbor_list(x.data(), 2, box, -1.0);
    FAIL() << "negative rcut accepted";
  } catch (const sampan::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("rcut must be a positive"), std::string::npos) << e.what();
  }
  x[4] = NAN;
  try {
    build_neighbor_list(x.data(), 2, box, 2.0);
    FAIL() << "NaN position accepted";
  } catch (const sampan::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("atom 1 component 1"), std::string::npos) << e.what();
  }
  const double flat[9] = {1, 0, 0, 2, 0, 0, 0, 0, 1};
  try {
    Box::triclinic(flat);
    FAIL() << "singular cell accepted";
  } catch (const sampan::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("linearly dependent"), std::string::npos) << e.what();
  }
}

// ---- DeePMD water data against LAMMPS ------------------------------------------------------

namespace {

// A minimal reader for the little-endian float32 2-D .npy files of the water data.
bool read_npy_f32(const std::string& path, std::vector<double>& out, int64_t& rows, int64_t& cols) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  char magic[8];
  f.read(magic, 8);
  if (std::memcmp(magic, "\x93NUMPY", 6) != 0) return false;
  uint32_t hlen = 0;
  if (magic[6] == 1) {
    uint16_t h16;
    f.read(reinterpret_cast<char*>(&h16), 2);
    hlen = h16;
  } else {
    f.read(reinterpret_cast<char*>(&hlen), 4);
  }
  std::string header(hlen, ' ');
  f.read(&header[0], hlen);
  if (header.find("'<f4'") == std::string::npos || header.find("'fortran_order': False") == std::string::npos)
    return false;
  auto lp = header.find("'shape': (");
  if (lp == std::string::npos) return false;
  if (std::sscanf(header.c_str() + lp + 10, "%ld, %ld", &rows, &cols) != 2) return false;
  std::vector<float> v(static_cast<size_t>(rows * cols));
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
  if (!f) return false;
  out.assign(v.begin(), v.end());
  return true;
}

}  // namespace

TEST(NeighborList, WaterDataNeighbourCountsMatchLammps) {
  const std::string root = deepmd_test::shared_data_dir() + "/deepmd_water";
  const std::vector<std::string> sets = {"data_0/set.000", "data_1/set.000", "data_1/set.001", "data_2/set.000",
                                         "data_3/set.000"};
  std::ifstream probe(root + "/data_0/type.raw");
  if (!probe) GTEST_SKIP() << "DeePMD water data not found at " << root << " (set SAMPAN_SHARED_DATA)";
  std::vector<int> types;
  for (int t; probe >> t;) types.push_back(t);
  ASSERT_EQ(types.size(), 192u);
  int64_t max_o = 0, max_h = 0, frames = 0;
  double sum_o = 0, sum_h = 0;
  for (const auto& s : sets) {
    std::vector<double> coord, box;
    int64_t nf, nc, nb, n9;
    ASSERT_TRUE(read_npy_f32(root + "/" + s + "/coord.npy", coord, nf, nc)) << s;
    ASSERT_TRUE(read_npy_f32(root + "/" + s + "/box.npy", box, nb, n9)) << s;
    ASSERT_EQ(nc, 576);
    for (int64_t f = 0; f < nf; ++f, ++frames) {
      Box b = Box::triclinic(&box[static_cast<size_t>(9 * f)]);
      NeighborList l = build_neighbor_list(&coord[static_cast<size_t>(576 * f)], 192, b, 6.0);
      for (int64_t i = 0; i < 192; ++i) {
        int64_t no = 0, nh = 0;
        for (int64_t p = l.offsets[i]; p < l.offsets[i + 1]; ++p) (types[l.neighbors[p]] == 0 ? no : nh)++;
        max_o = std::max(max_o, no);
        max_h = std::max(max_h, nh);
        sum_o += no;
        sum_h += nh;
      }
    }
  }
  ASSERT_EQ(frames, 400);
  // LAMMPS (Debian 20220106, pair zero 6.0, compute coord/atom by type, rerun): max 38 O and
  // 72 H neighbours, means 29.50 and 59.35 per atom over all atoms and frames.
  EXPECT_EQ(max_o, 38);
  EXPECT_EQ(max_h, 72);
  EXPECT_NEAR(sum_o / (192.0 * frames), 29.50, 0.005);
  EXPECT_NEAR(sum_h / (192.0 * frames), 59.35, 0.005);
}

TEST(NeighborList, ThreadsChunksAndReusedListsGiveTheSameRows) {
  // Above the threads' threshold (2,048 atoms): 1 and 2 threads, a fresh list and one reused from
  // a larger system, with and without separation vectors, all the same rows in the same order.
  Box box = Box::triclinic(kSkewed);
  auto big = random_positions(box, 4000, -0.2, 1.2, 8);
  auto x = random_positions(box, 3000, -0.2, 1.2, 9);
  const int before = omp_get_max_threads();
  for (bool half : {true, false}) {
    omp_set_num_threads(1);
    NeighborList one = build_neighbor_list(x.data(), 3000, box, 2.5, half);
    omp_set_num_threads(2);
    NeighborList two = build_neighbor_list(x.data(), 3000, box, 2.5, half);
    NeighborList reused;
    build_neighbor_list_into(reused, big.data(), 4000, box, 2.5, half);
    build_neighbor_list_into(reused, x.data(), 3000, box, 2.5, half, /*vectors=*/false);
    ASSERT_GT(one.size(), 10000);
    EXPECT_EQ(two.offsets, one.offsets);
    EXPECT_EQ(two.neighbors, one.neighbors);
    EXPECT_EQ(two.shifts, one.shifts);
    EXPECT_EQ(two.vectors, one.vectors);
    EXPECT_EQ(reused.natoms, 3000);
    EXPECT_EQ(reused.offsets, one.offsets);
    EXPECT_EQ(reused.neighbors, one.neighbors);
    EXPECT_EQ(reused.shifts, one.shifts);
    EXPECT_TRUE(reused.vectors.empty());
  }
  omp_set_num_threads(before);
}
