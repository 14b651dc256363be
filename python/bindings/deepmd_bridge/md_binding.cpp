// sampan Python bindings of the deepmd_bridge MD engine (submodule sampan._C.deepmd_md): boxes,
// neighbour lists, potentials (C++ ones and Python subclasses), state, integrators, the run loop,
// H5MD and extended XYZ. Arrays cross as flat lists or buffers; sampan/deepmd/md.py shapes them
// into NumPy arrays. Logic lives in deepmd_bridge/src; this file only converts.
#include <cstring>

#include "bindings.h"
#include "sampan/deepmd/deep_pot.h"
#include "sampan/deepmd/md/graph_potential.h"
#include "sampan/deepmd/md/lennard_jones.h"
#include "sampan/deepmd/md/simulation.h"
#include "sampan/deepmd/neighbor_list.h"

namespace sampan::python {

namespace {

using namespace sampan::deepmd;
namespace md = sampan::deepmd::md;

// A potential written in Python: md.Potential implements _compute_buffers(positions, types,
// box) over zero-copy memoryviews and returns (energy, forces, virial or None).
class PyPotential : public Potential {
 public:
  void compute(const double* positions, const int* types, int64_t natoms, const Box& box, double* energy,
               double* forces, double* virial) override {
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(static_cast<const Potential*>(this), "_compute_buffers");
    SAMPAN_CHECK(f, NotImplementedError, "a Python Potential must define compute(positions, types, box)");
    auto pos = py::memoryview::from_buffer(const_cast<double*>(positions), {natoms, int64_t(3)},
                                           {int64_t(3 * sizeof(double)), int64_t(sizeof(double))}, true);
    auto typ = py::memoryview::from_buffer(const_cast<int*>(types), {natoms}, {int64_t(sizeof(int))}, true);
    py::tuple r = f(pos, typ, box);
    SAMPAN_CHECK(r.size() == 3, ValueError, "Potential.compute must return (energy, forces, virial)");
    if (energy) *energy = r[0].cast<double>();
    auto copy = [&](py::handle obj, double* out, size_t n, const char* what) {
      py::buffer b = py::reinterpret_borrow<py::buffer>(obj);
      py::buffer_info info = b.request();
      if (info.format != py::format_descriptor<double>::format() || static_cast<size_t>(info.size) != n)
        SAMPAN_THROW(ValueError, "Potential.compute: ", what, " must be float64 with ", n,
                     " values, got ", info.size, " of format '", info.format, "'");
      std::memcpy(out, info.ptr, n * sizeof(double));
    };
    if (forces) copy(r[1], forces, static_cast<size_t>(3 * natoms), "forces [N, 3]");
    if (virial) {
      if (r[2].is_none()) std::fill(virial, virial + 9, 0.0);
      else copy(r[2], virial, 9, "virial [3, 3]");
    }
  }
  double cutoff() const override {
    py::gil_scoped_acquire gil;
    PYBIND11_OVERRIDE_PURE(double, Potential, cutoff);
  }
  int ntypes() const override {
    py::gil_scoped_acquire gil;
    PYBIND11_OVERRIDE_PURE(int, Potential, ntypes);
  }
  std::string describe() const override {
    py::gil_scoped_acquire gil;
    PYBIND11_OVERRIDE_PURE(std::string, Potential, describe);
  }
};

// A Potential that forwards to another one, owned or borrowed. Python gets it as the Potential
// base (its own type is not registered), whichever bindings register the target's class.
class ForwardingPotential : public Potential {
 public:
  explicit ForwardingPotential(std::shared_ptr<Potential> owned) : owned_(std::move(owned)), target_(owned_.get()) {}
  explicit ForwardingPotential(Potential* borrowed) : target_(borrowed) {}
  void compute(const double* positions, const int* types, int64_t natoms, const Box& box, double* energy,
               double* forces, double* virial) override {
    target_->compute(positions, types, natoms, box, energy, forces, virial);
  }
  void compute_local(const double* positions, const int* types, int64_t nlocal, int64_t natoms, double* energy,
                     double* forces) override {
    target_->compute_local(positions, types, nlocal, natoms, energy, forces);
  }
  double cutoff() const override { return target_->cutoff(); }
  int ntypes() const override { return target_->ntypes(); }
  std::string describe() const override { return target_->describe(); }

 private:
  std::shared_ptr<Potential> owned_;
  Potential* target_;
};

md::Units units_named(const std::string& name) {
  if (name == "codata2018") return md::Units::codata2018();
  if (name == "lammps") return md::Units::lammps_metal();
  SAMPAN_THROW(ValueError, "units must be 'codata2018' or 'lammps' (LAMMPS's rounded metal constants), got '", name, "'");
}

py::dict thermo_dict(const md::Thermo& t) {
  py::dict d;
  d["step"] = t.step;
  d["time"] = t.time;
  d["pe"] = t.potential;
  d["ke"] = t.kinetic;
  d["etotal"] = t.total;
  d["temperature"] = t.temperature;
  d["pressure"] = t.pressure;
  return d;
}

void init_deepmd_md(py::module_& root) {
  py::module_ m = root.def_submodule("deepmd_md", "MD engine of deepmd_bridge (see sampan.deepmd.md)");

  py::class_<Box>(m, "Box")
      .def(py::init([](const std::vector<double>& cell, const std::vector<bool>& periodic) {
             SAMPAN_CHECK(cell.size() == 9, ValueError, "Box: cell must hold 9 values (3 lattice vectors as rows), got ",
                          cell.size());
             SAMPAN_CHECK(periodic.size() == 3, ValueError, "Box: periodic must hold 3 flags");
             Box b;
             std::copy(cell.begin(), cell.end(), b.cell.begin());
             for (int k = 0; k < 3; ++k) b.periodic[k] = periodic[k];
             b.validate();
             return b;
           }),
           py::arg("cell"), py::arg("periodic"))
      .def_property_readonly("cell", [](const Box& b) { return std::vector<double>(b.cell.begin(), b.cell.end()); })
      .def_property_readonly("periodic", [](const Box& b) { return std::vector<bool>(b.periodic.begin(), b.periodic.end()); })
      .def("volume", &Box::volume)
      .def("height", &Box::height);

  m.def("neighbor_list", [](const std::vector<double>& positions, const Box& box, double rcut, bool half) {
    if (positions.size() % 3) SAMPAN_THROW(ValueError, "neighbor_list: positions must be [N, 3]");
    NeighborList l;
    {
      py::gil_scoped_release no_gil;
      l = build_neighbor_list(positions.data(), static_cast<int64_t>(positions.size() / 3), box, rcut, half);
    }
    // Raw bytes (NumPy reads them with frombuffer): lists of a million pairs would take seconds.
    auto raw = [](const auto& v) {
      return py::bytes(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(v[0]));
    };
    py::dict d;
    d["offsets"] = raw(l.offsets);
    d["neighbors"] = raw(l.neighbors);
    d["shifts"] = raw(l.shifts);
    d["vectors"] = raw(l.vectors);
    return d;
  }, py::arg("positions"), py::arg("box"), py::arg("rcut"), py::arg("half") = false);

  py::class_<Potential, PyPotential>(m, "Potential")
      .def(py::init<>())
      .def("cutoff", &Potential::cutoff)
      .def("ntypes", &Potential::ntypes)
      .def("describe", &Potential::describe)
      .def("evaluate", [](Potential& p, const std::vector<double>& positions, const std::vector<int>& types, const Box& box) {
        if (positions.size() != 3 * types.size())
          SAMPAN_THROW(ValueError, "evaluate: positions must be [N, 3] for the N = ", types.size(), " types");
        double e = 0;
        std::vector<double> f(positions.size()), w(9);
        {
          py::gil_scoped_release no_gil;
          p.compute(positions.data(), types.data(), static_cast<int64_t>(types.size()), box, &e, f.data(), w.data());
        }
        return py::make_tuple(e, f, w);
      }, py::arg("positions"), py::arg("types"), py::arg("box"));

  py::class_<md::LennardJones, Potential>(m, "LennardJones")
      .def(py::init<int, std::vector<double>, std::vector<double>, double, bool, double>(), py::arg("ntypes"),
           py::arg("eps"), py::arg("sigma"), py::arg("rcut"), py::arg("shift") = false, py::arg("skin") = 0.0)
      .def_property_readonly("eps", &md::LennardJones::eps)
      .def_property_readonly("sigma", &md::LennardJones::sigma)
      .def_property_readonly("shift", &md::LennardJones::shift)
      .def_property_readonly("list_builds", &md::LennardJones::list_builds);

  // The DeePMD model as a Potential for MD: DeePMD-kit's YAML serialization (.yaml/.yml) or a
  // model saved by sampan (HDF5). Returned as the Potential base (no second binding of DeepPot).
  m.def("load_deeppot", [](const std::string& path) -> std::unique_ptr<Potential> {
    py::gil_scoped_release no_gil;
    const bool yaml = path.size() > 5 && (path.substr(path.size() - 5) == ".yaml" || path.substr(path.size() - 4) == ".yml");
    return std::make_unique<ForwardingPotential>(
        std::make_shared<DeepPot>(yaml ? DeepPot::from_deepmd_yaml(path) : DeepPot::load(path)));
  }, py::arg("path"));
  // A DeepPot object of sampan.deepmd (bound elsewhere) as a Potential for MD; keeps it alive.
  m.def("deeppot_as_potential", [](DeepPot& model) -> std::unique_ptr<Potential> {
    return std::make_unique<ForwardingPotential>(&model);
  }, py::arg("model"), py::keep_alive<0, 1>());

  // A traced energy graph (sampan.jit) as a Potential: the replay and its gradients in C++.
  py::class_<md::GraphPotential, Potential>(m, "GraphPotential")
      .def(py::init([](const jit::Graph& graph, double cutoff, const std::vector<std::string>& type_map,
                       const std::string& source) { return md::GraphPotential(graph, cutoff, type_map, source); }),
           py::arg("graph"), py::arg("cutoff") = 0.0, py::arg("type_map") = std::vector<std::string>{},
           py::arg("source") = "traced graph")
      .def_static("load", [](const std::string& path) {
        py::gil_scoped_release no_gil;
        return md::GraphPotential::load(path);
      }, py::arg("path"))
      .def_static("is_graph_file", &md::GraphPotential::is_graph_file, py::arg("path"))
      .def("save", &md::GraphPotential::save, py::arg("path"), py::arg("embed_libraries") = false)
      .def("set_cutoff", &md::GraphPotential::set_cutoff, py::arg("cutoff"))
      .def_property("type_map", &md::GraphPotential::type_map, &md::GraphPotential::set_type_map)
      .def_property_readonly("graph", &md::GraphPotential::graph, py::return_value_policy::copy);

  py::class_<md::State>(m, "State")
      .def(py::init([](const std::vector<double>& positions, const std::vector<int>& types,
                       const std::vector<double>& masses, const Box& box, const std::vector<double>& velocities) {
             md::State s;
             s.positions = positions;
             s.types = types;
             s.masses = masses;
             s.box = box;
             s.velocities = velocities.empty() ? std::vector<double>(positions.size(), 0.0) : velocities;
             s.validate();
             return s;
           }),
           py::arg("positions"), py::arg("types"), py::arg("masses"), py::arg("box"), py::arg("velocities"))
      .def_readwrite("positions", &md::State::positions)
      .def_readwrite("velocities", &md::State::velocities)
      .def_readwrite("types", &md::State::types)
      .def_readwrite("masses", &md::State::masses)
      .def_readwrite("box", &md::State::box)
      .def_readonly("forces", &md::State::forces)
      .def_readonly("potential_energy", &md::State::potential_energy)
      .def_property_readonly("virial", [](const md::State& s) { return std::vector<double>(s.virial, s.virial + 9); })
      .def_readwrite("step", &md::State::step)
      .def_readwrite("time", &md::State::time)
      .def("initialize_velocities", [](md::State& s, double t, uint64_t seed, const std::string& units) {
        md::initialize_velocities(s, t, seed, units_named(units));
      }, py::arg("temperature"), py::arg("seed"), py::arg("units") = "codata2018")
      .def("compute_forces", [](md::State& s, Potential& p) {
        py::gil_scoped_release no_gil;
        md::compute_forces(s, p);
      })
      .def("thermo", [](const md::State& s, const std::string& units) { return thermo_dict(md::thermo(s, units_named(units))); },
           py::arg("units") = "codata2018")
      .def("total_momentum", &md::total_momentum);

  py::class_<md::Integrator>(m, "Integrator")
      .def("describe", &md::Integrator::describe)
      .def("conserved_energy", &md::Integrator::conserved_energy)
      .def_property_readonly("dt", &md::Integrator::dt);
  py::class_<md::VelocityVerlet, md::Integrator>(m, "VelocityVerlet")
      .def(py::init([](double dt_fs, const std::string& units) { return new md::VelocityVerlet(dt_fs, units_named(units)); }),
           py::arg("dt_fs"), py::arg("units") = "codata2018");
  py::class_<md::NoseHooverChain, md::Integrator>(m, "NoseHooverChain")
      .def(py::init([](double dt_fs, double t, double tau_fs, int chain, const std::string& units) {
             return new md::NoseHooverChain(dt_fs, t, tau_fs, chain, units_named(units));
           }),
           py::arg("dt_fs"), py::arg("temperature"), py::arg("tau_fs"), py::arg("chain_length") = 3,
           py::arg("units") = "codata2018");
  py::class_<md::Langevin, md::Integrator>(m, "Langevin")
      .def(py::init([](double dt_fs, double t, double tau_fs, uint64_t seed, const std::string& units) {
             return new md::Langevin(dt_fs, t, tau_fs, seed, units_named(units));
           }),
           py::arg("dt_fs"), py::arg("temperature"), py::arg("tau_fs"), py::arg("seed"), py::arg("units") = "codata2018");
  py::class_<md::Berendsen, md::Integrator>(m, "Berendsen")
      .def(py::init([](double dt_fs, double t, double tau_fs, const std::string& units) {
             return new md::Berendsen(dt_fs, t, tau_fs, units_named(units));
           }),
           py::arg("dt_fs"), py::arg("temperature"), py::arg("tau_fs"), py::arg("units") = "codata2018");

  m.def("run", [](md::State& s, Potential& p, md::Integrator& integrator, int64_t steps, int64_t thermo_every,
                  py::object on_thermo, const std::string& trajectory, int64_t trajectory_every, bool velocities,
                  bool forces, const std::vector<std::string>& type_names, const std::string& xyz, int64_t xyz_every) {
    md::RunOptions o;
    o.steps = steps;
    o.thermo_every = thermo_every;
    if (!on_thermo.is_none())
      o.on_thermo = [&](const md::Thermo& t) {
        py::gil_scoped_acquire gil;
        on_thermo(thermo_dict(t), integrator.conserved_energy(s));
      };
    std::unique_ptr<md::H5mdWriter> traj;
    std::unique_ptr<md::ExtxyzWriter> xw;
    if (!trajectory.empty()) {
      md::TrajectoryOptions opt;
      opt.velocities = velocities;
      opt.forces = forces;
      opt.type_names = type_names;
      traj = std::make_unique<md::H5mdWriter>(trajectory, s, opt);
      o.trajectory = traj.get();
      o.trajectory_every = trajectory_every;
    }
    if (!xyz.empty()) {
      xw = std::make_unique<md::ExtxyzWriter>(xyz, type_names);
      o.xyz = xw.get();
      o.xyz_every = xyz_every;
    }
    std::vector<md::Thermo> records;
    {
      py::gil_scoped_release no_gil;
      records = md::run(s, p, integrator, o);
      if (traj) traj->close();
      if (xw) xw->close();
    }
    py::list out;
    for (auto& t : records) out.append(thermo_dict(t));
    return out;
  }, py::arg("state"), py::arg("potential"), py::arg("integrator"), py::arg("steps"), py::arg("thermo_every"),
     py::arg("on_thermo"), py::arg("trajectory"), py::arg("trajectory_every"), py::arg("velocities"),
     py::arg("forces"), py::arg("type_names"), py::arg("xyz"), py::arg("xyz_every"));

  m.def("read_h5md", [](const std::string& path) {
    md::Trajectory t;
    {
      py::gil_scoped_release no_gil;
      t = md::read_h5md(path);
    }
    py::dict d;
    d["natoms"] = t.natoms;
    d["step"] = t.steps;
    d["time"] = t.times;
    d["position"] = t.positions;
    d["velocity"] = t.velocities;
    d["force"] = t.forces;
    d["cell"] = t.cells;
    d["boundary"] = t.boundary;
    d["species"] = t.species;
    d["mass"] = t.masses;
    d["type_names"] = t.type_names;
    d["observables"] = t.observables;
    return d;
  }, py::arg("path"));
  m.def("h5md_to_extxyz", &md::h5md_to_extxyz, py::arg("h5md_path"), py::arg("xyz_path"),
        py::arg("type_names") = std::vector<std::string>{});
}

}  // namespace

SAMPAN_PYTHON_BINDING(deepmd_md, init_deepmd_md);

}  // namespace sampan::python
