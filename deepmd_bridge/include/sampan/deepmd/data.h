// DeePMD-kit training data ("systems") in the deepmd/npy and raw formats.
//
// A system is a folder with type.raw (one integer type per atom), optionally type_map.raw (one
// element name per line) and nopbc (an empty file: no periodic boundaries), and per-frame arrays
// either in set.*/ folders as .npy (deepmd/npy) or at the top level as .raw text (one frame per
// line): coord (Å), box (cell vectors as rows, Å; required unless nopbc), energy (eV),
// force (eV/Å, = -dE/dr), virial (eV, XX XY XZ YX YY YZ ZX ZY ZZ). float32 and float64 are both
// read and stored as double. Coordinates are kept as stored (DeePMD data are often unwrapped);
// the neighbour search applies periodic images itself.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sampan::deepmd {

/// One DeePMD system: all frames of all sets, concatenated in set order (set.000, set.001, ...).
struct System {
  std::string path;
  std::vector<std::string> type_map;  ///< element names (empty if the system has no type_map.raw)
  std::vector<int> atom_types;        ///< [natoms], values in [0, ntypes)
  bool periodic = true;               ///< false when the folder holds a `nopbc` file
  int64_t nframes = 0;
  std::vector<double> coord;   ///< [nframes, natoms, 3] Å
  std::vector<double> box;     ///< [nframes, 3, 3] Å (rows = cell vectors); empty if !periodic
  std::vector<double> energy;  ///< [nframes] eV, empty if absent
  std::vector<double> force;   ///< [nframes, natoms, 3] eV/Å, empty if absent
  std::vector<double> virial;  ///< [nframes, 9] eV, empty if absent

  int64_t natoms() const { return static_cast<int64_t>(atom_types.size()); }
  bool has_energy() const { return !energy.empty(); }
  bool has_force() const { return !force.empty(); }
  bool has_virial() const { return !virial.empty(); }
  /// Number of atoms of each type 0..ntypes-1 (ntypes = max(type_map size, max type + 1)).
  std::vector<int64_t> type_counts() const;
};

/// Reads a system folder. The format is deepmd/npy when set.* folders exist, else raw.
/// Errors (sampan::IOError / ValueError) name the file, the frame or line, and the mismatch.
System load_system(const std::string& path);

}  // namespace sampan::deepmd
