// DeepPot files: sampan's own HDF5 model file (save/load) and the import of DeePMD-kit's
// backend-neutral dpmodel serialization (YAML), e.g. the golden deeppot_sea.yaml.
#include <yaml-cpp/yaml.h>

#include "sampan/deepmd/deep_pot.h"
#include "sampan/error.h"
#include "sampan/io.h"
#include "sampan/ops.h"

namespace sampan::deepmd {

namespace {

constexpr const char* kFormat = "sampan-deepmd-se_e2_a";
constexpr int64_t kVersion = 1;

// ---------------------------------------------------------------------------------------------
// YAML (dpmodel serialization)
// ---------------------------------------------------------------------------------------------

struct YamlReader {
  std::string file;

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    SAMPAN_THROW(ValueError, "DeePMD model ", file, ": ", where, ": ", what);
  }
  YAML::Node child(const YAML::Node& node, const std::string& key, const std::string& where) const {
    if (!node.IsMap()) fail(where, "expected a mapping");
    YAML::Node c = node[key];
    if (!c) fail(where + "." + key, "missing");
    return c;
  }
  template <class T> T scalar(const YAML::Node& node, const std::string& key, const std::string& where) const {
    YAML::Node c = child(node, key, where);
    try {
      return c.as<T>();
    } catch (const YAML::Exception& e) {
      fail(where + "." + key, std::string("unexpected value (") + e.what() + ")");
    }
  }
  template <class T> std::vector<T> list(const YAML::Node& node, const std::string& key, const std::string& where) const {
    YAML::Node c = child(node, key, where);
    if (!c.IsSequence()) fail(where + "." + key, "expected a list");
    std::vector<T> out;
    for (const auto& item : c) out.push_back(item.as<T>());
    return out;
  }
  void flatten(const YAML::Node& node, std::vector<double>& values, std::vector<int64_t>& shape, size_t depth,
               const std::string& where) const {
    if (node.IsSequence()) {
      if (shape.size() == depth) shape.push_back(static_cast<int64_t>(node.size()));
      else if (shape[depth] != static_cast<int64_t>(node.size())) fail(where, "ragged nested list");
      for (const auto& item : node) flatten(item, values, shape, depth + 1, where);
    } else {
      if (depth != shape.size()) fail(where, "ragged nested list");
      values.push_back(node.as<double>());
    }
  }
  // An np.ndarray entry ({@class: np.ndarray, dtype, value}); undefined for None.
  Tensor array(const YAML::Node& node, const std::string& key, const std::string& where) const {
    YAML::Node c = child(node, key, where);
    if (c.IsNull()) return Tensor();
    const std::string at = where + "." + key;
    YAML::Node value = child(c, "value", at);
    std::vector<double> values;
    std::vector<int64_t> shape;
    flatten(value, values, shape, 0, at + ".value");
    return from_vector(values, Shape(shape.begin(), shape.end()), DType::Float64);
  }
  void expect_empty_list(const YAML::Node& node, const std::string& key, const std::string& where) const {
    YAML::Node c = node[key];
    if (c && c.IsSequence() && c.size() > 0) fail(where + "." + key, "is not empty; excluded types are not supported");
  }

  DenseNet network(const YAML::Node& net, const std::string& where, bool fitting) const {
    DenseNet out;
    YAML::Node layers = child(net, "layers", where);
    if (!layers.IsSequence()) fail(where + ".layers", "expected a list");
    for (size_t l = 0; l < layers.size(); ++l) {
      const std::string at = where + ".layers[" + std::to_string(l) + "]";
      const YAML::Node layer = layers[l];
      const YAML::Node vars = child(layer, "@variables", at);
      DenseLayer d;
      d.w = array(vars, "w", at + ".@variables");
      d.b = array(vars, "b", at + ".@variables");
      d.idt = array(vars, "idt", at + ".@variables");
      if (!d.w.defined() || d.w.dim() != 2) fail(at + ".@variables.w", "expected a 2-D array");
      if (!d.b.defined() || d.b.shape() != Shape{d.w.size(1)}) fail(at + ".@variables.b", "expected shape [out]");
      if (d.idt.defined() && d.idt.shape() != Shape{d.w.size(1)}) fail(at + ".@variables.idt", "expected shape [out]");
      const std::string activation = scalar<std::string>(layer, "activation_function", at);
      if (activation == "tanh") d.tanh = true;
      else if (activation == "none" || activation == "linear") d.tanh = false;
      else fail(at + ".activation_function", "'" + activation + "' is not supported (tanh or none)");
      d.resnet = scalar<bool>(layer, "resnet", at);
      if (layer["use_timestep"] && !layer["use_timestep"].as<bool>()) d.idt = Tensor();
      if (layer["bias"] && !layer["bias"].as<bool>()) fail(at + ".bias", "layers without bias are not supported");
      out.layers.push_back(d);
    }
    (void)fitting;
    return out;
  }
};

void networks_of(const YamlReader& y, const YAML::Node& collection, const std::string& where, bool fitting,
                 std::vector<DenseNet>& out) {
  YAML::Node nets = y.child(collection, "networks", where);
  if (!nets.IsSequence()) y.fail(where + ".networks", "expected a list");
  for (size_t k = 0; k < nets.size(); ++k)
    out.push_back(y.network(nets[k], where + ".networks[" + std::to_string(k) + "]", fitting));
}

// ---------------------------------------------------------------------------------------------
// HDF5 (sampan io tree)
// ---------------------------------------------------------------------------------------------

IoValue int_list(const std::vector<int64_t>& v) {
  IoValue::List items;
  for (int64_t x : v) items.emplace_back(x);
  return IoValue::list(items);
}
std::vector<int64_t> read_int_list(const IoValue& v) {
  std::vector<int64_t> out;
  for (const auto& x : v.as_list()) out.push_back(x.as_int());
  return out;
}

IoValue nets_value(const std::vector<DenseNet>& nets) {
  IoValue::List list;
  for (const DenseNet& net : nets) {
    IoValue::List layers;
    for (const DenseLayer& l : net.layers)
      layers.push_back(IoValue::dict({{"w", l.w}, {"b", l.b}, {"idt", l.idt.defined() ? IoValue(l.idt) : IoValue()},
                                      {"resnet", l.resnet}, {"tanh", l.tanh}}));
    list.push_back(IoValue::list(layers));
  }
  return IoValue::list(list);
}
std::vector<DenseNet> read_nets(const IoValue& v) {
  std::vector<DenseNet> out;
  for (const IoValue& net : v.as_list()) {
    DenseNet n;
    for (const IoValue& l : net.as_list()) {
      DenseLayer d;
      d.w = l.at("w").as_tensor();
      d.b = l.at("b").as_tensor();
      if (!l.at("idt").is_none()) d.idt = l.at("idt").as_tensor();
      d.resnet = l.at("resnet").as_bool();
      d.tanh = l.at("tanh").as_bool();
      n.layers.push_back(d);
    }
    out.push_back(n);
  }
  return out;
}

// compression: none, or the settings and one table per embedding net
IoValue compression_value(const DeepPot& pot) {
  if (!pot.compressed()) return IoValue();
  IoValue::List tables;
  for (const EmbeddingTable& t : pot.tables)
    tables.push_back(IoValue::dict({{"table", t.table}, {"lower", t.lower}, {"upper", t.upper}, {"stride0", t.stride0},
                                    {"stride1", t.stride1}}));
  return IoValue::dict({{"min_dist", pot.compression.min_dist},
                        {"step", pot.compression.step},
                        {"extrapolate", pot.compression.extrapolate},
                        {"tables", IoValue::list(tables)}});
}
void read_compression(const IoValue* v, DeepPot& pot, const std::string& path) {
  if (!v || v->is_none()) return;
  pot.compression = {v->at("min_dist").as_double(), v->at("step").as_double(), v->at("extrapolate").as_double()};
  for (const IoValue& t : v->at("tables").as_list()) {
    EmbeddingTable table;
    table.table = t.at("table").as_tensor();
    table.lower = t.at("lower").as_double();
    table.upper = t.at("upper").as_double();
    table.stride0 = t.at("stride0").as_double();
    table.stride1 = t.at("stride1").as_double();
    pot.tables.push_back(table);
  }
  SAMPAN_CHECK(pot.tables.size() == pot.embeddings.size(), ValueError, "DeePMD model ", path, ": compression has ",
               pot.tables.size(), " tables for ", pot.embeddings.size(), " embedding nets");
  for (size_t k = 0; k < pot.tables.size(); ++k) {
    const Tensor& t = pot.tables[k].table;
    SAMPAN_CHECK(t.dtype() == DType::Float64 && t.dim() == 3 && t.size(1) == 6 && t.size(2) == pot.config.neuron.back(),
                 ValueError, "DeePMD model ", path, ": compression.tables[", k, "].table must be float64 [intervals, 6, ",
                 pot.config.neuron.back(), "], got ", dtype_name(t.dtype()), " ", shape_str(t.shape()));
  }
}

}  // namespace

DeepPot DeepPot::from_deepmd_yaml(const std::string& path) {
  YamlReader y{path};
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    SAMPAN_THROW(IOError, "DeePMD model ", path, ": cannot open");
  } catch (const YAML::Exception& e) {
    SAMPAN_THROW(ValueError, "DeePMD model ", path, ": not valid YAML: ", e.what());
  }
  YAML::Node model = y.child(root, "model", "");
  const std::string mtype = model["type"] ? model["type"].as<std::string>() : "standard";
  if (mtype != "standard") y.fail("model.type", "'" + mtype + "' is not supported (standard)");
  y.expect_empty_list(model, "atom_exclude_types", "model");
  y.expect_empty_list(model, "pair_exclude_types", "model");
  YAML::Node desc = y.child(model, "descriptor", "model");
  const std::string dtype = y.scalar<std::string>(desc, "type", "model.descriptor");
  if (dtype != "se_e2_a" && dtype != "se_a") y.fail("model.descriptor.type", "'" + dtype + "' is not supported (se_e2_a)");
  y.expect_empty_list(desc, "exclude_types", "model.descriptor");
  if (desc["env_protection"] && desc["env_protection"].as<double>() != 0.0)
    y.fail("model.descriptor.env_protection", "non-zero env_protection is not supported");
  if (desc["activation_function"] && desc["activation_function"].as<std::string>() != "tanh")
    y.fail("model.descriptor.activation_function", "only tanh is supported");

  DeepPot pot;
  SeAConfig& c = pot.config;
  c.type_map = y.list<std::string>(model, "type_map", "model");
  c.rcut = y.scalar<double>(desc, "rcut", "model.descriptor");
  c.rcut_smth = y.scalar<double>(desc, "rcut_smth", "model.descriptor");
  c.sel = y.list<int64_t>(desc, "sel", "model.descriptor");
  c.neuron = y.list<int64_t>(desc, "neuron", "model.descriptor");
  c.axis_neuron = y.scalar<int64_t>(desc, "axis_neuron", "model.descriptor");
  c.type_one_side = y.scalar<bool>(desc, "type_one_side", "model.descriptor");
  c.resnet_dt = y.scalar<bool>(desc, "resnet_dt", "model.descriptor");
  const int64_t nt = c.ntypes(), nd = c.nnei() * 4;
  const YAML::Node dvars = y.child(desc, "@variables", "model.descriptor");
  pot.davg = reshape(y.array(dvars, "davg", "model.descriptor.@variables"), {nt, nd}).contiguous();
  pot.dstd = reshape(y.array(dvars, "dstd", "model.descriptor.@variables"), {nt, nd}).contiguous();
  const YAML::Node emb = y.child(desc, "embeddings", "model.descriptor");
  const int64_t ndim = y.scalar<int64_t>(emb, "ndim", "model.descriptor.embeddings");
  if (ndim != (c.type_one_side ? 1 : 2)) y.fail("model.descriptor.embeddings.ndim", "inconsistent with type_one_side");
  std::vector<DenseNet> nets;
  networks_of(y, emb, "model.descriptor.embeddings", false, nets);
  const int64_t expected = c.type_one_side ? nt : nt * nt;
  if (static_cast<int64_t>(nets.size()) != expected)
    y.fail("model.descriptor.embeddings.networks", "expected " + std::to_string(expected) + " networks (" +
               (c.type_one_side ? "one per neighbour type" : "ntypes^2, one per (centre, neighbour) type pair") +
               "), got " + std::to_string(nets.size()));
  if (c.type_one_side) {
    pot.embeddings = std::move(nets);
  } else {
    // DeePMD-kit's NetworkCollection stores the net of key (centre ti, neighbour tj) at index
    // ti + tj * ntypes (idx = sum_k key[k] * ntypes^k; dpmodel's se_e2_a calls it with (ti, tt)).
    // DeepPot keeps them centre-major (ti * ntypes + tj).
    pot.embeddings.resize(static_cast<size_t>(nt * nt));
    for (int64_t ti = 0; ti < nt; ++ti)
      for (int64_t tj = 0; tj < nt; ++tj)
        pot.embeddings[static_cast<size_t>(ti * nt + tj)] = nets[static_cast<size_t>(ti + tj * nt)];
  }

  YAML::Node fit = y.child(model, "fitting", "model");
  const std::string ftype = y.scalar<std::string>(fit, "type", "model.fitting");
  if (ftype != "ener") y.fail("model.fitting.type", "'" + ftype + "' is not supported (ener)");
  for (const char* k : {"numb_fparam", "numb_aparam"})
    if (fit[k] && fit[k].as<int64_t>() != 0) y.fail(std::string("model.fitting.") + k, "frame/atomic parameters are not supported");
  if (fit["mixed_types"] && fit["mixed_types"].as<bool>()) y.fail("model.fitting.mixed_types", "must be false");
  c.fitting_neuron = y.list<int64_t>(fit, "neuron", "model.fitting");
  c.fitting_resnet_dt = y.scalar<bool>(fit, "resnet_dt", "model.fitting");
  const YAML::Node fvars = y.child(fit, "@variables", "model.fitting");
  pot.bias_atom_e = reshape(y.array(fvars, "bias_atom_e", "model.fitting.@variables"), {nt}).contiguous();
  networks_of(y, y.child(fit, "nets", "model.fitting"), "model.fitting.nets", true, pot.fittings);

  // out_bias [1, ntypes, 1] is added to the atomic energy; out_std scales only non-energy outputs.
  const YAML::Node mvars = model["@variables"];
  if (mvars && mvars["out_bias"] && !mvars["out_bias"].IsNull())
    pot.out_bias = reshape(y.array(mvars, "out_bias", "model.@variables"), {nt}).contiguous();
  else
    pot.out_bias = zeros({nt}, DType::Float64);
  pot.validate();
  return pot;
}

void DeepPot::save(const std::string& path) const {
  validate();
  IoValue::List type_map;
  for (const auto& t : config.type_map) type_map.emplace_back(t);
  IoValue cfg = IoValue::dict({{"type_map", IoValue::list(type_map)},
                               {"rcut", config.rcut},
                               {"rcut_smth", config.rcut_smth},
                               {"sel", int_list(config.sel)},
                               {"neuron", int_list(config.neuron)},
                               {"axis_neuron", config.axis_neuron},
                               {"type_one_side", config.type_one_side},
                               {"resnet_dt", config.resnet_dt},
                               {"fitting_neuron", int_list(config.fitting_neuron)},
                               {"fitting_resnet_dt", config.fitting_resnet_dt}});
  IoValue tree = IoValue::dict({{"format", kFormat},
                                {"version", kVersion},
                                {"config", cfg},
                                {"davg", davg},
                                {"dstd", dstd},
                                {"bias_atom_e", bias_atom_e},
                                {"out_bias", out_bias},
                                {"embeddings", nets_value(embeddings)},
                                {"fittings", nets_value(fittings)},
                                {"compression", compression_value(*this)}});
  sampan::save(tree, path);
}

DeepPot DeepPot::load(const std::string& path) {
  IoValue tree = sampan::load(path);
  const IoValue* format = tree.is_dict() ? tree.find("format") : nullptr;
  SAMPAN_CHECK(format && format->kind() == IoValue::Kind::String && format->as_string() == kFormat, ValueError,
               "DeePMD model ", path, ": not a sampan se_e2_a model file (no format = '", kFormat, "'); "
               "import DeePMD-kit YAML models with DeepPot.from_deepmd_yaml");
  const int64_t version = tree.at("version").as_int();
  SAMPAN_CHECK(version == kVersion, ValueError, "DeePMD model ", path, ": file version ", version,
               " is not supported by this build (reads version ", kVersion, ")");
  DeepPot pot;
  const IoValue& cfg = tree.at("config");
  for (const auto& t : cfg.at("type_map").as_list()) pot.config.type_map.push_back(t.as_string());
  pot.config.rcut = cfg.at("rcut").as_double();
  pot.config.rcut_smth = cfg.at("rcut_smth").as_double();
  pot.config.sel = read_int_list(cfg.at("sel"));
  pot.config.neuron = read_int_list(cfg.at("neuron"));
  pot.config.axis_neuron = cfg.at("axis_neuron").as_int();
  pot.config.type_one_side = cfg.at("type_one_side").as_bool();
  pot.config.resnet_dt = cfg.at("resnet_dt").as_bool();
  pot.config.fitting_neuron = read_int_list(cfg.at("fitting_neuron"));
  pot.config.fitting_resnet_dt = cfg.at("fitting_resnet_dt").as_bool();
  pot.davg = tree.at("davg").as_tensor();
  pot.dstd = tree.at("dstd").as_tensor();
  pot.bias_atom_e = tree.at("bias_atom_e").as_tensor();
  pot.out_bias = tree.at("out_bias").as_tensor();
  pot.embeddings = read_nets(tree.at("embeddings"));
  pot.fittings = read_nets(tree.at("fittings"));
  read_compression(tree.find("compression"), pot, path);
  pot.validate();
  return pot;
}

}  // namespace sampan::deepmd
