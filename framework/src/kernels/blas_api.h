// sampan kernels: the one place that names the BLAS's C functions, so that every call site builds
// against either BLAS the configure step can pick (cmake/sampan_options.cmake, SAMPAN_BLAS):
//
//   scipy-openblas  PyPI's scipy-openblas32 wheel (the OpenBLAS SciPy and NumPy ship, a newer
//                   generation than Debian's: its Sapphire Rapids kernels run float32 GEMM about
//                   1.7x faster here). Its exported names carry a `scipy_` prefix
//                   (scipy_cblas_sgemm, scipy_openblas_set_num_threads), so it coexists in one
//                   process with NumPy's own copy (scipy_..._64_ names) and with Debian's.
//                   The build defines SAMPAN_BLAS_SCIPY_OPENBLAS and puts the wheel's include
//                   folder, whose cblas.h declares the prefixed names, first on the path.
//   system          Debian's libopenblas (unprefixed cblas_* and openblas_*), or any CBLAS.
//   none            no <cblas.h>: gemm.cpp uses its loop kernel.
//
// Call sites use SAMPAN_CBLAS(sgemm) and the inline functions below, never a cblas_ or openblas_
// name directly.
#pragma once

#if defined(SAMPAN_BLAS_SCIPY_OPENBLAS)
#include <cblas.h>  // the wheel's: declares scipy_cblas_* and scipy_openblas_*
#define SAMPAN_HAVE_BLAS 1
#define SAMPAN_HAVE_OPENBLAS 1
#define SAMPAN_CBLAS(name) scipy_cblas_##name
#define SAMPAN_OPENBLAS(name) scipy_openblas_##name
#define SAMPAN_BLAS_LIBRARY_NAME "scipy-openblas32"
#elif __has_include(<cblas.h>)
#include <cblas.h>
#define SAMPAN_HAVE_BLAS 1
#define SAMPAN_CBLAS(name) cblas_##name
#if defined(OPENBLAS_VERSION)  // OpenBLAS's cblas.h also declares its thread and config calls
#define SAMPAN_HAVE_OPENBLAS 1
#define SAMPAN_OPENBLAS(name) openblas_##name
#define SAMPAN_BLAS_LIBRARY_NAME "system OpenBLAS"
#else
#define SAMPAN_HAVE_OPENBLAS 0
#define SAMPAN_BLAS_LIBRARY_NAME "system CBLAS"
#endif
#else
#define SAMPAN_HAVE_BLAS 0
#define SAMPAN_HAVE_OPENBLAS 0
#define SAMPAN_BLAS_LIBRARY_NAME "none (loop kernel)"
#endif

#include <string>

namespace sampan::kernels::blas_api {

/// Sizes OpenBLAS's own pthread pool (it ignores OpenMP's setting); a no-op for other BLAS builds.
inline void set_num_threads(int n) {
#if SAMPAN_HAVE_OPENBLAS
  SAMPAN_OPENBLAS(set_num_threads)(n);
#else
  (void)n;
#endif
}

/// The size of OpenBLAS's pool; 0 where the BLAS keeps none that can be asked (or there is none).
inline int get_num_threads() {
#if SAMPAN_HAVE_OPENBLAS
  return SAMPAN_OPENBLAS(get_num_threads)();
#else
  return 0;
#endif
}

/// Which BLAS this build calls, as "<library>: <its build configuration>, core <kernel set>".
inline std::string describe() {
  std::string text = SAMPAN_BLAS_LIBRARY_NAME;
#if SAMPAN_HAVE_OPENBLAS
  text += std::string(": ") + SAMPAN_OPENBLAS(get_config)();
  text += std::string(", core ") + SAMPAN_OPENBLAS(get_corename)();
#endif
  return text;
}

}  // namespace sampan::kernels::blas_api
