// sampan: which BLAS matmul calls, for benchmarks, bug reports and tests.
#pragma once

#include <string>

namespace sampan {

/// The BLAS behind float and complex matmul: "scipy-openblas32: <OpenBLAS config>, core <kernels>"
/// (PyPI's wheel, the default where the build found it), "system OpenBLAS: ..." (Debian's) or
/// "none (loop kernel)". The configure summary says which one and why.
std::string blas_library();
/// The size of the BLAS's own thread pool, which set_num_threads() sizes too; 0 where the BLAS
/// keeps none that can be asked.
int blas_num_threads();
/// The library behind bfloat16 matmul: "oneDNN <version> (<isa>)", or "none (float32 convert
/// path)" in a build without oneDNN.
std::string bf16_gemm_library();

}  // namespace sampan
