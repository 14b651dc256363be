// CUDA twins of the graph kernels that carry message passing (helix's GNN layers) and the other
// gathers and scatters: the segment reductions and counts (segment_kernels.h: segment_sum,
// segment_mean, segment_max, segment_min, segment_count), the row gather and its gradient
// (index_kernels.h: index_select, index_add), the elementwise-index pair gather and scatter_add,
// index_copy, and the fused gather-add-scatter (gather_scatter_kernels.h). Defined in
// segment_kernels.cu, index_kernels.cu and gather_scatter_kernels.cu,
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

/// counts [num_segments] = the number of rows of each segment; ids [n] on the host, checked.
/// An integer atomicAdd per row: any order, the same counts as the CPU.
void segment_count_cuda(const int64_t* host_ids, int64_t n, int64_t num_segments, int64_t* counts);

/// out [a, m, b] (contiguous) = x at axis_element_target(e, ...) for each element e, as
/// gather_axis; x contiguous, off_a [a], off_b [b] and the wrapped index [a * m * b] on the host.
void gather_axis_cuda(const void* x, size_t itemsize, int64_t a, int64_t m, int64_t b, const int64_t* host_off_a,
                      const int64_t* host_off_b, const int64_t* host_index, int64_t axis_stride, void* out);

/// out = x (both contiguous, out_numel elements), then src [a, m, b] added at the offsets
/// axis_element_target(e, ...), as scatter_add_axis; each output element folds its contributions
/// in increasing e, as the CPU does: no atomics, the same bits. off_a, off_b, index on the host.
template <class T>
void scatter_add_axis_cuda(const T* x, int64_t out_numel, int64_t a, int64_t m, int64_t b, const int64_t* host_off_a,
                           const int64_t* host_off_b, const int64_t* host_index, int64_t axis_stride, const T* src, T* out);

/// out = x with out[o, index[j], :] = src[o, j, :] for j < m, the last duplicate winning (x and out
/// [outer, n, inner], src [outer, m, inner], `itemsize` bytes per element); index [m] on the host.
void index_copy_rows_cuda(const void* x, int64_t outer, int64_t n, int64_t inner, size_t itemsize,
                          const int64_t* host_index, int64_t m, const void* src, void* out);

/// out [num_segments, f] = per-segment sum of x[gather[e]] + edge[e] (edge may be null) over the
/// num_edges edges, segment scatter[e] (gather_add_scatter_rows); gather and scatter on the host,
/// already checked. Each output element folds its edges in increasing order, as the CPU does.
template <class T>
void gather_add_scatter_rows_cuda(const T* x, const int64_t* host_gather, const T* edge, const int64_t* host_scatter,
                                  int64_t num_edges, int64_t f, int64_t num_segments, T* out);

/// Copies nbytes from the device to the host (ids and indices, to check them).
void copy_to_host_cuda(void* host, const void* device, size_t nbytes);

}  // namespace sampan::kernels
