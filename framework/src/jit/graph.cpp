// sampan: replaying a jit::Graph (sampan/jit.h) and the passes over it.
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "sampan/error.h"
#include "sampan/jit.h"
#include "sampan/ops.h"

namespace sampan::jit {

std::string InputSpec::str() const {
  std::ostringstream os;
  os << name << ": " << dtype_name(dtype) << " [";
  for (size_t d = 0; d < shape.size(); ++d) {
    os << (d ? ", " : "");
    if (d < dims.size() && !dims[d].empty()) os << dims[d];
    else os << shape[d];
  }
  os << "]";
  return os.str();
}

namespace {

std::string value_name(int64_t id, int64_t n_inputs, int64_t n_constants) {
  if (id < n_inputs) return "%in" + std::to_string(id);
  if (id < n_inputs + n_constants) return "%c" + std::to_string(id - n_inputs);
  return "%" + std::to_string(id - n_inputs - n_constants);
}

// Checks the inputs against the specs; throws naming the input and the assumption it breaks.
void check_inputs(const std::vector<InputSpec>& specs, const std::vector<Tensor>& inputs) {
  SAMPAN_CHECK(inputs.size() == specs.size(), TypeError, "graph takes ", specs.size(), " inputs, got ",
               inputs.size());
  std::map<std::string, std::pair<int64_t, std::string>> symbols;  // symbol -> (size, where seen)
  for (size_t i = 0; i < specs.size(); ++i) {
    const InputSpec& s = specs[i];
    const Tensor& t = inputs[i];
    SAMPAN_CHECK(t.defined(), ValueError, "graph input '", s.name, "' is an undefined tensor");
    SAMPAN_CHECK(t.dtype() == s.dtype, TypeError, "graph input '", s.name, "' was traced as ", dtype_name(s.dtype),
                 ", got ", dtype_name(t.dtype()), " (traced as ", s.str(), ")");
    SAMPAN_CHECK(t.dim() == static_cast<int64_t>(s.shape.size()), ValueError, "graph input '", s.name,
                 "' was traced with ", s.shape.size(), " dimensions, got shape ", shape_str(t.shape()),
                 " (traced as ", s.str(), ")");
    for (size_t d = 0; d < s.shape.size(); ++d) {
      const int64_t got = t.shape()[d];
      if (s.dims[d].empty()) {
        SAMPAN_CHECK(got == s.shape[d], ValueError, "graph input '", s.name, "': dimension ", d, " was fixed at ",
                     s.shape[d], " when traced, got ", got, " (shape ", shape_str(t.shape()), "; traced as ", s.str(),
                     "; declare it in dynamic_dims to let it vary)");
        continue;
      }
      auto [it, fresh] = symbols.emplace(s.dims[d], std::make_pair(got, s.name + " dimension " + std::to_string(d)));
      SAMPAN_CHECK(fresh || it->second.first == got, ValueError, "graph input '", s.name, "': dimension ", d,
                   " is the symbolic size '", s.dims[d], "', which is ", it->second.first, " in ", it->second.second,
                   " but ", got, " here");
    }
  }
}

bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  Tensor x = a.detach().contiguous().to(cpu_device());
  return std::memcmp(x.raw_data(), b.raw_data(), x.nbytes()) == 0;
}

}  // namespace

std::vector<Tensor> Graph::run(const std::vector<Tensor>& inputs) const {
  check_inputs(inputs_, inputs);
  const int64_t n_in = static_cast<int64_t>(inputs_.size()), n_const = static_cast<int64_t>(constants_.size());
  std::vector<Tensor> values(static_cast<size_t>(num_values_));
  for (size_t i = 0; i < inputs.size(); ++i) values[i] = inputs[i];
  for (size_t c = 0; c < constants_.size(); ++c) values[inputs.size() + c] = constants_[c];
  for (size_t k = 0; k < nodes_.size(); ++k) {
    const Node& n = nodes_[k];
    if (n.is_guard()) {
      const Tensor& v = values[static_cast<size_t>(n.guard_ref)];
      SAMPAN_CHECK(same_bits(v, n.expected), ValueError, "graph node ", k, ": the traced code read the value of ",
                   value_name(n.guard_ref, n_in, n_const), " (", shape_str(n.expected.shape()),
                   ") as data (item(), numpy(), a Python branch) and this input gives another value; the trace "
                   "holds only the path the example inputs took, so it cannot replay this input");
      continue;
    }
    const OpSchema& op = n.op ? *n.op : find_op(n.op_name);
    Values args;
    args.reserve(n.args.size());
    for (const Arg& a : n.args) {
      if (a.kind == Arg::Kind::Ref) {
        args.emplace_back(values[static_cast<size_t>(a.ref)]);
      } else if (a.kind == Arg::Kind::RefList) {
        std::vector<Tensor> l;
        for (int64_t r : a.refs) l.push_back(values[static_cast<size_t>(r)]);
        args.emplace_back(std::move(l));
      } else {
        args.push_back(a.attr);
      }
    }
    // The planned in-place twin: argument 0 dies here, no tape, and the output has its shape
    // and dtype (checked now: symbolic sizes can make a broadcast differ from the trace).
    const OpSchema* run_op = &op;
    if (planned_ && n.twin && !grad_mode_enabled()) {
      const Tensor& x = std::get<Tensor>(args[0]);
      // Only `values` and `args` hold it, and no view shares its memory.
      bool fits = x.is_contiguous() && x.impl_ptr().use_count() <= 2 && x.storage().use_count() == 1;
      for (const Value& v : args)
        if (auto* t = std::get_if<Tensor>(&v)) fits = fits && !t->requires_grad();
      if (fits) {
        const std::vector<TensorSpec> spec = infer_op(op, args);
        fits = spec.size() == 1 && spec[0].shape == x.shape() && spec[0].dtype == x.dtype();
      }
      if (fits) run_op = n.twin;
    }
    std::vector<Tensor> outs;
    try {
      outs = call_op(*run_op, std::move(args));
    } catch (const std::exception& e) {
      // The usual cause: a size computed in Python at trace time (an attribute) that no longer
      // matches a symbolic dimension.
      SAMPAN_THROW(ValueError, "graph node ", k, " (", n.op_name, ") failed on these inputs: ", e.what(),
                   "\n  the trace fixed its attributes at the traced sizes (inputs ",
                   [&] {
                     std::string s;
                     for (size_t i = 0; i < inputs_.size(); ++i) s += (i ? ", " : "") + inputs_[i].str();
                     return s;
                   }(),
                   "); a size computed from a shape in Python does not follow a symbolic dimension");
    }
    for (size_t o = 0; o < n.outputs.size(); ++o) values[static_cast<size_t>(n.outputs[o])] = outs[o];
    if (planned_)
      for (int64_t r : n.release) values[static_cast<size_t>(r)] = Tensor();
  }
  std::vector<Tensor> result;
  for (int64_t o : outputs_) result.push_back(values[static_cast<size_t>(o)]);
  return result;
}

std::string Graph::str() const {
  const int64_t n_in = static_cast<int64_t>(inputs_.size()), n_const = static_cast<int64_t>(constants_.size());
  auto name = [&](int64_t id) { return value_name(id, n_in, n_const); };
  std::ostringstream os;
  os << "graph(";
  for (size_t i = 0; i < inputs_.size(); ++i) os << (i ? ", " : "") << "%in" << i << " " << inputs_[i].str();
  os << ")  " << constants_.size() << " constants, " << nodes_.size() << " nodes\n";
  for (const Node& n : nodes_) {
    os << "  ";
    if (n.is_guard()) {
      os << "guard " << name(n.guard_ref) << " == traced value\n";
      continue;
    }
    for (size_t o = 0; o < n.outputs.size(); ++o) os << (o ? ", " : "") << name(n.outputs[o]);
    os << " = " << n.op_name << "(";
    for (size_t a = 0; a < n.args.size(); ++a) {
      os << (a ? ", " : "");
      const Arg& arg = n.args[a];
      if (arg.kind == Arg::Kind::Ref) os << name(arg.ref);
      else if (arg.kind == Arg::Kind::RefList) {
        os << "[";
        for (size_t r = 0; r < arg.refs.size(); ++r) os << (r ? ", " : "") << name(arg.refs[r]);
        os << "]";
      } else {
        os << value_repr(arg.attr);
      }
    }
    os << ")\n";
  }
  os << "  return ";
  for (size_t o = 0; o < outputs_.size(); ++o) os << (o ? ", " : "") << name(outputs_[o]);
  os << "\n";
  return os.str();
}

void Graph::fold_constants() {
  const int64_t n_in = static_cast<int64_t>(inputs_.size());
  std::vector<bool> is_constant(static_cast<size_t>(num_values_), false);
  for (size_t c = 0; c < constants_.size(); ++c) is_constant[static_cast<size_t>(n_in) + c] = true;
  std::map<int64_t, Tensor> folded;  // value id -> its value
  std::vector<Node> kept;
  for (Node& n : nodes_) {
    bool foldable = !n.is_guard();
    const OpSchema* op = foldable ? find_op_if(n.op_name) : nullptr;
    // In-place ops write their argument: never folded. (Random ops are pure functions of their
    // seed and offset attributes, so folding them changes nothing.)
    foldable = op && op->inplace.empty();
    bool reads_tensor = false;
    for (const Arg& a : n.args) {
      if (a.kind == Arg::Kind::Ref) {
        reads_tensor = true;
        foldable = foldable && is_constant[static_cast<size_t>(a.ref)];
      }
      for (int64_t r : a.refs) {
        reads_tensor = true;
        foldable = foldable && is_constant[static_cast<size_t>(r)];
      }
    }
    if (!foldable || !reads_tensor) {
      kept.push_back(std::move(n));
      continue;
    }
    auto value_of = [&](int64_t id) {
      auto it = folded.find(id);
      return it != folded.end() ? it->second : constants_[static_cast<size_t>(id - n_in)];
    };
    Values args;
    for (const Arg& a : n.args) {
      if (a.kind == Arg::Kind::Ref) args.emplace_back(value_of(a.ref));
      else if (a.kind == Arg::Kind::RefList) {
        std::vector<Tensor> l;
        for (int64_t r : a.refs) l.push_back(value_of(r));
        args.emplace_back(std::move(l));
      } else {
        args.push_back(a.attr);
      }
    }
    NoGradGuard no_tape;
    std::vector<Tensor> outs = call_op(*op, std::move(args));
    for (size_t o = 0; o < n.outputs.size(); ++o) {
      folded[n.outputs[o]] = outs[o].contiguous();
      is_constant[static_cast<size_t>(n.outputs[o])] = true;
    }
  }
  if (folded.empty()) return;
  // Renumber: the folded values join the constants; what they replaced may now be unused.
  std::vector<int64_t> renumber(static_cast<size_t>(num_values_), -1);
  for (int64_t i = 0; i < n_in + static_cast<int64_t>(constants_.size()); ++i) renumber[static_cast<size_t>(i)] = i;
  int64_t next = n_in + static_cast<int64_t>(constants_.size());
  for (auto& [id, t] : folded) {
    renumber[static_cast<size_t>(id)] = next++;
    constants_.push_back(t);
  }
  for (Node& n : kept)
    for (int64_t o : n.outputs) renumber[static_cast<size_t>(o)] = next++;
  auto map = [&](int64_t& id) { id = renumber[static_cast<size_t>(id)]; };
  for (Node& n : kept) {
    for (Arg& a : n.args) {
      if (a.kind == Arg::Kind::Ref) map(a.ref);
      for (int64_t& r : a.refs) map(r);
    }
    for (int64_t& o : n.outputs) map(o);
    if (n.is_guard()) map(n.guard_ref);
    n.release.clear();
  }
  for (int64_t& o : outputs_) map(o);
  nodes_ = std::move(kept);
  num_values_ = next;
  if (planned_) plan_memory();
}

void Graph::plan_memory() {
  const int64_t first_intermediate = static_cast<int64_t>(inputs_.size() + constants_.size());
  std::vector<int64_t> last_use(static_cast<size_t>(num_values_), -1);
  for (size_t k = 0; k < nodes_.size(); ++k) {
    const Node& n = nodes_[k];
    auto use = [&](int64_t id) { last_use[static_cast<size_t>(id)] = static_cast<int64_t>(k); };
    if (n.is_guard()) use(n.guard_ref);
    for (const Arg& a : n.args) {
      if (a.kind == Arg::Kind::Ref) use(a.ref);
      for (int64_t r : a.refs) use(r);
    }
  }
  for (int64_t o : outputs_) last_use[static_cast<size_t>(o)] = static_cast<int64_t>(nodes_.size());  // kept
  for (size_t k = 0; k < nodes_.size(); ++k) {
    Node& n = nodes_[k];
    n.release.clear();
    n.inplace_twin.clear();
    n.twin = nullptr;
    auto dies_here = [&](int64_t id) { return id >= first_intermediate && last_use[static_cast<size_t>(id)] == static_cast<int64_t>(k); };
    std::set<int64_t> released;
    for (const Arg& a : n.args) {
      if (a.kind == Arg::Kind::Ref && dies_here(a.ref)) released.insert(a.ref);
      for (int64_t r : a.refs)
        if (dies_here(r)) released.insert(r);
    }
    if (n.is_guard() && dies_here(n.guard_ref)) released.insert(n.guard_ref);
    for (int64_t o : n.outputs)  // made and never read: dropped at once
      if (last_use[static_cast<size_t>(o)] < 0) released.insert(o);
    n.release.assign(released.begin(), released.end());
    // An op with an in-place twin (out = f(x, ...) and f_ writing into x) whose x dies here.
    if (!n.is_guard() && n.outputs.size() == 1 && !n.args.empty() && n.args[0].kind == Arg::Kind::Ref &&
        dies_here(n.args[0].ref)) {
      const OpSchema* twin = find_op_if(n.op_name + "_");
      const OpSchema* op = find_op_if(n.op_name);
      if (twin && op && twin->inplace_input(0) == 0 && twin->arg_kinds == op->arg_kinds) {
        n.inplace_twin = twin->name;
        n.twin = twin;
      }
    }
  }
  planned_ = true;
}

void Graph::eliminate_dead_code() {
  std::set<int64_t> live(outputs_.begin(), outputs_.end());
  std::vector<bool> keep(nodes_.size(), false);
  for (size_t k = nodes_.size(); k-- > 0;) {
    const Node& n = nodes_[k];
    bool needed = n.is_guard();
    if (!needed) {
      const OpSchema* op = find_op_if(n.op_name);
      needed = op && !op->inplace.empty();  // a write into a live tensor
      for (int64_t o : n.outputs) needed = needed || live.count(o);
    }
    if (!needed) continue;
    keep[k] = true;
    if (n.is_guard()) live.insert(n.guard_ref);
    for (const Arg& a : n.args) {
      if (a.kind == Arg::Kind::Ref) live.insert(a.ref);
      for (int64_t r : a.refs) live.insert(r);
    }
  }
  std::vector<Node> kept;
  for (size_t k = 0; k < nodes_.size(); ++k)
    if (keep[k]) kept.push_back(std::move(nodes_[k]));
  nodes_ = std::move(kept);
}

}  // namespace sampan::jit
