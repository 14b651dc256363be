// sampan quantum (internal): circuits on a state vector in GPU memory, the CUDA twins of
// simulate / expectation_value / adjoint_gradient / statevector_vjp (circuit.h). Gate matrices are
// resolved on the host from host parameters (as on the CPU) and applied by the kernels of
// kernels/gates_cuda.h; the gradient sweeps are adjoint_sweep.h's, shared with the CPU. Compiled
// only where nvcc exists (SAMPAN_CUDA_KERNELS). Tensors here are complex128 on cuda:0, contiguous.
#pragma once

#include <vector>

#include "sampan/quantum/circuit.h"
#include "sampan/tensor.h"

namespace sampan::quantum {

/// The state after the circuit from |0...0>, written into `out` [2^n].
void simulate_cuda(const double* params, const std::vector<Gate>& gates, const std::vector<double>& constants, int n,
                   Tensor& out);
/// <psi|H|psi> of a GPU state.
double expectation_value_cuda(const Tensor& psi, const std::vector<PauliTerm>& h, int n);
/// dE/dparams (host grad, n_params entries) with both sweep states on the GPU.
void adjoint_gradient_cuda(const double* params, int64_t n_params, const std::vector<Gate>& gates,
                           const std::vector<double>& constants, const std::vector<PauliTerm>& h, int n, double* grad);
/// d Re<cotangent, psi>/dparams for a GPU cotangent [2^n] (host grad, n_params entries).
void statevector_vjp_cuda(const double* params, int64_t n_params, const std::vector<Gate>& gates,
                          const std::vector<double>& constants, int n, const Tensor& cotangent, double* grad);

}  // namespace sampan::quantum
