// sampan: Tensor handle, storage and shape helpers.
#include "sampan/tensor.h"

#include <sstream>

#include "sampan/allocator.h"
#include "sampan/autograd.h"
#include "sampan/ops.h"
#include "sampan/jit.h"
#include "tensor_impl.h"

namespace sampan {

using detail::AutogradMeta;
using detail::TensorImpl;

Storage::~Storage() {
  if (data && deleter) deleter(data);
}

namespace {
// The storage of a tiny CPU tensor (a few elements: the results in loops over scalars and small
// vectors) with its bytes in the same allocation: no allocator round trip and no deleter, which
// were a third of such an op's cost. These bytes are 16-byte aligned (enough for every dtype)
// rather than kCpuAlignment, and the allocator's statistics do not count them.
constexpr size_t kInlineStorageBytes = 32;
struct InlineStorage : Storage {
  alignas(16) unsigned char bytes[kInlineStorageBytes];
};
// The deleter of an allocator-made storage: a named type, so storage_from_allocator can tell it
// from a borrowed buffer's release (NumPy memory, a custom op's own buffer).
struct AllocatorRelease {
  Allocator* allocator;
  size_t nbytes;
  void operator()(void* p) const { allocator->deallocate(p, nbytes); }
};
}  // namespace

bool detail::storage_from_allocator(const Storage& s) {
  if (!s.data) return false;
  if (!s.deleter) {  // an InlineStorage holds its bytes inside itself, at a fixed offset
    static const std::uintptr_t inline_bytes_offset = [] {
      InlineStorage probe;
      return reinterpret_cast<std::uintptr_t>(probe.bytes) -
             reinterpret_cast<std::uintptr_t>(static_cast<Storage*>(&probe));
    }();
    return reinterpret_cast<std::uintptr_t>(s.data) == reinterpret_cast<std::uintptr_t>(&s) + inline_bytes_offset;
  }
  return s.deleter.target<AllocatorRelease>() != nullptr;
}

std::shared_ptr<Storage> Storage::allocate(size_t nbytes, Device device) {
  if (device.type == DeviceType::CPU && nbytes <= kInlineStorageBytes) {
    auto s = std::make_shared<InlineStorage>();
    s->data = s->bytes;
    s->nbytes = nbytes;
    s->device = device;
    return s;
  }
  if (device.is_cuda() && device.index != 0)
    SAMPAN_THROW(ValueError, "sampan uses one GPU per process, cuda:0; got ", device.str(),
                 " (choose the GPU with CUDA_VISIBLE_DEVICES)");
  auto s = std::make_shared<Storage>();
  Allocator& a = allocator_for(device.type);
  s->data = a.allocate(nbytes);
  s->nbytes = nbytes;
  s->device = device;
  s->deleter = AllocatorRelease{&a, nbytes};
  return s;
}

std::shared_ptr<Storage> Storage::borrow(void* data, size_t nbytes, Device device,
                                         std::function<void(void*)> release) {
  auto s = std::make_shared<Storage>();
  s->data = data;
  s->nbytes = nbytes;
  s->device = device;
  s->deleter = std::move(release);
  return s;
}

Shape contiguous_strides(const Shape& shape) {
  Shape st(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    st[i] = acc;
    acc *= std::max<int64_t>(shape[i], 1);
  }
  return st;
}

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

std::string shape_str(const Shape& shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << "]";
  return os.str();
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  size_t n = std::max(a.size(), b.size());
  Shape r(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      SAMPAN_THROW(ValueError, "shapes ", shape_str(a), " and ", shape_str(b),
                   " cannot be broadcast together (dimension ", i, ": ",
                   da, " vs ", db, ")");
    r[i] = da == 1 ? db : da;
  }
  return r;
}

int64_t normalize_axis(int64_t axis, int64_t ndim) {
  int64_t lo = ndim == 0 ? -1 : -ndim, hi = ndim == 0 ? 0 : ndim - 1;
  if (axis < lo || axis > hi)
    SAMPAN_THROW(IndexError, "axis ", axis, " is out of range for a tensor of rank ",
                 ndim, " (expected ", lo, "..", hi, ")");
  return axis < 0 ? axis + std::max<int64_t>(ndim, 1) : axis;
}

namespace {
thread_local bool t_grad_mode = true;
}
bool grad_mode_enabled() { return t_grad_mode; }
void set_grad_mode(bool enabled) { t_grad_mode = enabled; }

// ---- Tensor ----

Tensor::Tensor(std::shared_ptr<Storage> storage, Shape shape, Shape strides, int64_t offset,
               DType dtype) {
  impl_ = std::make_shared<TensorImpl>();
  impl_->device = storage ? storage->device : Device{};
  impl_->storage = std::move(storage);
  impl_->shape = std::move(shape);
  impl_->strides = std::move(strides);
  impl_->offset = offset;
  impl_->dtype = dtype;
}

Tensor Tensor::empty(const Shape& shape, DType dtype, Device device) {
  for (auto s : shape)
    SAMPAN_CHECK(s >= 0, ValueError, "negative dimension in shape ", shape_str(shape));
  auto st = Storage::allocate(static_cast<size_t>(shape_numel(shape)) * sampan::itemsize(dtype), device);
  return Tensor(std::move(st), shape, contiguous_strides(shape), 0, dtype);
}

Tensor Tensor::meta(const Shape& shape, DType dtype, Device device) {
  Tensor t(nullptr, shape, contiguous_strides(shape), 0, dtype);
  t.impl_->device = device;
  return t;
}

#define SAMPAN_REQUIRE_DEFINED() \
  if (!impl_) SAMPAN_THROW(ValueError, "operation on an undefined (empty) Tensor handle")

bool Tensor::is_meta() const { SAMPAN_REQUIRE_DEFINED(); return impl_->storage == nullptr; }
const Shape& Tensor::shape() const { SAMPAN_REQUIRE_DEFINED(); return impl_->shape; }
const Shape& Tensor::strides() const { SAMPAN_REQUIRE_DEFINED(); return impl_->strides; }
int64_t Tensor::offset() const { SAMPAN_REQUIRE_DEFINED(); return impl_->offset; }
DType Tensor::dtype() const { SAMPAN_REQUIRE_DEFINED(); return impl_->dtype; }
Device Tensor::device() const { SAMPAN_REQUIRE_DEFINED(); return impl_->device; }
const std::shared_ptr<Storage>& Tensor::storage() const { SAMPAN_REQUIRE_DEFINED(); return impl_->storage; }
int64_t Tensor::numel() const { return shape_numel(shape()); }

int64_t Tensor::size(int64_t d) const { return shape()[normalize_axis(d, dim())]; }

bool Tensor::is_contiguous() const {
  const auto& sh = shape();
  const auto& st = strides();
  int64_t expect = 1;
  for (size_t i = sh.size(); i-- > 0;) {
    if (sh[i] == 1) continue;
    if (st[i] != expect) return false;
    expect *= sh[i];
  }
  return true;
}

void* Tensor::raw_data() const {
  SAMPAN_REQUIRE_DEFINED();
  SAMPAN_CHECK(impl_->storage, ValueError, "a meta tensor (shape only) has no data");
  return static_cast<char*>(impl_->storage->data) + impl_->offset * static_cast<int64_t>(itemsize());
}

void Tensor::check_dtype_for_data(DType requested) const {
  SAMPAN_CHECK(dtype() == requested, TypeError, "data<T>() with T = ", dtype_name(requested),
               " on a tensor of dtype ", dtype_name(dtype()));
}

bool Tensor::shares_storage(const Tensor& o) const {
  return defined() && o.defined() && impl_->storage && impl_->storage == o.impl_->storage;
}

AutogradMeta& Tensor::autograd_meta() const {
  SAMPAN_REQUIRE_DEFINED();
  if (!impl_->autograd) impl_->autograd = std::make_unique<AutogradMeta>();
  return *impl_->autograd;
}
AutogradMeta* Tensor::autograd_meta_if() const { return impl_ ? impl_->autograd.get() : nullptr; }

bool Tensor::requires_grad() const {
  auto* m = autograd_meta_if();
  return m && (m->requires_grad || m->grad_fn);
}

Tensor& Tensor::requires_grad_(bool flag) {
  auto& m = autograd_meta();
  if (flag && !is_differentiable(dtype()))
    SAMPAN_THROW(TypeError, "only floating point and complex tensors can require gradients, got ",
                 dtype_name(dtype()));
  if (!flag && m.grad_fn)
    SAMPAN_THROW(RuntimeError, "requires_grad_(false) on a non-leaf tensor; use detach() instead");
  m.requires_grad = flag;
  return *this;
}

Tensor Tensor::grad() const {
  auto* m = autograd_meta_if();
  return (m && m->grad) ? Tensor(m->grad) : Tensor();
}
void Tensor::set_grad(const Tensor& g) { autograd_meta().grad = g.impl_ptr(); }

const std::shared_ptr<Node>& Tensor::grad_fn() const {
  static const std::shared_ptr<Node> none;
  auto* m = autograd_meta_if();
  return m ? m->grad_fn : none;
}
uint32_t Tensor::output_nr() const {
  auto* m = autograd_meta_if();
  return m ? m->output_nr : 0;
}
bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

void Tensor::set_grad_fn(std::shared_ptr<Node> fn, uint32_t nr) const {
  auto& m = autograd_meta();
  m.grad_fn = std::move(fn);
  m.output_nr = nr;
  if (m.grad_fn) m.requires_grad = true;
}

void Tensor::retain_grad() {
  SAMPAN_CHECK(requires_grad(), RuntimeError, "retain_grad() on a tensor that does not require grad");
  if (is_leaf()) return;  // leaves keep their grad anyway
  auto& m = autograd_meta();
  if (m.retains_grad) return;
  m.retains_grad = true;
  std::weak_ptr<TensorImpl> weak = impl_;
  grad_fn()->output_hooks.emplace_back(output_nr(), [weak](const Tensor& g) {
    if (auto p = weak.lock()) {
      Tensor self(p);
      Tensor old = self.grad();
      self.set_grad(old.defined() ? add(old, g.detach()) : g.detach().clone());
    }
    return Tensor();
  });
}
bool Tensor::retains_grad() const {
  auto* m = autograd_meta_if();
  return m && m->retains_grad;
}

void Tensor::register_hook(GradHook hook) {
  SAMPAN_CHECK(requires_grad(), RuntimeError, "register_hook on a tensor that does not require grad");
  Edge e = gradient_edge(*this);
  e.node->output_hooks.emplace_back(e.input_nr, std::move(hook));
}

Tensor Tensor::detach() const {
  SAMPAN_REQUIRE_DEFINED();
  Tensor t(impl_->storage, impl_->shape, impl_->strides, impl_->offset, impl_->dtype);
  t.impl_->device = impl_->device;
  if (jit::Tracer* tracer = jit::detail::active_tracer()) tracer->record_alias(*this, t);  // the same value
  return t;
}

void Tensor::backward(const Tensor& gradient, bool retain_graph, bool create_graph) const {
  std::vector<Tensor> g;
  if (gradient.defined()) g.push_back(gradient);
  sampan::backward({*this}, g, retain_graph, create_graph);
}

uint64_t Tensor::version() const {
  const auto& s = storage();
  return s ? s->version : 0;
}
void Tensor::bump_version() const {
  if (storage()) ++storage()->version;
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : sampan::contiguous(*this); }
Tensor Tensor::to(DType d) const { return d == dtype() ? *this : sampan::cast(*this, d); }
Tensor Tensor::to(Device d) const { return d == device() ? *this : sampan::to_device(*this, d); }
Tensor Tensor::clone() const { return sampan::clone(*this); }

double Tensor::item() const {
  SAMPAN_CHECK(numel() == 1, ValueError, "item() needs a tensor with exactly one element, got shape ", shape_str(shape()));
  if (!device().is_cpu()) return detach().contiguous().to(cpu_device()).item();
  Tensor c = sampan::cast(detach().contiguous(), is_complex(dtype()) ? DType::Complex128 : DType::Float64);
  if (is_complex(dtype())) return c.data<complex128>()[0].real();
  return c.data<double>()[0];
}

std::string Tensor::repr() const {
  if (!defined()) return "tensor(undefined)";
  std::ostringstream os;
  os << "tensor(shape=" << shape_str(shape()) << ", dtype=" << dtype_name(dtype());
  if (!device().is_cpu()) os << ", device=" << device().str();
  if (requires_grad()) os << ", requires_grad=True";
  os << ")";
  return os.str();
}

}  // namespace sampan
