// sampan: automatic mixed precision (autocast). Inside an `amp::Autocast` scope, call_op casts
// the floating tensor arguments of an op by the op's declared cast policy (OpSchema::amp, set by
// `.amp(...)` in its SAMPAN_OP declaration) before running it:
//   AmpCast::LowPrecision  float32 tensors become the scope's dtype (bfloat16 or float16): matmul,
//                          einsum and the like, which a low-precision GEMM speeds up;
//   AmpCast::Float32       float16/bfloat16 tensors become float32: reductions, softmax, norms,
//                          exp/log, whose range or accumulation low precision would ruin;
//   AmpCast::Keep          no cast (the op's own dtype promotion applies).
// The casts are ordinary core::cast calls, so autograd carries gradients back to float32 master
// weights and jit.trace records them into the graph. Scopes nest; the state is thread local, and
// kernels and vjps run with autocast off (they compute in the dtypes the forward call chose).
//
//   {
//     sampan::amp::Autocast ac(sampan::DeviceType::CPU, sampan::DType::BFloat16);
//     Tensor y = sampan::matmul(x, w);   // bfloat16 product, float32 accumulation
//   }
#pragma once

#include <string>
#include <vector>

#include "sampan/device.h"
#include "sampan/dtype.h"
#include "sampan/op.h"

namespace sampan::amp {

/// The cast policy of an op inside autocast: the scope's overrides first, then the op's own.
AmpCast policy_of(const OpSchema& op);

/// Whether autocast is on for ops running on `device` in this thread.
bool is_enabled(DeviceType device);
/// The low-precision dtype of the innermost scope for `device` (bfloat16 on the CPU, float16 on
/// CUDA when no scope is open).
DType dtype_of(DeviceType device);
/// The default low-precision dtype of a device: bfloat16 on the CPU, float16 on CUDA.
DType default_dtype(DeviceType device);

/// Ops (names "ns::name") whose declared policy is `policy`, sorted: the allow list
/// (LowPrecision) and the deny list (Float32).
std::vector<std::string> ops_with_policy(AmpCast policy);

/// A scope with autocast on (or off, `enabled = false`) for one device type. `low_precision_ops`
/// and `float32_ops` move ops (by "ns::name" or a core op's short name) between the lists for
/// this scope, as Paddle's custom white and black lists do. Restores the previous state when it
/// ends. Weights cast in a scope are cached until the outermost scope ends.
class Autocast {
 public:
  explicit Autocast(DeviceType device, DType dtype, bool enabled = true,
                    const std::vector<std::string>& low_precision_ops = {},
                    const std::vector<std::string>& float32_ops = {});
  explicit Autocast(DeviceType device) : Autocast(device, default_dtype(device)) {}
  ~Autocast();
  Autocast(const Autocast&) = delete;
  Autocast& operator=(const Autocast&) = delete;
  /// Whether this is the innermost open scope of the calling thread. Scopes restore what they
  /// saved, so they must close in reverse order of opening (C++ scoping guarantees it; the Python
  /// binding checks it with this before closing).
  bool innermost() const;

 private:
  struct Saved;
  Saved* saved_;
};

namespace detail {
/// Whether any autocast scope is on in this thread (the dispatcher's one-load check).
bool any_enabled();
/// Casts `args` of `op` running on `device` by its policy (call_op's hook).
void cast_arguments(const OpSchema& op, DeviceType device, Values& args);
/// Autocast off for the scope's lifetime (kernels and vjps run under it).
class Suspend {
 public:
  Suspend();
  ~Suspend();
  Suspend(const Suspend&) = delete;
  Suspend& operator=(const Suspend&) = delete;
};
}  // namespace detail

}  // namespace sampan::amp
