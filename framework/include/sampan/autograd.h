// sampan: reverse-mode automatic differentiation over a tape of op nodes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sampan/tensor.h"

namespace sampan {

/// Where a gradient goes: input `input_nr` of `node`.
struct Edge {
  std::shared_ptr<Node> node;
  uint32_t input_nr = 0;
  bool valid() const { return node != nullptr; }
};

/// A step of the backward graph: maps gradients of a forward call's outputs to gradients of its
/// inputs. `next_edges[i]` receives `apply(...)[i]`.
class Node : public std::enable_shared_from_this<Node> {
 public:
  virtual ~Node() = default;
  virtual std::vector<Tensor> apply(std::vector<Tensor>&& grad_outputs) = 0;
  virtual std::string name() const = 0;
  /// Number of forward outputs (gradients this node takes).
  virtual size_t num_outputs() const = 0;
  /// Frees saved tensors after a backward without retain_graph.
  virtual void release_saved() {}
  std::vector<Edge> next_edges;
  /// Hooks on the gradient of forward output i (Tensor::register_hook on a non-leaf).
  std::vector<std::pair<uint32_t, GradHook>> output_hooks;
  /// Set by release_saved(); a second backward through it then fails with a clear message.
  bool released = false;
  /// Set by the engine while apply() runs: which next_edges lead to a wanted gradient (empty:
  /// all). grad() with respect to some inputs only lets vjps skip the other inputs' gradients
  /// (a force model's dE/d(env matrix) need not compute every weight gradient).
  std::vector<bool> wanted_edges;
};

/// The edge a gradient for `t` should flow into (its grad_fn, or its leaf accumulator).
Edge gradient_edge(const Tensor& t);

/// Backpropagates `grad_outputs` (ones for scalar outputs when undefined) from `outputs` and
/// accumulates into leaves' `.grad`.
void backward(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs = {},
              bool retain_graph = false, bool create_graph = false);

/// Gradients of `outputs` with respect to `inputs` without touching `.grad`. With
/// create_graph=true the result is itself differentiable (double backward, Hessian-vector products).
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {}, bool create_graph = false,
                         bool retain_graph = false, bool allow_unused = false);

/// Whether the tape keeps only the tensors each vjp reads (each op's .saves_for_vjp(); on by
/// default) or every argument and output of every recorded op, as before the selection existed.
/// Process-wide; the switch exists to measure what the selection saves (bench/memory_bench.py).
void set_saved_tensor_selection(bool enabled);
bool saved_tensor_selection_enabled();

/// Whether an op may write its output over an input buffer that its call alone holds (ops that
/// declare .output_may_reuse; on by default, CPU tensors). Process-wide; the switch exists to
/// measure what donation saves (bench/memory_bench.py).
void set_buffer_donation(bool enabled);
bool buffer_donation_enabled();
}  // namespace sampan
