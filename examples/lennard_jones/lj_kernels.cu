// Lennard-Jones CUDA kernels: the twins of lj_kernels.cpp, one thread per pair, over the same
// per-pair functions (lj_kernels.h). Atom sums use atomicAdd (so the last bits may vary from run
// to run, unlike the CPU); the box sums are reduced per block first, then one atomic per block.
// Compiled only where nvcc exists (sampan_add_op_library's CUDA_SOURCES, or the JIT with nvcc).
#include "sampan/cuda_launch.cuh"  // check(): CUDA errors as std::runtime_error naming the kernel

#include "lj_kernels.h"

namespace lj {

namespace {

using sampan::kernels::cuda::check;
constexpr int kThreads = 256;  // a multiple of the warp size (block_sum relies on it)

int blocks_for(int64_t n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

// Sum of v over the block, valid in thread 0. Every thread of the block must call it.
template <class T> __device__ T block_sum(T v) {
  __shared__ T warp_sums[kThreads / 32];
  __syncthreads();  // the shared array may still be read by a previous call
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  v = threadIdx.x < kThreads / 32 ? warp_sums[threadIdx.x] : T(0);
  if (warp == 0)
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// ---- per-pair vectors (device twins of the lambdas in lj_kernels.cpp) ----
template <class T> struct ForcesPair {
  Params<T> p;
  __device__ void operator()(int64_t, int64_t, const T* d, const T*, T r2, T* q) const {
    const T g = radial(r2, p).g;
    for (int k = 0; k < 3; ++k) q[k] = g * d[k];
  }
};

template <class T> struct HvpPair {
  Params<T> p;
  const T* v_pos;
  const T* v_box;
  __device__ void operator()(int64_t i, int64_t j, const T* d, const T* n, T r2, T* q) const {
    const Radial<T> f = radial(r2, p);
    T D[3];
    direction(v_pos, v_box, i, j, n, D);
    const T dD = dot3(d, D);
    for (int k = 0; k < 3; ++k) q[k] = f.g * D[k] + f.h * dD * d[k];
  }
};

template <class T> struct ThirdPair {
  Params<T> p;
  const T *v_pos, *v_box, *c_pos, *c_box;
  __device__ void operator()(int64_t i, int64_t j, const T* d, const T* n, T r2, T* q) const {
    const Radial<T> f = radial(r2, p);
    T D[3], C[3];
    direction(v_pos, v_box, i, j, n, D);
    direction(c_pos, c_box, i, j, n, C);
    const T dD = dot3(d, D), dC = dot3(d, C), CD = dot3(C, D);
    for (int k = 0; k < 3; ++k)
      q[k] = (f.h * CD + f.k * dC * dD) * d[k] + f.h * (dD * C[k] + dC * D[k]);
  }
};

// J^T of the per-pair vectors: out_pos[j] += sign q, out_pos[i] -= sign q, out_box += -n q.
template <class T, class PairVector>
__global__ void pair_jacobian_transpose_kernel(const T* pos, const int64_t* pairs, int64_t npairs,
                                               const T* box, PairVector pair_vector, T sign,
                                               T* out_pos, T* out_box) {
  const int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  T box_part[3] = {0, 0, 0};
  if (p < npairs) {
    const int64_t i = pairs[2 * p], j = pairs[2 * p + 1];
    T d[3], n[3], q[3];
    const T r2 = separation(pos, i, j, box, d, n);
    pair_vector(i, j, d, n, r2, q);
    for (int k = 0; k < 3; ++k) {
      if (out_pos) {
        atomicAdd(&out_pos[3 * j + k], sign * q[k]);
        atomicAdd(&out_pos[3 * i + k], -sign * q[k]);
      }
      box_part[k] = -n[k] * q[k];
    }
  }
  if (out_box)
    for (int k = 0; k < 3; ++k) {
      const T s = block_sum(box_part[k]);
      if (threadIdx.x == 0) atomicAdd(&out_box[k], s);
    }
}

template <class T>
__global__ void energy_kernel(const T* pos, const int64_t* pairs, int64_t npairs, const T* box,
                              Params<T> prm, T* energy) {
  const int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  T u = 0;
  if (p < npairs) {
    T d[3], n[3];
    u = radial(separation(pos, pairs[2 * p], pairs[2 * p + 1], box, d, n), prm).u;
  }
  const T s = block_sum(u);
  if (threadIdx.x == 0) atomicAdd(energy, s);
}

__global__ void first_bad_pair_kernel(const int64_t* pairs, int64_t npairs, int64_t natoms,
                                      unsigned long long* first) {
  const int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= npairs) return;
  const int64_t i = pairs[2 * p], j = pairs[2 * p + 1];
  if (i < 0 || i >= natoms || j < 0 || j >= natoms || i == j)
    atomicMin(first, static_cast<unsigned long long>(p));
}

template <class T, class PairVector>
void launch_pair_jacobian_transpose(const T* pos, int64_t natoms, const int64_t* pairs, int64_t npairs,
                                    const T* box, PairVector pair_vector, T sign, T* out_pos, T* out_box,
                                    const char* what) {
  if (out_pos) check(cudaMemset(out_pos, 0, sizeof(T) * 3 * natoms), what);
  if (out_box) check(cudaMemset(out_box, 0, sizeof(T) * 3), what);
  if (npairs == 0) return;
  pair_jacobian_transpose_kernel<<<blocks_for(npairs), kThreads>>>(pos, pairs, npairs, box, pair_vector,
                                                                   sign, out_pos, out_box);
  check(cudaGetLastError(), what);
}

}  // namespace

int64_t first_bad_pair_cuda(const int64_t* pairs, int64_t npairs, int64_t natoms) {
  if (npairs == 0) return -1;
  unsigned long long* first = nullptr;
  const unsigned long long none = static_cast<unsigned long long>(npairs);
  check(cudaMalloc(&first, sizeof(*first)), "lj::first_bad_pair_cuda");
  check(cudaMemcpy(first, &none, sizeof(none), cudaMemcpyHostToDevice), "lj::first_bad_pair_cuda");
  first_bad_pair_kernel<<<blocks_for(npairs), kThreads>>>(pairs, npairs, natoms, first);
  unsigned long long result = none;
  cudaError_t launched = cudaGetLastError();
  cudaError_t copied = cudaMemcpy(&result, first, sizeof(result), cudaMemcpyDeviceToHost);
  cudaFree(first);
  check(launched, "lj::first_bad_pair_cuda");
  check(copied, "lj::first_bad_pair_cuda");
  return result == none ? -1 : static_cast<int64_t>(result);
}

void copy_to_host_cuda(void* host, const void* device, size_t nbytes) {
  check(cudaMemcpy(host, device, nbytes, cudaMemcpyDeviceToHost), "lj::copy_to_host_cuda");
}

template <class T>
void energy_cuda(const T* pos, const int64_t* pairs, int64_t npairs, const T* box, Params<T> p, T* energy) {
  check(cudaMemset(energy, 0, sizeof(T)), "lj::energy_cuda");
  if (npairs == 0) return;
  energy_kernel<<<blocks_for(npairs), kThreads>>>(pos, pairs, npairs, box, p, energy);
  check(cudaGetLastError(), "lj::energy_cuda");
}

template <class T>
void forces_cuda(const T* pos, int64_t natoms, const int64_t* pairs, int64_t npairs, const T* box,
                 Params<T> p, T* forces, T* box_grad) {
  launch_pair_jacobian_transpose(pos, natoms, pairs, npairs, box, ForcesPair<T>{p}, T(-1), forces,
                                 box_grad, "lj::forces_cuda");
}

template <class T>
void hvp_cuda(const T* pos, int64_t natoms, const int64_t* pairs, int64_t npairs, const T* box,
              Params<T> p, const T* v_pos, const T* v_box, T* h_pos, T* h_box) {
  launch_pair_jacobian_transpose(pos, natoms, pairs, npairs, box, HvpPair<T>{p, v_pos, v_box}, T(1),
                                 h_pos, h_box, "lj::hvp_cuda");
}

template <class T>
void third_cuda(const T* pos, int64_t natoms, const int64_t* pairs, int64_t npairs, const T* box,
                Params<T> p, const T* v_pos, const T* v_box, const T* c_pos, const T* c_box,
                T* t_pos, T* t_box) {
  launch_pair_jacobian_transpose(pos, natoms, pairs, npairs, box,
                                 ThirdPair<T>{p, v_pos, v_box, c_pos, c_box}, T(1), t_pos, t_box,
                                 "lj::third_cuda");
}

#define LJ_INSTANTIATE(T)                                                                           \
  template void energy_cuda<T>(const T*, const int64_t*, int64_t, const T*, Params<T>, T*);         \
  template void forces_cuda<T>(const T*, int64_t, const int64_t*, int64_t, const T*, Params<T>, T*, \
                               T*);                                                                 \
  template void hvp_cuda<T>(const T*, int64_t, const int64_t*, int64_t, const T*, Params<T>,        \
                            const T*, const T*, T*, T*);                                            \
  template void third_cuda<T>(const T*, int64_t, const int64_t*, int64_t, const T*, Params<T>,      \
                              const T*, const T*, const T*, const T*, T*, T*);
LJ_INSTANTIATE(float)
LJ_INSTANTIATE(double)
#undef LJ_INSTANTIATE

}  // namespace lj
