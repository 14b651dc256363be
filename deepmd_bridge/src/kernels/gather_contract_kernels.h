// The se_e2_a contraction T_i = sum_k em[i, k]^T G[row(i, k)] over gathered embedding rows, and its
// two transposes (plain functions over pointers and sizes).
//
// The embedding net runs once per filled neighbour slot and once per (centre type, slot) class of
// empty slots (deep_pot.cpp, CompactRows), so G lives as [compact rows, M] and each (centre,
// slot) names its row. Gathering G back to a dense [nloc, kept, M] tensor and multiplying em^T by
// it wrote and read that dense tensor (10 MB on a water frame) in every pass of force training,
// and its gradient went back through a segment sum: about a sixth of a training step. These
// functions read G's rows where they lie; the dense tensor never exists.
//
// The three are the partial derivatives of one trilinear form, sum_{a,k,c,m} h[a,c,m] em[a,k,c]
// g[rows[a,k], m], so each one's vjp is made of the others (ops/gather_contract_ops.cpp).
#pragma once

#include <cstdint>

namespace sampan::deepmd::kernels {

/// out[a, c, m] = sum_k em[a, k, c] * g[rows[a*K + k], m] (k = 0, 1, ... in order), for a < A,
/// c < C, m < M; em [A, K, C], g [R, M], out [A, C, M], all row-major and contiguous.
template <class T>
void gather_contract_cpu(const T* em, const T* g, const int64_t* rows, int64_t A, int64_t K, int64_t C, int64_t M,
                         T* out);

/// dem[a, k, c] = sum_m dout[a, c, m] * g[rows[a*K + k], m]: the transpose in em.
template <class T>
void gather_contract_em_grad_cpu(const T* dout, const T* g, const int64_t* rows, int64_t A, int64_t K, int64_t C,
                                 int64_t M, T* dem);

/// dg[r, m] = sum over the (a, k) with rows[a*K + k] == r, in increasing a*K + k, of
/// sum_c em[a, k, c] * dout[a, c, m]: the transpose in g, dg [R, M] (rows no (a, k) names are 0).
/// Each output row is summed on its own (no scatter, no zero fill, the same order every call).
template <class T>
void gather_contract_g_grad_cpu(const T* em, const T* dout, const int64_t* rows, int64_t A, int64_t K, int64_t C,
                                int64_t M, int64_t R, T* dg);

/// The (a, k) naming each row r of g, in increasing j = a*K + k: entries[start[r]] ..
/// entries[start[r + 1] - 1] (a counting sort of rows[0 .. n), n = A*K; start has R + 1 entries).
/// gather_contract_g_grad sums each row over them, on the CPU and the GPU alike.
void row_entries(const int64_t* rows, int64_t n, int64_t R, int64_t* start, int64_t* entries);

}  // namespace sampan::deepmd::kernels
