// H5MD trajectory writer and reader over the HDF5 C API (layout in trajectory.h).
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sampan/deepmd/md/trajectory.h"
#include "sampan/error.h"

namespace sampan::deepmd::md {

namespace {

// Closes an HDF5 handle when it goes out of scope.
struct Handle {
  hid_t id = H5I_INVALID_HID;
  herr_t (*closer)(hid_t) = nullptr;
  Handle() = default;
  Handle(hid_t i, herr_t (*c)(hid_t)) : id(i), closer(c) {}
  Handle(Handle&& o) noexcept : id(o.id), closer(o.closer) { o.id = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept {
    reset();
    id = o.id;
    closer = o.closer;
    o.id = H5I_INVALID_HID;
    return *this;
  }
  ~Handle() { reset(); }
  void reset() {
    if (id >= 0 && closer) closer(id);
    id = H5I_INVALID_HID;
  }
  operator hid_t() const { return id; }
};

void check(herr_t status, const std::string& what, const std::string& path) {
  SAMPAN_CHECK(status >= 0, IOError, "H5MD '", path, "': HDF5 failed to ", what);
}
hid_t checked(hid_t id, const std::string& what, const std::string& path) {
  SAMPAN_CHECK(id >= 0, IOError, "H5MD '", path, "': HDF5 failed to ", what);
  return id;
}

Handle make_group(hid_t parent, const std::string& name, const std::string& path) {
  return Handle(checked(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "create group " + name,
                        path),
                H5Gclose);
}

Handle string_type() {
  Handle t(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

void write_string_attribute(hid_t obj, const char* name, const std::vector<std::string>& values, bool scalar,
                            const std::string& path) {
  Handle type = string_type();
  hsize_t n = values.size();
  Handle space(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose);
  Handle attr(checked(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), std::string("create attribute ") + name,
                      path),
              H5Aclose);
  std::vector<const char*> ptrs;
  for (auto& v : values) ptrs.push_back(v.c_str());
  check(H5Awrite(attr, type, ptrs.data()), std::string("write attribute ") + name, path);
}

void write_int_attribute(hid_t obj, const char* name, const std::vector<int32_t>& values, bool scalar,
                         const std::string& path) {
  hsize_t n = values.size();
  Handle space(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose);
  Handle attr(checked(H5Acreate2(obj, name, H5T_NATIVE_INT32, space, H5P_DEFAULT, H5P_DEFAULT),
                      std::string("create attribute ") + name, path),
              H5Aclose);
  check(H5Awrite(attr, H5T_NATIVE_INT32, values.data()), std::string("write attribute ") + name, path);
}

// A fixed dataset of `dims` written at once.
void write_dataset(hid_t parent, const char* name, hid_t mem_type, hid_t file_type, const std::vector<hsize_t>& dims,
                   const void* data, const std::string& path) {
  Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  Handle ds(checked(H5Dcreate2(parent, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                    std::string("create dataset ") + name, path),
            H5Dclose);
  check(H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), std::string("write dataset ") + name, path);
}

// An H5MD time-dependent element: a group with step, time and value datasets growing along
// their first dimension (chunked, unlimited).
struct Series {
  Handle group, step, time, value;
  std::vector<hsize_t> inner;  // the shape of one frame of value
};

Handle growing_dataset(hid_t parent, const char* name, hid_t type, const std::vector<hsize_t>& inner,
                       const std::string& path) {
  std::vector<hsize_t> dims{0}, maxdims{H5S_UNLIMITED}, chunk{1};
  for (hsize_t d : inner) {
    dims.push_back(d);
    maxdims.push_back(d);
    chunk.push_back(std::max<hsize_t>(d, 1));
  }
  // Chunks of about 64 frames of small values, one frame of large ones.
  hsize_t frame = 1;
  for (hsize_t d : inner) frame *= std::max<hsize_t>(d, 1);
  chunk[0] = frame >= 4096 ? 1 : 64;
  Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), maxdims.data()), H5Sclose);
  Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_chunk(plist, static_cast<int>(chunk.size()), chunk.data());
  return Handle(checked(H5Dcreate2(parent, name, type, space, H5P_DEFAULT, plist, H5P_DEFAULT),
                        std::string("create dataset ") + name, path),
                H5Dclose);
}

Series make_series(hid_t parent, const std::string& name, const std::vector<hsize_t>& inner, const char* unit,
                   const std::string& path) {
  Series s;
  s.inner = inner;
  s.group = make_group(parent, name, path);
  s.step = growing_dataset(s.group, "step", H5T_STD_I64LE, {}, path);
  s.time = growing_dataset(s.group, "time", H5T_IEEE_F64LE, {}, path);
  write_string_attribute(s.time, "unit", {"ps"}, true, path);
  s.value = growing_dataset(s.group, "value", H5T_IEEE_F64LE, inner, path);
  if (unit) write_string_attribute(s.value, "unit", {unit}, true, path);
  return s;
}

void append_row(hid_t ds, hid_t mem_type, const std::vector<hsize_t>& inner, hsize_t row, const void* data,
                const std::string& path) {
  std::vector<hsize_t> dims{row + 1}, start{row}, count{1};
  for (hsize_t d : inner) {
    dims.push_back(d);
    start.push_back(0);
    count.push_back(d);
  }
  check(H5Dset_extent(ds, dims.data()), "extend a dataset", path);
  Handle file_space(H5Dget_space(ds), H5Sclose);
  check(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
        "select a frame", path);
  Handle mem_space(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr), H5Sclose);
  check(H5Dwrite(ds, mem_type, mem_space, file_space, H5P_DEFAULT, data), "write a frame", path);
}

void append_frame(Series& s, hsize_t row, int64_t step, double time, const double* value, const std::string& path) {
  append_row(s.step, H5T_NATIVE_INT64, {}, row, &step, path);
  append_row(s.time, H5T_NATIVE_DOUBLE, {}, row, &time, path);
  append_row(s.value, H5T_NATIVE_DOUBLE, s.inner, row, value, path);
}

}  // namespace

struct H5mdWriter::Impl {
  std::string path, tmp;
  Handle file;
  Series position, velocity, force, edges;
  std::vector<std::pair<std::string, Series>> observables;
  TrajectoryOptions options;
  int64_t natoms = 0;
  hsize_t frames = 0;
  bool open = false;
};

H5mdWriter::H5mdWriter(const std::string& path, const State& s, const TrajectoryOptions& options)
    : impl_(std::make_unique<Impl>()) {
  s.validate();
  Impl& m = *impl_;
  m.path = path;
  m.tmp = path + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  m.options = options;
  m.natoms = s.natoms();
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become exceptions with the path, not stderr noise
  m.file = Handle(H5Fcreate(m.tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  SAMPAN_CHECK(m.file.id >= 0, IOError, "H5MD: cannot create '", m.tmp, "' (for '", path,
               "'): is the folder there and writable?");
  m.open = true;
  {
    Handle h5md = make_group(m.file, "h5md", path);
    write_int_attribute(h5md, "version", {1, 1}, false, path);
    Handle author = make_group(h5md, "author", path);
    write_string_attribute(author, "name", {options.author}, true, path);
    Handle creator = make_group(h5md, "creator", path);
    write_string_attribute(creator, "name", {"sampan"}, true, path);
    write_string_attribute(creator, "version", {"0.1"}, true, path);
  }
  Handle particles = make_group(m.file, "particles", path);
  Handle all = make_group(particles, "all", path);
  {
    Handle box = make_group(all, "box", path);
    write_int_attribute(box, "dimension", {3}, true, path);
    std::vector<std::string> boundary;
    for (int k = 0; k < 3; ++k) boundary.push_back(s.box.periodic[k] ? "periodic" : "none");
    write_string_attribute(box, "boundary", boundary, false, path);
    m.edges = make_series(box, "edges", {3, 3}, "angstrom", path);
  }
  const hsize_t n = static_cast<hsize_t>(m.natoms);
  m.position = make_series(all, "position", {n, 3}, "angstrom", path);
  if (options.velocities) m.velocity = make_series(all, "velocity", {n, 3}, "angstrom ps-1", path);
  if (options.forces) m.force = make_series(all, "force", {n, 3}, "eV angstrom-1", path);
  std::vector<int32_t> species(s.types.begin(), s.types.end());
  write_dataset(all, "species", H5T_NATIVE_INT32, H5T_STD_I32LE, {n}, species.data(), path);
  if (!options.type_names.empty()) {
    Handle ds(H5Dopen2(all, "species", H5P_DEFAULT), H5Dclose);
    write_string_attribute(ds, "names", options.type_names, false, path);
  }
  write_dataset(all, "mass", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, {n}, s.masses.data(), path);
  {
    Handle ds(H5Dopen2(all, "mass", H5P_DEFAULT), H5Dclose);
    write_string_attribute(ds, "unit", {"amu"}, true, path);
  }
  Handle obs = make_group(m.file, "observables", path);
  const std::pair<const char*, const char*> names[] = {{"potential_energy", "eV"}, {"kinetic_energy", "eV"},
                                                       {"total_energy", "eV"},     {"temperature", "K"},
                                                       {"pressure", "bar"}};
  for (auto& [name, unit] : names) m.observables.emplace_back(name, make_series(obs, name, {}, unit, path));
}

H5mdWriter::~H5mdWriter() {
  try {
    close();
  } catch (...) {
    // A destructor must not throw; close() explicitly to see errors.
  }
}

void H5mdWriter::append(const State& s, const Thermo& t) {
  Impl& m = *impl_;
  SAMPAN_CHECK(m.open, IOError, "H5MD '", m.path, "': append after close()");
  SAMPAN_CHECK(s.natoms() == m.natoms, ValueError, "H5MD '", m.path, "': the file holds ", m.natoms,
               " atoms, the state has ", s.natoms());
  const hsize_t row = m.frames;
  append_frame(m.edges, row, s.step, s.time, s.box.cell.data(), m.path);
  append_frame(m.position, row, s.step, s.time, s.positions.data(), m.path);
  if (m.options.velocities) append_frame(m.velocity, row, s.step, s.time, s.velocities.data(), m.path);
  if (m.options.forces) {
    SAMPAN_CHECK(s.forces.size() == s.positions.size(), ValueError, "H5MD '", m.path,
                 "': forces requested but the state has none (compute_forces first)");
    append_frame(m.force, row, s.step, s.time, s.forces.data(), m.path);
  }
  const double values[] = {t.potential, t.kinetic, t.total, t.temperature, t.pressure};
  for (size_t k = 0; k < m.observables.size(); ++k) append_frame(m.observables[k].second, row, s.step, s.time, &values[k], m.path);
  ++m.frames;
}

void H5mdWriter::close() {
  Impl& m = *impl_;
  if (!m.open) return;
  m.open = false;
  m.position = Series();
  m.velocity = Series();
  m.force = Series();
  m.edges = Series();
  m.observables.clear();
  check(H5Fflush(m.file, H5F_SCOPE_GLOBAL), "flush", m.path);
  m.file.reset();
  SAMPAN_CHECK(std::rename(m.tmp.c_str(), m.path.c_str()) == 0, IOError, "H5MD: cannot rename '", m.tmp, "' to '",
               m.path, "'");
}

int64_t H5mdWriter::frames() const { return static_cast<int64_t>(impl_->frames); }
const std::string& H5mdWriter::path() const { return impl_->path; }

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

namespace {

bool exists(hid_t loc, const std::string& name) {
  // H5Lexists on each component of a relative path.
  std::string partial;
  size_t start = 0;
  while (start <= name.size()) {
    size_t slash = name.find('/', start);
    partial = name.substr(0, slash == std::string::npos ? name.size() : slash);
    if (H5Lexists(loc, partial.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return true;
}

std::vector<double> read_doubles(hid_t loc, const std::string& name, std::vector<hsize_t>& dims, const std::string& path) {
  Handle ds(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), H5Dclose);
  SAMPAN_CHECK(ds.id >= 0, IOError, "H5MD '", path, "': missing dataset /", name);
  Handle space(H5Dget_space(ds), H5Sclose);
  int rank = H5Sget_simple_extent_ndims(space);
  dims.assign(static_cast<size_t>(std::max(rank, 0)), 0);
  if (rank > 0) H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  hsize_t total = 1;
  for (hsize_t d : dims) total *= d;
  std::vector<double> out(total);
  if (total) check(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), "read /" + name, path);
  return out;
}

std::vector<std::string> read_string_attribute(hid_t obj, const char* name) {
  std::vector<std::string> out;
  if (H5Aexists(obj, name) <= 0) return out;
  Handle attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  Handle space(H5Aget_space(attr), H5Sclose);
  hssize_t n = H5Sget_simple_extent_npoints(space);
  Handle type = string_type();
  std::vector<char*> ptrs(static_cast<size_t>(n), nullptr);
  if (H5Aread(attr, type, ptrs.data()) < 0) return out;
  for (char* p : ptrs) out.emplace_back(p ? p : "");
  H5Dvlen_reclaim(type, space, H5P_DEFAULT, ptrs.data());
  return out;
}

// Splits a [T, ...] array into T frames.
std::vector<std::vector<double>> frames_of(const std::vector<double>& flat, const std::vector<hsize_t>& dims) {
  std::vector<std::vector<double>> out;
  if (dims.empty()) return out;
  size_t per = dims[0] ? flat.size() / dims[0] : 0;
  for (hsize_t t = 0; t < dims[0]; ++t) out.emplace_back(flat.begin() + t * per, flat.begin() + (t + 1) * per);
  return out;
}

}  // namespace

Trajectory read_h5md(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  SAMPAN_CHECK(H5Fis_hdf5(path.c_str()) > 0, IOError, "H5MD: '", path, "' is missing or is not an HDF5 file");
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  SAMPAN_CHECK(file.id >= 0, IOError, "H5MD: cannot open '", path, "'");
  SAMPAN_CHECK(exists(file, "h5md") && H5Aexists_by_name(file, "h5md", "version", H5P_DEFAULT) > 0, IOError, "H5MD '",
               path, "': no /h5md group with a version attribute (not an H5MD file)");
  for (const char* need : {"particles/all/position/value", "particles/all/position/step", "particles/all/position/time",
                           "particles/all/box/edges/value", "particles/all/species"})
    SAMPAN_CHECK(exists(file, need), IOError, "H5MD '", path, "': missing /", need);
  Trajectory t;
  std::vector<hsize_t> dims;
  auto pos = read_doubles(file, "particles/all/position/value", dims, path);
  SAMPAN_CHECK(dims.size() == 3 && dims[2] == 3, IOError, "H5MD '", path,
               "': /particles/all/position/value must be [T, N, 3]");
  t.natoms = static_cast<int64_t>(dims[1]);
  t.positions = frames_of(pos, dims);
  std::vector<hsize_t> d1;
  for (double v : read_doubles(file, "particles/all/position/step", d1, path)) t.steps.push_back(std::llround(v));
  t.times = read_doubles(file, "particles/all/position/time", d1, path);
  auto edges = read_doubles(file, "particles/all/box/edges/value", d1, path);
  if (d1.size() == 3) {
    t.cells = frames_of(edges, d1);
  } else if (d1.size() == 1 && d1[0] == 3) {  // H5MD's orthorhombic shorthand: edge lengths only
    for (size_t f = 0; f < t.steps.size(); ++f) t.cells.push_back({edges[0], 0, 0, 0, edges[1], 0, 0, 0, edges[2]});
  }
  if (exists(file, "particles/all/velocity/value"))
    t.velocities = frames_of(read_doubles(file, "particles/all/velocity/value", d1, path), d1);
  if (exists(file, "particles/all/force/value"))
    t.forces = frames_of(read_doubles(file, "particles/all/force/value", d1, path), d1);
  for (double v : read_doubles(file, "particles/all/species", d1, path)) t.species.push_back(static_cast<int>(v));
  if (exists(file, "particles/all/mass")) t.masses = read_doubles(file, "particles/all/mass", d1, path);
  {
    Handle box(H5Gopen2(file, "particles/all/box", H5P_DEFAULT), H5Gclose);
    t.boundary = read_string_attribute(box, "boundary");
    Handle species(H5Dopen2(file, "particles/all/species", H5P_DEFAULT), H5Dclose);
    t.type_names = read_string_attribute(species, "names");
  }
  if (exists(file, "observables")) {
    Handle obs(H5Gopen2(file, "observables", H5P_DEFAULT), H5Gclose);
    H5G_info_t info;
    H5Gget_info(obs, &info);
    for (hsize_t k = 0; k < info.nlinks; ++k) {
      char name[256];
      H5Lget_name_by_idx(obs, ".", H5_INDEX_NAME, H5_ITER_INC, k, name, sizeof(name), H5P_DEFAULT);
      std::string value = std::string(name) + "/value";
      if (exists(obs, value)) t.observables[name] = read_doubles(obs, value, d1, path);
    }
  }
  return t;
}

}  // namespace sampan::deepmd::md
