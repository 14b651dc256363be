// sampan: the process-wide op registry. Built-in ops, module ops and user libraries all land here.
#include <algorithm>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "sampan/op.h"
#include "sampan/op_library.h"

namespace sampan {

namespace {

struct Registry {
  std::mutex mu;
  std::unordered_map<std::string, std::unique_ptr<OpSchema>> ops;
  std::string loading_library = "sampan";  // who is registering right now
  std::vector<std::string> pending_errors;  // registration errors raised later by the loader
  std::vector<std::string> loaded_by_current;  // ops registered by the library being loaded
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: op libraries may outlive statics
  return *r;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string validate(const OpBuilder& b) {
  const OpSchema& s = b.schema();
  std::ostringstream err;
  auto sep = s.name.find("::");
  if (sep == std::string::npos || sep == 0 || sep + 2 >= s.name.size())
    err << "op name '" << s.name << "' must be namespaced as 'ns::name'; ";
  if (!b.error().empty()) err << b.error();
  if (s.kernels.empty()) err << "no kernel (declare at least .cpu(...)); ";
  if (!s.shape_fn) err << "no shape function (.shape(...)); ";
  if (!s.vjp && !s.nondifferentiable)
    err << "no vjp: declare .vjp(...) or mark the op .nondifferentiable(); ";
  const auto& kk = b.kernel_kinds();
  if (!s.arg_names.empty() && s.arg_names.size() != kk.size())
    err << ".args(...) names " << s.arg_names.size() << " arguments but the kernel takes "
        << kk.size() << "; ";
  if (s.shape_fn && b.shape_kinds() != kk) {
    err << "the shape function's parameters (";
    for (size_t i = 0; i < b.shape_kinds().size(); ++i)
      err << (i ? ", " : "") << arg_kind_name(b.shape_kinds()[i]);
    err << ") do not match the kernel's inputs (";
    for (size_t i = 0; i < kk.size(); ++i) err << (i ? ", " : "") << arg_kind_name(kk[i]);
    err << "); ";
  }
  if (!s.output_names.empty() && s.output_names.size() != b.n_kernel_outputs())
    err << ".outputs(...) names " << s.output_names.size() << " outputs but the kernel has "
        << b.n_kernel_outputs() << " trailing Tensor& parameters; ";
  for (auto& p : s.inplace)
    if (p.second < 0 || static_cast<size_t>(p.second) >= kk.size() || kk[p.second] != ArgKind::Tensor)
      err << "inplace map names input " << p.second << ", which is not a Tensor argument; ";
  return err.str();
}

}  // namespace

const char* arg_kind_name(ArgKind k) {
  switch (k) {
    case ArgKind::Tensor: return "Tensor";
    case ArgKind::OptionalTensor: return "Optional[Tensor]";
    case ArgKind::TensorList: return "List[Tensor]";
    case ArgKind::Bool: return "bool";
    case ArgKind::Int: return "int";
    case ArgKind::Float: return "float";
    case ArgKind::String: return "str";
    case ArgKind::IntList: return "List[int]";
    case ArgKind::FloatList: return "List[float]";
    case ArgKind::StringList: return "List[str]";
  }
  return "?";
}

std::string OpSchema::signature() const {
  std::ostringstream os;
  os << short_name() << "(";
  for (size_t i = 0; i < arg_kinds.size(); ++i)
    os << (i ? ", " : "") << arg_names[i] << ": " << arg_kind_name(arg_kinds[i]);
  os << ") -> ";
  if (output_names.size() == 1) {
    os << output_names[0];
  } else {
    os << "(";
    for (size_t i = 0; i < output_names.size(); ++i) os << (i ? ", " : "") << output_names[i];
    os << ")";
  }
  return os.str();
}

extern "C" void sampan_register_op(int abi_version, const OpBuilder* builder) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (abi_version != SAMPAN_ABI_VERSION) {
    r.pending_errors.push_back("library '" + r.loading_library + "' was built against sampan op ABI " +
                               std::to_string(abi_version) + " but this sampan has ABI " +
                               std::to_string(SAMPAN_ABI_VERSION) + ": rebuild it");
    return;
  }
  std::string problems = validate(*builder);
  const std::string& name = builder->schema().name;
  if (!problems.empty()) {
    r.pending_errors.push_back("op '" + name + "' (library '" + r.loading_library + "'): " + problems);
    return;
  }
  auto it = r.ops.find(name);
  if (it != r.ops.end()) {
    r.pending_errors.push_back("op '" + name + "' is registered twice: by library '" +
                               it->second->library + "' and by library '" + r.loading_library + "'");
    return;
  }
  auto s = std::make_unique<OpSchema>(builder->schema());
  s->library = r.loading_library;
  s->arg_kinds = builder->kernel_kinds();
  if (s->arg_names.empty())
    for (size_t i = 0; i < s->arg_kinds.size(); ++i) s->arg_names.push_back("arg" + std::to_string(i));
  if (s->output_names.empty()) {
    if (builder->n_kernel_outputs() == 1) s->output_names = {"out"};
    else
      for (size_t i = 0; i < builder->n_kernel_outputs(); ++i) s->output_names.push_back("out" + std::to_string(i));
  }
  r.loaded_by_current.push_back(name);
  r.ops.emplace(name, std::move(s));
}

const OpSchema* find_op_if(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.ops.find(name);
  return it == r.ops.end() ? nullptr : it->second.get();
}

const OpSchema& find_op(const std::string& name) {
  if (auto* s = find_op_if(name)) return *s;
  std::vector<std::pair<size_t, std::string>> near;
  for (auto& n : registered_ops()) near.emplace_back(edit_distance(n, name), n);
  std::sort(near.begin(), near.end());
  std::string msg = "no op named '" + name + "'";
  if (!near.empty() && near[0].first <= 3) msg += "; did you mean '" + near[0].second + "'?";
  throw ValueError(msg);
}

std::vector<std::string> registered_ops() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names;
  for (auto& kv : r.ops) names.push_back(kv.first);
  std::sort(names.begin(), names.end());
  return names;
}

// ---- library loading support (used by load_op_library) ----

void begin_library_load(const std::string& library) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.loading_library = library;
  r.pending_errors.clear();
  r.loaded_by_current.clear();
}

LibraryLoadResult end_library_load() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  LibraryLoadResult res{r.loaded_by_current, r.pending_errors};
  // A library that failed to register is taken back whole: none of its ops stay behind.
  if (!res.errors.empty())
    for (auto& name : r.loaded_by_current) r.ops.erase(name);
  r.loading_library = "sampan";
  r.pending_errors.clear();
  r.loaded_by_current.clear();
  return res;
}

std::vector<std::string> take_pending_registration_errors() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto e = std::move(r.pending_errors);
  r.pending_errors.clear();
  return e;
}

}  // namespace sampan
