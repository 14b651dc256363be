// helix readers from C++: CSV quoting, missing labels, bad rows with file/row/column; SMILES lists.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "sampan/error.h"
#include "sampan/helix/readers.h"

using namespace sampan::helix;

namespace {
std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST(HelixReaders, CsvColumnsQuotingAndMissingLabels) {
  std::string path = write_temp("helix_r1.csv", "\"a, b\",mol,y\n1,CCO,\n\"2\",\"c1ccccc1\",0.5\n");
  MoleculeTable t = read_smiles_csv(path);
  EXPECT_EQ(t.smiles_column, "mol");
  ASSERT_EQ(t.label_names, (std::vector<std::string>{"a, b", "y"}));
  ASSERT_EQ(t.size(), 2);
  EXPECT_EQ(t.rows, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.labels[0], 1.0);
  EXPECT_TRUE(std::isnan(t.labels[1]));
  EXPECT_EQ(t.labels[3], 0.5);
}

TEST(HelixReaders, BadRowsAreSkippedOrRaised) {
  std::string path = write_temp("helix_r2.csv", "smiles,y\nCC,1\nCO,x\nCN,0\nCF\n");
  MoleculeTable t = read_smiles_csv(path);
  EXPECT_EQ(t.smiles, (std::vector<std::string>{"CC", "CN"}));
  ASSERT_EQ(t.errors.size(), 2u);
  EXPECT_EQ(t.errors[0].row, 3);
  EXPECT_NE(t.errors[0].reason.find("helix_r2.csv: row 3, column 'y': expected a number or an empty cell, got 'x'"),
            std::string::npos) << t.errors[0].reason;
  EXPECT_NE(t.errors[1].reason.find("row 5: 1 fields, but the header has 2"), std::string::npos) << t.errors[1].reason;
  EXPECT_THROW(read_smiles_csv(path, "", {}, true, OnBadRow::raise), sampan::ValueError);
  EXPECT_THROW(read_smiles_csv(path, "smi"), sampan::ValueError);
  EXPECT_THROW(read_smiles_csv(write_temp("helix_r3.csv", "")), sampan::ValueError);
  EXPECT_THROW(read_smiles_csv(::testing::TempDir() + "helix_missing.csv"), sampan::IOError);
}

TEST(HelixReaders, SmilesLines) {
  MoleculeTable t = read_smiles_lines(write_temp("helix_r4.smi", "SMILES\nCCO ethanol\n\n# note\nc1ccccc1\t2\n"));
  EXPECT_EQ(t.smiles, (std::vector<std::string>{"CCO", "c1ccccc1"}));
  EXPECT_EQ(t.rows, (std::vector<int64_t>{2, 5}));
}
