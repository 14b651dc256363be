// sampan quantum op: quantum::sample (seeded Z-basis shots of a state vector or density matrix,
// from sampan's Philox stream).
#include <algorithm>
#include <numeric>
#include <string>

#include "kernels/measurement.h"
#include "op_args.h"
#include "op_samples.h"

namespace sampan::quantum {

using namespace op_args;

namespace {

using C = complex128;

// The shots from the outcome probabilities p (on the host): inverse CDF of uniforms from sampan's
// Philox stream (core::rand with this seed and offset), so the shots depend only on (seed,
// offset), as every random op. out: int64 [shots] on the host.
void shots_from(std::vector<double> cdf, int64_t shots, int64_t seed, int64_t offset, int64_t* o) {
  const char* who = "quantum::sample";
  for (auto& x : cdf) x = std::max(0.0, x);  // rounding can leave -1e-17 on a zero probability
  std::partial_sum(cdf.begin(), cdf.end(), cdf.begin());
  const double total = cdf.back();
  SAMPAN_CHECK(total > 0, ValueError, who, ": the state has zero norm");
  const Tensor u = call_op("core::rand", {IntList{shots}, std::string("float64"), seed, offset})[0].contiguous();
  const double* up = u.data<double>();
  for (int64_t i = 0; i < shots; ++i) {
    const double x = up[i] * total;
    const auto it = std::upper_bound(cdf.begin(), cdf.end(), x);
    o[i] = std::min<int64_t>(static_cast<int64_t>(it - cdf.begin()), static_cast<int64_t>(cdf.size()) - 1);
  }
}

void sample_cpu(const Tensor& state, const IntList& qubits, int64_t shots, int64_t seed, int64_t offset, Tensor& out) {
  const char* who = "quantum::sample";
  const auto k = state_kind(TensorSpec(state), who);
  const auto q = measured(qubits, k.n, who);
  const Tensor s = as_c128(state);
  std::vector<double> p(size_t(1) << q.size());
  kernels::marginal_probabilities(s.data<C>(), k.n, k.density_matrix, q, p.data());
  shots_from(std::move(p), shots, seed, offset, out.data<int64_t>());
}

#if defined(SAMPAN_CUDA_KERNELS)
// On the GPU: the probabilities there (quantum::probabilities' twin), 2^m numbers brought back,
// the shots drawn on the host as on the CPU (its shots, up to a uniform within rounding of a
// cumulative probability), and moved to the state's device.
void sample_cuda(const Tensor& state, const IntList& qubits, int64_t shots, int64_t seed, int64_t offset, Tensor& out) {
  static OpHandle probabilities("quantum::probabilities");
  const Tensor p = to_device(probabilities(state, qubits)[0], cpu_device()).contiguous();
  Tensor host = Tensor::empty({shots}, DType::Int64);
  shots_from(std::vector<double>(p.data<double>(), p.data<double>() + p.numel()), shots, seed, offset,
             host.data<int64_t>());
  copy_(out, to_device(host, out.device()));
}
#endif

}  // namespace

SAMPAN_OP(quantum, sample)
    .doc(std::string("`shots` Z-basis measurement outcomes (int64 [shots], each an outcome b of the measured "
                     "qubits) drawn from the state's probabilities by inverse CDF of uniforms from sampan's Philox "
                     "stream (seed, offset): the same (seed, offset) gives the same shots on any thread count.") +
         kStateDoc)
    .args("state", "qubits", "shots", "seed", "offset")
    .outputs("outcomes")
    .shape([](const TensorSpec& state, const IntList& qubits, int64_t shots, int64_t, int64_t) {
      const auto k = state_kind(state, "quantum::sample");
      measured(qubits, k.n, "quantum::sample");
      SAMPAN_CHECK(shots >= 0, ValueError, "quantum::sample: shots must be >= 0, got ", shots);
      return TensorSpec{{shots}, DType::Int64, state.device};
    })
    .cpu(sample_cpu)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(sample_cuda)
#endif
    .nondifferentiable()
    .dtypes({DType::Complex128, DType::Complex64})
    .sample([] { return Values{samples::state(false), IntList{0, 2}, int64_t(50), int64_t(7), int64_t(3)}; })
    .sample([] { return Values{samples::state(true), IntList{}, int64_t(20), int64_t(1), int64_t(0)}; });

}  // namespace sampan::quantum
