// sampan: which BLAS matmul calls (the kernels know; this is the public face).
#include "sampan/blas_info.h"

#include "kernels/gemm.h"
#include "kernels/gemm_bf16.h"

namespace sampan {

std::string blas_library() { return kernels::blas_library(); }
std::string bf16_gemm_library() { return kernels::gemm_bf16_library(); }
int blas_num_threads() { return kernels::get_blas_num_threads(); }

}  // namespace sampan
