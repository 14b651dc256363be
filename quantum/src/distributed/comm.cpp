// sampan quantum: Comm (see comm.h). Messages are split so that no count exceeds INT_MAX.
#include "distributed/comm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "sampan/distributed.h"
#include "sampan/error.h"

namespace sampan::quantum::distributed {

#ifdef SAMPAN_QUANTUM_HAVE_MPI

namespace {
constexpr int64_t kMaxCount = int64_t(1) << 30;
void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    SAMPAN_THROW(RuntimeError, "quantum (MPI): ", what, " failed: ", std::string(msg, static_cast<size_t>(len)));
  }
}
}  // namespace

void ensure_mpi_initialised() { ::sampan::distributed::init(); }  // framework's: one place initialises MPI

Comm::Comm(MPI_Comm comm) : comm_(comm) {
  if (comm_ == MPI_COMM_NULL) return;  // single(): rank 0 of 1, no MPI calls
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

Comm::Comm() {
  ensure_mpi_initialised();
  comm_ = MPI_COMM_WORLD;
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

Comm Comm::single() { return Comm(MPI_COMM_NULL); }

void Comm::sendrecv(const double* send, double* recv, int64_t count, int partner) const {
  if (comm_ == MPI_COMM_NULL) {
    std::memcpy(recv, send, static_cast<size_t>(count) * sizeof(double));
    return;
  }
  for (int64_t s = 0; s < count; s += kMaxCount) {
    const int c = static_cast<int>(std::min(kMaxCount, count - s));
    check(MPI_Sendrecv(send + s, c, MPI_DOUBLE, partner, 7, recv + s, c, MPI_DOUBLE, partner, 7, comm_,
                       MPI_STATUS_IGNORE),
          "MPI_Sendrecv");
  }
}

void Comm::allreduce_sum(double* values, int count) const {
  if (comm_ == MPI_COMM_NULL) return;
  check(MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, comm_), "MPI_Allreduce");
}

std::vector<double> Comm::allgather(double value) const {
  if (comm_ == MPI_COMM_NULL) return {value};
  std::vector<double> out(static_cast<size_t>(size_));
  check(MPI_Allgather(&value, 1, MPI_DOUBLE, out.data(), 1, MPI_DOUBLE, comm_), "MPI_Allgather");
  return out;
}

void Comm::broadcast(std::vector<double>& values, int root) const {
  if (comm_ == MPI_COMM_NULL) return;
  int64_t n = static_cast<int64_t>(values.size());
  check(MPI_Bcast(&n, 1, MPI_INT64_T, root, comm_), "MPI_Bcast");
  values.resize(static_cast<size_t>(n));
  for (int64_t s = 0; s < n; s += kMaxCount)
    check(MPI_Bcast(values.data() + s, static_cast<int>(std::min(kMaxCount, n - s)), MPI_DOUBLE, root, comm_),
          "MPI_Bcast");
}

std::vector<std::pair<uint64_t, int64_t>> Comm::gather_pairs(const std::vector<std::pair<uint64_t, int64_t>>& local,
                                                            int root) const {
  if (comm_ == MPI_COMM_NULL) return local;
  std::vector<int64_t> flat;
  for (const auto& p : local) flat.insert(flat.end(), {static_cast<int64_t>(p.first), p.second});
  int mine = static_cast<int>(flat.size());
  std::vector<int> sizes(static_cast<size_t>(size_)), displs(static_cast<size_t>(size_));
  check(MPI_Gather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, root, comm_), "MPI_Gather");
  int total = 0;
  for (int r = 0; r < size_; ++r) displs[static_cast<size_t>(r)] = total, total += sizes[static_cast<size_t>(r)];
  std::vector<int64_t> all(static_cast<size_t>(rank_ == root ? total : 0));
  check(MPI_Gatherv(flat.data(), mine, MPI_INT64_T, all.data(), sizes.data(), displs.data(), MPI_INT64_T, root, comm_),
        "MPI_Gatherv");
  std::vector<std::pair<uint64_t, int64_t>> out;
  for (size_t i = 0; i + 1 < all.size(); i += 2) out.emplace_back(static_cast<uint64_t>(all[i]), all[i + 1]);
  return out;
}

void Comm::gather(const double* local, int64_t count, double* out, int root) const {
  if (comm_ == MPI_COMM_NULL) {
    std::memcpy(out, local, static_cast<size_t>(count) * sizeof(double));
    return;
  }
  SAMPAN_CHECK(count <= kMaxCount, ValueError, "quantum (MPI): gathering ", count,
               " doubles per rank exceeds the single-message limit ", kMaxCount);
  check(MPI_Gather(local, static_cast<int>(count), MPI_DOUBLE, out, static_cast<int>(count), MPI_DOUBLE, root, comm_),
        "MPI_Gather");
}

#else  // one rank

void ensure_mpi_initialised() {}
Comm::Comm() = default;
Comm Comm::single() { return Comm(); }
void Comm::sendrecv(const double* send, double* recv, int64_t count, int) const {
  std::memcpy(recv, send, static_cast<size_t>(count) * sizeof(double));
}
void Comm::allreduce_sum(double*, int) const {}
std::vector<double> Comm::allgather(double value) const { return {value}; }
void Comm::broadcast(std::vector<double>&, int) const {}
std::vector<std::pair<uint64_t, int64_t>> Comm::gather_pairs(const std::vector<std::pair<uint64_t, int64_t>>& local,
                                                            int) const {
  return local;
}
void Comm::gather(const double* local, int64_t count, double* out, int) const {
  std::memcpy(out, local, static_cast<size_t>(count) * sizeof(double));
}

#endif

}  // namespace sampan::quantum::distributed
