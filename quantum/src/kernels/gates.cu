// CUDA twins of the state-vector kernels: one thread per pair or group of amplitudes over the
// bodies of gate_element.h (gates_cuda.h). The sums fold in a fixed order (a fixed grid, each
// thread's strided share in index order, a tree in shared memory, the blocks' partial sums added
// on the host in block order), so a GPU gives the same bits run to run.
#include <algorithm>
#include <vector>

#include "kernels/gate_element.h"
#include "kernels/gates_cuda.h"
#include "sampan/cuda_launch.cuh"

namespace sampan::quantum::kernels {

namespace {

namespace cu = sampan::kernels::cuda;

constexpr int kFoldBlocks = 1024;  // fixed: the fold order must not depend on the GPU

template <int K> struct GateArg {
  int sorted[K];                 // target positions, ascending (for the group index)
  uint64_t off[1 << K];          // offset of local index r
  DeviceAmp m[(1 << K) * (1 << K)];
};

template <int K> GateArg<K> gate_arg(const int* targets, const std::complex<double>* m) {
  GateArg<K> g{};
  std::copy(targets, targets + K, g.sorted);
  std::sort(g.sorted, g.sorted + K);
  for (int r = 0; r < (1 << K); ++r)
    for (int j = 0; j < K; ++j)
      if (r >> j & 1) g.off[r] |= uint64_t(1) << targets[j];
  for (int i = 0; i < (1 << K) * (1 << K); ++i) g.m[i] = {m[i].real(), m[i].imag()};
  return g;
}

template <int K> __global__ void dense_kernel(DeviceAmp* a, int64_t groups, uint64_t cmask, GateArg<K> g) {
  SAMPAN_GRID_STRIDE_LOOP(k, groups) {
    const uint64_t base = group_base(static_cast<uint64_t>(k), g.sorted, K);
    if ((base & cmask) != cmask) continue;
    if constexpr (K == 1) {
      dense_pair(a, base, base | g.off[1], g.m);
    } else {
      DeviceAmp v[1 << K];
      dense_group(a, base, g.off, 1 << K, g.m, v);
    }
  }
}

template <int K> struct InnerBody {
  const DeviceAmp *lam, *phi;
  uint64_t cmask;
  GateArg<K> g;
  __device__ DeviceAmp operator()(uint64_t k) const {
    const uint64_t base = group_base(k, g.sorted, K);
    if ((base & cmask) != cmask) return {0, 0};
    if constexpr (K == 1) return inner_pair(lam, phi, base, base | g.off[1], g.m);
    else return inner_group(lam, phi, base, g.off, 1 << K, g.m);
  }
};

struct PauliBody {
  const DeviceAmp* psi;
  uint64_t xmask, zmask;
  __device__ DeviceAmp operator()(uint64_t u) const { return pauli_element(psi, u, xmask, zmask); }
};

template <class Body> __global__ void fold_kernel(int64_t count, Body body, DeviceAmp* partials) {
  __shared__ double re[cu::kThreads], im[cu::kThreads];
  double r = 0, i = 0;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * cu::kThreads + threadIdx.x; k < count;
       k += static_cast<int64_t>(kFoldBlocks) * cu::kThreads) {
    const DeviceAmp v = body(static_cast<uint64_t>(k));
    r += v.re;
    i += v.im;
  }
  re[threadIdx.x] = r;
  im[threadIdx.x] = i;
  __syncthreads();
  for (int s = cu::kThreads / 2; s > 0; s >>= 1) {
    if (static_cast<int>(threadIdx.x) < s) {
      re[threadIdx.x] += re[threadIdx.x + s];
      im[threadIdx.x] += im[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = {re[0], im[0]};
}

// sum over k < count of body(k), in the fixed order above.
template <class Body> std::complex<double> fold(int64_t count, const Body& body, const char* what) {
  // One partial-sum buffer per host thread, kept: the adjoint gradient folds once per parameter.
  thread_local DeviceAmp* partials = nullptr;
  if (partials == nullptr) cu::check(cudaMalloc(&partials, sizeof(DeviceAmp) * kFoldBlocks), what);
  fold_kernel<<<kFoldBlocks, cu::kThreads>>>(count, body, partials);
  cu::check(cudaGetLastError(), what);
  std::vector<DeviceAmp> host(kFoldBlocks);
  cu::check(cudaMemcpy(host.data(), partials, sizeof(DeviceAmp) * kFoldBlocks, cudaMemcpyDeviceToHost), what);
  double r = 0, i = 0;
  for (const DeviceAmp& v : host) {
    r += v.re;
    i += v.im;
  }
  return {r, i};
}

__global__ void add_pauli_kernel(const DeviceAmp* psi, DeviceAmp* out, int64_t N, uint64_t xmask, uint64_t zmask,
                                 DeviceAmp phase) {
  SAMPAN_GRID_STRIDE_LOOP(u, N) add_pauli_image(psi, out, static_cast<uint64_t>(u), xmask, zmask, phase);
}

template <int K> void launch_dense(DeviceAmp* a, int n, const int* targets, uint64_t cmask, const std::complex<double>* m) {
  const int64_t groups = int64_t(1) << (n - K);
  dense_kernel<K><<<cu::blocks_for(groups), cu::kThreads>>>(a, groups, cmask, gate_arg<K>(targets, m));
  cu::check(cudaGetLastError(), "quantum: gate kernel launch");
}

}  // namespace

void zero_state_cuda(DeviceAmp* a, int n) {
  const size_t N = size_t(1) << n;
  cu::check(cudaMemset(a, 0, sizeof(DeviceAmp) * N), "quantum: zero state");
  const DeviceAmp one{1, 0};
  cu::check(cudaMemcpy(a, &one, sizeof one, cudaMemcpyHostToDevice), "quantum: zero state");
}

void apply_dense_cuda(DeviceAmp* a, int n, const int* targets, int k, uint64_t cmask, const std::complex<double>* m) {
  if (k < 1 || k > kMaxCudaGateTargets || k > n)
    throw std::runtime_error("quantum: the CUDA gate kernels take 1 to " + std::to_string(kMaxCudaGateTargets) +
                             " target qubits, got " + std::to_string(k));
  if (k == 1) launch_dense<1>(a, n, targets, cmask, m);
  else if (k == 2) launch_dense<2>(a, n, targets, cmask, m);
  else launch_dense<3>(a, n, targets, cmask, m);
}

std::complex<double> inner_cuda(const DeviceAmp* lam, const DeviceAmp* phi, int n, const int* targets, int k,
                                uint64_t cmask, const std::complex<double>* m) {
  const char* what = "quantum: gate derivative inner product";
  if (k == 1) return fold(int64_t(1) << (n - 1), InnerBody<1>{lam, phi, cmask, gate_arg<1>(targets, m)}, what);
  if (k == 2) return fold(int64_t(1) << (n - 2), InnerBody<2>{lam, phi, cmask, gate_arg<2>(targets, m)}, what);
  throw std::runtime_error("quantum: a gate derivative on " + std::to_string(k) + " targets (1 or 2 expected)");
}

std::complex<double> pauli_term_cuda(const DeviceAmp* psi, int n, uint64_t xmask, uint64_t zmask) {
  return fold(int64_t(1) << n, PauliBody{psi, xmask, zmask}, "quantum: Pauli expectation");
}

void add_pauli_term_cuda(const DeviceAmp* psi, DeviceAmp* out, int n, uint64_t xmask, uint64_t zmask,
                         std::complex<double> phase) {
  const int64_t N = int64_t(1) << n;
  add_pauli_kernel<<<cu::blocks_for(N), cu::kThreads>>>(psi, out, N, xmask, zmask, DeviceAmp{phase.real(), phase.imag()});
  cu::check(cudaGetLastError(), "quantum: H psi");
}

}  // namespace sampan::quantum::kernels
