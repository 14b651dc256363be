// Runs Debian's LAMMPS (/usr/bin/lmp, 29 Sep 2021) as a reference from the deepmd_bridge tests:
// writes a data file (restricted triclinic box, positions and velocities at full precision),
// runs an input script in a temporary folder, and reads dumps and printed values written with
// %.17g, so that comparisons are limited by arithmetic, not by formatting.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sampan/deepmd/neighbor_list.h"

namespace lammps_reference {

/// The LAMMPS executable, or "" when none is installed (env SAMPAN_LMP overrides).
inline std::string lmp_executable() {
  if (const char* env = std::getenv("SAMPAN_LMP")) return env;
  for (const char* p : {"/usr/bin/lmp", "/usr/local/bin/lmp"})
    if (std::filesystem::exists(p)) return p;
  return "";
}

#define SKIP_WITHOUT_LAMMPS()                                                                          \
  do {                                                                                                 \
    if (lammps_reference::lmp_executable().empty())                                                    \
      GTEST_SKIP() << "LAMMPS (lmp) is not installed: apt-get install lammps, or set SAMPAN_LMP";      \
  } while (0)

/// A fresh temporary folder, removed at the end of the test.
struct Folder {
  std::filesystem::path path;
  explicit Folder(const std::string& tag) {
    path = std::filesystem::temp_directory_path() /
           ("sampan_lmp_" + tag + "_" + std::to_string(static_cast<long>(::getpid())));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~Folder() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

/// Writes a LAMMPS data file (atom_style atomic) for a restricted-triclinic periodic box
/// (cell rows a = (lx, 0, 0), b = (xy, ly, 0), c = (xz, yz, lz)), types 0-based here and 1-based
/// in the file, ids 1..N in order, optional velocities (Å/ps).
inline void write_data(const std::string& path, const sampan::deepmd::Box& box, const std::vector<double>& x,
                       const std::vector<int>& types, const std::vector<double>& masses,
                       const std::vector<double>* v = nullptr) {
  const auto& c = box.cell;
  ASSERT_TRUE(c[1] == 0 && c[2] == 0 && c[5] == 0) << "LAMMPS needs a restricted triclinic cell";
  std::ofstream f(path);
  char line[512];
  const size_t n = types.size();
  f << "sampan test system\n\n" << n << " atoms\n" << masses.size() << " atom types\n\n";
  std::snprintf(line, sizeof(line), "0 %.17g xlo xhi\n0 %.17g ylo yhi\n0 %.17g zlo zhi\n", c[0], c[4], c[8]);
  f << line;
  if (!box.is_orthorhombic()) {
    std::snprintf(line, sizeof(line), "%.17g %.17g %.17g xy xz yz\n", c[3], c[6], c[7]);
    f << line;
  }
  f << "\nMasses\n\n";
  for (size_t t = 0; t < masses.size(); ++t) {
    std::snprintf(line, sizeof(line), "%zu %.17g\n", t + 1, masses[t]);
    f << line;
  }
  f << "\nAtoms # atomic\n\n";
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(line, sizeof(line), "%zu %d %.17g %.17g %.17g\n", i + 1, types[i] + 1, x[3 * i], x[3 * i + 1],
                  x[3 * i + 2]);
    f << line;
  }
  if (v) {
    f << "\nVelocities\n\n";
    for (size_t i = 0; i < n; ++i) {
      std::snprintf(line, sizeof(line), "%zu %.17g %.17g %.17g\n", i + 1, (*v)[3 * i], (*v)[3 * i + 1],
                    (*v)[3 * i + 2]);
      f << line;
    }
  }
}

/// Runs `script` (the text of an input file) with lmp in `folder`; fails the test with the end of
/// Runs LAMMPS on `script` in `folder`; on a non-zero exit, a test failure with the ends of its log and output.
inline bool run(const Folder& folder, const std::string& script) {
  std::ofstream(folder.file("in.lmp")) << script;
  std::string cmd = "cd '" + folder.path.string() + "' && '" + lmp_executable() +
                    "' -in in.lmp -log log.lammps -screen none > lmp.out 2>&1";
  int rc = std::system(cmd.c_str());
  if (rc != 0) {
    // The log's end, and what lmp printed itself (a failure before the log opens shows only there).
    auto tail = [&](const char* name) {
      std::ifstream in(folder.file(name));
      std::stringstream ss;
      ss << in.rdbuf();
      const std::string text = ss.str();
      return text.substr(text.size() > 2000 ? text.size() - 2000 : 0);
    };
    ADD_FAILURE() << "lmp failed (" << rc << "): log.lammps: ..." << tail("log.lammps") << "\nlmp.out: ..."
                  << tail("lmp.out");
    return false;
  }
  return true;
}

/// The per-atom columns of a `dump custom` written with `dump_modify sort id format float %.17g`:
/// frames[k] holds, for the k-th dumped step, the columns of atoms 1..N (id column dropped).
struct Dump {
  std::vector<int64_t> steps;
  std::vector<std::vector<double>> frames;  // [frame][atom * ncols + col]
  int ncols = 0;
};

inline Dump read_dump(const std::string& path) {
  Dump d;
  std::ifstream f(path);
  std::string line;
  bool in_atoms = false;  // between "ITEM: ATOMS" and the next ITEM (box bounds are numbers too)
  while (std::getline(f, line)) {
    if (line.rfind("ITEM:", 0) == 0) in_atoms = false;
    if (line.rfind("ITEM: TIMESTEP", 0) == 0) {
      std::getline(f, line);
      d.steps.push_back(std::stoll(line));
    } else if (line.rfind("ITEM: NUMBER OF ATOMS", 0) == 0) {
      std::getline(f, line);
      d.frames.emplace_back();
      d.frames.back().reserve(static_cast<size_t>(std::stoll(line)) * 4);
    } else if (line.rfind("ITEM: ATOMS", 0) == 0) {
      std::istringstream h(line.substr(11));
      std::string col;
      int ncol = 0;
      while (h >> col) ++ncol;
      d.ncols = ncol - 1;
      in_atoms = true;
    } else if (line.rfind("ITEM:", 0) == 0) {
      continue;
    } else if (in_atoms && !d.frames.empty()) {
      std::istringstream row(line);
      double id;
      row >> id;
      for (int c = 0; c < d.ncols; ++c) {
        double v;
        row >> v;
        d.frames.back().push_back(v);
      }
    }
  }
  return d;
}

/// Rows of whitespace-separated numbers from a file written by `print ... append`/`fix print`.
inline std::vector<std::vector<double>> read_rows(const std::string& path) {
  std::vector<std::vector<double>> rows;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::vector<double> r;
    for (double v; s >> v;) r.push_back(v);
    if (!r.empty()) rows.push_back(r);
  }
  return rows;
}

}  // namespace lammps_reference
