// sampan: the CPU allocator (64-byte aligned, with usage statistics) and the per-device table.
#include "sampan/allocator.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "sampan/error.h"

namespace sampan {

namespace {

class CpuAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes) override {
    size_t rounded = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
    if (rounded == 0) rounded = kCpuAlignment;
    void* p = std::aligned_alloc(kCpuAlignment, rounded);
    if (!p)
      throw RuntimeError("out of memory: could not allocate " + std::to_string(nbytes) +
                         " bytes on cpu");
    size_t now = in_use_.fetch_add(nbytes) + nbytes;
    size_t peak = peak_.load();
    while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
    }
    return p;
  }
  void deallocate(void* ptr, size_t nbytes) override {
    std::free(ptr);
    in_use_.fetch_sub(nbytes);
  }
  size_t bytes_in_use() const override { return in_use_.load(); }
  size_t peak_bytes() const override { return peak_.load(); }
  void reset_peak() override { peak_.store(in_use_.load()); }

 private:
  std::atomic<size_t> in_use_{0};
  std::atomic<size_t> peak_{0};
};

Allocator*& slot(DeviceType t) {
  static Allocator* table[2] = {nullptr, nullptr};
  return table[static_cast<int>(t)];
}

}  // namespace

Allocator& allocator_for(DeviceType type) {
  if (type == DeviceType::CPU) {
    static CpuAllocator cpu;
    return cpu;
  }
  Allocator* a = slot(type);
  if (!a)
    throw NotImplementedError(
        "no CUDA allocator: this sampan was built without CUDA or no GPU is present");
  return *a;
}

void register_allocator(DeviceType type, Allocator* allocator) { slot(type) = allocator; }

}  // namespace sampan
