// sampan: the backward engine. Topological execution of the node graph from the roots, with
// gradient capture for grad() and accumulation into leaves for backward().
#include <unordered_map>
#include <unordered_set>

#include "sampan/autograd.h"
#include "sampan/ops.h"
#include "sampan/profiler.h"
#include "accumulate_grad.h"

namespace sampan {

using detail::AccumulateGrad;
using detail::AutogradMeta;
using detail::TensorImpl;

bool detail::held_by_engine_alone(const std::shared_ptr<TensorImpl>& impl) {
  if (!impl || impl.use_count() != 1) return false;  // another handle: a user, a saved node, a buffer
  const auto& storage = impl->storage;
  // One storage owner (no view of it anywhere), and memory from sampan's allocator (a borrowed
  // NumPy buffer is seen by NumPy even when no tensor holds it).
  if (!storage || storage.use_count() != 1 || !storage_from_allocator(*storage)) return false;
  const AutogradMeta* m = impl->autograd.get();
  if (m && (m->requires_grad || m->grad_fn || m->is_view)) return false;
  return impl->strides == contiguous_strides(impl->shape);
}

bool detail::can_add_into(const std::shared_ptr<TensorImpl>& dst, const Tensor& src) {
  // Same dtype, shape and device: dst += src gives exactly add(dst, src) (no promotion, no
  // broadcasting), and the sum is written over memory that nothing else can read.
  return dst && dst->dtype == src.dtype() && dst->shape == src.shape() && dst->device == src.device() &&
         held_by_engine_alone(dst);
}

std::vector<Tensor> detail::AccumulateGrad::apply(std::vector<Tensor>&& grads) {
  auto impl = leaf_.lock();
  if (!impl || !grads[0].defined()) return {};
  Tensor leaf(impl);
  Tensor g = std::move(grads[0]);  // moved: the engine's copy would otherwise count as a holder
  if (g.dtype() != leaf.dtype()) g = is_complex(g.dtype()) && !is_complex(leaf.dtype()) ? real(g) : g.to(leaf.dtype());
  const bool recording = grad_mode_enabled();
  if (!recording) g = g.detach();
  auto& meta = leaf.autograd_meta();
  if (!meta.grad) {
    // A fresh tensor, never an alias of a gradient that another leaf also receives: the incoming
    // gradient itself when nothing else holds it, else a copy.
    meta.grad = (recording || held_by_engine_alone(g.impl_ptr()) ? g : g.clone()).impl_ptr();
  } else if (!recording && can_add_into(meta.grad, g)) {
    // In place only while .grad is held by the leaf alone: an x.grad a user kept from an earlier
    // backward is another holder, and keeps its values.
    add_(Tensor(meta.grad), g);
  } else {
    meta.grad = add(Tensor(meta.grad), g).impl_ptr();
  }
  return {};
}

std::vector<Tensor> detail::OnceDifferentiableError::apply(std::vector<Tensor>&&) {
  SAMPAN_THROW(RuntimeError, "op '", op_,
               "' is once-differentiable: its gradient cannot be differentiated again "
               "(create_graph=True through it); give it a vjp written with ops");
}

Edge gradient_edge(const Tensor& t) {
  if (const auto& fn = t.grad_fn()) return Edge{fn, t.output_nr()};
  if (!t.requires_grad()) return Edge{};
  auto& meta = t.autograd_meta();
  if (!meta.grad_accumulator) meta.grad_accumulator = std::make_shared<AccumulateGrad>(t.impl_ptr());
  return Edge{meta.grad_accumulator, 0};
}

namespace {

struct EdgeKey {
  Node* node;
  uint32_t nr;
  bool operator==(const EdgeKey& o) const { return node == o.node && nr == o.nr; }
};

// Runs the graph below `roots`. With `captures` non-empty (grad()), gradients arriving at those
// edges are returned instead of being accumulated into leaves.
std::vector<Tensor> run_backward(const std::vector<Edge>& roots, std::vector<Tensor> root_grads,
                                 bool keep_graph, bool create_graph,
                                 const std::vector<Edge>& captures) {
  profiler::detail::BackwardScope in_backward;  // the profiler files the ops run here as backward
  const bool capturing = !captures.empty();
  // 1. Discover the graph and which nodes lead somewhere useful.
  std::unordered_map<Node*, int> deps;
  std::unordered_map<Node*, bool> useful;
  std::vector<Node*> order;  // post-order
  std::unordered_set<Node*> capture_nodes;
  for (auto& c : captures)
    if (c.node) capture_nodes.insert(c.node.get());
  {
    std::unordered_set<Node*> seen;
    std::vector<std::pair<Node*, size_t>> stack;
    for (auto& r : roots) {
      if (!r.node || seen.count(r.node.get())) continue;
      seen.insert(r.node.get());
      stack.emplace_back(r.node.get(), 0);
      while (!stack.empty()) {
        auto& [n, i] = stack.back();
        if (i < n->next_edges.size()) {
          Node* child = n->next_edges[i++].node.get();
          if (child && !seen.count(child)) {
            seen.insert(child);
            stack.emplace_back(child, 0);
          }
        } else {
          bool u = capturing ? capture_nodes.count(n) > 0 : dynamic_cast<AccumulateGrad*>(n) != nullptr;
          for (auto& e : n->next_edges)
            if (e.node && useful[e.node.get()]) u = true;
          useful[n] = u;
          order.push_back(n);
          stack.pop_back();
        }
      }
    }
  }
  for (Node* n : order)
    if (useful[n])
      for (auto& e : n->next_edges)
        if (e.node && useful[e.node.get()]) ++deps[e.node.get()];

  // 2. Seed the input buffers with the root gradients.
  std::unordered_map<Node*, std::vector<Tensor>> buffers;
  // Sums the gradient contributions to one input of a node. Without create_graph the sum is not
  // differentiated, so it may be written in place into a contribution that the engine alone holds
  // (a vjp's fresh result, or an earlier sum); a contribution that something else can see (a user's
  // grad_outputs, a tensor another vjp also returned or a node saved, a captured gradient, a view,
  // NumPy memory) is never written, and the out-of-place add is used instead. Recording
  // (create_graph) keeps the out-of-place add: the sum is a node of the new graph.
  auto accumulate = [&](Node* n, uint32_t nr, Tensor g, bool may_write_in_place) {
    auto& buf = buffers[n];
    if (buf.empty()) buf.resize(n->num_outputs());
    Tensor& slot = buf[nr];
    if (!slot.defined()) {
      slot = std::move(g);
    } else if (may_write_in_place && detail::can_add_into(slot.impl_ptr(), g)) {
      add_(slot, g);
    } else if (may_write_in_place && detail::can_add_into(g.impl_ptr(), slot)) {
      add_(g, slot);  // g + slot == slot + g exactly: IEEE addition commutes
      slot = std::move(g);
    } else {
      slot = add(slot, g);
    }
  };
  // Root gradients come from the caller (grad_outputs), in the caller's grad mode: never in place.
  for (size_t i = 0; i < roots.size(); ++i)
    if (roots[i].node && useful[roots[i].node.get()])
      accumulate(roots[i].node.get(), roots[i].input_nr, root_grads[i], false);

  std::vector<Tensor> captured(captures.size());
  std::vector<Node*> ready;
  {
    std::unordered_set<Node*> pushed;
    for (auto& r : roots)
      if (r.node && useful[r.node.get()] && deps[r.node.get()] == 0 && pushed.insert(r.node.get()).second)
        ready.push_back(r.node.get());
  }
  std::vector<Node*> executed;
  EnableGradGuard grad_mode(create_graph);
  while (!ready.empty()) {
    Node* n = ready.back();
    ready.pop_back();
    std::vector<Tensor> grads = std::move(buffers[n]);
    buffers.erase(n);
    grads.resize(n->num_outputs());
    for (auto& [nr, hook] : n->output_hooks)
      if (grads[nr].defined()) {
        Tensor r = hook(grads[nr]);
        if (r.defined()) grads[nr] = r;
      }
    for (size_t c = 0; c < captures.size(); ++c)
      if (captures[c].node.get() == n && grads[captures[c].input_nr].defined()) captured[c] = grads[captures[c].input_nr];
    bool any = false;
    for (auto& g : grads) any = any || g.defined();
    std::vector<Tensor> out;
    bool skip = capturing && dynamic_cast<AccumulateGrad*>(n) != nullptr;
    if (any && !skip) {
      n->wanted_edges.resize(n->next_edges.size());
      for (size_t i = 0; i < n->next_edges.size(); ++i)
        n->wanted_edges[i] = n->next_edges[i].node && useful[n->next_edges[i].node.get()];
      try {
        out = n->apply(std::move(grads));
      } catch (...) {
        n->wanted_edges.clear();
        throw;
      }
      n->wanted_edges.clear();
      // n is done with its incoming gradients: an identity-like vjp's output stops sharing them
      // with this vector (a capture, hook or saved node still holding one keeps it shared).
      grads.clear();
      executed.push_back(n);
    }
    for (size_t i = 0; i < n->next_edges.size(); ++i) {
      const Edge& e = n->next_edges[i];
      if (!e.node || !useful[e.node.get()]) continue;
      if (i < out.size() && out[i].defined()) accumulate(e.node.get(), e.input_nr, std::move(out[i]), !create_graph);
      if (--deps[e.node.get()] == 0) ready.push_back(e.node.get());
    }
  }
  if (!keep_graph)
    for (Node* n : executed) n->release_saved();
  return captured;
}

std::vector<Tensor> default_root_grads(const std::vector<Tensor>& outputs,
                                       const std::vector<Tensor>& grad_outputs) {
  if (!grad_outputs.empty() && grad_outputs.size() != outputs.size())
    SAMPAN_THROW(ValueError, "got ", grad_outputs.size(), " grad_outputs for ",
                 outputs.size(), " outputs");
  std::vector<Tensor> g(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].requires_grad())
      SAMPAN_THROW(RuntimeError, "output ", i,
                   " does not require grad and has no grad_fn: nothing to differentiate");
    if (!grad_outputs.empty() && grad_outputs[i].defined()) {
      SAMPAN_CHECK(grad_outputs[i].shape() == outputs[i].shape(), ValueError, "grad_outputs[", i, "] has shape ",
                   shape_str(grad_outputs[i].shape()), " but the output has shape ",
                   shape_str(outputs[i].shape()));
      g[i] = grad_outputs[i];
    } else {
      SAMPAN_CHECK(outputs[i].numel() == 1, RuntimeError,
                   "grad can be implicitly created only for outputs with one element; output ", i, " has shape ",
                   shape_str(outputs[i].shape()), ": pass grad_outputs");
      g[i] = ones_like(outputs[i]);
    }
  }
  return g;
}

}  // namespace

void backward(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs,
              bool retain_graph, bool create_graph) {
  auto g = default_root_grads(outputs, grad_outputs);
  std::vector<Edge> roots;
  for (auto& o : outputs) roots.push_back(gradient_edge(o));
  run_backward(roots, std::move(g), retain_graph || create_graph, create_graph, {});
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, bool create_graph,
                         bool retain_graph, bool allow_unused) {
  auto g = default_root_grads(outputs, grad_outputs);
  std::vector<Edge> roots, captures;
  for (auto& o : outputs) roots.push_back(gradient_edge(o));
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].requires_grad())
      SAMPAN_THROW(RuntimeError, "input ", i, " of grad() does not require grad");
    captures.push_back(gradient_edge(inputs[i]));
  }
  auto res = run_backward(roots, std::move(g), retain_graph || create_graph, create_graph, captures);
  for (size_t i = 0; i < res.size(); ++i) {
    if (!res[i].defined() && !allow_unused)
      SAMPAN_THROW(RuntimeError, "input ", i,
                   " of grad() was not used to compute the outputs; pass allow_unused=True");
    if (res[i].defined() && !create_graph) res[i] = res[i].detach();
  }
  return res;
}

}  // namespace sampan
