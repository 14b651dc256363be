// sampan: per-device memory allocators. CUDA registers its caching allocator here when built.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sampan/device.h"

namespace sampan {

/// Allocates raw device memory. Implementations must be thread safe.
class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual void* allocate(size_t nbytes) = 0;
  virtual void deallocate(void* ptr, size_t nbytes) = 0;
  /// Bytes currently handed out and the high-water mark since the last reset.
  virtual size_t bytes_in_use() const = 0;
  virtual size_t peak_bytes() const = 0;
  virtual void reset_peak() = 0;
  /// Return cached blocks to the system (no-op for non-caching allocators).
  virtual void empty_cache() {}
};

/// The allocator for a device type; throws NotImplementedError when that device is not built.
Allocator& allocator_for(DeviceType type);
/// Installs the allocator for a device type (the CUDA module does this at load).
void register_allocator(DeviceType type, Allocator* allocator);

/// Alignment of CPU allocations (one cache line, enough for AVX-512 loads).
constexpr size_t kCpuAlignment = 64;

}  // namespace sampan
