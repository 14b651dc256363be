// sampan: the graph file (sampan/jit.h): a jit::Graph as one HDF5 tree written by sampan::save
// (atomic; a truncated or foreign file is refused by sampan::load).
//
//   format "sampan-graph", format_version, sampan_version
//   inputs      [{name, dtype, shape, dims}]              dims: "" fixed, else the symbol
//   constants   [tensor]                                  value ids after the inputs
//   nodes       [{op, library, args: [{kind, value}], outputs}] or [{guard, expected}]
//   outputs     [value id]
//   libraries   [{name, hash, embedded?, embedded_size?}]
//   num_values
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <unistd.h>

#include "sampan/error.h"
#include "sampan/io.h"
#include "sampan/jit.h"
#include "sampan/op_library.h"
#include "sampan/ops.h"

namespace sampan::jit {

namespace {

IoValue int_list(const std::vector<int64_t>& v) {
  IoValue l = IoValue::list();
  for (int64_t x : v) l.push_back(x);
  return l;
}
std::vector<int64_t> read_int_list(const IoValue& l) {
  std::vector<int64_t> v;
  for (const IoValue& x : l.as_list()) v.push_back(x.as_int());
  return v;
}
Tensor int64_tensor(const std::vector<int64_t>& v) {
  Tensor t = Tensor::empty({static_cast<int64_t>(v.size())}, DType::Int64);
  if (!v.empty()) std::memcpy(t.data<int64_t>(), v.data(), v.size() * sizeof(int64_t));
  return t;
}
std::vector<int64_t> read_int64_tensor(const Tensor& t) {
  Tensor c = t.contiguous();
  return std::vector<int64_t>(c.data<int64_t>(), c.data<int64_t>() + c.numel());
}

IoValue arg_to_io(const Arg& a) {
  IoValue d = IoValue::dict();
  switch (a.kind) {
    case Arg::Kind::Ref: d.set("kind", "ref"); d.set("value", a.ref); return d;
    case Arg::Kind::RefList: d.set("kind", "refs"); d.set("value", int64_tensor(a.refs)); return d;
    case Arg::Kind::Attr: break;
  }
  struct ToIo {
    IoValue& d;
    void operator()(std::monostate) { d.set("kind", "none"); }
    void operator()(const Tensor&) { throw RuntimeError("graph attribute holds a tensor"); }
    void operator()(const std::vector<Tensor>&) { throw RuntimeError("graph attribute holds a tensor list"); }
    void operator()(bool b) { d.set("kind", "bool"); d.set("value", b); }
    void operator()(int64_t i) { d.set("kind", "int"); d.set("value", i); }
    void operator()(double x) { d.set("kind", "float"); d.set("value", x); }
    void operator()(const std::string& s) { d.set("kind", "str"); d.set("value", s); }
    void operator()(const std::vector<int64_t>& v) { d.set("kind", "ints"); d.set("value", int64_tensor(v)); }
    void operator()(const std::vector<double>& v) {
      d.set("kind", "floats");
      d.set("value", from_vector(v, {static_cast<int64_t>(v.size())}, DType::Float64));
    }
    void operator()(const std::vector<std::string>& v) {
      d.set("kind", "strs");
      IoValue l = IoValue::list();
      for (auto& s : v) l.push_back(s);
      d.set("value", l);
    }
  };
  std::visit(ToIo{d}, a.attr);
  return d;
}

Arg arg_from_io(const IoValue& d, const std::string& where) {
  const std::string& kind = d.at("kind").as_string();
  Arg a;
  if (kind == "ref") {
    a.kind = Arg::Kind::Ref;
    a.ref = d.at("value").as_int();
  } else if (kind == "refs") {
    a.kind = Arg::Kind::RefList;
    a.refs = read_int64_tensor(d.at("value").as_tensor());
  } else if (kind == "none") {
    a.attr = std::monostate{};
  } else if (kind == "bool") {
    a.attr = d.at("value").as_bool();
  } else if (kind == "int") {
    a.attr = d.at("value").as_int();
  } else if (kind == "float") {
    a.attr = d.at("value").as_double();
  } else if (kind == "str") {
    a.attr = d.at("value").as_string();
  } else if (kind == "ints") {
    a.attr = read_int64_tensor(d.at("value").as_tensor());
  } else if (kind == "floats") {
    Tensor t = d.at("value").as_tensor().contiguous();
    a.attr = std::vector<double>(t.data<double>(), t.data<double>() + t.numel());
  } else if (kind == "strs") {
    std::vector<std::string> v;
    for (const IoValue& s : d.at("value").as_list()) v.push_back(s.as_string());
    a.attr = std::move(v);
  } else {
    SAMPAN_THROW(IOError, where, ": argument kind '", kind, "' is not one this sampan writes");
  }
  return a;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  SAMPAN_CHECK(f.good(), IOError, "cannot read '", path, "'");
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

std::string hash_bytes(const std::string& bytes) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a 64
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

Tensor pack_bytes(const std::string& bytes) {
  Tensor t = Tensor::empty({static_cast<int64_t>((bytes.size() + 7) / 8)}, DType::Int64);
  std::memset(t.raw_data(), 0, t.nbytes());
  std::memcpy(t.raw_data(), bytes.data(), bytes.size());
  return t;
}

// Makes sure every op of the graph is registered with the library the graph was traced with.
void resolve_libraries(const std::string& path, const std::vector<LibraryRef>& libs, const std::vector<Node>& nodes) {
  for (const LibraryRef& lib : libs) {
    bool all_registered = true;
    std::string missing_op;
    for (const Node& n : nodes) {
      if (n.is_guard() || n.library != lib.name) continue;
      const OpSchema* op = find_op_if(n.op_name);
      if (!op) {
        all_registered = false;
        missing_op = n.op_name;
        break;
      }
      if (op->library != lib.name && detail::file_hash(op->library) != lib.hash)
        SAMPAN_THROW(IOError, "graph '", path, "': op '", n.op_name, "' is registered by library '", op->library,
                     "', not by '", lib.name, "' (hash ", lib.hash, ") that the graph was traced with");
    }
    if (all_registered) {
      // Loaded already: it must be the same file content.
      for (const Node& n : nodes)
        if (!n.is_guard() && n.library == lib.name) {
          const std::string h = detail::file_hash(find_op(n.op_name).library);
          SAMPAN_CHECK(h == lib.hash, IOError, "graph '", path, "': op library '", lib.name, "' has content hash ", h,
                       " but the graph was traced with hash ", lib.hash, "; rebuild the graph or load that library");
          break;
        }
      continue;
    }
    std::string candidate = lib.name;
    if (access(candidate.c_str(), R_OK) != 0 || detail::file_hash(candidate) != lib.hash) {
      SAMPAN_CHECK(lib.embedded.defined(), IOError, "graph '", path, "' needs op library '", lib.name, "' (hash ",
                   lib.hash, ", for op '", missing_op, "'), which is not loaded and ",
                   access(candidate.c_str(), R_OK) == 0 ? "whose file there has another hash"
                                                        : "is not found at that path",
                   "; load it first (sampan::load_op_library / sp.load_op_library) or save the graph with "
                   "embed_libraries");
      // The embedded copy, written once under its hash.
      const char* tmp = std::getenv("TMPDIR");
      candidate = std::string(tmp && *tmp ? tmp : "/tmp") + "/sampan-graph-lib-" + lib.hash + ".so";
      if (access(candidate.c_str(), R_OK) != 0 || detail::file_hash(candidate) != lib.hash) {
        const std::string bytes(static_cast<const char*>(lib.embedded.raw_data()), lib.embedded.nbytes());
        SAMPAN_CHECK(hash_bytes(bytes) == lib.hash, IOError, "graph '", path, "': the embedded copy of op library '",
                     lib.name, "' has hash ", hash_bytes(bytes), ", not the recorded ", lib.hash, " (a damaged file)");
        const std::string partial = candidate + ".tmp." + std::to_string(getpid());
        bool written = false;
        {
          std::ofstream f(partial, std::ios::binary);
          f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
          f.flush();
          written = static_cast<bool>(f);
        }
        if (!written || std::rename(partial.c_str(), candidate.c_str()) != 0) {
          std::remove(partial.c_str());
          SAMPAN_THROW(IOError, "graph '", path, "': cannot write the embedded op library to '", candidate, "'");
        }
      }
    }
    load_op_library(candidate);
  }
}

}  // namespace

std::string detail::file_hash(const std::string& path) { return hash_bytes(read_file(path)); }

void save(const Graph& g, const std::string& path, bool embed_libraries) {
  IoValue root = IoValue::dict();
  root.set("format", "sampan-graph");
  root.set("format_version", kFormatVersion);
#ifdef SAMPAN_VERSION
  root.set("sampan_version", SAMPAN_VERSION);
#endif
  IoValue inputs = IoValue::list();
  for (const InputSpec& s : g.inputs_) {
    IoValue d = IoValue::dict();
    d.set("name", s.name);
    d.set("dtype", dtype_name(s.dtype));
    d.set("shape", int_list(s.shape));
    IoValue dims = IoValue::list();
    for (auto& x : s.dims) dims.push_back(x);
    d.set("dims", dims);
    inputs.push_back(d);
  }
  root.set("inputs", inputs);
  IoValue constants = IoValue::list();
  for (const Tensor& c : g.constants_) constants.push_back(c.detach());
  root.set("constants", constants);
  IoValue nodes = IoValue::list();
  for (const Node& n : g.nodes_) {
    IoValue d = IoValue::dict();
    if (n.is_guard()) {
      d.set("guard", n.guard_ref);
      d.set("expected", n.expected);
      nodes.push_back(d);
      continue;
    }
    d.set("op", n.op_name);
    d.set("library", n.library);
    IoValue args = IoValue::list();
    for (const Arg& a : n.args) args.push_back(arg_to_io(a));
    d.set("args", args);
    d.set("outputs", int_list(n.outputs));
    nodes.push_back(d);
  }
  root.set("nodes", nodes);
  root.set("outputs", int_list(g.outputs_));
  IoValue libraries = IoValue::list();
  for (const LibraryRef& l : g.libraries_) {
    IoValue d = IoValue::dict();
    d.set("name", l.name);
    d.set("hash", l.hash);
    if (embed_libraries) {
      const std::string bytes = l.embedded.defined()
          ? std::string(static_cast<const char*>(l.embedded.raw_data()), l.embedded.nbytes())
          : read_file(l.name);
      SAMPAN_CHECK(hash_bytes(bytes) == l.hash, IOError, "jit.save: op library '", l.name,
                   "' changed on disk since the graph was traced (hash ", hash_bytes(bytes), ", traced ", l.hash, ")");
      d.set("embedded", pack_bytes(bytes));
      d.set("embedded_size", static_cast<int64_t>(bytes.size()));
    }
    libraries.push_back(d);
  }
  root.set("libraries", libraries);
  root.set("num_values", g.num_values_);
  root.set("memory_planned", g.planned_);
  sampan::save(root, path);
}

Graph load(const std::string& path) {
  IoValue root = sampan::load(path);
  const IoValue* format = root.is_dict() ? root.find("format") : nullptr;
  SAMPAN_CHECK(format && format->kind() == IoValue::Kind::String && format->as_string() == "sampan-graph", IOError,
               "'", path, "' is a sampan file but not a graph (no format \"sampan-graph\"); sp.jit.save writes graphs");
  const int64_t version = root.at("format_version").as_int();
  SAMPAN_CHECK(version <= kFormatVersion, IOError, "graph '", path, "' has format version ", version,
               ", newer than this sampan's ", kFormatVersion, "; update sampan to read it");
  Graph g;
  bool plan_after_load = false;
  try {
    for (const IoValue& d : root.at("inputs").as_list()) {
      InputSpec s;
      s.name = d.at("name").as_string();
      s.dtype = dtype_from_name(d.at("dtype").as_string());
      s.shape = read_int_list(d.at("shape"));
      for (const IoValue& x : d.at("dims").as_list()) s.dims.push_back(x.as_string());
      g.inputs_.push_back(std::move(s));
    }
    for (const IoValue& c : root.at("constants").as_list()) g.constants_.push_back(c.as_tensor());
    const auto& nodes = root.at("nodes").as_list();
    for (size_t k = 0; k < nodes.size(); ++k) {
      const IoValue& d = nodes[k];
      Node n;
      if (d.find("guard")) {
        n.guard_ref = d.at("guard").as_int();
        n.expected = d.at("expected").as_tensor();
      } else {
        n.op_name = d.at("op").as_string();
        n.library = d.at("library").as_string();
        for (const IoValue& a : d.at("args").as_list()) n.args.push_back(arg_from_io(a, "graph '" + path + "' node " + std::to_string(k)));
        n.outputs = read_int_list(d.at("outputs"));
      }
      g.nodes_.push_back(std::move(n));
    }
    g.outputs_ = read_int_list(root.at("outputs"));
    for (const IoValue& d : root.at("libraries").as_list()) {
      LibraryRef l{d.at("name").as_string(), d.at("hash").as_string(), {}};
      if (const IoValue* e = d.find("embedded")) {
        // The packed words hold embedded_size bytes.
        const int64_t size = d.at("embedded_size").as_int();
        Tensor bytes = Tensor::empty({size}, DType::Bool);  // one byte per element
        std::memcpy(bytes.raw_data(), e->as_tensor().contiguous().raw_data(), static_cast<size_t>(size));
        l.embedded = bytes;
      }
      g.libraries_.push_back(std::move(l));
    }
    g.num_values_ = root.at("num_values").as_int();
  } catch (const IOError&) {
    throw;
  } catch (const std::exception& e) {
    SAMPAN_THROW(IOError, "graph '", path, "' is not a well-formed sampan graph: ", e.what());
  }
  // Every reference names a value that exists before its use.
  const int64_t first_node_value = static_cast<int64_t>(g.inputs_.size() + g.constants_.size());
  int64_t defined = first_node_value;
  auto check_ref = [&](int64_t r, size_t k) {
    SAMPAN_CHECK(r >= 0 && r < defined, IOError, "graph '", path, "' node ", k, " uses value ", r,
                 " before it is defined");
  };
  for (size_t k = 0; k < g.nodes_.size(); ++k) {
    const Node& n = g.nodes_[k];
    if (n.is_guard()) { check_ref(n.guard_ref, k); continue; }
    for (const Arg& a : n.args) {
      if (a.kind == Arg::Kind::Ref) check_ref(a.ref, k);
      for (int64_t r : a.refs) check_ref(r, k);
    }
    for (int64_t o : n.outputs) {
      SAMPAN_CHECK(o == defined, IOError, "graph '", path, "' node ", k, " defines value ", o, ", expected ", defined);
      ++defined;
    }
  }
  SAMPAN_CHECK(defined == g.num_values_, IOError, "graph '", path, "' holds ", defined, " values, its header says ",
               g.num_values_);
  for (int64_t o : g.outputs_) check_ref(o, g.nodes_.size());
  resolve_libraries(path, g.libraries_, g.nodes_);
  if (const IoValue* planned = root.find("memory_planned"); planned && planned->as_bool()) plan_after_load = true;
  for (Node& n : g.nodes_)
    if (!n.is_guard() && (n.op = find_op_if(n.op_name)) == nullptr)
      SAMPAN_THROW(IOError, "graph '", path, "' uses op '", n.op_name, "' (library '", n.library,
                   "'), which this process has not registered",
                   n.library == "sampan" ? ": it links no sampan module providing it" : "");
  if (plan_after_load) g.plan_memory();  // the plan is derived from the nodes, not stored
  return g;
}

}  // namespace sampan::jit
