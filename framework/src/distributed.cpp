// sampan: collectives over MPI ranks (sampan/distributed.h). Without MPI in the build, or in a
// process no launcher started, every call is its one-rank identity and no MPI call is made.
#include "sampan/distributed.h"

#include <algorithm>
#include <climits>
#include <complex>
#include <vector>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "sampan/cuda.h"
#include "sampan/error.h"
#include "sampan/ops.h"

#ifdef SAMPAN_FRAMEWORK_HAVE_MPI
#include <mpi.h>
#endif

namespace sampan::distributed {

namespace {

const char* op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Avg: return "avg";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
  }
  return "?";
}

// The checks every collective makes before any communication, identical on every rank.
void check_tensor(const char* what, const Tensor& t, bool allow_bool, bool need_contiguous) {
  SAMPAN_CHECK(t.defined(), ValueError, "distributed.", what, ": the tensor is undefined");
  const DType d = t.dtype();
  const bool ok = d == DType::Float32 || d == DType::Float64 || is_integral(d) || is_complex(d) ||
                  (allow_bool && d == DType::Bool);
  SAMPAN_CHECK(ok, TypeError, "distributed.", what, ": dtype ", dtype_name(d),
               " is not supported (float32, float64, int32, int64, complex64, complex128",
               (allow_bool ? ", bool)" : ")"));
  if (need_contiguous && !t.is_contiguous())
    SAMPAN_THROW(ValueError, "distributed.", what,
                 ": the tensor is not contiguous, and the result is written in place; pass a "
                 "contiguous tensor (x.contiguous() is a copy)");
}

// A GPU tensor crosses MPI through a host copy ("staged": the MPI here is not CUDA-aware): f runs
// on the host copy (on t itself for a CPU tensor), and with write_back the result goes back into
// t's device memory.
template <class F> void staged(const Tensor& t, bool write_back, F f) {
  if (t.device().is_cpu()) {
    f(t);
    return;
  }
  const Tensor host = to_device(t.detach(), cpu_device()).contiguous();
  f(host);
  if (write_back) cuda::copy_bytes(t.raw_data(), true, host.raw_data(), false, t.nbytes());
}

void check_op_for_dtype(ReduceOp op, DType d) {
  if (is_complex(d) && (op == ReduceOp::Max || op == ReduceOp::Min))
    SAMPAN_THROW(TypeError, "distributed.all_reduce: '", op_name(op), "' of ", dtype_name(d),
                 " (complex numbers have no order); use 'sum' or 'avg'");
  if (is_integral(d) && op == ReduceOp::Avg)
    SAMPAN_THROW(TypeError, "distributed.all_reduce: 'avg' of ", dtype_name(d),
                 " would round; reduce with 'sum' and divide in floating point");
}

// x <- x / n in place.
void divide(const Tensor& t, int n) {
  const int64_t count = t.numel();
  switch (t.dtype()) {
    case DType::Float32: { auto* p = t.data<float>(); for (int64_t i = 0; i < count; ++i) p[i] /= static_cast<float>(n); break; }
    case DType::Float64: { auto* p = t.data<double>(); for (int64_t i = 0; i < count; ++i) p[i] /= n; break; }
    case DType::Complex64: {
      auto* p = static_cast<std::complex<float>*>(t.raw_data());
      for (int64_t i = 0; i < count; ++i) p[i] /= static_cast<float>(n);
      break;
    }
    case DType::Complex128: {
      auto* p = static_cast<std::complex<double>*>(t.raw_data());
      for (int64_t i = 0; i < count; ++i) p[i] /= static_cast<double>(n);
      break;
    }
    default: break;  // refused before
  }
}

#ifdef SAMPAN_FRAMEWORK_HAVE_MPI

constexpr int64_t kMaxCount = int64_t(1) << 30;  // elements per MPI call (counts are int)

void check_mpi(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    SAMPAN_THROW(RuntimeError, "distributed (MPI): ", what, " failed: ", std::string(msg, static_cast<size_t>(len)));
  }
}

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

bool mpi_initialised() {
  int initialised = 0;
  MPI_Initialized(&initialised);
  return initialised != 0;
}

void ensure_initialised() {
  if (mpi_initialised()) return;
  int provided = 0;
  check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  std::atexit(finalize_at_exit);
}

MPI_Datatype mpi_type(DType d) {
  switch (d) {
    case DType::Bool: return MPI_BYTE;
    case DType::Int32: return MPI_INT32_T;
    case DType::Int64: return MPI_INT64_T;
    case DType::Float32: return MPI_FLOAT;
    case DType::Float64: return MPI_DOUBLE;
    case DType::Complex64: return MPI_C_FLOAT_COMPLEX;
    case DType::Complex128: return MPI_C_DOUBLE_COMPLEX;
    default: SAMPAN_THROW(TypeError, "distributed: no MPI type for ", dtype_name(d));
  }
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Max: return MPI_MAX;
    case ReduceOp::Min: return MPI_MIN;
    default: return MPI_SUM;
  }
}

// Every rank's (call, dtype, count, root, op) must agree, or the collective would hang or mix
// data: one reduction of the values and their negations gives each one's maximum and minimum.
void check_ranks_agree(const char* what, int call, const Tensor& t, int root, int op) {
  const int64_t mine[5] = {call, static_cast<int64_t>(t.dtype()), t.numel(), root, op};
  int64_t both[10], extremes[10];
  for (int i = 0; i < 5; ++i) {
    both[i] = mine[i];
    both[5 + i] = -mine[i];
  }
  check_mpi(MPI_Allreduce(both, extremes, 10, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  static const char* fields[5] = {"collective", "dtype", "element count", "root", "reduce op"};
  for (int i = 0; i < 5; ++i) {
    const int64_t hi = extremes[i], lo = -extremes[5 + i];
    if (hi != lo) {
      std::string range = std::to_string(lo) + " to " + std::to_string(hi);
      if (i == 1) range = std::string(dtype_name(static_cast<DType>(lo))) + " and " + dtype_name(static_cast<DType>(hi));
      SAMPAN_THROW(ValueError, "distributed.", what, ": the ranks disagree on the ", fields[i], " (",
                   range, "); every rank must call the same collectives in the same order with "
                   "tensors of one dtype and size");
    }
  }
}

#endif  // SAMPAN_FRAMEWORK_HAVE_MPI

}  // namespace

ReduceOp parse_reduce_op(const std::string& name) {
  if (name == "sum") return ReduceOp::Sum;
  if (name == "avg" || name == "mean") return ReduceOp::Avg;
  if (name == "max") return ReduceOp::Max;
  if (name == "min") return ReduceOp::Min;
  SAMPAN_THROW(ValueError, "distributed: reduce op '", name, "' is not one of 'sum', 'avg', 'max', 'min'");
}

void init() {
#ifdef SAMPAN_FRAMEWORK_HAVE_MPI
  ensure_initialised();
#endif
}

bool built_with_mpi() {
#ifdef SAMPAN_FRAMEWORK_HAVE_MPI
  return true;
#else
  return false;
#endif
}

bool under_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS", "SLURM_NTASKS_MPI"})
    if (std::getenv(v)) return true;
  return false;
}

bool active() {
#ifdef SAMPAN_FRAMEWORK_HAVE_MPI
  return mpi_initialised() || under_launcher();
#else
  return false;
#endif
}

int rank() {
#ifdef SAMPAN_FRAMEWORK_HAVE_MPI
  if (active()) {
    ensure_initialised();
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
  }
#endif
  return 0;
}

int world_size() {
#ifdef SAMPAN_FRAMEWORK_HAVE_MPI
  if (active()) {
    ensure_initialised();
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
  }
#endif
  return 1;
}

void all_reduce(const Tensor& t, ReduceOp op) {
  check_tensor("all_reduce", t, /*allow_bool=*/false, /*need_contiguous=*/true);
  check_op_for_dtype(op, t.dtype());
#ifdef SAMPAN_FRAMEWORK_HAVE_MPI
  if (active()) {
    ensure_initialised();
    check_ranks_agree("all_reduce", 1, t, 0, static_cast<int>(op));
    staged(t, true, [&](const Tensor& h) {
      char* p = static_cast<char*>(h.raw_data());
      const MPI_Datatype type = mpi_type(h.dtype());
      for (int64_t s = 0; s < h.numel(); s += kMaxCount) {
        const int n = static_cast<int>(std::min(kMaxCount, h.numel() - s));
        check_mpi(MPI_Allreduce(MPI_IN_PLACE, p + s * static_cast<int64_t>(h.itemsize()), n, type, mpi_op(op),
                                MPI_COMM_WORLD), "MPI_Allreduce");
      }
      if (op == ReduceOp::Avg) divide(h, world_size());
    });
    t.bump_version();
    return;
  }
#endif
  (void)op;
  t.bump_version();
}

void broadcast(const Tensor& t, int root) {
  check_tensor("broadcast", t, /*allow_bool=*/true, /*need_contiguous=*/true);
  const int size = world_size();
  if (root < 0 || root >= size)
    SAMPAN_THROW(ValueError, "distributed.broadcast: root ", root, " is not a rank (0 to ",
                 size - 1, ")");
#ifdef SAMPAN_FRAMEWORK_HAVE_MPI
  if (active()) {
    check_ranks_agree("broadcast", 2, t, root, 0);
    staged(t, true, [&](const Tensor& h) {
      char* p = static_cast<char*>(h.raw_data());
      const MPI_Datatype type = mpi_type(h.dtype());
      for (int64_t s = 0; s < h.numel(); s += kMaxCount) {
        const int n = static_cast<int>(std::min(kMaxCount, h.numel() - s));
        check_mpi(MPI_Bcast(p + s * static_cast<int64_t>(h.itemsize()), n, type, root, MPI_COMM_WORLD), "MPI_Bcast");
      }
    });
  }
#endif
  t.bump_version();
}

std::vector<Tensor> all_gather(const Tensor& t) {
  check_tensor("all_gather", t, /*allow_bool=*/true, /*need_contiguous=*/false);
  const Tensor mine = to_device(t.detach(), cpu_device()).contiguous();  // staged from a GPU
  std::vector<Tensor> out;
#ifdef SAMPAN_FRAMEWORK_HAVE_MPI
  if (active()) {
    const int size = world_size();
    check_ranks_agree("all_gather", 3, mine, 0, 0);
    const size_t bytes = mine.nbytes();
    for (int r = 0; r < size; ++r) out.push_back(Tensor::empty(mine.shape(), mine.dtype()));
    constexpr size_t kPiece = size_t(1) << 30;  // bytes per rank in one MPI call (counts are int)
    std::vector<char> piece;
    for (size_t off = 0; off < bytes; off += kPiece) {
      const size_t n = std::min(kPiece, bytes - off);
      piece.resize(n * static_cast<size_t>(size));
      check_mpi(MPI_Allgather(static_cast<const char*>(mine.raw_data()) + off, static_cast<int>(n), MPI_BYTE,
                              piece.data(), static_cast<int>(n), MPI_BYTE, MPI_COMM_WORLD), "MPI_Allgather");
      for (int r = 0; r < size; ++r)
        std::memcpy(static_cast<char*>(out[r].raw_data()) + off, piece.data() + static_cast<size_t>(r) * n, n);
    }
    if (!t.device().is_cpu())
      for (Tensor& o : out) o = to_device(o, t.device());
    return out;
  }
#endif
  out.push_back(t.device().is_cpu() ? mine.clone() : t.detach().contiguous().clone());
  return out;
}

void barrier() {
#ifdef SAMPAN_FRAMEWORK_HAVE_MPI
  if (active()) {
    ensure_initialised();
    check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  }
#endif
}

namespace {
// The checks of send and recv, before any communication.
void check_peer(const char* what, const char* role, int peer) {
  const int size = world_size();
  if (peer < 0 || peer >= size)
    SAMPAN_THROW(ValueError, "distributed.", what, ": ", role, " ", peer,
                 " is not a rank (0 to ", size - 1, ")");
  SAMPAN_CHECK(peer != rank(), ValueError, "distributed.", what, ": ", role, " ", peer,
               " is this rank; a blocking message to oneself never completes");
}
}  // namespace

void send(const Tensor& t, int dest, int tag) {
  check_tensor("send", t, /*allow_bool=*/true, /*need_contiguous=*/false);
  check_peer("send", "dest", dest);
#ifdef SAMPAN_FRAMEWORK_HAVE_MPI
  const Tensor data = to_device(t.detach(), cpu_device()).contiguous();  // staged from a GPU
  const int64_t bytes = static_cast<int64_t>(data.nbytes());
  SAMPAN_CHECK(bytes <= INT32_MAX, ValueError, "distributed.send: ", bytes, " bytes is more than one message carries (2 GiB)");
  check_mpi(MPI_Send(data.raw_data(), static_cast<int>(bytes), MPI_BYTE, dest, tag, MPI_COMM_WORLD), "MPI_Send");
#endif
}

void recv(const Tensor& t, int source, int tag) {
  check_tensor("recv", t, /*allow_bool=*/true, /*need_contiguous=*/true);
  check_peer("recv", "source", source);
#ifdef SAMPAN_FRAMEWORK_HAVE_MPI
  MPI_Status status;
  check_mpi(MPI_Probe(source, tag, MPI_COMM_WORLD, &status), "MPI_Probe");
  int incoming = 0;
  MPI_Get_count(&status, MPI_BYTE, &incoming);
  const int64_t expected = static_cast<int64_t>(t.nbytes());
  if (incoming != expected) {
    std::vector<char> discard(static_cast<size_t>(incoming));  // consumed, so that it does not match later
    check_mpi(MPI_Recv(discard.data(), incoming, MPI_BYTE, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
    SAMPAN_THROW(ValueError, "distributed.recv: the message from rank ", source, " (tag ",
                 tag, ") has ", incoming, " bytes, but the tensor (",
                 t.numel(), " x ", dtype_name(t.dtype()), ") holds ", expected);
  }
  staged(t, true, [&](const Tensor& h) {
    check_mpi(MPI_Recv(h.raw_data(), incoming, MPI_BYTE, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  });
#endif
  t.bump_version();
}

}  // namespace sampan::distributed
