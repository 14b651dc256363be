// sampan Python bindings of deepmd_bridge's DeepPot (the se_e2_a model) and its per-frame input.
// Thin: the model, its files and its evaluation live in deepmd_bridge/src/model.
#include "bindings.h"
#include "sampan/deepmd/deep_pot.h"
#include "sampan/ops.h"

namespace sampan::python {

namespace {

using deepmd::DeepPot;
using deepmd::ExtendedSystem;
using deepmd::SeAConfig;

Tensor int64_tensor(const std::vector<int64_t>& v, const Shape& shape) {
  Tensor t = Tensor::empty(shape, DType::Int64);
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}

SeAConfig config_from_dict(const py::dict& d) {
  SeAConfig c;
  c.type_map = d["type_map"].cast<std::vector<std::string>>();
  c.rcut = d["rcut"].cast<double>();
  c.rcut_smth = d["rcut_smth"].cast<double>();
  c.sel = d["sel"].cast<std::vector<int64_t>>();
  c.neuron = d["neuron"].cast<std::vector<int64_t>>();
  c.axis_neuron = d["axis_neuron"].cast<int64_t>();
  c.type_one_side = d["type_one_side"].cast<bool>();
  c.resnet_dt = d["resnet_dt"].cast<bool>();
  c.fitting_neuron = d["fitting_neuron"].cast<std::vector<int64_t>>();
  c.fitting_resnet_dt = d["fitting_resnet_dt"].cast<bool>();
  return c;
}

py::dict config_to_dict(const SeAConfig& c) {
  py::dict d;
  d["type_map"] = c.type_map;
  d["rcut"] = c.rcut;
  d["rcut_smth"] = c.rcut_smth;
  d["sel"] = c.sel;
  d["neuron"] = c.neuron;
  d["axis_neuron"] = c.axis_neuron;
  d["type_one_side"] = c.type_one_side;
  d["resnet_dt"] = c.resnet_dt;
  d["fitting_neuron"] = c.fitting_neuron;
  d["fitting_resnet_dt"] = c.fitting_resnet_dt;
  return d;
}

void init_deepmd_model(py::module_& m) {
  py::class_<ExtendedSystem>(m, "DeepmdExtendedSystem",
                             "One frame as the se_e2_a ops see it: local atoms, ghost images, formatted neighbour list.")
      .def_readonly("nloc", &ExtendedSystem::nloc)
      .def_readonly("nall", &ExtendedSystem::nall)
      .def_readonly("nnei", &ExtendedSystem::nnei)
      .def_readonly("overflow", &ExtendedSystem::overflow)
      .def_readonly("max_count", &ExtendedSystem::max_count)
      .def("any_overflow", &ExtendedSystem::any_overflow)
      .def("overflow_message", &ExtendedSystem::overflow_message)
      .def_property_readonly("coord", [](const ExtendedSystem& e) { return from_vector(e.coord, {e.nall, 3}, DType::Float64); })
      .def_property_readonly("types", [](const ExtendedSystem& e) { return int64_tensor(e.types, {e.nall}); })
      .def_property_readonly("mapping", [](const ExtendedSystem& e) { return int64_tensor(e.mapping, {e.nall}); })
      .def_property_readonly("nlist", [](const ExtendedSystem& e) { return int64_tensor(e.nlist, {e.nloc, e.nnei}); });

  // A Potential (bound by md_binding.cpp, registered first: bindings initialise in name order), so
  // that md.load_deeppot and md.run accept it.
  py::class_<DeepPot, deepmd::Potential>(m, "DeepPot", "The se_e2_a energy model (see sampan.deepmd.DeepPot).")
      .def(py::init([](const py::dict& config, uint64_t seed) { return DeepPot(config_from_dict(config), seed); }),
           py::arg("config"), py::arg("seed") = 1)
      .def_static("load", &DeepPot::load, py::arg("path"))
      .def_static("from_deepmd_yaml", &DeepPot::from_deepmd_yaml, py::arg("path"))
      .def("save", &DeepPot::save, py::arg("path"))
      .def("compress", &DeepPot::compress, py::arg("min_dist"), py::arg("step") = 0.01, py::arg("extrapolate") = 5.0,
           py::call_guard<py::gil_scoped_release>(),
           "Tabulates every embedding net (DeePMD-kit's dp compress) for neighbours no closer than min_dist (Å), "
           "with intervals of `step` in s~ and the table extended by `extrapolate`; the tables replace the nets.")
      .def_property_readonly("compressed", &DeepPot::compressed)
      .def_property_readonly("compression", [](const DeepPot& p) -> py::object {
        if (!p.compressed()) return py::none();
        py::list tables;
        for (const auto& t : p.tables)
          tables.append(py::dict(py::arg("intervals") = t.intervals(), py::arg("lower") = t.lower,
                                 py::arg("upper") = t.upper, py::arg("extrapolated") = t.extrapolated(),
                                 py::arg("stride0") = t.stride0, py::arg("stride1") = t.stride1));
        return py::dict(py::arg("min_dist") = p.compression.min_dist, py::arg("step") = p.compression.step,
                        py::arg("extrapolate") = p.compression.extrapolate, py::arg("tables") = tables);
      }, "The settings and grids of a compressed model (None when not compressed).")
      .def("embedding", [](const DeepPot& p, size_t k, const Tensor& s) {
        SAMPAN_CHECK(k < p.embeddings.size(), IndexError, "DeepPot.embedding: net ", k, " of ", p.embeddings.size());
        return p.embed(k, s);
      }, py::arg("k"), py::arg("s"), "G = embedding net k (or its table, when compressed) of s [rows, 1].")
      .def("embedding_net", [](const DeepPot& p, size_t k, const Tensor& s) {
        SAMPAN_CHECK(k < p.embeddings.size(), IndexError, "DeepPot.embedding_net: net ", k, " of ", p.embeddings.size());
        return p.embeddings[k].forward(s);
      }, py::arg("k"), py::arg("s"), "G = embedding net k of s [rows, 1] (the net, even when compressed).")
      .def_property_readonly("config", [](const DeepPot& p) { return config_to_dict(p.config); })
      .def_readwrite("davg", &DeepPot::davg)
      .def_readwrite("dstd", &DeepPot::dstd)
      .def_readwrite("bias_atom_e", &DeepPot::bias_atom_e)
      .def_readwrite("out_bias", &DeepPot::out_bias)
      .def_readonly("sel_overflow_evaluations", &DeepPot::sel_overflow_evaluations,
                    "compute calls (MD steps) in which some centre had more neighbours than sel (dropped)")
      .def("to", [](DeepPot& p, const std::string& device) -> DeepPot& {
             py::gil_scoped_release no_gil;
             p.to(Device::parse(device));
             return p;
           }, py::arg("device"), py::return_value_policy::reference_internal,
           "Moves every tensor of the model to `device` ('cpu', 'cuda', 'cuda:0'); returns the model. Take "
           "parameters() after moving (they are new tensors). evaluate() then runs the network there.")
      .def_property_readonly("device", [](const DeepPot& p) { return p.device().str(); })
      .def("parameters", &DeepPot::parameters)
      .def("parameter_names", &DeepPot::parameter_names)
      .def("validate", &DeepPot::validate)
      .def("describe", &DeepPot::describe)
      .def("energy", &DeepPot::energy, py::arg("positions"), py::arg("types"), py::arg("box"),
           "The total energy of positions [N, 3], types [N] int64, box [3, 3] (zeros: open) with every step an "
           "op (the neighbour search too): what sp.jit.trace records as a graph that runs at any atom count.")
      .def("extend", [](const DeepPot& p, const std::vector<double>& coord, const std::vector<int64_t>& types,
                        const std::optional<std::vector<double>>& cell) {
             SAMPAN_CHECK(coord.size() == types.size() * 3, ValueError, "DeepPot.extend: ", coord.size(),
                          " coordinates for ", types.size(), " atoms (expected 3 per atom)");
             SAMPAN_CHECK(!cell || cell->size() == 9, ValueError, "DeepPot.extend: cell must have 9 entries, got ", cell->size());
             py::gil_scoped_release no_gil;
             return p.extend(coord.data(), types.data(), static_cast<int64_t>(types.size()), cell ? cell->data() : nullptr);
           }, py::arg("coord"), py::arg("types"), py::arg("cell") = py::none())
      .def("evaluate", [](const DeepPot& p, const ExtendedSystem& ext, bool forces, bool create_graph) {
             deepmd::DeepPotOutput out;
             {
               py::gil_scoped_release no_gil;
               out = p.evaluate(ext, forces, create_graph);
             }
             py::dict d;
             d["energy"] = out.energy;
             d["atom_energy"] = out.atom_energy;
             if (out.force.defined()) {
               d["force"] = out.force;
               d["virial"] = out.virial;
               d["atom_virial"] = out.atom_virial;
             }
             d["descriptor"] = out.descriptor;
             return d;
           }, py::arg("ext"), py::arg("forces") = true, py::arg("create_graph") = false);
}

}  // namespace

SAMPAN_PYTHON_BINDING(deepmd_model, init_deepmd_model);

}  // namespace sampan::python
