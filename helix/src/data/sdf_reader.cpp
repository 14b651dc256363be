// Reading and featurizing SDF files through RDKit's SDMolSupplier (see sampan/helix/readers.h).
#include <GraphMol/FileParsers/MolSupplier.h>
#include <GraphMol/GraphMol.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>

#include "featurize/molecule_graph.h"
#include "sampan/error.h"
#include "sampan/helix/readers.h"

namespace sampan::helix {

namespace {

bool parse_property(const std::string& text, double& value) {
  size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
  const std::string t = text.substr(b, e - b);
  if (t.empty()) {
    value = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  char* end = nullptr;
  errno = 0;
  value = std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size() && errno != ERANGE && std::isfinite(value);
}

/// Records in an SDF text: lines "$$$$", plus a last record without one if anything but
/// whitespace follows the last "$$$$".
int64_t count_sdf_records(const std::string& text) {
  int64_t count = 0;
  size_t after_last = 0, pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "$$$$") {
      ++count;
      after_last = end;
    }
    pos = end + 1;
  }
  if (text.find_first_not_of(" \t\r\n", after_last) != std::string::npos) ++count;
  return count;
}

}  // namespace

SdfDataset read_sdf(const std::string& path, const std::string& featurizer,
                    const std::vector<std::string>& label_properties, OnBadRow on_bad_row) {
  const FeaturizerKind kind = featurizer_kind(featurizer);
  const std::string text = read_text_file(path);
  SAMPAN_CHECK(text.find_first_not_of(" \t\r\n") != std::string::npos, ValueError, path,
               ": the file is empty (expected SDF records, each ending with a '$$$$' line)");
  SdfDataset out;
  out.graphs = empty_graph_set(featurizer);
  out.label_names = label_properties;
  const size_t num_labels = label_properties.size();
  std::vector<double> values(num_labels);

  const int64_t num_records = count_sdf_records(text);
  QuietRdkitLogs quiet;
  RDKit::SDMolSupplier supplier;
  supplier.setData(text, /*sanitize=*/true, /*removeHs=*/true);
  MoleculeGraph graph;
  int64_t record = 0;
  while (!supplier.atEnd()) {
    ++record;
    std::unique_ptr<RDKit::ROMol> mol;
    std::string reason;
    try {
      mol.reset(supplier.next());
      if (!mol) reason = "RDKit could not read the record (bad mol block or sanitization error)";
    } catch (const std::exception& e) {
      reason = detail::concat("RDKit could not read the record: ", e.what());
    }
    if (!mol) {
      // Past the last record (a file ending in blank lines) the supplier can still hand out one
      // null: that is no record at all, not a bad one.
      if (record > num_records) break;
      out.graphs.invalid.push_back({record - 1, record, detail::concat("record ", record), reason});
      continue;
    }
    std::string problem;
    for (size_t t = 0; t < num_labels && problem.empty(); ++t) {
      std::string value;
      if (!mol->getPropIfPresent(label_properties[t], value)) {
        values[t] = std::numeric_limits<double>::quiet_NaN();
      } else if (!parse_property(value, values[t])) {
        problem = detail::concat(path, ": record ", record, ", property '", label_properties[t],
                                 "': expected a number or an empty value, got '", value, "'");
      }
    }
    if (!problem.empty()) {
      SAMPAN_CHECK(on_bad_row == OnBadRow::skip, ValueError, problem);
      out.graphs.invalid.push_back({record - 1, record, detail::concat("record ", record), problem});
      continue;
    }
    molecule_graph(*mol, kind, graph);
    append_graph(out.graphs, graph, record - 1);
    out.smiles.push_back(RDKit::MolToSmiles(*mol));
    out.rows.push_back(record);
    out.labels.insert(out.labels.end(), values.begin(), values.end());
  }
  return out;
}

}  // namespace sampan::helix
