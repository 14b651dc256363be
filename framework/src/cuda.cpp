// sampan: what the rest of sampan asks about the GPU (sampan/cuda.h), in every build.
#include "sampan/cuda.h"

#include <cstring>

#include "sampan/allocator.h"
#include "sampan/error.h"

#if defined(SAMPAN_CUDA_KERNELS)
#include <stdexcept>

#include "kernels/cuda_memory.h"
#endif

namespace sampan::cuda {

namespace detail {
size_t cached_bytes();  // cuda_caching_allocator.cpp
}

namespace {
struct Probe {
  int count = 0;
  std::string reason;
};
// Asked once: the first CUDA call of a process creates its context, which takes a while.
const Probe& probe() {
  static const Probe p = [] {
    Probe r;
#if defined(SAMPAN_CUDA_KERNELS)
    r.count = kernels::cuda_memory::device_count(&r.reason);
#else
    r.reason = "this sampan was built without CUDA (no nvcc at configure time)";
#endif
    return r;
  }();
  return p;
}

#if defined(SAMPAN_CUDA_KERNELS)
// The .cu layer raises std::runtime_error; sampan's callers expect sampan::RuntimeError.
template <class F> auto run(F f) {
  try {
    return f();
  } catch (const std::runtime_error& e) {
    throw RuntimeError(e.what());
  }
}
#endif

[[noreturn]] void unavailable(const char* what) {
  SAMPAN_CHECK(built(), NotImplementedError, what, ": ", unavailable_reason());
  SAMPAN_THROW(RuntimeError, what, ": no GPU in this process (", unavailable_reason(), ")");
}
}  // namespace

bool built() {
#if defined(SAMPAN_CUDA_KERNELS)
  return true;
#else
  return false;
#endif
}

int device_count() { return probe().count; }
bool is_available() { return device_count() > 0; }
std::string unavailable_reason() { return is_available() ? std::string() : probe().reason; }

std::string device_description() {
  if (!is_available()) unavailable("sampan.cuda.device_description");
#if defined(SAMPAN_CUDA_KERNELS)
  return run([] { return kernels::cuda_memory::describe_device(0); });
#else
  return {};
#endif
}

void synchronize() {
  if (!is_available()) return;
#if defined(SAMPAN_CUDA_KERNELS)
  run([] { kernels::cuda_memory::synchronize(); });
#endif
}

size_t memory_allocated() { return is_available() ? detail::caching_allocator().bytes_in_use() : 0; }
size_t max_memory_allocated() { return is_available() ? detail::caching_allocator().peak_bytes() : 0; }
size_t memory_cached() { return detail::cached_bytes(); }
void empty_cache() {
  if (is_available()) detail::caching_allocator().empty_cache();
}

void copy_bytes(void* dst, bool dst_on_device, const void* src, bool src_on_device, size_t nbytes) {
  if (!dst_on_device && !src_on_device) {
    if (nbytes) std::memcpy(dst, src, nbytes);
    return;
  }
  if (!is_available()) unavailable("copying to or from cuda:0");
#if defined(SAMPAN_CUDA_KERNELS)
  run([&] { kernels::cuda_memory::copy(dst, dst_on_device, src, src_on_device, nbytes); });
#endif
}

}  // namespace sampan::cuda
