// sampan kernels: the bfloat16 GEMM through oneDNN (see gemm_bf16.h).
#include "gemm_bf16.h"

#include "sampan/error.h"

#if SAMPAN_HAVE_ONEDNN
#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace sampan::kernels {

#if SAMPAN_HAVE_ONEDNN
namespace {

using dt = dnnl::memory::data_type;

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// A matmul primitive per geometry: creating one (its descriptor picks and JIT-compiles a kernel)
// costs far more than a small product, and training repeats the same few shapes every step. The
// thread count is part of the key: a primitive keeps the one it was created with.
using Geometry = std::tuple<int, int, bool, bool, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int>;
constexpr size_t kMaxCached = 512;  // a run with ever-new shapes drops the table rather than grow

dnnl::memory::desc matrix(int64_t rows, int64_t cols, int64_t ld, bool trans, dt type) {
  // op(X) is rows x cols; stored transposed, its element (i, j) is at j * ld + i.
  return dnnl::memory::desc({rows, cols}, type, trans ? dnnl::memory::dims{1, ld} : dnnl::memory::dims{ld, 1});
}

struct Prepared {
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul mm;
};

const Prepared& primitive(dt in, dt out, bool ta, bool tb, int64_t m, int64_t n, int64_t k, int64_t lda,
                              int64_t ldb, int64_t ldc) {
  static std::mutex lock;
  static std::map<Geometry, Prepared> cache;
  const Geometry key{static_cast<int>(in), static_cast<int>(out), ta, tb, m, n, k, lda, ldb, ldc,
                     omp_get_max_threads()};
  std::lock_guard<std::mutex> hold(lock);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  if (cache.size() >= kMaxCached) cache.clear();
  dnnl::matmul::primitive_desc pd(
      dnnl::matmul::desc(matrix(m, k, lda, ta, in), matrix(k, n, ldb, tb, in), matrix(m, n, ldc, false, out)),
      cpu_engine());
  return cache.emplace(key, Prepared{pd, dnnl::matmul(pd)}).first->second;
}

void run(dt in, dt out, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda,
         const void* b, int64_t ldb, void* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  try {
    const Prepared& prepared = primitive(in, out, ta, tb, m, n, k, std::max<int64_t>(lda, 1),
                                       std::max<int64_t>(ldb, 1), std::max<int64_t>(ldc, 1));
    const dnnl::matmul::primitive_desc& pd = prepared.pd;
    dnnl::memory ma(pd.src_desc(), cpu_engine(), const_cast<void*>(a));
    dnnl::memory mb(pd.weights_desc(), cpu_engine(), const_cast<void*>(b));
    dnnl::memory mc(pd.dst_desc(), cpu_engine(), c);
    dnnl::stream stream(cpu_engine());
    prepared.mm.execute(stream, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}});
    stream.wait();
  } catch (const dnnl::error& e) {
    SAMPAN_THROW(RuntimeError, "matmul: oneDNN failed on a ", m, " x ", k, " by ", k, " x ", n,
                 " product: ", e.what());
  }
}

std::string onednn_version() {
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

// oneDNN builds a bfloat16 matmul only on CPUs with the instructions for it (AVX512 and up in
// Debian 12's oneDNN 2.7; an AVX2-only CPU gets "could not create a primitive descriptor"): asked
// once, with a small product, so matmul takes its float32 convert path elsewhere.
bool bf16_matmul_on_this_cpu() {
  static const bool ok = [] {
    try {
      dnnl::matmul::primitive_desc pd(
          dnnl::matmul::desc(matrix(2, 2, 2, false, dt::bf16), matrix(2, 2, 2, false, dt::bf16),
                             matrix(2, 2, 2, false, dt::bf16)),
          cpu_engine());
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return ok;
}

}  // namespace

bool gemm_bf16_available() { return bf16_matmul_on_this_cpu(); }

std::string gemm_bf16_library() {
  if (!bf16_matmul_on_this_cpu())
    return "none (" + onednn_version() + " has no bfloat16 matmul on this CPU: float32 convert path)";
  return onednn_version();
}

void require_bf16() {
  SAMPAN_CHECK(bf16_matmul_on_this_cpu(), NotImplementedError, "bfloat16 GEMM: ", gemm_bf16_library());
}

void gemm_bf16(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const BFloat16* a, int64_t lda, const BFloat16* b,
               int64_t ldb, BFloat16* c, int64_t ldc) {
  require_bf16();
  run(dt::bf16, dt::bf16, ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
}
void gemm_bf16(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const BFloat16* a, int64_t lda, const BFloat16* b,
               int64_t ldb, float* c, int64_t ldc) {
  require_bf16();
  run(dt::bf16, dt::f32, ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
}
void gemm_f32_same_library(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                           const float* b, int64_t ldb, float* c, int64_t ldc) {
  run(dt::f32, dt::f32, ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
}

#else  // no oneDNN in this build: matmul takes its float32 convert path

bool gemm_bf16_available() { return false; }
std::string gemm_bf16_library() { return "none (float32 convert path)"; }

namespace {
[[noreturn]] void no_library() {
  SAMPAN_THROW(NotImplementedError, "bfloat16 GEMM: this build has no oneDNN (install libdnnl-dev and reconfigure)");
}
}  // namespace
void gemm_bf16(bool, bool, int64_t, int64_t, int64_t, const BFloat16*, int64_t, const BFloat16*, int64_t, BFloat16*,
               int64_t) { no_library(); }
void gemm_bf16(bool, bool, int64_t, int64_t, int64_t, const BFloat16*, int64_t, const BFloat16*, int64_t, float*,
               int64_t) { no_library(); }
void gemm_f32_same_library(bool, bool, int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t,
                           float*, int64_t) { no_library(); }
#endif

}  // namespace sampan::kernels
