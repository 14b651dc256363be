// CUDA twins of the state-vector measurement kernels (measurement.h) over the bodies of
// measurement_element.h, defined in measurement_cuda.cu and compiled only where nvcc exists
// (SAMPAN_CUDA_KERNELS). Device pointers; asynchronous on the default stream; errors leave as
// std::runtime_error.
#pragma once

#include <cstdint>

#include "kernels/measurement_element.h"

namespace sampan::quantum::kernels {

/// p[b] for b < 2^m: the probabilities of the outcomes of mq.q on the state a (2^n amplitudes,
/// or a 2^n x 2^n density matrix), folded in marginal_parts(n, m) parts each; parts: device scratch of
/// 2^m * marginal_parts(n, m) doubles.
void marginal_probabilities_cuda(const sampan::kernels::ComplexElement<double>* a, const MeasuredQubits& mq,
                                 double* parts, double* p);

/// out[i] = outcome_mask_at(mq, b, i) for i < 2^n (float64): the projector of measure's twin.
void outcome_mask_cuda(const MeasuredQubits& mq, uint64_t b, double* out);

/// probabilities_vjp_at for every element of the state (2^n, or 4^n for a density matrix).
void probabilities_vjp_cuda(const sampan::kernels::ComplexElement<double>* psi, const double* w,
                            const MeasuredQubits& mq, sampan::kernels::ComplexElement<double>* out);

}  // namespace sampan::quantum::kernels
