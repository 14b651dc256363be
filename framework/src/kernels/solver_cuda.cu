// cuSOLVER behind kernels/solver_cuda.h: one call per matrix of a batch with one workspace sized
// for the batch's matrix shape, one cuSOLVER handle per host thread (made on first use and kept,
// as cuBLAS's in gemm_cuda.cu), the info words copied back once per batch. Never run on a GPU yet
// (docs/gpu.md).
#include <cusolverDn.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda_memory.h"
#include "solver_cuda.h"
#include "sampan/cuda_launch.cuh"

namespace sampan::kernels {

namespace {

void check_solver(cusolverStatus_t status, const char* what) {
  if (status != CUSOLVER_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuSOLVER error in ") + what + ": status " + std::to_string(int(status)));
}

struct Solver {
  cusolverDnHandle_t handle = nullptr;
  cusolverDnParams_t params = nullptr;
};

const Solver& solver() {
  thread_local Solver s = [] {
    Solver made;
    check_solver(cusolverDnCreate(&made.handle), "cusolverDnCreate");
    check_solver(cusolverDnCreateParams(&made.params), "cusolverDnCreateParams");
    return made;
  }();
  return s;
}

template <class T> cudaDataType data_type() {
  if constexpr (std::is_same_v<T, float>) return CUDA_R_32F;
  else if constexpr (std::is_same_v<T, double>) return CUDA_R_64F;
  else if constexpr (std::is_same_v<T, ComplexElement<float>>) return CUDA_C_32F;
  else return CUDA_C_64F;
}

// Device and host workspaces of the sizes cuSOLVER asked for, freed on every exit.
class Workspace {
 public:
  Workspace(size_t device_bytes, size_t host_bytes) : host_(host_bytes), bytes_(device_bytes) {
    if (device_bytes) {
      device_ = cuda_memory::allocate(device_bytes);
      if (!device_) throw std::runtime_error("cuSOLVER: out of GPU memory for a workspace of " + std::to_string(device_bytes) + " bytes");
    }
  }
  ~Workspace() {
    try {
      cuda_memory::release(device_);
    } catch (...) {  // a destructor must not throw; the next CUDA call reports the error
    }
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  void* device() const { return device_; }
  size_t device_bytes() const { return bytes_; }
  void* host() { return host_.empty() ? nullptr : host_.data(); }
  size_t host_bytes() const { return host_.size(); }

 private:
  void* device_ = nullptr;
  std::vector<char> host_;
  size_t bytes_;
};

// The batch's info words, on the device while cuSOLVER writes them, then copied to host_info.
class InfoWords {
 public:
  explicit InfoWords(int64_t batch) : words_(Workspace(sizeof(int) * static_cast<size_t>(batch), 0)), batch_(batch) {}
  int* at(int64_t b) { return static_cast<int*>(words_.device()) + b; }
  void copy_to(int* host_info) {
    cuda_memory::copy(host_info, false, words_.device(), true, sizeof(int) * static_cast<size_t>(batch_));
  }

 private:
  Workspace words_;
  int64_t batch_;
};

template <class T> __device__ double magnitude(T x) { return fabs(static_cast<double>(x)); }
template <class T> __device__ double magnitude(ComplexElement<T> x) { return hypot(static_cast<double>(x.re), static_cast<double>(x.im)); }

// The phase factor conj(x / |x|) in T, as the CPU computes it (division, then conjugate).
template <class T> __device__ T unit_phase(T x, T big) { return x / big; }
template <class T> __device__ ComplexElement<T> unit_phase(ComplexElement<T> x, T big) { return {x.re / big, -(x.im / big)}; }
template <class T> __device__ T conj_of(T x) { return x; }
template <class T> __device__ ComplexElement<T> conj_of(ComplexElement<T> x) { return conj(x); }
template <class T> struct RealOf { using type = T; };
template <class T> struct RealOf<ComplexElement<T>> { using type = T; };

template <class T>
__global__ void fix_phases_kernel(int64_t batch, int64_t rows, int64_t cols, T* u, int64_t row_stride, int64_t col_stride,
                                  int64_t batch_stride, T* vh, int64_t vh_cols, int64_t vh_batch_stride) {
  using R = typename RealOf<T>::type;
  SAMPAN_GRID_STRIDE_LOOP(t, batch * cols) {
    const int64_t b = t / cols, j = t % cols;
    T* col = u + b * batch_stride + j * col_stride;
    int64_t best = 0;
    double big = -1.0;
    for (int64_t i = 0; i < rows; ++i) {
      const double m = magnitude(col[i * row_stride]);
      if (m > big) { big = m; best = i; }
    }
    if (big <= 0.0) continue;
    const T phase = unit_phase(col[best * row_stride], static_cast<R>(big));
    for (int64_t i = 0; i < rows; ++i) col[i * row_stride] = col[i * row_stride] * phase;
    if (vh) {
      const T back = conj_of(phase);
      T* row = vh + b * vh_batch_stride + j * vh_cols;
      for (int64_t i = 0; i < vh_cols; ++i) row[i] = row[i] * back;
    }
  }
}

}  // namespace

template <class T> void lu_factor_cuda(int64_t batch, int64_t n, T* a, int64_t* ipiv, int* host_info) {
  if (batch == 0 || n == 0) return;
  const Solver& s = solver();
  size_t device_bytes = 0, host_bytes = 0;
  check_solver(cusolverDnXgetrf_bufferSize(s.handle, s.params, n, n, data_type<T>(), a, n, data_type<T>(), &device_bytes,
                                           &host_bytes),
               "getrf_bufferSize");
  Workspace work(device_bytes, host_bytes);
  InfoWords info(batch);
  for (int64_t b = 0; b < batch; ++b)
    check_solver(cusolverDnXgetrf(s.handle, s.params, n, n, data_type<T>(), a + b * n * n, n, ipiv + b * n, data_type<T>(),
                                  work.device(), work.device_bytes(), work.host(), work.host_bytes(), info.at(b)),
                 "getrf");
  info.copy_to(host_info);
}

template <class T>
void lu_solve_cuda(bool transpose, int64_t batch, int64_t n, int64_t k, const T* lu, const int64_t* ipiv, T* b) {
  if (batch == 0 || n == 0 || k == 0) return;
  const Solver& s = solver();
  InfoWords info(batch);
  for (int64_t i = 0; i < batch; ++i)
    check_solver(cusolverDnXgetrs(s.handle, s.params, transpose ? CUBLAS_OP_T : CUBLAS_OP_N, n, k, data_type<T>(),
                                  lu + i * n * n, n, ipiv + i * n, data_type<T>(), b + i * n * k, n, info.at(i)),
                 "getrs");
  std::vector<int> words(static_cast<size_t>(batch));
  info.copy_to(words.data());  // getrs reports only a bad argument (info < 0)
  for (int w : words)
    if (w != 0) throw std::runtime_error("cuSOLVER getrs: argument " + std::to_string(-w) + " is invalid");
}

template <class T, class R> void eigh_cuda(int64_t batch, int64_t n, T* a, R* w, int* host_info) {
  if (batch == 0 || n == 0) return;
  const Solver& s = solver();
  size_t device_bytes = 0, host_bytes = 0;
  check_solver(cusolverDnXsyevd_bufferSize(s.handle, s.params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n,
                                           data_type<T>(), a, n, data_type<R>(), w, data_type<T>(), &device_bytes,
                                           &host_bytes),
               "syevd_bufferSize");
  Workspace work(device_bytes, host_bytes);
  InfoWords info(batch);
  for (int64_t b = 0; b < batch; ++b)
    check_solver(cusolverDnXsyevd(s.handle, s.params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, data_type<T>(),
                                  a + b * n * n, n, data_type<R>(), w + b * n, data_type<T>(), work.device(),
                                  work.device_bytes(), work.host(), work.host_bytes(), info.at(b)),
                 "syevd");
  info.copy_to(host_info);
}

template <class T, class R> void svd_cuda(int64_t batch, int64_t m, int64_t n, T* a, R* s_out, T* u, T* vt, int* host_info) {
  if (batch == 0 || n == 0) return;
  if (m < n) throw std::runtime_error("svd_cuda: gesvd needs m >= n, got " + std::to_string(m) + " x " + std::to_string(n));
  const Solver& s = solver();
  size_t device_bytes = 0, host_bytes = 0;
  check_solver(cusolverDnXgesvd_bufferSize(s.handle, s.params, 'S', 'S', m, n, data_type<T>(), a, m, data_type<R>(), s_out,
                                           data_type<T>(), u, m, data_type<T>(), vt, n, data_type<T>(), &device_bytes,
                                           &host_bytes),
               "gesvd_bufferSize");
  Workspace work(device_bytes, host_bytes);
  InfoWords info(batch);
  for (int64_t b = 0; b < batch; ++b)
    check_solver(cusolverDnXgesvd(s.handle, s.params, 'S', 'S', m, n, data_type<T>(), a + b * m * n, m, data_type<R>(),
                                  s_out + b * n, data_type<T>(), u + b * m * n, m, data_type<T>(), vt + b * n * n, n,
                                  data_type<T>(), work.device(), work.device_bytes(), work.host(), work.host_bytes(),
                                  info.at(b)),
                 "gesvd");
  info.copy_to(host_info);
}

template <class T>
void fix_phases_cuda(int64_t batch, int64_t rows, int64_t cols, T* u, int64_t row_stride, int64_t col_stride,
                     int64_t batch_stride, T* vh, int64_t vh_cols, int64_t vh_batch_stride) {
  if (batch * cols == 0) return;
  fix_phases_kernel<<<cuda::blocks_for(batch * cols), cuda::kThreads>>>(batch, rows, cols, u, row_stride, col_stride,
                                                                         batch_stride, vh, vh_cols, vh_batch_stride);
  cuda::check(cudaGetLastError(), "fix_phases_cuda");
}

#define SAMPAN_SOLVER(T, R)                                                                                      \
  template void lu_factor_cuda<T>(int64_t, int64_t, T*, int64_t*, int*);                                        \
  template void lu_solve_cuda<T>(bool, int64_t, int64_t, int64_t, const T*, const int64_t*, T*);                 \
  template void eigh_cuda<T, R>(int64_t, int64_t, T*, R*, int*);                                                 \
  template void svd_cuda<T, R>(int64_t, int64_t, int64_t, T*, R*, T*, T*, int*);                                 \
  template void fix_phases_cuda<T>(int64_t, int64_t, int64_t, T*, int64_t, int64_t, int64_t, T*, int64_t, int64_t);
SAMPAN_SOLVER(float, float)
SAMPAN_SOLVER(double, double)
SAMPAN_SOLVER(ComplexElement<float>, float)
SAMPAN_SOLVER(ComplexElement<double>, double)
#undef SAMPAN_SOLVER

}  // namespace sampan::kernels
