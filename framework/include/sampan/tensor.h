// sampan: Tensor, a cheap handle to shared storage with shape, strides, offset, dtype and device.
//
// This header is light on purpose (no Eigen, no pybind11): custom-op authors include it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sampan/device.h"
#include "sampan/dtype.h"
#include "sampan/error.h"

namespace sampan {

using Shape = std::vector<int64_t>;

class Node;
class Tensor;

/// A block of device memory shared by a tensor and all its views.
struct Storage {
  void* data = nullptr;
  size_t nbytes = 0;
  Device device;
  /// Bumped by every inplace write through any view; saved tensors compare against it.
  uint64_t version = 0;
  /// Frees `data` (an allocator's deallocate, or the release of a borrowed NumPy buffer).
  std::function<void(void*)> deleter;
  Storage() = default;
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage();
  /// Allocates `nbytes` on `device` with the device's allocator.
  static std::shared_ptr<Storage> allocate(size_t nbytes, Device device);
  /// Wraps memory owned elsewhere; `release` runs when the last view is gone.
  static std::shared_ptr<Storage> borrow(void* data, size_t nbytes, Device device,
                                         std::function<void(void*)> release);
};

/// Hook run on the gradient of a tensor; may return a replacement (or an undefined Tensor to keep it).
using GradHook = std::function<Tensor(const Tensor&)>;

namespace detail {
struct AutogradMeta;
struct TensorImpl;
}  // namespace detail

/// A tensor handle. Copies share the same tensor (like a Python reference); views share storage.
class Tensor {
 public:
  Tensor() = default;
  /// A tensor over existing storage with explicit layout (strides and offset in elements).
  Tensor(std::shared_ptr<Storage> storage, Shape shape, Shape strides, int64_t offset, DType dtype);
  /// An uninitialized contiguous tensor.
  static Tensor empty(const Shape& shape, DType dtype = DType::Float32, Device device = {});
  /// A tensor with shape and dtype but no storage, used to run shape functions without data.
  static Tensor meta(const Shape& shape, DType dtype, Device device = {});

  bool defined() const { return impl_ != nullptr; }
  bool is_meta() const;
  const Shape& shape() const;
  const Shape& strides() const;
  int64_t offset() const;
  int64_t dim() const { return static_cast<int64_t>(shape().size()); }
  /// Size of dimension `d` (negative counts from the end).
  int64_t size(int64_t d) const;
  int64_t numel() const;
  DType dtype() const;
  Device device() const;
  size_t itemsize() const { return sampan::itemsize(dtype()); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * itemsize(); }
  bool is_contiguous() const;
  const std::shared_ptr<Storage>& storage() const;
  /// Address of element 0 (storage base plus offset).
  void* raw_data() const;
  template <class T> T* data() const {
    check_dtype_for_data(dtype_of<T>::value);
    return static_cast<T*>(raw_data());
  }
  /// True when both handles refer to the same tensor object.
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  /// True when both share storage (one may be a view of the other).
  bool shares_storage(const Tensor& o) const;

  // ---- autograd ----
  bool requires_grad() const;
  /// Marks a leaf as requiring gradients; only floating and complex tensors can.
  Tensor& requires_grad_(bool flag = true);
  /// Accumulated gradient (leaves, and non-leaves after retain_grad()).
  Tensor grad() const;
  void set_grad(const Tensor& g);
  const std::shared_ptr<Node>& grad_fn() const;
  uint32_t output_nr() const;
  bool is_leaf() const;
  void retain_grad();
  bool retains_grad() const;
  void register_hook(GradHook hook);
  /// A new tensor sharing storage, cut from the graph.
  Tensor detach() const;
  /// Reverse-mode gradient of this (scalar, or with `gradient`) into the leaves.
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false,
                bool create_graph = false) const;
  /// The storage's version counter (bumped by inplace ops).
  uint64_t version() const;
  void bump_version() const;

  // ---- common conveniences (each is a registered op) ----
  Tensor contiguous() const;
  Tensor to(DType dtype) const;
  /// This tensor on `device` (itself when it is there already); see to_device.
  Tensor to(Device device) const;
  Tensor clone() const;
  /// The single element as double (complex: real part); errors unless numel() == 1.
  double item() const;
  std::string repr() const;

  // internals used by the autograd engine and the dispatcher
  detail::TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<detail::TensorImpl>& impl_ptr() const { return impl_; }
  explicit Tensor(std::shared_ptr<detail::TensorImpl> impl) : impl_(std::move(impl)) {}
  detail::AutogradMeta& autograd_meta() const;  // creates it on first use
  detail::AutogradMeta* autograd_meta_if() const;
  void set_grad_fn(std::shared_ptr<Node> fn, uint32_t output_nr) const;

 private:
  void check_dtype_for_data(DType requested) const;
  std::shared_ptr<detail::TensorImpl> impl_;
};

/// Row-major strides of a contiguous tensor of `shape`.
Shape contiguous_strides(const Shape& shape);
/// Product of the sizes.
int64_t shape_numel(const Shape& shape);
/// "[2, 3]".
std::string shape_str(const Shape& shape);
/// NumPy broadcasting of two shapes; throws ValueError naming both.
Shape broadcast_shapes(const Shape& a, const Shape& b);
/// Normalizes a possibly negative axis for a tensor of rank `ndim`; throws IndexError.
int64_t normalize_axis(int64_t axis, int64_t ndim);

/// Whether operations record the autograd graph (thread local; `NoGradGuard` turns it off).
bool grad_mode_enabled();
void set_grad_mode(bool enabled);
/// Scope with gradient recording off (Python `sp.no_grad()`).
class NoGradGuard {
 public:
  NoGradGuard() : prev_(grad_mode_enabled()) { set_grad_mode(false); }
  ~NoGradGuard() { set_grad_mode(prev_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;
 private:
  bool prev_;
};
/// Scope with gradient recording on (used by backward(create_graph=true)).
class EnableGradGuard {
 public:
  explicit EnableGradGuard(bool enabled = true) : prev_(grad_mode_enabled()) { set_grad_mode(enabled); }
  ~EnableGradGuard() { set_grad_mode(prev_); }
  EnableGradGuard(const EnableGradGuard&) = delete;
  EnableGradGuard& operator=(const EnableGradGuard&) = delete;
 private:
  bool prev_;
};

}  // namespace sampan
