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

void sample_cpu(const Tensor& state, const IntList& qubits, int64_t shots, int64_t seed, int64_t offset, Tensor& out) {
  const char* who = "quantum::sample";
  const auto k = state_kind(TensorSpec(state), who);
  const auto q = measured(qubits, k.n, who);
  const Tensor s = as_c128(state);
  std::vector<double> cdf(size_t(1) << q.size());
  kernels::marginal_probabilities(s.data<C>(), k.n, k.density_matrix, q, cdf.data());
  for (auto& x : cdf) x = std::max(0.0, x);  // rounding can leave -1e-17 on a zero probability
  std::partial_sum(cdf.begin(), cdf.end(), cdf.begin());
  const double total = cdf.back();
  SAMPAN_CHECK(total > 0, ValueError, who, ": the state has zero norm");
  // Uniforms from sampan's Philox stream (core::rand with this seed and offset): the shots depend
  // only on (seed, offset), as every random op.
  const Tensor u = call_op("core::rand", {IntList{shots}, std::string("float64"), seed, offset})[0].contiguous();
  const double* up = u.data<double>();
  int64_t* o = out.data<int64_t>();
  for (int64_t i = 0; i < shots; ++i) {
    const double x = up[i] * total;
    const auto it = std::upper_bound(cdf.begin(), cdf.end(), x);
    o[i] = std::min<int64_t>(static_cast<int64_t>(it - cdf.begin()), static_cast<int64_t>(cdf.size()) - 1);
  }
}

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
    .nondifferentiable()
    .dtypes({DType::Complex128, DType::Complex64})
    .sample([] { return Values{samples::state(false), IntList{0, 2}, int64_t(50), int64_t(7), int64_t(3)}; })
    .sample([] { return Values{samples::state(true), IntList{}, int64_t(20), int64_t(1), int64_t(0)}; });

}  // namespace sampan::quantum
