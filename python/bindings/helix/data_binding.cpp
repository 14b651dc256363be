// Thin bindings of helix's featurization and readers: C++ results -> dicts of NumPy arrays.
// The Python side (sampan/helix/data.py, featurize.py) builds datasets and caches from them.
#include <string>
#include <vector>

#include "bindings.h"
#include "helix/helix_binding.h"
#include "sampan/helix/featurize.h"
#include "sampan/helix/readers.h"

namespace sampan::python::helix {

using namespace sampan::helix;

namespace {

py::list invalid_to_python(const std::vector<InvalidMolecule>& invalid) {
  py::list out;
  for (const InvalidMolecule& m : invalid) {
    py::dict d;
    d["index"] = m.index;
    d["row"] = m.row;
    d["text"] = m.text;
    d["reason"] = m.reason;
    out.append(d);
  }
  return out;
}

/// The GraphSet's arrays (moved into NumPy) and its invalid inputs.
py::dict graphs_to_python(GraphSet&& s) {
  py::dict d;
  const py::ssize_t g = s.num_graphs(), n = s.num_nodes(), e = s.num_edges();
  d["featurizer"] = s.featurizer;
  d["node_offsets"] = to_numpy(std::move(s.node_offsets), {g + 1});
  d["edge_offsets"] = to_numpy(std::move(s.edge_offsets), {g + 1});
  d["atom_features"] = to_numpy(std::move(s.atom_features), {n, s.n_atom_features});
  d["edge_source"] = to_numpy(std::move(s.edge_source), {e});
  d["edge_target"] = to_numpy(std::move(s.edge_target), {e});
  d["bond_features"] = to_numpy(std::move(s.bond_features), {e, s.n_bond_features});
  d["source_index"] = to_numpy(std::move(s.source_index), {g});
  d["invalid"] = invalid_to_python(s.invalid);
  return d;
}

OnBadRow on_bad_row_from(const std::string& name) {
  if (name == "skip") return OnBadRow::skip;
  if (name == "raise") return OnBadRow::raise;
  SAMPAN_THROW(ValueError, "helix: on_bad_row must be 'skip' or 'raise', got '", name, "'");
}

py::dict table_to_python(MoleculeTable&& t) {
  py::dict d;
  const py::ssize_t n = t.size(), k = static_cast<py::ssize_t>(t.label_names.size());
  d["path"] = t.path;
  d["smiles_column"] = t.smiles_column;
  d["label_names"] = t.label_names;
  d["smiles"] = t.smiles;
  d["rows"] = to_numpy(std::move(t.rows), {n});
  d["labels"] = to_numpy(std::move(t.labels), {n, k});
  d["errors"] = invalid_to_python(t.errors);
  return d;
}

void init_helix_data(py::module_& m) {
  py::module_ h = helix_module(m);
  h.def("featurizer_names", &featurizer_names);
  h.def("featurizer_spec", [](const std::string& name) {
    const FeaturizerSpec& s = featurizer_spec(name);
    py::dict d;
    d["name"] = s.name;
    d["version"] = s.version;
    d["atom_feature_names"] = s.atom_feature_names;
    d["atom_feature_sizes"] = s.atom_feature_sizes;
    d["bond_feature_names"] = s.bond_feature_names;
    d["bond_feature_sizes"] = s.bond_feature_sizes;
    return d;
  }, py::arg("name"), "Names and vocabulary sizes of a featurizer's atom and bond features.");
  h.def("featurize_smiles", [](const std::vector<std::string>& smiles, const std::string& featurizer,
                               const std::vector<int64_t>& rows, int num_threads) {
    GraphSet s;
    {
      py::gil_scoped_release release;
      s = featurize_smiles(smiles, featurizer, rows, num_threads);
    }
    return graphs_to_python(std::move(s));
  }, py::arg("smiles"), py::arg("featurizer") = "ogb", py::arg("rows") = std::vector<int64_t>{},
     py::arg("num_threads") = 0,
     "Featurizes SMILES in parallel; a dict of flat graph arrays plus the invalid inputs.");
  h.def("read_smiles_csv", [](const std::string& path, const std::string& smiles_column,
                              const std::vector<std::string>& label_columns, bool all_other_columns,
                              const std::string& on_bad_row) {
    const OnBadRow policy = on_bad_row_from(on_bad_row);
    MoleculeTable t;
    {
      py::gil_scoped_release release;
      t = read_smiles_csv(path, smiles_column, label_columns, all_other_columns, policy);
    }
    return table_to_python(std::move(t));
  }, py::arg("path"), py::arg("smiles_column") = "", py::arg("label_columns") = std::vector<std::string>{},
     py::arg("all_other_columns") = true, py::arg("on_bad_row") = "skip");
  h.def("read_smiles_lines", [](const std::string& path) {
    MoleculeTable t;
    {
      py::gil_scoped_release release;
      t = read_smiles_lines(path);
    }
    return table_to_python(std::move(t));
  }, py::arg("path"));
  h.def("read_sdf", [](const std::string& path, const std::string& featurizer,
                       const std::vector<std::string>& label_properties, const std::string& on_bad_row) {
    const OnBadRow policy = on_bad_row_from(on_bad_row);
    SdfDataset s;
    {
      py::gil_scoped_release release;
      s = read_sdf(path, featurizer, label_properties, policy);
    }
    const py::ssize_t n = static_cast<py::ssize_t>(s.smiles.size());
    const py::ssize_t k = static_cast<py::ssize_t>(s.label_names.size());
    py::dict d = graphs_to_python(std::move(s.graphs));
    d["smiles"] = s.smiles;
    d["rows"] = to_numpy(std::move(s.rows), {n});
    d["label_names"] = s.label_names;
    d["labels"] = to_numpy(std::move(s.labels), {n, k});
    return d;
  }, py::arg("path"), py::arg("featurizer") = "ogb",
     py::arg("label_properties") = std::vector<std::string>{}, py::arg("on_bad_row") = "skip");
}

}  // namespace

SAMPAN_PYTHON_BINDING(helix_data, init_helix_data);

}  // namespace sampan::python::helix
