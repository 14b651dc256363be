// sampan: jit::Tracer, which records a run's outermost op calls into a Graph (sampan/jit.h).
#include <atomic>
#include <set>

#include "sampan/error.h"
#include "sampan/jit.h"
#include "sampan/ops.h"

namespace sampan::jit {

namespace {
// Tracers are rare: one global count keeps call_op's check a relaxed load when none runs.
std::atomic<int> g_tracers{0};
thread_local Tracer* t_tracer = nullptr;
thread_local int t_kernel_depth = 0;
}  // namespace

namespace detail {
Tracer* active_tracer() {
  if (g_tracers.load(std::memory_order_relaxed) == 0) return nullptr;
  return t_kernel_depth == 0 ? t_tracer : nullptr;
}
KernelScope::KernelScope() { ++t_kernel_depth; }
KernelScope::~KernelScope() { --t_kernel_depth; }
}  // namespace detail

Tracer::Tracer(const std::vector<Tensor>& inputs, std::vector<std::string> names,
               const std::map<std::string, std::map<int64_t, std::string>>& dynamic_dims) {
  SAMPAN_CHECK(t_tracer == nullptr, RuntimeError, "jit.trace: a trace is already recording on this thread");
  if (names.empty())
    for (size_t i = 0; i < inputs.size(); ++i) names.push_back("input" + std::to_string(i));
  SAMPAN_CHECK(names.size() == inputs.size(), ValueError, "jit.trace: ", names.size(), " input names for ",
               inputs.size(), " inputs");
  std::set<std::string> seen;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    SAMPAN_CHECK(t.defined(), ValueError, "jit.trace: input '", names[i], "' is an undefined tensor");
    SAMPAN_CHECK(seen.insert(names[i]).second, ValueError, "jit.trace: two inputs are named '", names[i], "'");
    SAMPAN_CHECK(ids_.count(t.impl()) == 0, ValueError, "jit.trace: input '", names[i],
                 "' is the same tensor as an earlier input");
    InputSpec spec{names[i], t.dtype(), t.shape(), std::vector<std::string>(t.shape().size())};
    auto it = dynamic_dims.find(names[i]);
    if (it != dynamic_dims.end())
      for (auto& [dim, symbol] : it->second) {
        const int64_t d = dim < 0 ? dim + t.dim() : dim;
        SAMPAN_CHECK(d >= 0 && d < t.dim(), ValueError, "jit.trace: dynamic dimension ", dim, " of input '",
                     names[i], "', which has ", t.dim(), " dimensions");
        spec.dims[static_cast<size_t>(d)] = symbol.empty() ? names[i] + "." + std::to_string(d) : symbol;
      }
    graph_.inputs_.push_back(std::move(spec));
    ids_[t.impl()] = static_cast<int64_t>(i);
    keep_alive_.push_back(t);
  }
  for (auto& [name, dims] : dynamic_dims)
    SAMPAN_CHECK(seen.count(name), ValueError, "jit.trace: dynamic_dims names '", name, "', which is not an input");
  graph_.num_values_ = static_cast<int64_t>(inputs.size());
  t_tracer = this;
  g_tracers.fetch_add(1);
}

Tracer::~Tracer() {
  if (!finished_) {
    t_tracer = nullptr;
    g_tracers.fetch_sub(1);
  }
}

// A tensor the trace has not seen is a constant of the graph (a parameter, a buffer, a tensor
// made outside any op); a tensor an op made has the id of that op's output.
int64_t Tracer::id_of(const Tensor& t) {
  auto it = ids_.find(t.impl());
  if (it != ids_.end()) return it->second;
  const int64_t id = graph_.num_values_++;
  graph_.constants_.push_back(t);
  constant_ids_.push_back(id);  // renumbered at finish: after the inputs, before node outputs
  ids_[t.impl()] = id;
  keep_alive_.push_back(t);
  return id;
}

void Tracer::record(const OpSchema& op, const Values& args, const std::vector<Tensor>& outs) {
  Node n;
  n.op = &op;
  n.op_name = op.name;
  n.library = op.library;
  n.args.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    Arg a;
    if (auto* t = std::get_if<Tensor>(&args[i]); t && t->defined()) {
      a.kind = Arg::Kind::Ref;
      a.ref = id_of(*t);
    } else if (auto* l = std::get_if<std::vector<Tensor>>(&args[i])) {
      a.kind = Arg::Kind::RefList;
      for (const Tensor& e : *l) a.refs.push_back(id_of(e));
    } else {
      a.attr = args[i];
    }
    n.args.push_back(std::move(a));
  }
  for (const Tensor& o : outs) {
    const int64_t id = graph_.num_values_++;
    n.outputs.push_back(id);
    ids_[o.impl()] = id;  // an in-place output is its input, under a new id from here on
    keep_alive_.push_back(o);
  }
  graph_.nodes_.push_back(std::move(n));
}

void Tracer::record_alias(const Tensor& t, const Tensor& alias) {
  auto it = ids_.find(t.impl());
  if (it == ids_.end()) return;  // a constant: its alias becomes one too when an op reads it
  ids_[alias.impl()] = it->second;
  keep_alive_.push_back(alias);
}

void Tracer::record_data_read(const Tensor& t) {
  auto it = ids_.find(t.impl());
  // Neither an input nor made by an op: a constant, the same in every replay.
  if (it == ids_.end()) return;
  for (int64_t c : constant_ids_)
    if (c == it->second) return;
  Node g;
  g.guard_ref = it->second;
  g.expected = t.detach().contiguous().to(cpu_device()).clone();
  graph_.nodes_.push_back(std::move(g));
}

Graph Tracer::finish(const std::vector<Tensor>& outputs) {
  SAMPAN_CHECK(!finished_, RuntimeError, "jit.trace: finish() called twice");
  for (size_t i = 0; i < outputs.size(); ++i) {
    SAMPAN_CHECK(outputs[i].defined(), ValueError, "jit.trace: output ", i, " is an undefined tensor");
    graph_.outputs_.push_back(id_of(outputs[i]));
  }
  finished_ = true;
  t_tracer = nullptr;
  g_tracers.fetch_sub(1);
  // Renumber: inputs, then constants, then node outputs in order (ids were handed out in the
  // order values appeared, constants interleaved with node outputs).
  const int64_t n_in = static_cast<int64_t>(graph_.inputs_.size());
  std::vector<int64_t> renumber(static_cast<size_t>(graph_.num_values_), -1);
  for (int64_t i = 0; i < n_in; ++i) renumber[static_cast<size_t>(i)] = i;
  int64_t next = n_in;
  for (int64_t c : constant_ids_) renumber[static_cast<size_t>(c)] = next++;
  for (Node& n : graph_.nodes_)
    for (int64_t& o : n.outputs) renumber[static_cast<size_t>(o)] = next++;
  auto map = [&](int64_t& id) { id = renumber[static_cast<size_t>(id)]; };
  for (Node& n : graph_.nodes_) {
    for (Arg& a : n.args) {
      if (a.kind == Arg::Kind::Ref) map(a.ref);
      for (int64_t& r : a.refs) map(r);
    }
    for (int64_t& o : n.outputs) map(o);
    if (n.is_guard()) map(n.guard_ref);
  }
  for (int64_t& o : graph_.outputs_) map(o);
  // The op libraries beyond sampan's own (built-ins and the modules linked into it), by the
  // path they were loaded from and their content hash.
  std::set<std::string> libraries;
  for (const Node& n : graph_.nodes_)
    if (!n.is_guard() && n.library != "sampan" && libraries.insert(n.library).second)
      graph_.libraries_.push_back({n.library, detail::file_hash(n.library), {}});
  ids_.clear();
  keep_alive_.clear();
  constant_ids_.clear();
  return std::move(graph_);
}

}  // namespace sampan::jit
