// Extended XYZ export (format in trajectory.h).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "sampan/deepmd/md/trajectory.h"
#include "sampan/error.h"

namespace sampan::deepmd::md {

struct ExtxyzWriter::Impl {
  std::string path, tmp;
  std::ofstream out;
  std::vector<std::string> names;
  bool open = false;
};

ExtxyzWriter::ExtxyzWriter(const std::string& path, std::vector<std::string> type_names)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->tmp = path + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  impl_->names = std::move(type_names);
  impl_->out.open(impl_->tmp);
  SAMPAN_CHECK(impl_->out.good(), IOError, "extended XYZ: cannot create '", impl_->tmp, "' (for '", path, "')");
  impl_->open = true;
}

ExtxyzWriter::~ExtxyzWriter() {
  try {
    close();
  } catch (...) {
  }
}

namespace {
void write_frame(std::ostream& out, int64_t natoms, const double* cell, const bool* periodic, const double* x,
                 const double* v, const double* f, const int* types, const std::vector<std::string>& names,
                 int64_t step, double time, const Thermo* t) {
  char buf[512];
  out << natoms << "\n";
  std::snprintf(buf, sizeof(buf), "Lattice=\"%.10g %.10g %.10g %.10g %.10g %.10g %.10g %.10g %.10g\" ", cell[0], cell[1],
                cell[2], cell[3], cell[4], cell[5], cell[6], cell[7], cell[8]);
  out << buf << "Properties=species:S:1:pos:R:3" << (v ? ":velo:R:3" : "") << (f ? ":forces:R:3" : "");
  if (t) {
    std::snprintf(buf, sizeof(buf), " energy=%.10g temperature=%.10g", t->potential, t->temperature);
    out << buf;
  }
  std::snprintf(buf, sizeof(buf), " pbc=\"%c %c %c\" time=%.10g step=%lld\n", periodic[0] ? 'T' : 'F',
                periodic[1] ? 'T' : 'F', periodic[2] ? 'T' : 'F', time, static_cast<long long>(step));
  out << buf;
  for (int64_t i = 0; i < natoms; ++i) {
    const int type = types[i];
    std::string name = type >= 0 && static_cast<size_t>(type) < names.size() ? names[type] : "X" + std::to_string(type);
    out << name;
    std::snprintf(buf, sizeof(buf), " %.10g %.10g %.10g", x[3 * i], x[3 * i + 1], x[3 * i + 2]);
    out << buf;
    if (v) {
      std::snprintf(buf, sizeof(buf), " %.10g %.10g %.10g", v[3 * i], v[3 * i + 1], v[3 * i + 2]);
      out << buf;
    }
    if (f) {
      std::snprintf(buf, sizeof(buf), " %.10g %.10g %.10g", f[3 * i], f[3 * i + 1], f[3 * i + 2]);
      out << buf;
    }
    out << "\n";
  }
}
}  // namespace

void ExtxyzWriter::append(const State& s, const Thermo* t) {
  SAMPAN_CHECK(impl_->open, IOError, "extended XYZ '", impl_->path, "': append after close()");
  const bool periodic[3] = {s.box.periodic[0], s.box.periodic[1], s.box.periodic[2]};
  const double* f = s.forces.size() == s.positions.size() ? s.forces.data() : nullptr;
  write_frame(impl_->out, s.natoms(), s.box.cell.data(), periodic, s.positions.data(),
              s.velocities.size() == s.positions.size() ? s.velocities.data() : nullptr, f, s.types.data(),
              impl_->names, s.step, s.time, t);
  SAMPAN_CHECK(impl_->out.good(), IOError, "extended XYZ '", impl_->tmp, "': write failed (disk full?)");
}

void ExtxyzWriter::close() {
  if (!impl_->open) return;
  impl_->open = false;
  impl_->out.close();
  SAMPAN_CHECK(!impl_->out.fail(), IOError, "extended XYZ '", impl_->tmp, "': write failed");
  SAMPAN_CHECK(std::rename(impl_->tmp.c_str(), impl_->path.c_str()) == 0, IOError, "extended XYZ: cannot rename '",
               impl_->tmp, "' to '", impl_->path, "'");
}

void h5md_to_extxyz(const std::string& h5md_path, const std::string& xyz_path, const std::vector<std::string>& type_names) {
  Trajectory t = read_h5md(h5md_path);
  std::vector<std::string> names = type_names.empty() ? t.type_names : type_names;
  std::string tmp = xyz_path + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  {
    std::ofstream out(tmp);
    SAMPAN_CHECK(out.good(), IOError, "extended XYZ: cannot create '", tmp, "'");
    bool periodic[3];
    for (int k = 0; k < 3; ++k) periodic[k] = k < static_cast<int>(t.boundary.size()) && t.boundary[k] == "periodic";
    auto pe = t.observables.find("potential_energy");
    auto temp = t.observables.find("temperature");
    for (int64_t f = 0; f < t.frames(); ++f) {
      Thermo th{};
      const Thermo* thp = nullptr;
      if (pe != t.observables.end() && temp != t.observables.end() && static_cast<size_t>(f) < pe->second.size()) {
        th.potential = pe->second[f];
        th.temperature = temp->second[f];
        thp = &th;
      }
      write_frame(out, t.natoms, t.cells[f].data(), periodic, t.positions[f].data(),
                  t.velocities.empty() ? nullptr : t.velocities[f].data(), t.forces.empty() ? nullptr : t.forces[f].data(),
                  t.species.data(), names, t.steps[f], t.times[f], thp);
    }
    out.close();
    SAMPAN_CHECK(!out.fail(), IOError, "extended XYZ '", tmp, "': write failed");
  }
  SAMPAN_CHECK(std::rename(tmp.c_str(), xyz_path.c_str()) == 0, IOError, "extended XYZ: cannot rename '", tmp, "' to '",
               xyz_path, "'");
}

}  // namespace sampan::deepmd::md
