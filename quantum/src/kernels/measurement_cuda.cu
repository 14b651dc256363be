// The GPU's Z-basis measurement of a state vector: one thread per (outcome, part) folding its
// range in index order, then one thread per outcome adding its parts in order (deterministic: a
// fixed partition, no atomics); the probabilities' gradient one thread per amplitude.
#include "kernels/measurement_cuda.h"
#include "sampan/cuda_launch.cuh"

namespace sampan::quantum::kernels {

namespace {

namespace cu = sampan::kernels::cuda;
using Amp = sampan::kernels::ComplexElement<double>;

__global__ void marginal_parts_kernel(const Amp* a, MeasuredQubits mq, uint64_t parts, double* out) {
  const int64_t total = static_cast<int64_t>((uint64_t(1) << mq.m) * parts);
  SAMPAN_GRID_STRIDE_LOOP(t, total) {
    const uint64_t b = static_cast<uint64_t>(t) / parts, part = static_cast<uint64_t>(t) % parts;
    out[t] = marginal_part(a, mq, b, part, parts);
  }
}

__global__ void add_parts_kernel(const double* parts_sums, uint64_t parts, int64_t outcomes, double* p) {
  SAMPAN_GRID_STRIDE_LOOP(b, outcomes) {
    double s = 0.0;
    for (uint64_t j = 0; j < parts; ++j) s += parts_sums[static_cast<uint64_t>(b) * parts + j];
    p[b] = s;
  }
}

__global__ void probabilities_vjp_kernel(const Amp* psi, const double* w, MeasuredQubits mq, Amp* out) {
  const int64_t n = static_cast<int64_t>(uint64_t(1) << (mq.density_matrix ? 2 * mq.n : mq.n));
  SAMPAN_GRID_STRIDE_LOOP(i, n) { out[i] = probabilities_vjp_at(psi, w, mq, static_cast<uint64_t>(i)); }
}

__global__ void outcome_mask_kernel(MeasuredQubits mq, uint64_t b, double* out) {
  const int64_t n = static_cast<int64_t>(uint64_t(1) << mq.n);
  SAMPAN_GRID_STRIDE_LOOP(i, n) { out[i] = outcome_mask_at(mq, b, static_cast<uint64_t>(i)); }
}

}  // namespace

void outcome_mask_cuda(const MeasuredQubits& mq, uint64_t b, double* out) {
  const int64_t n = static_cast<int64_t>(uint64_t(1) << mq.n);
  outcome_mask_kernel<<<cu::blocks_for(n), cu::kThreads>>>(mq, b, out);
  cu::check(cudaGetLastError(), "outcome_mask_cuda (launch)");
}

void marginal_probabilities_cuda(const Amp* a, const MeasuredQubits& mq, double* parts, double* p) {
  const uint64_t P = marginal_parts(mq.n, mq.m);
  const int64_t outcomes = static_cast<int64_t>(uint64_t(1) << mq.m), threads = outcomes * static_cast<int64_t>(P);
  marginal_parts_kernel<<<cu::blocks_for(threads), cu::kThreads>>>(a, mq, P, parts);
  cu::check(cudaGetLastError(), "marginal_probabilities_cuda (launch)");
  add_parts_kernel<<<cu::blocks_for(outcomes), cu::kThreads>>>(parts, P, outcomes, p);
  cu::check(cudaGetLastError(), "marginal_probabilities_cuda (launch)");
}

void probabilities_vjp_cuda(const Amp* psi, const double* w, const MeasuredQubits& mq, Amp* out) {
  const int64_t n = static_cast<int64_t>(uint64_t(1) << (mq.density_matrix ? 2 * mq.n : mq.n));
  probabilities_vjp_kernel<<<cu::blocks_for(n), cu::kThreads>>>(psi, w, mq, out);
  cu::check(cudaGetLastError(), "probabilities_vjp_cuda (launch)");
}

}  // namespace sampan::quantum::kernels
