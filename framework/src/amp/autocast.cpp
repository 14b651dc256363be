// sampan: autocast's thread-local state and call_op's cast hook (see sampan/amp.h).
#include "sampan/amp.h"

#include <map>
#include <unordered_map>

#include "sampan/error.h"
#include "sampan/ops.h"

namespace sampan {

const char* amp_cast_name(AmpCast c) {
  switch (c) {
    case AmpCast::Keep: return "keep";
    case AmpCast::LowPrecision: return "low_precision";
    case AmpCast::Float32: return "float32";
  }
  return "?";
}

namespace amp {

namespace {

constexpr int kDeviceTypes = 2;  // DeviceType::CPU, DeviceType::CUDA

struct DeviceState {
  bool enabled = false;
  DType dtype = DType::BFloat16;
};

// A cast of a leaf weight, reused while the outermost scope lasts (a weight used by several ops
// of one forward pass is cast once, as PyTorch's autocast cache does). The source is held so its
// address cannot be reused by another tensor meanwhile; the version catches in-place updates.
struct CachedCast {
  Tensor source;
  uint64_t version;
  Tensor cast;
};

struct State {
  DeviceState device[kDeviceTypes];
  int enabled_count = 0;  // scopes with enabled = true, open now
  int suspended = 0;      // Suspend scopes open now
  int depth = 0;          // Autocast scopes open now (the cache lives while depth > 0)
  std::map<const OpSchema*, AmpCast> overrides;
  std::unordered_map<const void*, CachedCast> cache;
};

State& state() {
  thread_local State s;
  return s;
}

int index_of(DeviceType d) { return d == DeviceType::CPU ? 0 : 1; }

const OpSchema& op_named(const std::string& name) {
  return name.find("::") == std::string::npos ? find_op("core::" + name) : find_op(name);
}

bool wants_cast(AmpCast policy, DType from, DType low) {
  if (policy == AmpCast::LowPrecision) return from == DType::Float32 || ((from == DType::Float16 || from == DType::BFloat16) && from != low);
  if (policy == AmpCast::Float32) return from == DType::Float16 || from == DType::BFloat16;
  return false;
}

Tensor cast_to(const Tensor& t, DType to) {
  static const OpSchema& cast = find_op("core::cast");
  // A transposed matrix (x.mT, as nn.Linear passes its weight) is cast in its storage order,
  // where the conversion is one contiguous pass, and transposed back: matmul takes the view
  // without a copy.
  if (t.dim() >= 2 && !t.is_contiguous()) {
    Tensor stored = transpose(t, -2, -1);
    if (stored.is_contiguous()) return transpose(cast_to(stored, to), -2, -1);
  }
  State& s = state();
  const bool cacheable = t.is_leaf() && t.requires_grad();
  if (cacheable) {
    auto it = s.cache.find(t.impl());
    if (it != s.cache.end() && it->second.version == t.version() && it->second.cast.dtype() == to)
      return it->second.cast;
  }
  Tensor r = call_op(cast, {t, std::string(dtype_name(to))})[0];
  if (cacheable) s.cache[t.impl()] = CachedCast{t, t.version(), r};
  return r;
}

}  // namespace

AmpCast policy_of(const OpSchema& op) {
  const State& s = state();
  if (!s.overrides.empty()) {
    auto it = s.overrides.find(&op);
    if (it != s.overrides.end()) return it->second;
  }
  return op.amp;
}

bool is_enabled(DeviceType device) {
  const State& s = state();
  return s.suspended == 0 && s.device[index_of(device)].enabled;
}

DType default_dtype(DeviceType device) { return device == DeviceType::CPU ? DType::BFloat16 : DType::Float16; }

DType dtype_of(DeviceType device) {
  const State& s = state();
  return s.depth > 0 ? s.device[index_of(device)].dtype : default_dtype(device);
}

std::vector<std::string> ops_with_policy(AmpCast policy) {
  std::vector<std::string> r;
  for (const std::string& name : registered_ops())
    if (find_op(name).amp == policy) r.push_back(name);
  return r;
}

struct Autocast::Saved {
  DeviceType device;
  DeviceState previous;
  bool counted;
  std::map<const OpSchema*, AmpCast> overrides;
  int depth = 0;                        // the thread's scope depth with this scope open
  const void* thread = nullptr;         // the thread's state: scopes close where they opened
};

Autocast::Autocast(DeviceType device, DType dtype, bool enabled, const std::vector<std::string>& low_precision_ops,
                   const std::vector<std::string>& float32_ops) {
  if (enabled && dtype != DType::BFloat16 && dtype != DType::Float16)
    SAMPAN_THROW(ValueError, "autocast: dtype must be bfloat16 or float16, got ", dtype_name(dtype));
  // Look the names up before changing any state, so a bad name leaves the thread as it was.
  std::map<const OpSchema*, AmpCast> overrides = state().overrides;
  std::map<const OpSchema*, AmpCast> asked;
  for (const std::string& n : low_precision_ops) asked[&op_named(n)] = AmpCast::LowPrecision;
  for (const std::string& n : float32_ops) {
    const OpSchema& op = op_named(n);
    if (asked.count(&op))
      SAMPAN_THROW(ValueError, "autocast: op '", op.name, "' is in both low_precision_ops and float32_ops");
    asked[&op] = AmpCast::Float32;
  }
  for (auto& kv : asked) overrides[kv.first] = kv.second;
  State& s = state();
  DeviceState& d = s.device[index_of(device)];
  saved_ = new Saved{device, d, enabled, std::move(s.overrides)};
  s.overrides = std::move(overrides);
  d.enabled = enabled;
  if (enabled) d.dtype = dtype;
  if (enabled) ++s.enabled_count;
  saved_->depth = ++s.depth;
  saved_->thread = &s;
}

bool Autocast::innermost() const { return &state() == saved_->thread && state().depth == saved_->depth; }

Autocast::~Autocast() {
  State& s = state();
  s.device[index_of(saved_->device)] = saved_->previous;
  s.overrides = std::move(saved_->overrides);
  if (saved_->counted) --s.enabled_count;
  if (--s.depth == 0) s.cache.clear();
  delete saved_;
}

namespace detail {

bool any_enabled() {
  const State& s = state();
  return s.enabled_count > 0 && s.suspended == 0;
}

void cast_arguments(const OpSchema& op, DeviceType device, Values& args) {
  if (!is_enabled(device)) return;
  const AmpCast policy = policy_of(op);
  if (policy == AmpCast::Keep) return;
  const DType low = state().device[index_of(device)].dtype;
  const DType to = policy == AmpCast::LowPrecision ? low : DType::Float32;
  auto fix = [&](Tensor& t) {
    if (t.defined() && t.device().type == device && wants_cast(policy, t.dtype(), low)) t = cast_to(t, to);
  };
  for (size_t i = 0; i < args.size() && i < op.arg_kinds.size(); ++i) {
    // In-place outputs keep their dtype: casting their argument would write into a copy.
    bool written = false;
    for (auto& p : op.inplace) written = written || p.second == static_cast<int>(i);
    if (written) continue;
    if (auto* t = std::get_if<Tensor>(&args[i])) fix(*t);
    else if (auto* l = std::get_if<std::vector<Tensor>>(&args[i])) for (Tensor& e : *l) fix(e);
  }
}

Suspend::Suspend() { ++state().suspended; }
Suspend::~Suspend() { --state().suspended; }

}  // namespace detail
}  // namespace amp
}  // namespace sampan
