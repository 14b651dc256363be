// sampan internal: the backward node of a leaf, adding incoming gradients into its `.grad`.
#pragma once

#include "sampan/autograd.h"
#include "../tensor_impl.h"

namespace sampan::detail {

/// True when `impl` (passed as its only handle) is seen by nothing else: no other handle, no view
/// or other tensor on its storage, allocator-made memory, no autograd role, contiguous. Such a
/// tensor can be written in place without anyone observing it.
bool held_by_engine_alone(const std::shared_ptr<TensorImpl>& impl);
/// True when `dst += src` is exactly `add(dst, src)` and `dst` is held by the engine alone.
bool can_add_into(const std::shared_ptr<TensorImpl>& dst, const Tensor& src);

class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(const std::shared_ptr<TensorImpl>& leaf) : leaf_(leaf) {}
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  size_t num_outputs() const override { return 1; }

 private:
  std::weak_ptr<TensorImpl> leaf_;
};

/// A node that fails: the gradient of a once-differentiable op was itself differentiated.
class OnceDifferentiableError final : public Node {
 public:
  OnceDifferentiableError(std::string op, size_t n) : op_(std::move(op)), n_(n) {}
  std::vector<Tensor> apply(std::vector<Tensor>&&) override;
  std::string name() const override { return op_ + " (once differentiable)"; }
  size_t num_outputs() const override { return n_; }

 private:
  std::string op_;
  size_t n_;
};

}  // namespace sampan::detail
