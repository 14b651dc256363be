// Ghost atoms for the periodic images of a half list (md/ghost_list.h): every pair of the list
// with image shifts is the same separation vector between extended positions, each (atom, image)
// is one ghost, ghost forces fold back to their owners, and only half lists are accepted.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <tuple>

#include "md/ghost_list.h"
#include "md_test_systems.h"
#include "sampan/error.h"

using namespace sampan;
using namespace sampan::deepmd;

TEST(GhostList, PairsAreTheListsSeparationVectors) {
  // Heights of about 10.5 Å against rcut = 16 Å: pairs reach second images, atoms meet their own.
  md_test::System s = md_test::fcc(2, 5.26, 1.3, -0.9, 0.7, 0.25, true, 3);
  const double rcut = 16.0;
  NeighborList half = build_neighbor_list(s.positions.data(), s.natoms(), s.box, rcut, /*half=*/true);
  md::GhostedList g = md::ghost_half_list(half);
  ASSERT_EQ(g.natoms, s.natoms());
  ASSERT_EQ(g.neighbors.size(), half.neighbors.size());
  std::map<std::tuple<int64_t, int32_t, int32_t, int32_t>, int32_t> images;
  int64_t self_images = 0, far_images = 0, longest = 0;
  for (int64_t i = 0; i < half.natoms; ++i) {
    longest = std::max(longest, half.count(i));
    for (int64_t p = half.offsets[i]; p < half.offsets[i + 1]; ++p) {
      const int32_t* n = &half.shifts[3 * p];
      if (n[0] | n[1] | n[2]) {
        images.emplace(std::make_tuple(half.neighbors[p], n[0], n[1], n[2]), g.neighbors[p]);
        self_images += half.neighbors[p] == i;
        far_images += std::abs(n[0]) > 1 || std::abs(n[1]) > 1 || std::abs(n[2]) > 1;
      } else {
        EXPECT_EQ(g.neighbors[p], half.neighbors[p]);
      }
    }
  }
  ASSERT_GT(self_images, 0) << "the test box should let atoms meet their own images";
  ASSERT_GT(far_images, 0) << "the test box should reach images beyond the nearest box (the hash-map path)";
  EXPECT_EQ(g.nghost(), static_cast<int64_t>(images.size())) << "one ghost per (atom, image)";
  EXPECT_EQ(g.max_row, longest);
  // Moved positions (as between two list builds): ghosts follow their owners.
  std::vector<double> x = s.positions;
  for (size_t k = 0; k < x.size(); ++k) x[k] += 0.01 * static_cast<double>(k % 7) - 0.03;
  std::vector<double> x_ext(static_cast<size_t>(3 * g.extended()));
  std::vector<int> t_ext(static_cast<size_t>(g.extended()));
  md::place_ghosts(g, x.data(), s.types.data(), s.box.cell.data(), x_ext.data(), t_ext.data());
  const double* c = s.box.cell.data();
  for (int64_t i = 0; i < half.natoms; ++i)
    for (int64_t p = half.offsets[i]; p < half.offsets[i + 1]; ++p) {
      const int64_t j = half.neighbors[p], e = g.neighbors[p];
      const int32_t* n = &half.shifts[3 * p];
      EXPECT_EQ(t_ext[e], s.types[j]);
      for (int d = 0; d < 3; ++d) {
        const double want = x[3 * j + d] - x[3 * i + d] + n[0] * c[d] + n[1] * c[3 + d] + n[2] * c[6 + d];
        ASSERT_NEAR(x_ext[3 * e + d] - x_ext[3 * i + d], want, 1e-12) << "pair " << p << " component " << d;
      }
    }
  // Folding: each owner receives its own row plus its ghosts' rows.
  std::vector<double> f(x_ext.size());
  for (size_t k = 0; k < f.size(); ++k) f[k] = static_cast<double>(k % 11) - 5.0;
  std::vector<double> want(f.begin(), f.begin() + 3 * g.natoms);
  for (int64_t k = 0; k < g.nghost(); ++k)
    for (int d = 0; d < 3; ++d) want[3 * g.owner[k] + d] += f[3 * (g.natoms + k) + d];
  md::fold_ghost_forces(g, f.data());
  for (size_t k = 0; k < want.size(); ++k) EXPECT_DOUBLE_EQ(f[k], want[k]);
}

TEST(GhostList, OpenBoxesHaveNoGhostsAndFullListsAreRefused) {
  md_test::System s = md_test::fcc(2, 5.26, 0, 0, 0, 0.2, false, 4);
  NeighborList open = build_neighbor_list(s.positions.data(), s.natoms(), Box::open(), 6.0, true);
  EXPECT_EQ(md::ghost_half_list(open).nghost(), 0);
  NeighborList full = build_neighbor_list(s.positions.data(), s.natoms(), s.box, 6.0, false);
  try {
    md::ghost_half_list(full);
    FAIL() << "a full list was accepted";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("half list"), std::string::npos) << e.what();
  }
}
