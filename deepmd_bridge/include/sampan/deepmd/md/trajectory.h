// MD trajectories: HDF5 files following H5MD 1.1 (de Buyl, Colberg, Höfling, Comput. Phys.
// Commun. 185, 1546 (2014); https://nongnu.org/h5md/h5md.html) and extended XYZ export.
//
// H5MD layout written (readable with h5py, h5dump, MDAnalysis, VMD's H5MD plugin):
//   /h5md                          attribute version = [1, 1]; groups author (name), creator
//                                  (name = "sampan", version)
//   /particles/all/box             attributes dimension = 3, boundary = ["periodic" | "none"] x 3;
//                                  edges/{step, time, value [T, 3, 3]} (lattice vectors as rows)
//   /particles/all/position        {step [T] int64, time [T] float64 (ps), value [T, N, 3] (Å)}
//   /particles/all/velocity        the same, Å/ps (optional)
//   /particles/all/force           the same, eV/Å (optional)
//   /particles/all/species [N]     int32 atom types (attribute names: the type names, if given)
//   /particles/all/mass [N]        amu
//   /observables/<name>            {step, time, value [T]} for potential_energy, kinetic_energy,
//                                  total_energy (eV), temperature (K), pressure (bar)
// Every value dataset has a `unit` attribute. Positions are unwrapped (never folded into the box).
//
// Writes are atomic: frames go to "<path>.tmp.<pid>", and close() (or the destructor) renames it
// over <path>, so a reader never sees a half-written file under the final name.
#pragma once

#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "sampan/deepmd/md/state.h"

namespace sampan::deepmd::md {

struct TrajectoryOptions {
  bool velocities = true;
  bool forces = false;
  std::vector<std::string> type_names;  // optional, e.g. {"O", "H"}
  std::string author = "sampan user";
};

class H5mdWriter {
 public:
  /// Creates the file for the atoms of `s` (their count, species, masses and box boundaries).
  /// IOError naming the path when it cannot be created.
  H5mdWriter(const std::string& path, const State& s, const TrajectoryOptions& options = {});
  ~H5mdWriter();
  H5mdWriter(const H5mdWriter&) = delete;
  H5mdWriter& operator=(const H5mdWriter&) = delete;
  /// Appends one frame: positions (and velocities / forces), the box, and the thermo values.
  void append(const State& s, const Thermo& t);
  /// Closes the file and renames it to its final path (idempotent).
  void close();
  int64_t frames() const;
  const std::string& path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A trajectory read back from an H5MD file (by the HDF5 C API; h5py is not needed).
struct Trajectory {
  int64_t natoms = 0;
  std::vector<int64_t> steps;
  std::vector<double> times;                    // ps
  std::vector<std::vector<double>> positions;   // [T][N * 3]
  std::vector<std::vector<double>> velocities;  // empty when not written
  std::vector<std::vector<double>> forces;      // empty when not written
  std::vector<std::vector<double>> cells;       // [T][9]
  std::vector<std::string> boundary;            // 3 entries
  std::vector<int> species;
  std::vector<double> masses;
  std::vector<std::string> type_names;
  std::map<std::string, std::vector<double>> observables;
  int64_t frames() const { return static_cast<int64_t>(steps.size()); }
};

/// Reads an H5MD file written by H5mdWriter (or any H5MD file with /particles/all/position and
/// a box with edges). IOError naming the path and the missing object for anything else.
Trajectory read_h5md(const std::string& path);

/// Extended XYZ, one frame after the other (atomic: temp file, renamed by close()):
///   N
///   Lattice="ax ay az bx by bz cx cy cz" Properties=species:S:1:pos:R:3:velo:R:3:forces:R:3
///   energy=E pbc="T T T" time=t step=s temperature=T
///   O x y z vx vy vz fx fy fz
/// with %.10g numbers (Å, Å/ps, eV/Å, eV, ps, K). Species names from `type_names` (or "X<type>").
class ExtxyzWriter {
 public:
  ExtxyzWriter(const std::string& path, std::vector<std::string> type_names = {});
  ~ExtxyzWriter();
  ExtxyzWriter(const ExtxyzWriter&) = delete;
  ExtxyzWriter& operator=(const ExtxyzWriter&) = delete;
  void append(const State& s, const Thermo* t = nullptr);
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Writes every frame of an H5MD trajectory as extended XYZ.
void h5md_to_extxyz(const std::string& h5md_path, const std::string& xyz_path,
                    const std::vector<std::string>& type_names = {});

}  // namespace sampan::deepmd::md
