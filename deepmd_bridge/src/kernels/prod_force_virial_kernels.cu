// se_e2_a force and virial kernels: the CUDA twins of prod_force_virial_kernels.cpp. One thread
// per slot (grid-stride) over the per-slot functions of prod_force_virial_slot.h, the same code
// the CPU runs. Forces and atom virials scatter with atomicAdd (CPU: serial, in slot order), so
// their last bits may differ from the CPU and from run to run; the total virial is first summed
// per block in shared memory (9 values that every slot adds to), then added once per block.
// Compiled only where nvcc exists; run on an H200 (within 2e-16 of the CPU; docs/gpu.md).
#include "kernels/atomic_add.cuh"
#include "kernels/prod_force_virial_kernels.h"

namespace sampan::deepmd::kernels {

namespace {

template <class T>
__global__ void prod_force_kernel(const T* net_deriv, const T* em_deriv, const int64_t* nlist, int64_t nloc,
                                  int64_t nnei, T* force) {
  SAMPAN_GRID_STRIDE_LOOP(slot, nloc * nnei) {
    T q[3];
    force_slot_vector(net_deriv, em_deriv, slot, q);
    scatter_force_slot(slot / nnei, nlist[slot], q, force, cuda::AtomicAdd{});
  }
}

template <class T>
__global__ void prod_force_grad_kernel(const T* grad_force, const T* em_deriv, const int64_t* nlist, int64_t nloc,
                                       int64_t nnei, T* grad_net) {
  SAMPAN_GRID_STRIDE_LOOP(slot, nloc * nnei) { prod_force_grad_slot(grad_force, em_deriv, nlist, slot / nnei, slot, grad_net); }
}

template <class T>
__global__ void prod_virial_kernel(const T* net_deriv, const T* em_deriv, const T* rij, const int64_t* nlist,
                                   int64_t nslots, T* virial, T* atom_virial) {
  __shared__ T block_virial[9];
  if (threadIdx.x < 9) block_virial[threadIdx.x] = 0;
  __syncthreads();
  SAMPAN_GRID_STRIDE_LOOP(slot, nslots) {
    const int64_t n = nlist[slot];
    if (n < 0) continue;
    T w[9];
    virial_slot_tensor(net_deriv, em_deriv, rij, slot, w);
    scatter_virial_slot(n, w, block_virial, atom_virial, cuda::AtomicAdd{});
  }
  __syncthreads();
  if (threadIdx.x < 9) atomicAdd(&virial[threadIdx.x], block_virial[threadIdx.x]);
}

template <class T>
__global__ void prod_virial_grad_kernel(const T* grad_virial, const T* grad_atom_virial, const T* em_deriv,
                                        const T* rij, const int64_t* nlist, int64_t nslots, T* grad_net) {
  SAMPAN_GRID_STRIDE_LOOP(slot, nslots) {
    prod_virial_grad_slot(grad_virial, grad_atom_virial, em_deriv, rij, nlist, slot, grad_net);
  }
}

__global__ void first_outside_range_kernel(const int64_t* values, int64_t n, int64_t lo, int64_t hi,
                                           unsigned long long* first) {
  SAMPAN_GRID_STRIDE_LOOP(k, n) {
    if (values[k] < lo || values[k] >= hi) atomicMin(first, static_cast<unsigned long long>(k));
  }
}

}  // namespace

template <class T>
void prod_force_se_a_cuda(const T* net_deriv, const T* em_deriv, const int64_t* nlist, int64_t nloc, int64_t nall,
                          int64_t nnei, T* force) {
  const char* what = "deepmd::prod_force_se_a_cuda";
  cuda::check(cudaMemset(force, 0, sizeof(T) * nall * 3), what);
  if (nloc * nnei == 0) return;
  prod_force_kernel<<<cuda::blocks_for(nloc * nnei), cuda::kThreads>>>(net_deriv, em_deriv, nlist, nloc, nnei, force);
  cuda::check(cudaGetLastError(), what);
}

template <class T>
void prod_force_se_a_grad_cuda(const T* grad_force, const T* em_deriv, const int64_t* nlist, int64_t nloc,
                               int64_t nnei, T* grad_net) {
  if (nloc * nnei == 0) return;
  prod_force_grad_kernel<<<cuda::blocks_for(nloc * nnei), cuda::kThreads>>>(grad_force, em_deriv, nlist, nloc, nnei,
                                                                           grad_net);
  cuda::check(cudaGetLastError(), "deepmd::prod_force_se_a_grad_cuda");
}

template <class T>
void prod_virial_se_a_cuda(const T* net_deriv, const T* em_deriv, const T* rij, const int64_t* nlist, int64_t nloc,
                           int64_t nall, int64_t nnei, T* virial, T* atom_virial) {
  const char* what = "deepmd::prod_virial_se_a_cuda";
  cuda::check(cudaMemset(virial, 0, sizeof(T) * 9), what);
  cuda::check(cudaMemset(atom_virial, 0, sizeof(T) * nall * 9), what);
  if (nloc * nnei == 0) return;
  prod_virial_kernel<<<cuda::blocks_for(nloc * nnei), cuda::kThreads>>>(net_deriv, em_deriv, rij, nlist, nloc * nnei,
                                                                       virial, atom_virial);
  cuda::check(cudaGetLastError(), what);
}

template <class T>
void prod_virial_se_a_grad_cuda(const T* grad_virial, const T* grad_atom_virial, const T* em_deriv, const T* rij,
                                const int64_t* nlist, int64_t nloc, int64_t nnei, T* grad_net) {
  if (nloc * nnei == 0) return;
  prod_virial_grad_kernel<<<cuda::blocks_for(nloc * nnei), cuda::kThreads>>>(grad_virial, grad_atom_virial, em_deriv,
                                                                            rij, nlist, nloc * nnei, grad_net);
  cuda::check(cudaGetLastError(), "deepmd::prod_virial_se_a_grad_cuda");
}

int64_t first_outside_range_cuda(const int64_t* values, int64_t n, int64_t lo, int64_t hi) {
  const char* what = "deepmd::first_outside_range_cuda";
  if (n == 0) return -1;
  unsigned long long* first = nullptr;
  const unsigned long long none = static_cast<unsigned long long>(n);
  cuda::check(cudaMalloc(&first, sizeof(*first)), what);
  cudaError_t status = cudaMemcpy(first, &none, sizeof(none), cudaMemcpyHostToDevice);
  if (status == cudaSuccess) {
    first_outside_range_kernel<<<cuda::blocks_for(n), cuda::kThreads>>>(values, n, lo, hi, first);
    status = cudaGetLastError();
  }
  unsigned long long result = none;
  if (status == cudaSuccess) status = cudaMemcpy(&result, first, sizeof(result), cudaMemcpyDeviceToHost);
  cudaFree(first);
  cuda::check(status, what);
  return result == none ? -1 : static_cast<int64_t>(result);
}

void copy_to_host_cuda(void* host, const void* device, size_t nbytes) {
  cuda::check(cudaMemcpy(host, device, nbytes, cudaMemcpyDeviceToHost), "deepmd::copy_to_host_cuda");
}

#define SAMPAN_DEEPMD_INSTANTIATE(T)                                                                                   \
  template void prod_force_se_a_cuda<T>(const T*, const T*, const int64_t*, int64_t, int64_t, int64_t, T*);           \
  template void prod_force_se_a_grad_cuda<T>(const T*, const T*, const int64_t*, int64_t, int64_t, T*);               \
  template void prod_virial_se_a_cuda<T>(const T*, const T*, const T*, const int64_t*, int64_t, int64_t, int64_t, T*, \
                                         T*);                                                                         \
  template void prod_virial_se_a_grad_cuda<T>(const T*, const T*, const T*, const T*, const int64_t*, int64_t,        \
                                              int64_t, T*);
SAMPAN_DEEPMD_INSTANTIATE(float)
SAMPAN_DEEPMD_INSTANTIATE(double)
#undef SAMPAN_DEEPMD_INSTANTIATE

}  // namespace sampan::deepmd::kernels
