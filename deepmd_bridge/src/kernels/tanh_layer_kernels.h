// The tanh activation of the se_e2_a embedding and fitting layers, fused (plain functions over
// pointers and sizes). A layer computes y = tanh(x W + b); unfused, the bias add, the tanh, and in
// training the derivative g (1 - y^2) and its own derivative in y, -2 g h y, each cost one or
// more passes over [rows, width] arrays that are tens of MB for a water box (192 atoms x 138
// neighbours x 100 columns), so they were most of a training step. Each function here is one pass.
//
// The arithmetic is the same as the unfused ops' (u + b rounded, then tanh; 1 - y*y rounded,
// then times g), so forward values and first derivatives are unchanged bit for bit.
#pragma once

#include <cstdint>

namespace sampan::deepmd::kernels {

/// y[r, c] = tanh(u[r, c] + b[c]) for r < rows, c < cols (row-major, contiguous).
template <class T> void bias_tanh_cpu(const T* u, const T* b, int64_t rows, int64_t cols, T* y);

/// out[k] = g[k] * (1 - y[k]^2): the vjp of tanh given its output y.
template <class T> void tanh_backward_cpu(const T* g, const T* y, int64_t n, T* out);

/// out[k] = -2 g[k] h[k] y[k]: the derivative of sum h * g (1 - y^2) in y.
template <class T> void tanh_curvature_cpu(const T* g, const T* h, const T* y, int64_t n, T* out);

/// dg[k] = h[k] * (1 - y[k]^2) and dy[k] = -2 g[k] h[k] y[k] in one pass: the vjp of
/// tanh_backward(g, y) for the cotangent h (what force training's second backward computes at
/// every tanh of the embedding net), the same arithmetic as tanh_backward_cpu(h, y) and
/// tanh_curvature_cpu(g, h, y).
template <class T> void tanh_backward_vjp_cpu(const T* g, const T* h, const T* y, int64_t n, T* dg, T* dy);

// The ResNet shortcut of a layer that doubles its width (DeePMD's y + [x, x]; in general k copies).

/// out[r, j*width + c] = y[r, j*width + c] + x[r, c] for j < times: y, out [rows, times*width],
/// x [rows, width].
template <class T> void add_tiled_cpu(const T* y, const T* x, int64_t rows, int64_t width, int64_t times, T* out);

/// out[r, c] = sum_j g[r, j*width + c] (j = 0, 1, ... in order): the transpose of tiling.
template <class T> void fold_columns_cpu(const T* g, int64_t rows, int64_t width, int64_t times, T* out);

/// out[r, j*width + c] = x[r, c]: x repeated `times` times along columns.
template <class T> void tile_columns_cpu(const T* x, int64_t rows, int64_t width, int64_t times, T* out);

}  // namespace sampan::deepmd::kernels
