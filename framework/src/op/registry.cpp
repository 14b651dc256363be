// sampan: the process-wide op registry. Built-in ops, module ops and user libraries all land here.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "sampan/op.h"
#include "sampan/op_library.h"
#include "validate_args.h"

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

// The op's defaults per argument from its declared ones (checked: a known name, a value of the
// argument's kind, declared once, trailing) and None for optional tensors; appends problems to `err`.
std::vector<std::optional<Value>> resolve_defaults(const OpSchema& s, const std::vector<ArgDefault>& declared,
                                                   std::ostringstream& err) {
  const size_t n = s.arg_kinds.size();
  std::vector<std::optional<Value>> d(n);
  std::vector<bool> explicit_default(n, false);
  for (const ArgDefault& a : declared) {
    auto it = std::find(s.arg_names.begin(), s.arg_names.end(), a.name);
    if (it == s.arg_names.end()) {
      err << "a default for '" << a.name << "', which is not an argument (";
      for (size_t i = 0; i < n; ++i) err << (i ? ", " : "") << s.arg_names[i];
      err << "); ";
      continue;
    }
    const size_t i = static_cast<size_t>(it - s.arg_names.begin());
    Value v = a.value;
    if (explicit_default[i]) err << "two defaults for '" << a.name << "'; ";
    if (is_tensor_kind(s.arg_kinds[i]) && !(s.arg_kinds[i] == ArgKind::OptionalTensor &&
                                            std::holds_alternative<std::monostate>(v))) {
      err << "a default for tensor argument '" << a.name << "' (only optional tensors have one: None); ";
      continue;
    }
    if (!detail::coerce_to_kind(s.arg_kinds[i], v)) {
      err << "the default of '" << a.name << "' is " << detail::value_kind_name(v) << " but the argument is "
          << arg_kind_name(s.arg_kinds[i]) << "; ";
      continue;
    }
    d[i] = std::move(v);
    explicit_default[i] = true;
  }
  for (size_t i = 0; i < n; ++i)
    if (!d[i] && s.arg_kinds[i] == ArgKind::OptionalTensor) d[i].emplace(std::monostate{});
  // Only a trailing run of defaults can be used (Python's rule too): an explicit default followed
  // by an argument without one is a mistake; an optional tensor's implicit None just lapses.
  for (size_t i = n; i-- > 0;) {
    if (d[i]) continue;
    for (size_t j = 0; j < i; ++j) {
      if (explicit_default[j])
        err << "the default of '" << s.arg_names[j] << "' is followed by '" << s.arg_names[i]
            << "', which has none (defaults must trail); ";
      d[j].reset();
    }
    break;
  }
  return d;
}

// The per-argument and per-output masks of .saves_for_vjp(names): a name may be an argument, an
// output or both (an in-place output is named after its input). Appends unknown names to `err`.
void resolve_saves(OpSchema& s, const OpBuilder& b, std::ostringstream& err) {
  if (!b.saves_declared()) return;
  s.vjp_keeps_arg.assign(s.arg_names.size(), false);
  s.vjp_keeps_output.assign(s.output_names.size(), false);
  for (const std::string& name : b.saves_names()) {
    bool found = false;
    for (size_t i = 0; i < s.arg_names.size(); ++i)
      if (s.arg_names[i] == name) found = s.vjp_keeps_arg[i] = true;
    for (size_t o = 0; o < s.output_names.size(); ++o)
      if (s.output_names[o] == name) found = s.vjp_keeps_output[o] = true;
    if (!found) {
      err << ".saves_for_vjp names '" << name << "', which is neither an argument (";
      for (size_t i = 0; i < s.arg_names.size(); ++i) err << (i ? ", " : "") << s.arg_names[i];
      err << ") nor an output (";
      for (size_t o = 0; o < s.output_names.size(); ++o) err << (o ? ", " : "") << s.output_names[o];
      err << "); ";
    }
  }
}

// The argument indices of .output_may_reuse(names): tensor arguments of a single-output op.
void resolve_reuses(OpSchema& s, const OpBuilder& b, std::ostringstream& err) {
  for (const std::string& name : b.reuse_names()) {
    auto it = std::find(s.arg_names.begin(), s.arg_names.end(), name);
    if (it == s.arg_names.end() || s.arg_kinds[static_cast<size_t>(it - s.arg_names.begin())] != ArgKind::Tensor) {
      err << ".output_may_reuse names '" << name << "', which is not a tensor argument; ";
      continue;
    }
    s.output_reuses.push_back(static_cast<int>(it - s.arg_names.begin()));
  }
  if (!s.output_reuses.empty() && s.output_names.size() != 1)
    err << ".output_may_reuse is for ops with one output; ";
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

namespace {
// The shortest decimal that reads back as `x` (1e-05, not 1.0000000000000001e-05).
std::string shortest(double x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (std::isnan(x)) return "nan";
  for (int prec = 1; prec <= 17; ++prec) {
    std::ostringstream os;
    os.precision(prec);
    os << x;
    if (std::stod(os.str()) == x) {
      std::string r = os.str();
      if (r.find_first_of(".einf") == std::string::npos) r += ".0";
      return r;
    }
  }
  return std::to_string(x);
}
template <class T, class F> std::string list_repr(const std::vector<T>& v, F item) {
  std::string r = "[";
  for (size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + item(v[i]);
  return r + "]";
}
}  // namespace

std::string value_repr(const Value& v) {
  struct Repr {
    std::string operator()(std::monostate) const { return "None"; }
    std::string operator()(const Tensor&) const { return "<Tensor>"; }
    std::string operator()(const std::vector<Tensor>& l) const { return "<" + std::to_string(l.size()) + " Tensors>"; }
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return shortest(d); }
    std::string operator()(const std::string& s) const { return "'" + s + "'"; }
    std::string operator()(const std::vector<int64_t>& l) const {
      return list_repr(l, [](int64_t i) { return std::to_string(i); });
    }
    std::string operator()(const std::vector<double>& l) const { return list_repr(l, shortest); }
    std::string operator()(const std::vector<std::string>& l) const {
      return list_repr(l, [](const std::string& s) { return "'" + s + "'"; });
    }
  };
  return std::visit(Repr{}, v);
}

std::string OpSchema::signature() const {
  std::ostringstream os;
  os << short_name() << "(";
  for (size_t i = 0; i < arg_kinds.size(); ++i) {
    os << (i ? ", " : "") << arg_names[i] << ": " << arg_kind_name(arg_kinds[i]);
    if (i < defaults.size() && defaults[i]) os << " = " << value_repr(*defaults[i]);
  }
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
  std::ostringstream default_errors;
  s->defaults = resolve_defaults(*s, builder->declared_defaults(), default_errors);
  resolve_saves(*s, *builder, default_errors);
  resolve_reuses(*s, *builder, default_errors);
  if (!default_errors.str().empty()) {
    r.pending_errors.push_back("op '" + name + "' (library '" + r.loading_library + "'): " + default_errors.str());
    return;
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
