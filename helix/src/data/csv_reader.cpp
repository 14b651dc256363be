// Reading molecules and labels from SMILES CSV and SMILES list files (see sampan/helix/readers.h).
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "sampan/error.h"
#include "sampan/helix/readers.h"

namespace sampan::helix {

namespace {

/// One CSV record: its fields and the file line on which it starts.
struct CsvRecord {
  std::vector<std::string> fields;
  int64_t line = 0;
};

/// Splits `text` into records by RFC 4180: fields separated by ',', a field may be quoted with
/// '"' (then it can hold commas, newlines and "" for a quote); records end at '\n' or '\r\n'.
/// Blank lines are skipped. An unterminated quote is an error naming the line where it opened.
std::vector<CsvRecord> split_csv(const std::string& text, const std::string& path) {
  std::vector<CsvRecord> records;
  CsvRecord current;
  std::string field;
  int64_t line = 1;
  size_t i = 0;
  const size_t n = text.size();
  bool record_open = false;
  auto end_record = [&] {
    current.fields.push_back(std::move(field));
    field.clear();
    const bool blank = current.fields.size() == 1 && current.fields[0].empty();
    if (!blank) records.push_back(std::move(current));
    current = CsvRecord();
    record_open = false;
  };
  while (i < n) {
    if (!record_open) {
      current.line = line;
      record_open = true;
    }
    char c = text[i];
    if (c == '"' && field.empty()) {
      const int64_t opened = line;
      ++i;
      bool closed = false;
      while (i < n) {
        if (text[i] == '"') {
          if (i + 1 < n && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        if (text[i] == '\n') ++line;
        field += text[i++];
      }
      SAMPAN_CHECK(closed, ValueError, path, ": row ", opened, ": a quoted field is never closed");
      continue;
    }
    if (c == ',') {
      current.fields.push_back(std::move(field));
      field.clear();
      ++i;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < n && text[i + 1] == '\n') ++i;
      ++i;
      end_record();
      ++line;
    } else {
      field += c;
      ++i;
    }
  }
  if (record_open) end_record();
  return records;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", '" : "'") + names[i] + "'";
  return out;
}

/// The SMILES column picked by name (see read_smiles_csv), or -1.
int64_t detect_smiles_column(const std::vector<std::string>& header) {
  static const char* exact[] = {"smiles", "mol", "smi", "canonical_smiles", "molecule"};
  for (const char* name : exact) {
    for (size_t c = 0; c < header.size(); ++c) {
      if (lower(trim(header[c])) == name) return static_cast<int64_t>(c);
    }
  }
  for (size_t c = 0; c < header.size(); ++c) {
    if (lower(header[c]).find("smiles") != std::string::npos) return static_cast<int64_t>(c);
  }
  return -1;
}

/// Parses a label cell: empty or "nan" -> NaN (missing); a number -> its value; else false.
bool parse_label(const std::string& cell, double& value) {
  const std::string t = trim(cell);
  if (t.empty() || lower(t) == "nan") {
    value = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  const char* begin = t.c_str();
  char* end = nullptr;
  errno = 0;
  value = std::strtod(begin, &end);
  return end == begin + t.size() && errno != ERANGE && std::isfinite(value);
}

}  // namespace

std::string read_text_file(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  SAMPAN_CHECK(file != nullptr, IOError, path, ": cannot open the file (",
               errno ? std::strerror(errno) : "unknown error", ")");
  gzbuffer(file, 1 << 17);
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const int got = gzread(file, buffer, sizeof buffer);
    if (got < 0) {
      int code = 0;
      std::string message = gzerror(file, &code);
      gzclose(file);
      SAMPAN_THROW(IOError, path, ": cannot read the file: ", message);
    }
    if (got == 0) break;
    text.append(buffer, got);
  }
  gzclose(file);
  return text;
}

MoleculeTable read_smiles_csv(const std::string& path, const std::string& smiles_column,
                              const std::vector<std::string>& label_columns, bool all_other_columns,
                              OnBadRow on_bad_row) {
  const std::string text = read_text_file(path);
  std::vector<CsvRecord> records = split_csv(text, path);
  SAMPAN_CHECK(!records.empty(), ValueError, path, ": the file is empty (expected a CSV header "
               "with a SMILES column, then one molecule per row)");
  std::vector<std::string> header = records[0].fields;
  for (auto& h : header) h = trim(h);
  if (!header.empty() && header[0].rfind("\xEF\xBB\xBF", 0) == 0) header[0] = header[0].substr(3);  // UTF-8 BOM

  MoleculeTable table;
  table.path = path;
  int64_t smiles_index = -1;
  if (smiles_column.empty()) {
    smiles_index = detect_smiles_column(header);
    SAMPAN_CHECK(smiles_index >= 0, ValueError, path, ": no SMILES column found by name among the "
                 "columns ", join(header), "; name it with smiles_column=");
  } else {
    auto it = std::find(header.begin(), header.end(), smiles_column);
    SAMPAN_CHECK(it != header.end(), ValueError, path, ": no column '", smiles_column,
                 "' (the SMILES column asked for); the columns are ", join(header));
    smiles_index = it - header.begin();
  }
  table.smiles_column = header[smiles_index];

  std::vector<int64_t> label_index;
  if (!label_columns.empty()) {
    for (const std::string& name : label_columns) {
      auto it = std::find(header.begin(), header.end(), name);
      SAMPAN_CHECK(it != header.end(), ValueError, path, ": no label column '", name,
                   "'; the columns are ", join(header));
      label_index.push_back(it - header.begin());
    }
  } else if (all_other_columns) {
    for (int64_t c = 0; c < static_cast<int64_t>(header.size()); ++c) {
      if (c != smiles_index) label_index.push_back(c);
    }
  }
  for (int64_t c : label_index) table.label_names.push_back(header[c]);
  const size_t num_labels = label_index.size();

  SAMPAN_CHECK(records.size() > 1, ValueError, path, ": the file has a header but no molecule rows");
  table.smiles.reserve(records.size() - 1);
  table.rows.reserve(records.size() - 1);
  table.labels.reserve((records.size() - 1) * num_labels);
  std::vector<double> values(num_labels);
  for (size_t r = 1; r < records.size(); ++r) {
    const CsvRecord& rec = records[r];
    std::string problem;
    if (rec.fields.size() != header.size()) {
      problem = detail::concat(path, ": row ", rec.line, ": ", rec.fields.size(), " fields, but the header has ",
                               header.size());
    } else {
      for (size_t t = 0; t < num_labels && problem.empty(); ++t) {
        if (!parse_label(rec.fields[label_index[t]], values[t])) {
          problem = detail::concat(path, ": row ", rec.line, ", column '", header[label_index[t]],
                                   "': expected a number or an empty cell, got '", rec.fields[label_index[t]], "'");
        }
      }
    }
    if (!problem.empty()) {
      SAMPAN_CHECK(on_bad_row == OnBadRow::skip, ValueError, problem);
      const std::string smiles = rec.fields.size() > static_cast<size_t>(smiles_index) ? rec.fields[smiles_index] : "";
      table.errors.push_back({-1, rec.line, smiles, problem});
      continue;
    }
    table.smiles.push_back(trim(rec.fields[smiles_index]));
    table.rows.push_back(rec.line);
    table.labels.insert(table.labels.end(), values.begin(), values.end());
  }
  return table;
}

MoleculeTable read_smiles_lines(const std::string& path) {
  const std::string text = read_text_file(path);
  MoleculeTable table;
  table.path = path;
  int64_t line = 0;
  size_t pos = 0;
  bool first = true;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    ++line;
    std::string content = trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (content.empty() || content[0] == '#') {
      if (end == text.size()) break;
      continue;
    }
    const size_t space = content.find_first_of(" \t");
    std::string smiles = space == std::string::npos ? content : content.substr(0, space);
    if (first && lower(smiles) == "smiles") {
      first = false;
      continue;
    }
    first = false;
    table.smiles.push_back(smiles);
    table.rows.push_back(line);
    if (end == text.size()) break;
  }
  SAMPAN_CHECK(!table.smiles.empty(), ValueError, path, ": the file has no molecules (expected one "
               "SMILES per line)");
  return table;
}

}  // namespace sampan::helix
