// sampan: call_op, the single path every op call takes: validate, infer, allocate, run the
// device kernel, record autograd.
#include <atomic>
#include <cstring>
#include <optional>
#include <sstream>

#include "op_node.h"
#include "validate_args.h"
#include "sampan/amp.h"
#include "sampan/jit.h"
#include "sampan/autograd.h"
#include "sampan/ops.h"
#include "sampan/profiler.h"
#include "../autograd/accumulate_grad.h"

namespace sampan {

namespace {

const char* value_kind_name(const Value& v) {
  switch (v.index()) {
    case 0: return "None";
    case 1: return "Tensor";
    case 2: return "List[Tensor]";
    case 3: return "bool";
    case 4: return "int";
    case 5: return "float";
    case 6: return "str";
    case 7: return "List[int]";
    case 8: return "List[float]";
    case 9: return "List[str]";
  }
  return "?";
}

bool kind_matches(ArgKind k, Value& v) {
  switch (k) {
    case ArgKind::Tensor: return std::holds_alternative<Tensor>(v) && std::get<Tensor>(v).defined();
    case ArgKind::OptionalTensor:
      if (auto* t = std::get_if<Tensor>(&v)) return t->defined();
      return std::holds_alternative<std::monostate>(v);
    case ArgKind::TensorList: {
      auto* l = std::get_if<std::vector<Tensor>>(&v);
      if (!l) return false;
      for (auto& t : *l)
        if (!t.defined()) return false;
      return true;
    }
    case ArgKind::Bool: return std::holds_alternative<bool>(v);
    case ArgKind::Int:
      if (auto* b = std::get_if<bool>(&v)) { v = static_cast<int64_t>(*b); return true; }
      return std::holds_alternative<int64_t>(v);
    case ArgKind::Float:
      if (auto* i = std::get_if<int64_t>(&v)) { v = static_cast<double>(*i); return true; }
      if (auto* b = std::get_if<bool>(&v)) { v = static_cast<double>(*b); return true; }
      return std::holds_alternative<double>(v);
    case ArgKind::String: return std::holds_alternative<std::string>(v);
    case ArgKind::IntList:
      if (auto* i = std::get_if<int64_t>(&v)) { v = std::vector<int64_t>{*i}; return true; }
      return std::holds_alternative<std::vector<int64_t>>(v);
    case ArgKind::FloatList:
      if (auto* l = std::get_if<std::vector<int64_t>>(&v)) {
        v = std::vector<double>(l->begin(), l->end());
        return true;
      }
      return std::holds_alternative<std::vector<double>>(v);
    case ArgKind::StringList: return std::holds_alternative<std::vector<std::string>>(v);
  }
  return false;
}

template <class F> void for_each_tensor(const OpSchema& op, const Values& args, F f) {
  size_t slot = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    ArgKind k = op.arg_kinds[i];
    if (k == ArgKind::Tensor || k == ArgKind::OptionalTensor) {
      if (auto* t = std::get_if<Tensor>(&args[i])) f(*t, i, slot);
      ++slot;
    } else if (k == ArgKind::TensorList) {
      for (auto& t : std::get<std::vector<Tensor>>(args[i])) f(t, i, slot++);
    }
  }
}

// Re-throws an exception from inside an op with the op's name in front, keeping its type.
[[noreturn]] void rethrow_named(const OpSchema& op) {
  std::string p = "op '" + op.name + "': ";
  auto named = [&](const std::exception& e) {
    std::string w = e.what();
    return w.rfind("op '", 0) == 0 ? w : p + w;
  };
  try {
    throw;
  } catch (const ValueError& e) { throw ValueError(named(e));
  } catch (const TypeError& e) { throw TypeError(named(e));
  } catch (const IndexError& e) { throw IndexError(named(e));
  } catch (const NotImplementedError& e) { throw NotImplementedError(named(e));
  } catch (const IOError& e) { throw IOError(named(e));
  } catch (const RuntimeError& e) { throw RuntimeError(named(e));
  }
}

void validate_args(const OpSchema& op, Values& args) {
  // Missing trailing arguments take the op's declared defaults.
  for (size_t i = args.size(); i < op.defaults.size() && op.defaults[i]; ++i) args.push_back(*op.defaults[i]);
  if (args.size() != op.arg_kinds.size()) {
    std::ostringstream os;
    os << "op '" << op.name << "' takes " << op.arg_kinds.size() << " arguments ("
       << op.signature() << "), got " << args.size();
    throw TypeError(os.str());
  }
  for (size_t i = 0; i < args.size(); ++i)
    if (!kind_matches(op.arg_kinds[i], args[i]))
      SAMPAN_THROW(TypeError, "op '", op.name, "': argument '", op.arg_names[i], "' expects ",
                   arg_kind_name(op.arg_kinds[i]), ", got ",
                   (std::holds_alternative<Tensor>(args[i]) && !std::get<Tensor>(args[i]).defined()
                        ? "an undefined Tensor"
                        : value_kind_name(args[i])));
}

// The device of the tensor arguments (all on one); `any` tells whether there was one.
Device common_device(const OpSchema& op, const Values& args, bool& any) {
  Device dev;
  size_t first = args.size();  // argument index of the first tensor
  for_each_tensor(op, args, [&](const Tensor& t, size_t i, size_t) {
    // A kernel would find no data behind it; the tape hands vjps such tensors in place of the
    // inputs an op's .saves_for_vjp() does not keep.
    if (t.is_meta()) {
      if (const OpSchema* v = detail::vjp_running())
        SAMPAN_THROW(ValueError, "op '", op.name, "': argument '", op.arg_names[i], "' has no data (shape ",
                     shape_str(t.shape()), " only): the vjp of op '", v->name, "' passed it on, but that op's "
                     ".saves_for_vjp() does not keep it; name it there");
      SAMPAN_THROW(ValueError, "op '", op.name, "': argument '", op.arg_names[i], "' is a meta tensor (shape ",
                   shape_str(t.shape()), " only, no data)");
    }
    if (first == args.size()) {
      dev = t.device();
      first = i;
    } else if (t.device() != dev) {
      SAMPAN_THROW(ValueError, "op '", op.name, "': argument '", op.arg_names[i], "' is on ",
                   t.device().str(), " but '", op.arg_names[first], "' is on ", dev.str(),
                   "; move them to one device");
    }
  });
  any = first != args.size();
  return dev;
}

bool has_unknown_dim(const Shape& s) {
  for (auto d : s)
    if (d < 0) return true;
  return false;
}

// ---- the shape-function cache ----
// A shape function is a pure function of its arguments' shapes, dtypes, devices and attribute
// values (op.h: it sees no data), and loops over small tensors call one op with the same
// argument specs over and over; running it costs about as much as a 1-element kernel (it builds
// TensorSpec vectors). So each thread keeps recent results in a small 2-way set-associative
// table and reuses one when the op and every argument match. The set is chosen by a hash of the
// op and its tensors' shapes and dtypes (and integer attributes), not by the op alone: one op is
// typically called with several shapes in turn (an MLP's matmul per layer, each again in the
// backward pass), which a table of one entry per op kept evicting (README, "Per-op overhead").
// Within a set the least recently used entry goes. Before hashing, the entry the op used last is
// tried (a hint per op, by its address): a loop calling one op with one spec pays no hash.
// Ops with tensor-list arguments are not cached.
class ShapeCache {
 public:
  using Specs = std::shared_ptr<const std::vector<TensorSpec>>;

  static ShapeCache& for_this_thread() {
    thread_local ShapeCache cache;
    return cache;
  }
  /// The cached output specs of `op` for `args` (validated), or null.
  Specs find(const OpSchema& op, const Values& args) {
    Entry*& hint = hint_[reinterpret_cast<uintptr_t>(&op) % kHints];
    if (hint && holds(*hint, op, args)) return use(*hint);
    Set& s = table_[set_of(op, args)];
    for (Entry& e : s.ways)
      if (holds(e, op, args)) {
        hint = &e;
        return use(e);
      }
    return nullptr;
  }
  /// Remembers `outputs` as the specs of `op` for `args`, in place of the least recently used
  /// entry of their set; returns them.
  Specs store(const OpSchema& op, const Values& args, std::vector<TensorSpec> outputs) {
    Specs specs = std::make_shared<const std::vector<TensorSpec>>(std::move(outputs));
    for (ArgKind k : op.arg_kinds)
      if (k == ArgKind::TensorList) return specs;
    Set& s = table_[set_of(op, args)];
    Entry& e = s.ways[1 - s.recent];
    e.op = nullptr;  // stays invalid if a copy below throws
    e.tensors.assign(args.size(), TensorSpec());
    e.attributes.assign(args.size(), Value());
    for (size_t i = 0; i < args.size(); ++i) {
      if (auto* t = std::get_if<Tensor>(&args[i])) {
        e.tensors[i] = TensorSpec(*t);
        e.attributes[i] = true;  // a tensor was given (an optional one may be absent)
      } else if (!is_tensor_kind(op.arg_kinds[i])) {
        e.attributes[i] = args[i];
      }
    }
    e.outputs = specs;
    e.op = &op;
    hint_[reinterpret_cast<uintptr_t>(&op) % kHints] = &e;
    use(e);
    return specs;
  }

  ShapeCache() {
    for (size_t i = 0; i < kSets; ++i)
      for (uint8_t w = 0; w < 2; ++w) {
        table_[i].ways[w].set = &table_[i];
        table_[i].ways[w].way = w;
      }
  }
  ShapeCache(const ShapeCache&) = delete;
  ShapeCache& operator=(const ShapeCache&) = delete;

 private:
  struct Set;
  struct Entry {
    const OpSchema* op = nullptr;
    std::vector<TensorSpec> tensors;  // per argument: the spec of a tensor argument
    Values attributes;                // per argument: an attribute; for tensors, true if given
    Specs outputs;
    Set* set = nullptr;  // where the entry lives, for the LRU mark
    uint8_t way = 0;
  };
  struct Set {
    Entry ways[2];
    uint8_t recent = 1;  // the way used last; the other one is replaced next
  };
  static constexpr size_t kSets = 64;    // 128 entries, as many as the direct-mapped table had
  static constexpr size_t kHints = 127;  // prime: schema addresses are multiples of 16

  static size_t set_of(const OpSchema& op, const Values& args) {
    uint64_t h = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(&op)) >> 4;
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ULL; };  // FNV-1a's step, per word
    for (const Value& v : args) {
      if (const Tensor* t = std::get_if<Tensor>(&v)) {
        mix(static_cast<uint64_t>(t->dtype()) + 0x9e37);
        for (int64_t d : t->shape()) mix(static_cast<uint64_t>(d));
      } else if (const int64_t* i = std::get_if<int64_t>(&v)) {
        mix(static_cast<uint64_t>(*i));
      }
    }
    return static_cast<size_t>((h ^ (h >> 32)) % kSets);
  }
  static bool holds(const Entry& e, const OpSchema& op, const Values& args) {
    if (e.op != &op) return false;
    for (size_t i = 0; i < args.size(); ++i)
      if (!matches(op.arg_kinds[i], args[i], e.tensors[i], e.attributes[i])) return false;
    return true;
  }
  static Specs use(Entry& e) {
    e.set->recent = e.way;
    return e.outputs;
  }

  static bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

  static bool matches(ArgKind kind, const Value& v, const TensorSpec& spec, const Value& attr) {
    if (is_tensor_kind(kind)) {
      const Tensor* t = std::get_if<Tensor>(&v);
      const bool had_tensor = std::holds_alternative<bool>(attr);
      if (!t) return !had_tensor;
      return had_tensor && t->dtype() == spec.dtype && t->device() == spec.device && t->shape() == spec.shape;
    }
    if (v.index() != attr.index()) return false;
    switch (v.index()) {
      case 3: return std::get<bool>(v) == std::get<bool>(attr);
      case 4: return std::get<int64_t>(v) == std::get<int64_t>(attr);
      case 5: return same_bits(std::get<double>(v), std::get<double>(attr));
      case 6: return std::get<std::string>(v) == std::get<std::string>(attr);
      case 7: return std::get<std::vector<int64_t>>(v) == std::get<std::vector<int64_t>>(attr);
      case 8: {
        const auto& a = std::get<std::vector<double>>(v);
        const auto& b = std::get<std::vector<double>>(attr);
        if (a.size() != b.size()) return false;
        for (size_t i = 0; i < a.size(); ++i)
          if (!same_bits(a[i], b[i])) return false;
        return true;
      }
      case 9: return std::get<std::vector<std::string>>(v) == std::get<std::vector<std::string>>(attr);
    }
    return false;
  }
  Set table_[kSets];
  Entry* hint_[kHints] = {};  // per op (by address): the entry it used last, checked before use
};

}  // namespace

void detail::validate_op_args(const OpSchema& op, Values& args) { validate_args(op, args); }
bool detail::coerce_to_kind(ArgKind k, Value& v) { return kind_matches(k, v); }
const char* detail::value_kind_name(const Value& v) { return sampan::value_kind_name(v); }

std::vector<TensorSpec> infer_op(const OpSchema& op, const Values& args) {
  Values a = args;
  validate_args(op, a);
  try {
    return op.shape_fn(a);
  } catch (const std::exception&) {
    rethrow_named(op);
  }
}

// The tensor arguments' shapes in order, for the profiler: "[32, 300], [300, 600]".
std::string tensor_shapes(const OpSchema& op, const Values& args) {
  std::string s;
  for_each_tensor(op, args, [&](const Tensor& t, size_t, size_t) {
    if (!s.empty()) s += ", ";
    s += shape_str(t.shape());
  });
  return s;
}

namespace {
std::atomic<bool> g_buffer_donation{true};

// The argument whose buffer output 0 takes, or nullptr: one the op declares (.output_may_reuse)
// that this call holds the only handle of (the caller moved it in), whose storage nothing else
// shares and sampan's allocator made, laid out as the output (contiguous from element 0, same
// dtype and shape), and that the tape will not keep for the vjp. CPU only: the CUDA caching
// allocator reuses blocks already, and the CUDA kernels are not audited for aliasing.
const Tensor* buffer_donor(const OpSchema& op, const Values& args, const TensorSpec& out, Device dev, bool record) {
  if (op.output_reuses.empty() || dev.type != DeviceType::CPU || !g_buffer_donation.load(std::memory_order_relaxed))
    return nullptr;
  if (jit::detail::active_tracer()) return nullptr;  // a traced graph records distinct buffers
  for (int i : op.output_reuses) {
    const Tensor* t = std::get_if<Tensor>(&args[static_cast<size_t>(i)]);
    if (!t || !t->defined()) continue;
    if (record && (!saved_tensor_selection_enabled() || op.keeps_arg_for_vjp(static_cast<size_t>(i)))) continue;
    const auto& impl = t->impl_ptr();
    if (impl.use_count() != 1) continue;  // a caller, a node or another argument holds it too
    const auto& storage = impl->storage;
    if (!storage || storage.use_count() != 1 || !detail::storage_from_allocator(*storage)) continue;
    if (impl->offset != 0 || impl->dtype != out.dtype || impl->shape != out.shape || impl->device != dev) continue;
    const detail::AutogradMeta* m = impl->autograd.get();
    if (m && (m->is_view || m->retains_grad || (m->requires_grad && !m->grad_fn))) continue;
    if (impl->strides != contiguous_strides(impl->shape)) continue;
    return t;
  }
  return nullptr;
}
}  // namespace

void set_buffer_donation(bool enabled) { g_buffer_donation.store(enabled); }
bool buffer_donation_enabled() { return g_buffer_donation.load(); }

std::vector<Tensor> call_op(const OpSchema& op, Values args) {
  validate_args(op, args);
  std::optional<profiler::detail::OpScope> profiled;  // times this call while the profiler runs
  if (profiler::detail::running())
    profiled.emplace(op, profiler::detail::record_shapes() ? tensor_shapes(op, args) : std::string());
  bool any_tensor = false;
  Device dev = common_device(op, args, any_tensor);
  if (amp::detail::any_enabled()) amp::detail::cast_arguments(op, dev.type, args);
  ShapeCache& shape_cache = ShapeCache::for_this_thread();
  ShapeCache::Specs cached = shape_cache.find(op, args);
  if (!cached) {
    try {
      cached = shape_cache.store(op, args, op.shape_fn(args));
    } catch (const std::exception&) {
      rethrow_named(op);
    }
  }
  // Held by `cached`: a kernel that calls ops may replace the table's entry meanwhile.
  const std::vector<TensorSpec>& specs = *cached;
  // An op without tensor arguments (rand, randn ...) runs where its shape function puts its first
  // output (from a `device` attribute): no input says where else.
  if (!any_tensor && !specs.empty()) dev = specs[0].device;
  const size_t n_out = op.output_names.size();
  SAMPAN_CHECK(specs.size() == n_out, RuntimeError, "op '", op.name, "': shape function returned ", specs.size(),
               " specs for ", n_out, " outputs");

  bool any_input_requires_grad = false;
  for_each_tensor(op, args, [&](const Tensor& t, size_t, size_t) {
    any_input_requires_grad = any_input_requires_grad || t.requires_grad();
  });
  const bool record = grad_mode_enabled() && !op.nondifferentiable && any_input_requires_grad;

  // Inplace outputs are their inputs; a leaf that requires grad must not be overwritten.
  std::vector<Tensor> outs(n_out);
  // The vjp needs the value of an in-place input before the write: (argument index, copy).
  std::vector<std::pair<size_t, Tensor>> before_write;
  // Outputs allocated here from their spec (their shape and dtype need no check afterwards).
  constexpr size_t kTracked = 4;
  const detail::TensorImpl* allocated[kTracked] = {};
  for (size_t o = 0; o < n_out; ++o) {
    int in = op.inplace_input(static_cast<int>(o));
    if (in >= 0) {
      const Tensor& t = std::get<Tensor>(args[in]);
      if (record && t.requires_grad() && t.is_leaf())
        SAMPAN_THROW(RuntimeError, "op '", op.name, "': argument '", op.arg_names[in],
                     "' is a leaf tensor that requires grad and cannot be modified in place; "
                     "use the out-of-place op or wrap the update in no_grad()");
      if (record && t.autograd_meta_if() && t.autograd_meta_if()->is_view)
        SAMPAN_THROW(NotImplementedError, "op '", op.name, "': argument '", op.arg_names[in],
                     "' is a view of another tensor; writing it in place while recording gradients would "
                     "leave the other tensor's gradient wrong. Use the out-of-place op, or clone() first");
      if (specs[o].shape != t.shape() || specs[o].dtype != t.dtype())
        SAMPAN_THROW(ValueError, "op '", op.name, "': in-place result of shape ", shape_str(specs[o].shape),
                     " and dtype ", dtype_name(specs[o].dtype), " does not fit argument '",
                     op.arg_names[in], "' of shape ", shape_str(t.shape()), " and dtype ",
                     dtype_name(t.dtype()));
      outs[o] = t;
      if (record && (op.keeps_arg_for_vjp(static_cast<size_t>(in)) || !saved_tensor_selection_enabled()))
        before_write.emplace_back(static_cast<size_t>(in), t.clone().detach());
    } else if (!op.is_view_output(static_cast<int>(o)) && !has_unknown_dim(specs[o].shape)) {
      const Tensor* donor = o == 0 ? buffer_donor(op, args, specs[0], dev, record) : nullptr;
      outs[o] = donor ? Tensor(donor->storage(), specs[o].shape, donor->strides(), 0, specs[o].dtype)
                      : Tensor::empty(specs[o].shape, specs[o].dtype, op.transfers_device ? specs[o].device : dev);
      if (o < kTracked) allocated[o] = outs[o].impl();
    }
  }

  auto kit = op.kernels.find(dev.type);
  SAMPAN_CHECK(kit != op.kernels.end(), NotImplementedError, "op '", op.name, "' has no kernel for device ", dev.str());
  try {
    NoGradGuard kernels_do_not_record;  // a kernel may call ops; only this call is recorded
    jit::detail::KernelScope not_traced;  // ... nor traced
    amp::detail::Suspend not_autocast;    // ... nor cast: it computes in the dtypes chosen here
    kit->second(args, outs);
  } catch (const std::exception&) {
    rethrow_named(op);
  }

  for (size_t o = 0; o < n_out; ++o) {
    if (!outs[o].defined())
      SAMPAN_THROW(RuntimeError, "op '", op.name, "': the kernel did not produce output '", op.output_names[o], "'");
    const Shape& got = outs[o].shape();
    const Shape& want = specs[o].shape;
    bool ok = got.size() == want.size() && outs[o].dtype() == specs[o].dtype;
    const bool as_allocated = o < kTracked && allocated[o] == outs[o].impl();
    for (size_t d = 0; ok && !as_allocated && d < want.size(); ++d) ok = want[d] < 0 || want[d] == got[d];
    SAMPAN_CHECK(ok, RuntimeError, "op '", op.name, "': output '", op.output_names[o], "' has shape ",
                 shape_str(got), " and dtype ", dtype_name(outs[o].dtype()),
                 " but the shape function promised ", shape_str(want), " and ",
                 dtype_name(specs[o].dtype));
    if (op.inplace_input(static_cast<int>(o)) >= 0) outs[o].bump_version();
    if (op.is_view_output(static_cast<int>(o)))
      outs[o].autograd_meta().is_view = true;
  }

  if (jit::Tracer* tracer = jit::detail::active_tracer()) tracer->record(op, args, outs);

  if (record) {
    std::vector<bool> needs;
    std::vector<Edge> edges;
    edges.reserve(args.size());
    for_each_tensor(op, args, [&](const Tensor& t, size_t, size_t) {
      bool n = t.requires_grad() && is_differentiable(t.dtype());
      needs.push_back(n);
      edges.push_back(n ? gradient_edge(t) : Edge{});
    });
    for (auto& [in, value] : before_write) args[in] = std::move(value);
    auto node = std::make_shared<detail::OpNode>(op, std::move(args), outs, std::move(needs));
    node->next_edges = std::move(edges);
    for (size_t o = 0; o < n_out; ++o)
      if (is_differentiable(outs[o].dtype())) outs[o].set_grad_fn(node, static_cast<uint32_t>(o));
  }
  return outs;
}

// ---- OpNode ----

namespace {
std::atomic<bool> g_saved_tensor_selection{true};
thread_local const OpSchema* t_vjp_running = nullptr;  // innermost vjp running on this thread

// Marks the vjp of `op` as running on this thread for the scope (restoring an outer one).
struct VjpScope {
  const OpSchema* outer = t_vjp_running;
  explicit VjpScope(const OpSchema& op) { t_vjp_running = &op; }
  ~VjpScope() { t_vjp_running = outer; }
};
}  // namespace
const OpSchema* detail::vjp_running() { return t_vjp_running; }
void set_saved_tensor_selection(bool enabled) { g_saved_tensor_selection.store(enabled); }
bool saved_tensor_selection_enabled() { return g_saved_tensor_selection.load(); }

namespace detail {

namespace {
class NodeVjpContext final : public VjpContext {
 public:
  NodeVjpContext(OpNode& n, std::vector<Tensor>& g) : node_(n), grads_(g) {}
  Tensor input(size_t i) const override { return node_.saved_input(i); }
  std::vector<Tensor> inputs(size_t i) const override { return node_.saved_inputs(i); }
  Tensor output(size_t i) const override { return node_.saved_output(i); }
  Tensor grad_output(size_t i) const override {
    SAMPAN_CHECK(i < grads_.size(), IndexError, "grad_output(", i, ") out of range");
    SAMPAN_CHECK(i >= taken_.size() || !taken_[i], RuntimeError, "op '", node_.schema().name, "': its vjp asked grad_output(",
                 i, ") after take_grad_output(", i, ") handed it over");
    if (!grads_[i].defined()) {
      const TensorSpec o = node_.output_spec(i);
      grads_[i] = zeros(o.shape, o.dtype, o.device);
    }
    return grads_[i];
  }
  Tensor take_grad_output(size_t i) const override {
    Tensor g = grad_output(i);
    grads_[i] = Tensor();
    if (taken_.size() <= i) taken_.resize(grads_.size(), false);
    taken_[i] = true;
    return g;
  }
  bool needs_grad(size_t slot) const override { return node_.needs_grad(slot); }
  const Value& arg(size_t i) const override { return node_.arg(i); }
  const OpSchema& schema() const override { return node_.schema(); }

 private:
  OpNode& node_;
  std::vector<Tensor>& grads_;
  mutable std::vector<bool> taken_;  // per output: handed over by take_grad_output
};
}  // namespace

OpNode::OpNode(const OpSchema& op, Values args, const std::vector<Tensor>& outputs,
               std::vector<bool> slot_needs_grad)
    : op_(&op), args_(std::move(args)), needs_(std::move(slot_needs_grad)), n_outputs_(outputs.size()) {
  versions_.reserve(needs_.size());
  for_each_tensor(op, args_, [&](const Tensor& t, size_t, size_t) { versions_.push_back(t.version()); });
  // What the vjp does not read keeps only its shape, dtype and device, so the memory is freed as
  // soon as nobody else holds it.
  const bool select = saved_tensor_selection_enabled();
  if (select && !op.vjp_keeps_arg.empty()) {
    for (size_t i = 0; i < args_.size(); ++i) {
      if (op.keeps_arg_for_vjp(i)) continue;
      if (Tensor* t = std::get_if<Tensor>(&args_[i])) {
        *t = Tensor::meta(t->shape(), t->dtype(), t->device());
      } else if (auto* list = std::get_if<std::vector<Tensor>>(&args_[i])) {
        for (Tensor& e : *list) e = Tensor::meta(e.shape(), e.dtype(), e.device());
      }
    }
  }
  outputs_.reserve(outputs.size());
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Tensor& t = outputs[o];
    outputs_.push_back({!select || op.keeps_output_for_vjp(o) ? t.storage() : nullptr, t.shape(), t.strides(), t.offset(),
                        t.dtype(), t.device(), t.version()});
  }
}

TensorSpec OpNode::output_spec(size_t i) const {
  SAMPAN_CHECK(i < outputs_.size(), IndexError, "op '", op_->name, "': vjp asked output(", i, ")");
  const auto& s = outputs_[i];
  return TensorSpec{s.shape, s.dtype, s.device};
}

void OpNode::check_version(const Tensor& t, uint64_t saved, const std::string& what) const {
  SAMPAN_CHECK(t.version() == saved, RuntimeError, "op '", op_->name, "': ", what,
               ", saved for the gradient, was modified by an in-place operation since "
               "(version ", t.version(), ", saved at version ",
               saved, "); clone() it before modifying it");
}

Tensor OpNode::saved_input(size_t i) const {
  SAMPAN_CHECK(!released, RuntimeError, "op '", op_->name, "': backward through the graph a second time; pass retain_graph=True the first time");
  if (i >= args_.size() || !is_tensor_kind(op_->arg_kinds[i]) || op_->arg_kinds[i] == ArgKind::TensorList)
    SAMPAN_THROW(IndexError, "op '", op_->name, "': vjp asked input(", i, "), which is not a Tensor argument");
  const Tensor* t = std::get_if<Tensor>(&args_[i]);
  if (!t) return Tensor();
  size_t slot = 0;
  for (size_t k = 0; k < i; ++k) {
    if (op_->arg_kinds[k] == ArgKind::Tensor || op_->arg_kinds[k] == ArgKind::OptionalTensor) ++slot;
    else if (op_->arg_kinds[k] == ArgKind::TensorList) slot += std::get<std::vector<Tensor>>(args_[k]).size();
  }
  if (!t->is_meta()) check_version(*t, versions_[slot], "argument '" + op_->arg_names[i] + "'");  // meta: not kept
  return *t;
}

std::vector<Tensor> OpNode::saved_inputs(size_t i) const {
  SAMPAN_CHECK(!released, RuntimeError, "op '", op_->name, "': backward through the graph a second time; pass retain_graph=True the first time");
  const auto* l = i < args_.size() ? std::get_if<std::vector<Tensor>>(&args_[i]) : nullptr;
  SAMPAN_CHECK(l, IndexError, "op '", op_->name, "': vjp asked inputs(", i, "), which is not a tensor list");
  return *l;
}

Tensor OpNode::saved_output(size_t i) {
  SAMPAN_CHECK(!released, RuntimeError, "op '", op_->name, "': backward through the graph a second time; pass retain_graph=True the first time");
  SAMPAN_CHECK(i < outputs_.size(), IndexError, "op '", op_->name, "': vjp asked output(", i, ")");
  auto& s = outputs_[i];
  if (!s.storage) return Tensor::meta(s.shape, s.dtype, s.device);  // not kept (.saves_for_vjp)
  Tensor t(s.storage, s.shape, s.strides, s.offset, s.dtype);
  check_version(t, s.version, "output '" + op_->output_names[i] + "'");
  if (is_differentiable(s.dtype)) t.set_grad_fn(shared_from_this(), static_cast<uint32_t>(i));
  return t;
}

void OpNode::release_saved() {
  released = true;
  args_.clear();
  outputs_.clear();
}

std::vector<Tensor> OpNode::apply(std::vector<Tensor>&& grad_outputs) {
  SAMPAN_CHECK(!released, RuntimeError, "op '", op_->name, "': backward through the graph a second time, but the "
               "saved tensors were freed; pass retain_graph=True to the first backward");
  grad_outputs.resize(n_outputs_);
  NodeVjpContext ctx(*this, grad_outputs);
  Grads grads;
  const bool create_graph = grad_mode_enabled();
  amp::detail::Suspend vjps_not_autocast;  // a vjp computes in the dtypes its forward call had
  VjpScope running(*op_);                   // named by the error of an op given an unkept tensor
  try {
    if (op_->once_differentiable) {
      NoGradGuard ng;
      grads = op_->vjp(ctx);
    } else {
      grads = op_->vjp(ctx);
    }
  } catch (const std::exception&) {
    rethrow_named(*op_);
  }
  SAMPAN_CHECK(grads.size() == needs_.size(), RuntimeError, "op '", op_->name, "': vjp returned ", grads.size(),
               " gradients for ", needs_.size(), " tensor arguments");
  // Reduce broadcast gradients to the input's shape and match its dtype.
  size_t slot = 0;
  for_each_tensor(*op_, args_, [&](const Tensor& in, size_t, size_t s) {
    slot = s;
    Tensor& g = grads[s];
    if (!g.defined() || !needs_[s]) { g = Tensor(); return; }
    if (g.shape() != in.shape()) g = sum_to(g, in.shape());
    if (g.dtype() != in.dtype()) g = (is_complex(g.dtype()) && !is_complex(in.dtype())) ? real(g) : g.to(in.dtype());
  });
  (void)slot;
  if (op_->once_differentiable && create_graph) {
    auto err = std::make_shared<OnceDifferentiableError>(op_->name, grads.size());
    err->next_edges = next_edges;  // so the engine reaches it (and fails) on the way to the leaves
    // One output of the error node per gradient: gradients of different shapes must not meet
    // in one accumulation slot (that raised a broadcast error instead of this one).
    for (size_t k = 0; k < grads.size(); ++k)
      if (grads[k].defined()) grads[k].set_grad_fn(err, static_cast<uint32_t>(k));
  }
  return grads;
}

}  // namespace detail
}  // namespace sampan
