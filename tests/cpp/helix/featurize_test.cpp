// helix featurization: hand-checked molecules against the vocabularies of OGB's smiles2graph
// (ogb/utils/features.py) and of Hu et al.'s pretrain-gnns (chem/loader.py). Every expected id
// below is derived by hand from those vocabularies and the chemistry of the molecule, not taken
// from the code under test.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sampan/error.h"
#include "sampan/helix/featurize.h"

using namespace sampan::helix;
using Row = std::vector<int64_t>;

namespace {

Row atom_row(const GraphSet& s, int64_t graph, int64_t atom) {
  const int64_t n = s.n_atom_features, base = (s.node_offsets[graph] + atom) * n;
  return Row(s.atom_features.begin() + base, s.atom_features.begin() + base + n);
}

Row edge_row(const GraphSet& s, int64_t graph, int64_t edge) {
  const int64_t n = s.n_bond_features, base = (s.edge_offsets[graph] + edge) * n;
  return Row(s.bond_features.begin() + base, s.bond_features.begin() + base + n);
}

}  // namespace

TEST(HelixFeaturize, SpecsHaveTheReferenceVocabularySizes) {
  // OGB: get_atom_feature_dims() = [119, 5, 12, 12, 10, 6, 6, 2, 2], bond [5, 6, 2].
  EXPECT_EQ(featurizer_spec("ogb").atom_feature_sizes, (Row{119, 5, 12, 12, 10, 6, 6, 2, 2}));
  EXPECT_EQ(featurizer_spec("ogb").bond_feature_sizes, (Row{5, 6, 2}));
  // Hu: 118 atom types + other, 4 chirality tags; 4 bond types + other, 3 directions + other.
  EXPECT_EQ(featurizer_spec("pretrain_gnns").atom_feature_sizes, (Row{119, 4}));
  EXPECT_EQ(featurizer_spec("pretrain_gnns").bond_feature_sizes, (Row{5, 4}));
  EXPECT_THROW(featurizer_spec("ecfp"), sampan::ValueError);
}

TEST(HelixFeaturize, OgbGoldenExampleFromOgbSource) {
  // OGB's own comment in features.py: Cl[C@H](/C=C/C)Br, atom 1 -> [5, 2, 4, 5, 1, 0, 2, 0, 0],
  // bond 2 (C=C, E) -> [1, 2, 0].
  GraphSet s = featurize_smiles({"Cl[C@H](/C=C/C)Br"}, "ogb");
  ASSERT_EQ(s.num_graphs(), 1);
  ASSERT_EQ(s.num_nodes(), 6);
  ASSERT_EQ(s.num_edges(), 10);
  EXPECT_EQ(atom_row(s, 0, 1), (Row{5, 2, 4, 5, 1, 0, 2, 0, 0}));
  EXPECT_EQ(edge_row(s, 0, 4), (Row{1, 2, 0}));
  EXPECT_EQ(edge_row(s, 0, 5), (Row{1, 2, 0}));
}

TEST(HelixFeaturize, EthanolOgb) {
  // CCO: C0 (3 H, degree 4, SP3), C1 (2 H, degree 4, SP3), O2 (1 H, degree 2, SP3).
  // formal charge 0 -> id 5; atomic number z -> z - 1.
  GraphSet s = featurize_smiles({"CCO"}, "ogb");
  EXPECT_EQ(atom_row(s, 0, 0), (Row{5, 0, 4, 5, 3, 0, 2, 0, 0}));
  EXPECT_EQ(atom_row(s, 0, 1), (Row{5, 0, 4, 5, 2, 0, 2, 0, 0}));
  EXPECT_EQ(atom_row(s, 0, 2), (Row{7, 0, 2, 5, 1, 0, 2, 0, 0}));
  // Bonds: C0-C1, C1-O2, each twice (i -> j, then j -> i), single, no stereo, not conjugated.
  ASSERT_EQ(s.num_edges(), 4);
  EXPECT_EQ(s.edge_source, (Row{0, 1, 1, 2}));
  EXPECT_EQ(s.edge_target, (Row{1, 0, 2, 1}));
  for (int e = 0; e < 4; ++e) EXPECT_EQ(edge_row(s, 0, e), (Row{0, 0, 0}));
}

TEST(HelixFeaturize, BenzeneOgb) {
  // Every carbon: aromatic, in a ring, SP2, degree 3 (2 C + 1 H), one H; bonds aromatic and
  // conjugated.
  GraphSet s = featurize_smiles({"c1ccccc1"}, "ogb");
  ASSERT_EQ(s.num_nodes(), 6);
  ASSERT_EQ(s.num_edges(), 12);
  for (int a = 0; a < 6; ++a) EXPECT_EQ(atom_row(s, 0, a), (Row{5, 0, 3, 5, 1, 0, 1, 1, 1}));
  for (int e = 0; e < 12; ++e) EXPECT_EQ(edge_row(s, 0, e), (Row{3, 0, 1}));
}

TEST(HelixFeaturize, ChargedAtomsOgb) {
  // C[N+](C)(C)C: N+ (z=7 -> 6), charge +1 -> id 6, degree 4, no H, SP3.
  // [O-]C=O (formate): O- charge -1 -> id 4, degree 1, no H; SP2 by conjugation with C=O.
  GraphSet s = featurize_smiles({"C[N+](C)(C)C", "[O-]C=O"}, "ogb");
  EXPECT_EQ(atom_row(s, 0, 1), (Row{6, 0, 4, 6, 0, 0, 2, 0, 0}));
  EXPECT_EQ(atom_row(s, 1, 0)[3], 4);
  EXPECT_EQ(atom_row(s, 1, 0)[2], 1);
  EXPECT_EQ(atom_row(s, 1, 0)[4], 0);
}

TEST(HelixFeaturize, OutOfVocabularyGoesToMisc) {
  // Dummy atom '*' has atomic number 0, outside 1..118 -> misc id 118; [C] (bracket atom, no H)
  // has 4 radical electrons, the last in-vocabulary id 4; [Fe+6] has charge 6, outside -5..5 ->
  // misc id 11.
  GraphSet s = featurize_smiles({"*C", "[C]", "[Fe+6]"}, "ogb");
  ASSERT_EQ(s.num_graphs(), 3);
  EXPECT_EQ(atom_row(s, 0, 0)[0], 118);
  EXPECT_EQ(atom_row(s, 1, 0)[5], 4);
  EXPECT_EQ(atom_row(s, 2, 0)[3], 11);
}

TEST(HelixFeaturize, PretrainGnnsChiralityAndDirection) {
  // F/C=C/F: bond directions ENDUPRIGHT (1) on the first single bond in SMILES order; the
  // double bond has none (0). [C@@H]: CW (1); [C@H]: CCW (2).
  GraphSet s = featurize_smiles({"F/C=C/F", "N[C@@H](C)C(=O)O", "N[C@H](C)C(=O)O"}, "pretrain_gnns");
  ASSERT_EQ(s.num_graphs(), 3);
  EXPECT_EQ(atom_row(s, 0, 0), (Row{8, 0}));  // F: z = 9 -> 8
  EXPECT_EQ(edge_row(s, 0, 0), (Row{0, 1}));   // F/C: single, ENDUPRIGHT
  EXPECT_EQ(edge_row(s, 0, 2), (Row{1, 0}));   // C=C: double, NONE
  EXPECT_EQ(atom_row(s, 1, 1), (Row{5, 1}));
  EXPECT_EQ(atom_row(s, 2, 1), (Row{5, 2}));
}

TEST(HelixFeaturize, InvalidSmilesAreReportedWithRowsAndSkipped) {
  GraphSet s = featurize_smiles({"CCO", "C1CC", "c1ccccc1", "C(C)(C)(C)(C)C", ""}, "ogb",
                                {2, 3, 4, 5, 6});
  ASSERT_EQ(s.num_graphs(), 2);
  EXPECT_EQ(s.source_index, (Row{0, 2}));
  ASSERT_EQ(s.invalid.size(), 3u);
  EXPECT_EQ(s.invalid[0].row, 3);
  EXPECT_EQ(s.invalid[0].text, "C1CC");
  EXPECT_NE(s.invalid[0].reason.find("syntax"), std::string::npos) << s.invalid[0].reason;
  EXPECT_EQ(s.invalid[1].row, 5);  // pentavalent carbon: sanitization error
  EXPECT_NE(s.invalid[1].reason.find("valence"), std::string::npos) << s.invalid[1].reason;
  EXPECT_EQ(s.invalid[2].row, 6);
}

TEST(HelixFeaturize, ThreadCountDoesNotChangeTheOutput) {
  std::vector<std::string> smiles;
  for (int i = 0; i < 300; ++i) smiles.push_back(i % 3 ? "c1ccccc1O" : (i % 2 ? "CC(=O)N" : "C1CC"));
  GraphSet one = featurize_smiles(smiles, "ogb", {}, 1), two = featurize_smiles(smiles, "ogb", {}, 2);
  EXPECT_EQ(one.atom_features, two.atom_features);
  EXPECT_EQ(one.bond_features, two.bond_features);
  EXPECT_EQ(one.node_offsets, two.node_offsets);
  EXPECT_EQ(one.invalid.size(), two.invalid.size());
  EXPECT_EQ(one.invalid.size(), 50u);
}
