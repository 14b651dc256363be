// sampan kernels: float32 GEMM through oneDNN's sgemm (see sgemm_onednn.h).
#include "sgemm_onednn.h"

#include <algorithm>

#include "sampan/error.h"

#if SAMPAN_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.h>
#endif

namespace sampan::kernels {

bool sgemm_onednn_pays(int64_t m, int64_t n, int64_t k) {
  return sgemm_onednn_available() && m >= kOnednnMinSide && n >= kOnednnMinSide && m * n * k >= kOnednnMinWork;
}

#if SAMPAN_HAVE_ONEDNN

bool sgemm_onednn_available() { return true; }

bool sgemm_onednn(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                  int64_t ldb, float* c, int64_t ldc) {
  const dnnl_status_t status = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, std::max<int64_t>(lda, 1),
                                          b, std::max<int64_t>(ldb, 1), 0.0f, c, std::max<int64_t>(ldc, 1));
  SAMPAN_CHECK(status == dnnl_success, RuntimeError, "matmul: oneDNN's sgemm failed (status ", static_cast<int>(status),
               ") on a ", m, " x ", k, " by ", k, " x ", n, " product (trans_a ", ta, ", trans_b ", tb, ", lda ", lda,
               ", ldb ", ldb, ", ldc ", ldc, ")");
  return true;
}

std::string sgemm_onednn_library() {
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

#else

bool sgemm_onednn_available() { return false; }
bool sgemm_onednn(bool, bool, int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t, float*,
                  int64_t) {
  return false;
}
std::string sgemm_onednn_library() { return "none"; }

#endif

}  // namespace sampan::kernels
