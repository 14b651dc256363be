// sampan: the GPU, as far as sampan has one. Every build has these functions; a build without
// nvcc answers "not built" (built() false, device_count() 0), so callers need no #ifdef.
//
//   if (sampan::cuda::is_available()) {
//     Tensor g = to_device(x, Device::parse("cuda"));   // memory from the caching allocator
//     Tensor y = segment_sum(g, ids_on_gpu, n);          // the op's CUDA kernel
//     Tensor back = to_device(y, cpu_device());
//   }
//
// One GPU per process: tensors live on cuda:0 (an MPI rank picks its GPU with
// CUDA_VISIBLE_DEVICES). Kernels run on the default stream, in order, so memory returned to
// the cache is safe to hand out again at once.
#pragma once

#include <cstddef>
#include <string>

namespace sampan {
class Allocator;
namespace cuda {

/// Whether this sampan was compiled with CUDA kernels (nvcc found at configure time).
bool built();
/// The number of GPUs this process sees (0 in a build without CUDA or with no GPU or driver).
int device_count();
/// built() and at least one GPU.
bool is_available();
/// Why is_available() is false ("" when it is true).
std::string unavailable_reason();
/// Name, compute capability, memory and multiprocessors of cuda:0.
std::string device_description();
/// Waits for the GPU to finish the work launched so far; raises a kernel's error.
void synchronize();
/// Bytes the caching allocator has handed out, its high-water mark, and what it holds unused.
size_t memory_allocated();
size_t max_memory_allocated();
size_t memory_cached();
/// Frees the cached, unused blocks back to the driver.
void empty_cache();
/// Copies nbytes between memory on `dst_on_device` / `src_on_device` sides; synchronous.
void copy_bytes(void* dst, bool dst_on_device, const void* src, bool src_on_device, size_t nbytes);

namespace detail {
/// The caching allocator of cuda:0; raises NotImplementedError (no CUDA build) or RuntimeError
/// (no GPU) naming the reason.
Allocator& caching_allocator();
}  // namespace detail

}  // namespace cuda
}  // namespace sampan
