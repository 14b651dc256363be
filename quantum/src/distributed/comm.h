// sampan quantum (internal): the few collective operations the distributed state vector needs,
// over an MPI communicator when built with MPI, and as their one-rank identities otherwise.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#ifdef SAMPAN_QUANTUM_HAVE_MPI
#include <mpi.h>
#endif

namespace sampan::quantum::distributed {

class Comm {
 public:
#ifdef SAMPAN_QUANTUM_HAVE_MPI
  explicit Comm(MPI_Comm comm);
#endif
  Comm();  // MPI_COMM_WORLD with MPI (initialised on demand), a single rank otherwise
  /// One rank that never calls MPI (a run outside mpirun needs no MPI initialisation).
  static Comm single();
  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Exchanges `count` doubles with `partner` (send and receive buffers of that size).
  void sendrecv(const double* send, double* recv, int64_t count, int partner) const;
  /// In-place sum over ranks.
  void allreduce_sum(double* values, int count) const;
  /// Every rank's value, on every rank.
  std::vector<double> allgather(double value) const;
  /// Root's vector (its size too) on every rank.
  void broadcast(std::vector<double>& values, int root) const;
  /// The concatenation of every rank's pairs, on root (in rank order).
  std::vector<std::pair<uint64_t, int64_t>> gather_pairs(const std::vector<std::pair<uint64_t, int64_t>>& local,
                                                        int root) const;
  /// The concatenation of every rank's `count` doubles into `out` (size * count) on root.
  void gather(const double* local, int64_t count, double* out, int root) const;

 private:
#ifdef SAMPAN_QUANTUM_HAVE_MPI
  MPI_Comm comm_ = MPI_COMM_NULL;
#endif
  int rank_ = 0, size_ = 1;
};

/// Initialises MPI (thread level funneled) unless already done; registers MPI_Finalize at exit.
void ensure_mpi_initialised();

}  // namespace sampan::quantum::distributed
