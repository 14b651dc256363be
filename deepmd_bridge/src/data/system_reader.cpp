// Reading DeePMD systems (deepmd/npy and raw); see sampan/deepmd/data.h for the layout.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "data/npy_reader.h"
#include "sampan/deepmd/data.h"
#include "sampan/error.h"

namespace sampan::deepmd {

namespace fs = std::filesystem;

std::vector<int64_t> System::type_counts() const {
  int ntypes = static_cast<int>(type_map.size());
  for (int t : atom_types) ntypes = std::max(ntypes, t + 1);
  std::vector<int64_t> counts(static_cast<size_t>(ntypes), 0);
  for (int t : atom_types) ++counts[static_cast<size_t>(t)];
  return counts;
}

namespace {

// A per-frame array read from one file: `frames` rows of `per_frame` values.
struct FrameArray {
  std::vector<double> values;
  int64_t frames = 0;
};

std::vector<std::string> read_words(const fs::path& file) {
  std::ifstream in(file);
  SAMPAN_CHECK(in, IOError, "cannot open ", file.string());
  std::vector<std::string> words;
  std::string word;
  while (in >> word) words.push_back(word);
  return words;
}

std::vector<int> read_types(const fs::path& file) {
  std::vector<int> types;
  int index = 0;
  for (const std::string& word : read_words(file)) {
    char* end = nullptr;
    long value = std::strtol(word.c_str(), &end, 10);
    if (end == word.c_str() || *end != '\0' || value < 0)
      SAMPAN_THROW(IOError, file.string(), ": atom ", index, ": expected a non-negative integer type, got '", word, "'");
    types.push_back(static_cast<int>(value));
    ++index;
  }
  SAMPAN_CHECK(!types.empty(), IOError, file.string(), ": no atom types (empty file)");
  return types;
}

// Checks the shape of an .npy array holding `per_frame` values per frame. Accepted: [nf, per_frame],
// [nf, ...] with the trailing dims multiplying to per_frame, and for a single frame [per_frame].
FrameArray frames_from_npy(const fs::path& file, int64_t per_frame, const std::string& what) {
  detail::NpyArray array = detail::read_npy(file.string());
  FrameArray out;
  SAMPAN_CHECK(!array.shape.empty(), ValueError, file.string(), ": expected ", what, " per frame, got a 0-d array");
  int64_t trailing = 1;
  for (size_t i = 1; i < array.shape.size(); ++i) trailing *= array.shape[i];
  if (array.shape.size() == 1 && per_frame != 1) {
    SAMPAN_CHECK(array.shape[0] == per_frame, ValueError, file.string(), ": 1-d array of ", array.shape[0], " values; expected ", what,
                 " = ", per_frame, " values per frame");
    out.frames = 1;
  } else {
    if (trailing != per_frame) {
      std::string shape = "(";
      for (size_t i = 0; i < array.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(array.shape[i]);
      SAMPAN_THROW(ValueError, file.string(), ": shape ", shape, ") has ", trailing, " values per frame; expected ",
                   what, " = ", per_frame);
    }
    out.frames = array.shape[0];
  }
  out.values = std::move(array.data);
  return out;
}

// A .raw text file: one frame per line with `per_frame` numbers.
FrameArray frames_from_raw(const fs::path& file, int64_t per_frame, const std::string& what) {
  std::ifstream in(file);
  SAMPAN_CHECK(in, IOError, "cannot open ", file.string());
  FrameArray out;
  std::string line;
  int64_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream words(line);
    std::string word;
    int64_t count = 0;
    while (words >> word) {
      char* end = nullptr;
      double value = std::strtod(word.c_str(), &end);
      if (end == word.c_str() || *end != '\0')
        SAMPAN_THROW(ValueError, file.string(), ": line ", line_number, " (frame ", out.frames,
                     "): value ", count, " is not a number: '", word, "'");
      out.values.push_back(value);
      ++count;
    }
    SAMPAN_CHECK(count == per_frame, ValueError, file.string(), ": line ", line_number, " (frame ", out.frames,
                 "): expected ", what, " = ", per_frame, " values, got ", count);
    ++out.frames;
  }
  return out;
}

void check_finite(const FrameArray& array, int64_t per_frame, const fs::path& file, int64_t first_frame) {
  for (size_t i = 0; i < array.values.size(); ++i) {
    if (!std::isfinite(array.values[i]))
      SAMPAN_THROW(ValueError, file.string(), ": frame ", static_cast<int64_t>(i) / per_frame, " (system frame ",
                   first_frame + static_cast<int64_t>(i) / per_frame, "), value ",
                   static_cast<int64_t>(i) % per_frame, " is not finite");
  }
}

struct FieldSpec {
  const char* name;
  int64_t per_frame;
  std::string what;
  std::vector<double> System::*member;
  bool required;
};

void check_box(const std::vector<double>& box, int64_t nframes, const fs::path& source) {
  for (int64_t f = 0; f < nframes; ++f) {
    const double* h = box.data() + 9 * f;
    const double det = h[0] * (h[4] * h[8] - h[5] * h[7]) - h[1] * (h[3] * h[8] - h[5] * h[6]) + h[2] * (h[3] * h[7] - h[4] * h[6]);
    SAMPAN_CHECK(std::fabs(det) > 1e-12, ValueError, source.string(), ": frame ", f, ": box is singular (volume ", std::to_string(det),
                 " Å^3); a periodic system needs three independent cell vectors (or add a 'nopbc' file)");
  }
}

}  // namespace

System load_system(const std::string& path) {
  const fs::path root(path);
  if (!fs::is_directory(root)) SAMPAN_THROW(IOError, "DeePMD system ", path, ": not a directory");
  System system;
  system.path = path;
  if (!fs::exists(root / "type.raw")) SAMPAN_THROW(IOError, "DeePMD system ", path, ": missing type.raw");
  system.atom_types = read_types(root / "type.raw");
  if (fs::exists(root / "type_map.raw")) system.type_map = read_words(root / "type_map.raw");
  system.periodic = !fs::exists(root / "nopbc");
  const int64_t natoms = system.natoms();
  if (!system.type_map.empty()) {
    for (int64_t i = 0; i < natoms; ++i) {
      if (system.atom_types[static_cast<size_t>(i)] >= static_cast<int>(system.type_map.size()))
        SAMPAN_THROW(ValueError, (root / "type.raw").string(), ": atom ", i, " has type ",
                     system.atom_types[static_cast<size_t>(i)], " but type_map.raw names only ",
                     system.type_map.size(), " types");
    }
  }
  const std::string atoms3 = std::to_string(natoms) + " atoms x 3";
  const std::vector<FieldSpec> fields = {
      {"coord", 3 * natoms, atoms3, &System::coord, true},
      {"box", 9, "a 3x3 cell", &System::box, system.periodic},
      {"energy", 1, "one energy", &System::energy, false},
      {"force", 3 * natoms, atoms3, &System::force, false},
      {"virial", 9, "a 3x3 virial", &System::virial, false},
  };

  std::vector<fs::path> sets;
  for (const auto& entry : fs::directory_iterator(root))
    if (entry.is_directory() && entry.path().filename().string().rfind("set.", 0) == 0) sets.push_back(entry.path());
  std::sort(sets.begin(), sets.end());
  const bool npy_format = !sets.empty();
  if (!npy_format) sets.push_back(root);  // raw: the arrays live in the system folder itself

  for (size_t s = 0; s < sets.size(); ++s) {
    const fs::path& folder = sets[s];
    const fs::path coord_file = folder / (npy_format ? "coord.npy" : "coord.raw");
    if (!fs::exists(coord_file)) SAMPAN_THROW(IOError, "DeePMD system ", path, ": missing ", coord_file.string());
    int64_t set_frames = -1;
    for (const FieldSpec& field : fields) {
      if (field.member == &System::box && !system.periodic) continue;
      const fs::path file = folder / (std::string(field.name) + (npy_format ? ".npy" : ".raw"));
      const bool present = fs::exists(file);
      std::vector<double>& target = system.*(field.member);
      if (!present) {
        SAMPAN_CHECK(!field.required, IOError, "DeePMD system ", path, ": missing ", file.string(), " (required",
                     (field.member == &System::box ? " for a periodic system; add a 'nopbc' file otherwise)" : ")"));
        SAMPAN_CHECK(target.empty(), IOError, "DeePMD system ", path, ": ", file.string(), " is missing but earlier sets have ", field.name);
        continue;
      }
      if (s > 0 && target.empty())
        SAMPAN_THROW(IOError, "DeePMD system ", path, ": ", file.string(), " exists but earlier sets have no ", field.name);
      FrameArray array = npy_format ? frames_from_npy(file, field.per_frame, field.what) : frames_from_raw(file, field.per_frame, field.what);
      if (set_frames < 0) {
        set_frames = array.frames;
      } else if (array.frames != set_frames) {
        SAMPAN_THROW(ValueError, file.string(), ": ", array.frames, " frames, but ", coord_file.filename().string(),
                     " in the same set has ", set_frames);
      }
      check_finite(array, field.per_frame, file, system.nframes);
      target.insert(target.end(), array.values.begin(), array.values.end());
    }
    system.nframes += set_frames;
  }
  SAMPAN_CHECK(system.nframes != 0, ValueError, "DeePMD system ", path, ": no frames");
  if (system.periodic) check_box(system.box, system.nframes, root);
  return system;
}

}  // namespace sampan::deepmd
