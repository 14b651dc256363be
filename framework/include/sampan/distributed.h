// sampan: collectives over MPI ranks (MPI_COMM_WORLD), in place on CPU tensors and on GPU tensors
// (one GPU per rank; staged through a host copy, since the MPI is not assumed CUDA-aware), for
// data-parallel training. A process that no MPI launcher started (and in which nothing else initialised MPI) is
// rank 0 of 1 and makes no MPI call; so is every process of a build without MPI. MPI is
// initialised on the first call that needs it (thread level funneled: call from the main thread)
// and finalised at exit.
//
// The collectives are not ops: autograd does not record them. Every rank must call them in the
// same order with tensors of the same dtype and element count; a disagreement is detected
// (one small extra reduction per call) and raised on every rank instead of hanging.
#pragma once

#include <string>
#include <vector>

#include "sampan/tensor.h"

namespace sampan::distributed {

enum class ReduceOp { Sum, Avg, Max, Min };

/// Parses "sum", "avg" (also "mean"), "max", "min"; ValueError otherwise.
ReduceOp parse_reduce_op(const std::string& name);

/// Whether this sampan was built with MPI.
bool built_with_mpi();
/// Whether an MPI launcher (mpirun, mpiexec, srun) started this process, by its environment.
bool under_launcher();
/// Whether the collectives go through MPI here: built with MPI, and MPI already initialised or
/// this process started by a launcher.
bool active();
/// Initialises MPI now if the build has it and nothing did yet (thread level funneled; finalised
/// at exit), also outside a launcher (then a one-rank world); without MPI a no-op. The one place
/// sampan initialises MPI: the quantum module's distributed state calls it too.
void init();
/// This process's rank in MPI_COMM_WORLD (0 when not active).
int rank();
/// The number of ranks (1 when not active).
int world_size();

/// t <- op over every rank's t. t: a contiguous CPU tensor of float32, float64, int32, int64,
/// complex64 or complex128 (complex: sum and avg only; integers: not avg). Its version counter is
/// bumped. One rank: t is left as it is (avg over one rank is t).
void all_reduce(const Tensor& t, ReduceOp op = ReduceOp::Sum);
/// t <- root's t on every rank (same dtypes as all_reduce, and bool).
void broadcast(const Tensor& t, int root = 0);
/// Every rank's t, in rank order (each a new tensor of t's shape).
std::vector<Tensor> all_gather(const Tensor& t);
/// Waits until every rank has called it.
void barrier();

/// Point to point: sends t's elements to rank `dest` (blocking until the buffer may be reused).
/// t: a CPU tensor of a collective's dtypes; dest another rank.
void send(const Tensor& t, int dest, int tag = 0);
/// Receives a message from rank `source` with `tag` into t (contiguous, in place; its version is
/// bumped). A message of another dtype size or element count is consumed and raises ValueError.
void recv(const Tensor& t, int source, int tag = 0);

}  // namespace sampan::distributed
