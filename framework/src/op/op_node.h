// sampan internal: the backward node recorded for one op call.
#pragma once

#include "sampan/autograd.h"
#include "sampan/op.h"

namespace sampan::detail {

/// The op whose vjp is running on this thread (innermost), or nullptr.
const OpSchema* vjp_running();

/// Records what a vjp needs: the call's arguments (tensors with their version at the call) and
/// its outputs (storage only, reconnected to this node on use, so no reference cycle). Of the
/// tensors the op's .saves_for_vjp() leaves out, only shape, dtype and device (meta tensors).
class OpNode final : public Node {
 public:
  OpNode(const OpSchema& op, Values args, const std::vector<Tensor>& outputs,
         std::vector<bool> slot_needs_grad);
  std::vector<Tensor> apply(std::vector<Tensor>&& grad_outputs) override;
  std::string name() const override { return op_->name; }
  size_t num_outputs() const override { return n_outputs_; }
  void release_saved() override;

  // used by the vjp context
  Tensor saved_input(size_t i) const;
  std::vector<Tensor> saved_inputs(size_t i) const;
  Tensor saved_output(size_t i);
  /// Shape, dtype and device of output `i`, kept even where its data is not.
  TensorSpec output_spec(size_t i) const;
  const Value& arg(size_t i) const { return args_[i]; }
  const OpSchema& schema() const { return *op_; }
  /// The input needs a gradient and, inside the engine, leads to one that is wanted.
  bool needs_grad(size_t slot) const {
    return slot < needs_.size() && needs_[slot] && (wanted_edges.empty() || (slot < wanted_edges.size() && wanted_edges[slot]));
  }

 private:
  struct SavedOutput {
    std::shared_ptr<Storage> storage;
    Shape shape, strides;
    int64_t offset = 0;
    DType dtype = DType::Float32;
    Device device;
    uint64_t version = 0;
  };
  void check_version(const Tensor& t, uint64_t saved, const std::string& what) const;
  const OpSchema* op_;
  Values args_;
  std::vector<uint64_t> versions_;  // per tensor slot
  std::vector<SavedOutput> outputs_;
  std::vector<bool> needs_;
  size_t n_outputs_ = 0;  // kept after release_saved() so the engine can still route gradients
};

}  // namespace sampan::detail
