// sampan helix: reading molecules with labels from the files chemists have: SMILES CSV
// (MoleculeNet style, plain or gzip-compressed), SMILES lists (.smi, one molecule per line) and
// SDF (through RDKit's SDMolSupplier).
//
// A bad row never aborts a read over thousands of good ones: it is left out and listed in
// `errors` (with file, row and column in its reason); only what makes the whole file unusable
// (missing, empty, no SMILES column, an unknown label column) throws.
//
// Row numbers are 1-based lines of the file (the CSV header is row 1, the first molecule row 2);
// for SDF they are 1-based record numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sampan/helix/featurize.h"

namespace sampan::helix {

/// Molecules as text with their labels, as read from a file (not featurized yet).
struct MoleculeTable {
  std::string path;
  std::string smiles_column;             // the column used ("" for .smi files)
  std::vector<std::string> label_names;  // T label columns, in file order
  std::vector<std::string> smiles;       // one per kept row
  std::vector<int64_t> rows;             // the file row of each kept molecule
  std::vector<double> labels;            // [n, T] row-major; NaN where the cell was empty
  /// Rows left out: a label that is not a number, a wrong number of fields. `index` is -1.
  std::vector<InvalidMolecule> errors;

  int64_t size() const { return static_cast<int64_t>(smiles.size()); }
};

/// How a bad row (a label that is not a number, a wrong field count) is handled.
enum class OnBadRow {
  skip,   // leave the row out and list it in errors (the run goes on over the good rows)
  raise,  // ValueError naming the file, row and column
};

/// Reads a CSV (comma separated, RFC 4180 quoting, optional gzip compression, '\n' or '\r\n').
/// smiles_column: its header name; "" picks one by name (smiles, mol, smi, canonical_smiles,
/// molecule, or any name containing "smiles", case-insensitive) or throws listing the columns.
/// label_columns: the label columns by name; empty with all_other_columns = true takes every other
/// column. Empty cells (and "nan") are missing labels (NaN).
MoleculeTable read_smiles_csv(const std::string& path, const std::string& smiles_column = "",
                              const std::vector<std::string>& label_columns = {},
                              bool all_other_columns = true, OnBadRow on_bad_row = OnBadRow::skip);

/// Reads a SMILES list: one molecule per line, the SMILES first, anything after whitespace
/// ignored (a name or id); blank lines and lines starting with '#' skipped. No labels.
/// A first line that reads "smiles" (any case) is taken as a header and skipped.
MoleculeTable read_smiles_lines(const std::string& path);

/// The whole file's bytes, decompressed when it is gzip (zlib reads plain files as they are).
/// IOError naming the path when it cannot be opened or read.
std::string read_text_file(const std::string& path);

/// An SDF read and featurized: the graphs, the canonical SMILES of each kept record, the
/// numeric properties asked for as labels, and the records that were left out.
struct SdfDataset {
  GraphSet graphs;
  std::vector<std::string> smiles;       // canonical isomeric SMILES of each graph
  std::vector<int64_t> rows;             // 1-based record number of each graph
  std::vector<std::string> label_names;
  std::vector<double> labels;            // [n, T]; NaN where a record lacks the property
};

/// Reads an SDF (optionally gzip-compressed) with RDKit (sanitized, H atoms removed) and
/// featurizes every record. label_properties: SD properties ("> <NAME>") read as labels; a
/// record whose property is not a number is left out (skip) or raises (raise). Records RDKit
/// cannot read are left out and listed in graphs.invalid with their record number.
SdfDataset read_sdf(const std::string& path, const std::string& featurizer,
                    const std::vector<std::string>& label_properties = {},
                    OnBadRow on_bad_row = OnBadRow::skip);

}  // namespace sampan::helix
