// The CUDA runtime calls that sampan's device layer needs (memory, copies, device facts), as
// plain functions so that only cuda_memory.cu includes cuda_runtime.h. Defined only where nvcc
// exists (SAMPAN_CUDA_KERNELS). Errors leave as std::runtime_error naming the call.
#pragma once

#include <cstddef>
#include <string>

namespace sampan::kernels::cuda_memory {

/// The number of GPUs this process sees; 0 when there is none or no driver (`reason` says why).
int device_count(std::string* reason);
/// Device memory of `nbytes` on the current GPU, or nullptr when it is exhausted.
void* allocate(size_t nbytes);
void release(void* ptr);
/// Copies `nbytes` between host and device memory (either side may be either); synchronous.
void copy(void* dst, bool dst_on_device, const void* src, bool src_on_device, size_t nbytes);
/// Waits for every kernel launched so far and reports an error any of them raised.
void synchronize();
/// "NVIDIA H200, compute capability 9.0, 139.8 GiB".
std::string describe_device(int ordinal);
/// Bytes free and in all on the current GPU.
void memory_info(size_t* free_bytes, size_t* total_bytes);

}  // namespace sampan::kernels::cuda_memory
