// The CUDA runtime calls behind sampan's device layer (cuda_memory.h).
#include "cuda_memory.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <stdexcept>

namespace sampan::kernels::cuda_memory {

namespace {
void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(status));
}
}  // namespace

int device_count(std::string* reason) {
  int n = 0;
  const cudaError_t status = cudaGetDeviceCount(&n);
  if (status != cudaSuccess) {
    if (reason) *reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(status);
    (void)cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return 0;
  }
  if (n == 0 && reason) *reason = "cudaGetDeviceCount found no GPU";
  return n;
}

void* allocate(size_t nbytes) {
  void* p = nullptr;
  const cudaError_t status = cudaMalloc(&p, nbytes);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    return nullptr;
  }
  check(status, "cudaMalloc");
  return p;
}

void release(void* ptr) {
  if (ptr) check(cudaFree(ptr), "cudaFree");
}

void copy(void* dst, bool dst_on_device, const void* src, bool src_on_device, size_t nbytes) {
  if (nbytes == 0) return;
  const cudaMemcpyKind kind = dst_on_device ? (src_on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                                            : (src_on_device ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  check(cudaMemcpy(dst, src, nbytes, kind), "cudaMemcpy");
}

void synchronize() { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

std::string describe_device(int ordinal) {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, ordinal), "cudaGetDeviceProperties");
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s, compute capability %d.%d, %.1f GiB, %d multiprocessors", prop.name, prop.major,
                prop.minor, static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0),
                prop.multiProcessorCount);
  return buf;
}

void memory_info(size_t* free_bytes, size_t* total_bytes) {
  check(cudaMemGetInfo(free_bytes, total_bytes), "cudaMemGetInfo");
}

}  // namespace sampan::kernels::cuda_memory
