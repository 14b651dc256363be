// CUDA twins of the graph kernels that carry message passing (helix's GNN layers): the segment
// reductions (segment_kernels.h: segment_sum, segment_mean, segment_max, segment_min), the row
// gather and its gradient (index_kernels.h: index_select, index_add). Defined in segment_kernels.cu and index_kernels.cu,
// compiled only where nvcc exists (SAMPAN_CUDA_KERNELS). Data pointers are device pointers; the
// ids and indices arrive on the host, already checked (the op layer copied them there to check
// them), and the launchers upload what the kernels need. Errors leave as std::runtime_error.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sampan::kernels {

/// out [num_segments, f] = per-segment sum (or mean) of data [n, f]; ids [n] on the host.
/// One thread per output element folds its segment's rows in increasing row order (the CPU's
/// order): no atomics, and the same result bits as the CPU kernel.
template <class T>
void segment_sum_rows_cuda(const T* data, const int64_t* host_ids, int64_t n, int64_t f, int64_t num_segments,
                           bool mean, T* out);

/// out, arg [num_segments, f] = per-segment max (or min) and its row, as segment_extreme_rows.
template <class T>
void segment_extreme_rows_cuda(const T* data, const int64_t* host_ids, int64_t n, int64_t f, int64_t num_segments,
                               bool want_max, T* out, int64_t* arg);

/// out[o, j, :] = x[o, index[j], :] as index_select_rows; index [m] on the host.
void index_select_rows_cuda(const void* x, int64_t outer, int64_t n, int64_t inner, size_t itemsize,
                            const int64_t* host_index, int64_t m, void* out);

/// out = x, then out[o, index[j], :] += src[o, j, :] for j < m (index_add; x and out are
/// [outer, n, inner], src [outer, m, inner]); index [m] on the host. Each output element folds its
/// contributions in increasing j, as the CPU kernel does: no atomics, the same result bits.
template <class T>
void index_add_rows_cuda(const T* x, int64_t outer, int64_t n, int64_t inner, const int64_t* host_index, int64_t m,
                         const T* src, T* out);

/// Copies nbytes from the device to the host (ids and indices, to check them).
void copy_to_host_cuda(void* host, const void* device, size_t nbytes);

}  // namespace sampan::kernels
