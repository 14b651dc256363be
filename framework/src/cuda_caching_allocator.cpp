// sampan: the caching allocator of cuda:0. cudaMalloc and cudaFree are slow (cudaFree also waits
// for the whole GPU), so freed blocks are kept, by rounded size, and handed out again: sizes up to
// 1 MiB round to 512 bytes, larger ones to 2 MiB. Every kernel runs on the default stream in
// launch order, so a block freed by the host may be reused at once: the next kernel to touch it
// runs after the last one that did. When cudaMalloc finds the GPU full, the cache is freed and
// the allocation tried once more.
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "sampan/allocator.h"
#include "sampan/cuda.h"
#include "sampan/error.h"

#if defined(SAMPAN_CUDA_KERNELS)
#include "kernels/cuda_memory.h"

namespace sampan::cuda::detail {

namespace {

class CudaCachingAllocator final : public Allocator {
 public:
  static constexpr size_t kSmallLimit = size_t{1} << 20;
  static constexpr size_t kSmallGranule = 512;
  static constexpr size_t kLargeGranule = size_t{2} << 20;

  static size_t rounded(size_t nbytes) {
    const size_t g = nbytes <= kSmallLimit ? kSmallGranule : kLargeGranule;
    return (nbytes + g - 1) / g * g;
  }

  void* allocate(size_t nbytes) override {
    if (nbytes == 0) return nullptr;
    const size_t size = rounded(nbytes);
    std::lock_guard<std::mutex> lock(mu_);
    void* p = nullptr;
    auto it = free_.find(size);
    if (it != free_.end() && !it->second.empty()) {
      p = it->second.back();
      it->second.pop_back();
      cached_ -= size;
    } else {
      p = kernels::cuda_memory::allocate(size);
      if (!p) {
        release_cached_locked();
        p = kernels::cuda_memory::allocate(size);
      }
      if (!p) {
        size_t free_bytes = 0, total_bytes = 0;
        kernels::cuda_memory::memory_info(&free_bytes, &total_bytes);
        SAMPAN_THROW(RuntimeError, "out of memory on cuda:0: could not allocate ", nbytes, " bytes (",
                     in_use_, " in use by sampan, ", free_bytes,
                     " free of ", total_bytes, ")");
      }
    }
    in_use_ += nbytes;
    if (in_use_ > peak_) peak_ = in_use_;
    return p;
  }

  void deallocate(void* ptr, size_t nbytes) override {
    if (!ptr) return;
    std::lock_guard<std::mutex> lock(mu_);
    in_use_ -= nbytes;
    const size_t size = rounded(nbytes);
    free_[size].push_back(ptr);
    cached_ += size;
  }

  size_t bytes_in_use() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return in_use_;
  }
  size_t peak_bytes() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return peak_;
  }
  void reset_peak() override {
    std::lock_guard<std::mutex> lock(mu_);
    peak_ = in_use_;
  }
  void empty_cache() override {
    std::lock_guard<std::mutex> lock(mu_);
    release_cached_locked();
  }
  size_t cached_bytes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return cached_;
  }

 private:
  void release_cached_locked() {
    for (auto& [size, blocks] : free_)
      for (void* p : blocks) kernels::cuda_memory::release(p);
    free_.clear();
    cached_ = 0;
  }

  mutable std::mutex mu_;
  std::map<size_t, std::vector<void*>> free_;
  size_t cached_ = 0;
  size_t in_use_ = 0;
  size_t peak_ = 0;
};

CudaCachingAllocator* instance() {
  // Never destroyed: tensors held by statics or by Python at exit free into it after the CUDA
  // runtime may already be gone, and freeing then would fail.
  static CudaCachingAllocator* a = [] {
    SAMPAN_CHECK(is_available(), RuntimeError, "no GPU in this process (", unavailable_reason(), "): cannot allocate on cuda:0");
    return new CudaCachingAllocator();
  }();
  return a;
}

}  // namespace

Allocator& caching_allocator() { return *instance(); }
size_t cached_bytes() { return is_available() ? instance()->cached_bytes() : 0; }

}  // namespace sampan::cuda::detail

#else

namespace sampan::cuda::detail {
Allocator& caching_allocator() {
  // Named like the CUDA build's error (device first, then why), so one message pattern holds for both.
  SAMPAN_THROW(NotImplementedError, "no GPU in this process (", unavailable_reason(),
               "): cannot allocate on cuda:0; this build has no GPU memory");
}
size_t cached_bytes() { return 0; }
}  // namespace sampan::cuda::detail

#endif
