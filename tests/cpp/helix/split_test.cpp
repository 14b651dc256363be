// helix splits: the scaffold split's order rule worked by hand, scaffolds of hand-built molecules,
// and seeded splits as reproducible partitions.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sampan/error.h"
#include "sampan/helix/split.h"

using namespace sampan::helix;
using Ids = std::vector<int64_t>;

TEST(HelixSplit, ScaffoldOrderRuleByHand) {
  // Groups A x4 (0-3), B x2 (4,5), C x2 (6,7), D (8), E (9); N = 10, cutoffs 8 and 9.
  // Order: A, C (same size as B, later first index first), B, E, D. Train takes A, C, B (8);
  // E would make train 9 > 8 -> valid (train + valid = 9 <= 9); D -> 10 > 9 -> test.
  std::vector<std::string> keys = {"A", "A", "A", "A", "B", "B", "C", "C", "D", "E"};
  Split s = scaffold_split(keys);
  EXPECT_EQ(s.train, (Ids{0, 1, 2, 3, 6, 7, 4, 5}));
  EXPECT_EQ(s.valid, (Ids{9}));
  EXPECT_EQ(s.test, (Ids{8}));
  EXPECT_THROW(scaffold_split(keys, 0.5, 0.5, 0.5), sampan::ValueError);
}

TEST(HelixSplit, MurckoScaffoldsByHand) {
  auto s = murcko_scaffolds({"CCc1ccccc1", "Oc1ccccc1", "c1ccccc1CCc1ccccc1C", "c1ccccc1CCc1ccccc1",
                             "c1ccccc1Cc1ccccc1", "CCCCO"});
  EXPECT_EQ(s[0], "c1ccccc1");
  EXPECT_EQ(s[1], "c1ccccc1");
  EXPECT_EQ(s[2], s[3]);  // the ethylene linker between the rings is part of the scaffold
  EXPECT_NE(s[3], s[4]);
  EXPECT_EQ(s[5], "");  // acyclic
  EXPECT_THROW(murcko_scaffolds({"C1CC"}), sampan::ValueError);
}

TEST(HelixSplit, SeededSplitsArePartitions) {
  std::vector<std::string> keys;
  for (int i = 0; i < 200; ++i) keys.push_back("s" + std::to_string(i % 37));
  for (uint64_t seed : {0ull, 1ull, 99ull}) {
    Split a = random_scaffold_split(keys, seed), b = random_scaffold_split(keys, seed);
    EXPECT_EQ(a.train, b.train);
    EXPECT_EQ(a.valid, b.valid);
    EXPECT_LE(a.valid.size(), 20u);
    EXPECT_LE(a.test.size(), 20u);
    std::set<std::string> train_keys, other_keys;
    for (int64_t i : a.train) train_keys.insert(keys[i]);
    for (int64_t i : a.valid) other_keys.insert(keys[i]);
    for (int64_t i : a.test) other_keys.insert(keys[i]);
    for (const auto& k : other_keys) EXPECT_EQ(train_keys.count(k), 0u) << k;
    Split r = random_split(200, seed);
    EXPECT_EQ(r.train.size(), 160u);
    EXPECT_EQ(r.valid.size(), 20u);
    Ids all = r.train;
    all.insert(all.end(), r.valid.begin(), r.valid.end());
    all.insert(all.end(), r.test.begin(), r.test.end());
    std::sort(all.begin(), all.end());
    for (int64_t i = 0; i < 200; ++i) EXPECT_EQ(all[i], i);
  }
  EXPECT_NE(random_split(200, 1).train, random_split(200, 2).train);
}

TEST(HelixSplit, PermutationIsUniformEnough) {
  // Each of the 6 orders of 3 items, over 6000 seeds, within 5 sigma of 1000 (binomial).
  std::map<Ids, int> counts;
  for (uint64_t seed = 0; seed < 6000; ++seed) counts[seeded_permutation(3, seed)]++;
  EXPECT_EQ(counts.size(), 6u);
  for (const auto& [p, c] : counts) EXPECT_NEAR(c, 1000, 5 * 28.9);
}
