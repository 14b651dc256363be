// sampan internal: the backward node of a leaf, adding incoming gradients into its `.grad`.
#pragma once

#include "sampan/autograd.h"
#include "../tensor_impl.h"

namespace sampan::detail {

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
