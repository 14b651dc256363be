// sampan GPU benchmark: the ops with CUDA twins, timed on cuda:0 against the CPU (1 thread and all
// threads) in one run, and the GPU's effective bandwidth against a device-to-device copy measured
// in the same run (the bandwidth bound these memory-bound ops can reach). Sizes: elementwise add and
// mul over 2^28 float32 (dense, a row broadcast, a transposed operand); sums of 2^28 float32 (all,
// rows, columns), exp, a perceptron's training step; matmul against cuBLAS called directly; a message-passing
// batch of 100,000 nodes x 256 features and 400,000 edges; DeePMD's se_e2_a ops for 12,288 centres
// x 138 slots (sel 46 + 92, 15% empty), the size of the replicated 12,000-atom water box, and a
// compressed model's tabulated_contract at that size; a dense 1-qubit gate on a 30-qubit
// complex128 state at four targets, and that state's probabilities of 1 and 10 qubits against
// copying it to the host; float16 and bfloat16 matmul (autocast's products) against float32.
//
//   build/bench/gpu_ops_bench [REPEATS]      (prints the reason and exits 0 where there is no GPU)
//
// GPU times are wall clock per call, synchronized, min of REPEATS; they include what the op layer
// does on the host (the index checks: a copy of the index to the host, as on the CPU).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#if defined(SAMPAN_BENCH_CUBLAS)
#include <cublas_v2.h>
#endif

#include "sampan/autograd.h"
#include "sampan/cuda.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "sampan/threads.h"

using namespace sampan;

#if defined(SAMPAN_BENCH_DEEPMD)
extern "C" int sampan_deepmd_bridge_registered();
#endif
#if defined(SAMPAN_BENCH_QUANTUM)
#include "kernels/gates.h"
#include "kernels/gates_cuda.h"
#endif

namespace {

const Device kGpu{DeviceType::CUDA, 0};

double min_time(int repeats, const std::function<void()>& body) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    body();
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

struct Case {
  std::string name;
  double bytes;                                    // compulsory traffic of one call
  std::function<void(const std::vector<Tensor>&)> run;
  std::vector<Tensor> cpu_args;
};

void report(const Case& c, int repeats, double copy_bandwidth, int all_threads) {
  std::vector<Tensor> gpu_args;
  for (const Tensor& t : c.cpu_args) gpu_args.push_back(to_device(t, kGpu));
  auto on_gpu = [&] {
    c.run(gpu_args);
    cuda::synchronize();
  };
  on_gpu();  // warm-up: the allocator's cache, the kernels' first launch
  const double gpu = min_time(repeats, on_gpu);
  set_num_threads(1);
  const double cpu1 = min_time(std::max(2, repeats / 5), [&] { c.run(c.cpu_args); });
  set_num_threads(all_threads);
  const double cpun = min_time(std::max(2, repeats / 5), [&] { c.run(c.cpu_args); });
  const double bw = c.bytes / gpu;
  std::printf("%-26s %10.3f %10.3f %10.3f %8.1fx %8.1fx %9.0f %7.2f\n", c.name.c_str(), cpu1 * 1e3, cpun * 1e3,
              gpu * 1e3, cpu1 / gpu, cpun / gpu, bw / 1e9, bw / copy_bandwidth);
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 20;
  if (!cuda::is_available()) {
    std::printf("gpu_ops_bench: no GPU in this process (%s); nothing to measure\n", cuda::unavailable_reason().c_str());
    return 0;
  }
  const int all_threads = omp_get_max_threads();
  std::printf("GPU: %s\nCPU: %d threads\n", cuda::device_description().c_str(), all_threads);

  // The bound: a device-to-device copy of 1 GiB (clone: read + write).
  Tensor big = to_device(zeros({int64_t{1} << 28}, DType::Float32), kGpu);
  (void)clone(big);
  cuda::synchronize();
  const double t_copy = min_time(repeats, [&] {
    (void)clone(big);
    cuda::synchronize();
  });
  const double copy_bandwidth = 2.0 * static_cast<double>(big.nbytes()) / t_copy;
  big = Tensor();
  std::printf("device-to-device copy, 1 GiB: %.0f GB/s (read + write)\n\n", copy_bandwidth / 1e9);
  std::printf("%-26s %10s %10s %10s %9s %9s %9s %7s\n", "op", "CPU1 ms", "CPUn ms", "GPU ms", "vs CPU1", "vs CPUn",
              "GPU GB/s", "/copy");

  Generator gen(7);
  std::vector<Case> cases;
  {  // elementwise: 2^28 float32 (1 GiB per operand), dense and with a row broadcast
    const int64_t n = int64_t{1} << 28, cols = 4096;
    Tensor a = randn({n / cols, cols}, DType::Float32, &gen), b = randn({n / cols, cols}, DType::Float32, &gen);
    Tensor row = randn({cols}, DType::Float32, &gen);
    const double gib = static_cast<double>(n) * 4;
    cases.push_back({"add 2^28 float32", 3 * gib, [](const std::vector<Tensor>& t) { (void)add(t[0], t[1]); }, {a, b}});
    cases.push_back({"mul 2^28 float32", 3 * gib, [](const std::vector<Tensor>& t) { (void)mul(t[0], t[1]); }, {a, b}});
    cases.push_back({"add [65536x4096]+[4096]", 2 * gib, [](const std::vector<Tensor>& t) { (void)add(t[0], t[1]); },
                     {a, row}});
    cases.push_back({"add transposed 2^28", 3 * gib,
                     [](const std::vector<Tensor>& t) { (void)add(transpose(t[0], 0, 1), t[1]); },
                     {a, transpose(b, 0, 1).contiguous()}});
  }
  {  // reductions, a math-library op and a training step over the ops that now have CUDA twins
    const int64_t rows = 65536, cols = 4096;
    Tensor a = randn({rows, cols}, DType::Float32, &gen);
    const double gib = static_cast<double>(rows * cols) * 4;
    cases.push_back({"sum 2^28 float32 (all)", gib, [](const std::vector<Tensor>& t) { (void)sum(t[0]); }, {a}});
    cases.push_back({"sum [65536x4096] rows", gib, [](const std::vector<Tensor>& t) { (void)sum(t[0], {1}); }, {a}});
    cases.push_back({"sum [65536x4096] columns", gib, [](const std::vector<Tensor>& t) { (void)sum(t[0], {0}); }, {a}});
    cases.push_back({"exp 2^28 float32", 2 * gib, [](const std::vector<Tensor>& t) { (void)exp(t[0]); }, {a}});
    // A perceptron's training step: [8192, 512] -> 512 -> relu -> 1, mean squared error, backward.
    Tensor x = randn({8192, 512}, DType::Float32, &gen), w1 = randn({512, 512}, DType::Float32, &gen);
    Tensor w2 = randn({512, 1}, DType::Float32, &gen), y = randn({8192, 1}, DType::Float32, &gen);
    cases.push_back({"MLP step 8192x512x512", 0.0,
                     [](const std::vector<Tensor>& t) {
                       Tensor w1 = t[1].detach(), w2 = t[2].detach();
                       w1.requires_grad_(true);
                       w2.requires_grad_(true);
                       Tensor loss = mean(square(sub(matmul(relu(matmul(t[0], w1)), w2), t[3])));
                       backward({loss});
                     },
                     {x, w1, w2, y}});
  }
  {
    const int64_t n = 100000, e = 400000, f = 256;
    Tensor x = randn({n, f}, DType::Float32, &gen);
    Tensor src = randn({e, f}, DType::Float32, &gen);
    Tensor edges = randint(0, n, {e}, DType::Int64, &gen);
    Tensor sorted_ids = sort(edges, 0).first;
    const double row = static_cast<double>(f) * 4;
    cases.push_back({"index_select [1e5x256]->4e5", e * row * 2 + e * 8.0,
                     [](const std::vector<Tensor>& a) { (void)index_select(a[0], 0, a[1]); }, {x, edges}});
    cases.push_back({"index_add 4e5 rows->1e5", e * row + n * row * 2 + e * 8.0,
                     [](const std::vector<Tensor>& a) { (void)index_add(a[0], 0, a[1], a[2]); }, {x, edges, src}});
    cases.push_back({"segment_sum 4e5->1e5 rows", e * row + n * row + e * 8.0,
                     [n](const std::vector<Tensor>& a) { (void)segment_sum(a[0], a[1], n); }, {src, sorted_ids}});
    cases.push_back({"segment_max 4e5->1e5 rows", e * row + n * row * 3 + e * 8.0,
                     [n](const std::vector<Tensor>& a) { (void)segment_max_with_arg(a[0], a[1], n); }, {src, sorted_ids}});
  }
#if defined(SAMPAN_BENCH_DEEPMD)
  if (sampan_deepmd_bridge_registered() == 1) {
    const int64_t nloc = 12288, nnei = 138, nall = 24576, nt = 2;
    Tensor coord = uniform({nall, 3}, 0.0, 48.0, DType::Float64, &gen);
    Tensor atype = randint(0, nt, {nall}, DType::Int64, &gen);
    // neighbours among the ghosts (rows nloc..nall): no centre is its own neighbour
    Tensor nlist = randint(nloc, nall, {nloc, nnei}, DType::Int64, &gen);
    // 15% empty slots (-1), as a real neighbour list's padding
    Tensor empty = lt(rand({nloc, nnei}, DType::Float64, &gen), scalar_tensor(0.15, DType::Float64));
    nlist = where(empty, scalar_tensor(-1.0, DType::Int64), nlist);
    Tensor davg = uniform({nt, nnei * 4}, -0.1, 0.1, DType::Float64, &gen);
    Tensor dstd = uniform({nt, nnei * 4}, 0.5, 1.0, DType::Float64, &gen);
    static OpHandle env("deepmd::prod_env_mat_a"), force("deepmd::prod_force_se_a"), virial("deepmd::prod_virial_se_a");
    auto em = env(coord, atype, nlist, davg, dstd, 40.0, 1.0);
    Tensor net_deriv = randn({nloc, nnei * 4}, DType::Float64, &gen);
    const double slots = static_cast<double>(nloc * nnei);
    cases.push_back({"prod_env_mat_a 12288x138", slots * (4 + 12 + 3 + 8 * 2) * 8.0,
                     [](const std::vector<Tensor>& a) { (void)env(a[0], a[1], a[2], a[3], a[4], 40.0, 1.0); },
                     {coord, atype, nlist, davg, dstd}});
    cases.push_back({"prod_force_se_a", slots * (4 + 12) * 8.0 + slots * 8.0 + nall * 3 * 8.0,
                     [nall](const std::vector<Tensor>& a) { (void)force(a[0], a[1], a[2], nall); },
                     {net_deriv, em[1], nlist}});
    cases.push_back({"prod_virial_se_a", slots * (4 + 12 + 3) * 8.0 + slots * 8.0 + nall * 9 * 8.0,
                     [nall](const std::vector<Tensor>& a) { (void)virial(a[0], a[1], a[2], a[3], nall); },
                     {net_deriv, em[1], em[2], nlist}});
    // A compressed model's fused contraction (water's table: 1,287 intervals x 6 x M = 100).
    static OpHandle contract("deepmd::tabulated_contract");
    const int64_t intervals = 1287, M = 100;
    Tensor table = uniform({intervals, 6, M}, -1.0, 1.0, DType::Float64, &gen);
    Tensor X = uniform({nloc, nnei, 4}, -1.0, 1.0, DType::Float64, &gen);
    Tensor s = uniform({nloc, nnei}, 0.0, 2.0, DType::Float64, &gen);
    cases.push_back({"tabulated_contract M=100", slots * (4 + 1) * 8.0 + nloc * 4 * M * 8.0,
                     [](const std::vector<Tensor>& a) { (void)contract(a[0], a[1], a[2], 0.0, 1.2, 0.01, 0.1, int64_t{0}); },
                     {X, s, table}});
  }
#endif
  for (const Case& c : cases) report(c, repeats, copy_bandwidth, all_threads);
  std::printf("\nGPU GB/s: compulsory bytes of one call / GPU time; /copy: that over the 1 GiB copy's rate.\n");
#if defined(SAMPAN_BENCH_QUANTUM)
  {  // One dense 1-qubit gate on a 30-qubit complex128 state (16 GiB, read and written once) on
     // the GPU; the CPU (all threads, the AVX2 kernel) on 26 qubits, scaled by 16 to 30.
    const int n = 30, n_cpu = 26;
    const std::complex<double> m[4] = {{0.6, 0.0}, {0.0, -0.8}, {0.0, -0.8}, {0.6, 0.0}};
    Tensor psi = Tensor::empty({int64_t(1) << n}, DType::Complex128, kGpu);
    auto* amps = reinterpret_cast<quantum::kernels::DeviceAmp*>(psi.raw_data());
    quantum::kernels::zero_state_cuda(amps, n);
    std::vector<std::complex<double>> host(size_t(1) << n_cpu, 0.0);
    host[0] = 1;
    std::printf("\n%-26s %10s %10s %9s %9s %7s\n", "1-qubit gate, 30 qubits", "CPUn ms*16", "GPU ms", "vs CPUn",
                "GPU GB/s", "/copy");
    for (int t : {0, 5, 15, 29}) {
      auto gate = [&] {
        quantum::kernels::apply_dense_cuda(amps, n, &t, 1, 0, m);
        cuda::synchronize();
      };
      gate();
      const double gpu = min_time(repeats, gate);
      const int tc = std::min(t, n_cpu - 1);
      const double cpu = 16 * min_time(3, [&] { quantum::kernels::apply_1q(host.data(), n_cpu, tc, m); });
      const double bw = 2.0 * static_cast<double>(psi.nbytes()) / gpu;
      std::printf("target %-19d %10.1f %10.3f %8.1fx %9.0f %7.2f\n", t, cpu * 1e3, gpu * 1e3, cpu / gpu, bw / 1e9,
                  bw / copy_bandwidth);
    }
    // Measurement: the probabilities of 1 and of 10 qubits summed on the GPU (16 GiB read), and
    // what it replaced, the state copied to the host (copy only, the CPU's sum not counted).
    static OpHandle probabilities("quantum::probabilities");
    std::printf("\n%-26s %10s %9s %7s\n", "probabilities, 30 qubits", "GPU ms", "GPU GB/s", "/copy");
    for (const std::vector<int64_t>& q : std::vector<std::vector<int64_t>>{{0}, {0, 3, 6, 9, 12, 15, 18, 21, 24, 27}}) {
      auto run = [&] {
        (void)probabilities(psi, q);
        cuda::synchronize();
      };
      run();
      const double gpu = min_time(repeats, run), bw = static_cast<double>(psi.nbytes()) / gpu;
      std::printf("%2zu measured qubit(s)        %10.3f %9.0f %7.2f\n", q.size(), gpu * 1e3, bw / 1e9,
                  bw / copy_bandwidth);
    }
    const double to_host = min_time(2, [&] { (void)to_device(psi, cpu_device()); });
    std::printf("the state copied to the host %8.1f ms (the old path's copy alone)\n", to_host * 1e3);
  }
#endif
#if defined(SAMPAN_BENCH_CUBLAS)
  // core::matmul on the GPU against cuBLAS called directly on the same device buffers (the bound
  // of a twin that is cuBLAS plus the op layer's work).
  std::printf("\n%-26s %12s %12s %8s\n", "matmul n x n x n", "sampan TF/s", "cuBLAS TF/s", "ratio");
  cublasHandle_t handle = nullptr;
  cublasCreate(&handle);
  for (DType dt : {DType::Float32, DType::Float64}) {
    for (int64_t n : {1024, 4096, 8192}) {
      Tensor a = to_device(randn({n, n}, dt, &gen), kGpu), b = to_device(randn({n, n}, dt, &gen), kGpu);
      Tensor c = to_device(zeros({n, n}, dt), kGpu);
      auto ours = [&] {
        (void)matmul(a, b);
        cuda::synchronize();
      };
      auto direct = [&] {
        const int k = static_cast<int>(n);
        if (dt == DType::Float32) {
          const float one = 1, zero = 0;
          cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, k, k, k, &one, static_cast<const float*>(b.raw_data()), k,
                      static_cast<const float*>(a.raw_data()), k, &zero, static_cast<float*>(c.raw_data()), k);
        } else {
          const double one = 1, zero = 0;
          cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, k, k, k, &one, static_cast<const double*>(b.raw_data()), k,
                      static_cast<const double*>(a.raw_data()), k, &zero, static_cast<double*>(c.raw_data()), k);
        }
        cuda::synchronize();
      };
      ours();
      direct();
      const double flops = 2.0 * n * n * n, t_ours = min_time(repeats, ours), t_direct = min_time(repeats, direct);
      std::printf("%-7s %-18lld %12.1f %12.1f %8.3f\n", dtype_name(dt), static_cast<long long>(n),
                  flops / t_ours / 1e12, flops / t_direct / 1e12, t_direct / t_ours);
    }
  }
  cublasDestroy(handle);
  // The 16-bit products of autocast: cublasGemmEx with float32 accumulation, against float32.
  std::printf("\n%-26s %12s %12s %8s\n", "matmul n x n x n", "16-bit TF/s", "float32 TF/s", "speed-up");
  for (DType dt : {DType::Float16, DType::BFloat16}) {
    for (int64_t n : {4096, 8192}) {
      Tensor a = to_device(randn({n, n}, DType::Float32, &gen), kGpu), b = to_device(randn({n, n}, DType::Float32, &gen), kGpu);
      Tensor ah = a.to(dt), bh = b.to(dt);
      auto low = [&] {
        (void)matmul(ah, bh);
        cuda::synchronize();
      };
      auto full = [&] {
        (void)matmul(a, b);
        cuda::synchronize();
      };
      low();
      full();
      const double flops = 2.0 * n * n * n, t_low = min_time(repeats, low), t_full = min_time(repeats, full);
      std::printf("%-9s %-16lld %12.1f %12.1f %8.2f\n", dtype_name(dt), static_cast<long long>(n), flops / t_low / 1e12,
                  flops / t_full / 1e12, t_full / t_low);
    }
  }
#endif
  return 0;
}
