// sampan internal: the object behind a Tensor handle and its autograd state.
#pragma once

#include <memory>
#include <vector>

#include "sampan/tensor.h"

namespace sampan {
class Node;
namespace detail {

struct AutogradMeta {
  bool requires_grad = false;
  bool retains_grad = false;
  bool is_view = false;  // made by a view op: shares storage with another tensor
  std::shared_ptr<TensorImpl> grad;
  std::shared_ptr<Node> grad_fn;   // null for leaves
  uint32_t output_nr = 0;
  // Leaves: the node that adds into `grad`. Held strongly here and weakly back, so no cycle;
  // tensor hooks of a leaf live on it, those of a non-leaf on its grad_fn.
  std::shared_ptr<Node> grad_accumulator;
};

struct TensorImpl {
  std::shared_ptr<Storage> storage;  // null for meta tensors
  Shape shape;
  Shape strides;
  int64_t offset = 0;
  DType dtype = DType::Float32;
  Device device;
  std::unique_ptr<AutogradMeta> autograd;
};

/// True when `s` was made by Storage::allocate: its memory belongs to sampan's allocator and to
/// no one else (not a borrowed NumPy buffer or a custom op's own memory).
bool storage_from_allocator(const Storage& s);

}  // namespace detail
}  // namespace sampan
