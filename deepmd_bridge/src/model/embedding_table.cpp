// Tabulating an se_e2_a embedding net (sampan/deepmd/embedding_table.h).
#include "sampan/deepmd/embedding_table.h"

#include <cmath>
#include <vector>

#include "sampan/deepmd/deep_pot.h"
#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/ops.h"

namespace sampan::deepmd {

double EmbeddingTable::extrapolated() const {
  const int64_t nint0 = std::llround((upper - lower) / stride0);
  return upper + static_cast<double>(intervals() - nint0) * stride1;
}

Tensor EmbeddingTable::forward(const Tensor& s) const {
  static OpHandle op("deepmd::tabulated_embedding");
  return op(s, table, lower, upper, stride0, stride1, int64_t{0})[0];
}

std::vector<Tensor> embedding_derivatives(const DenseNet& net, const Tensor& x) {
  // y, y' = dy/ds, y'' through each layer z = act(y W + b) (* idt) (+ y or [y, y]):
  // u' = y' W, u'' = y'' W; tanh: z' = (1 - z^2) u', z'' = (1 - z^2) (u'' - 2 z u'^2).
  Tensor y = x, d1 = ones_like(x), d2 = zeros_like(x);
  for (const DenseLayer& layer : net.layers) {
    Tensor u = add(matmul(y, layer.w), layer.b), u1 = matmul(d1, layer.w), u2 = matmul(d2, layer.w);
    Tensor z = u, z1 = u1, z2 = u2;
    if (layer.tanh) {
      z = sampan::tanh(u);
      Tensor slope = sub(scalar_tensor(1.0), mul(z, z));
      z1 = mul(slope, u1);
      z2 = mul(slope, sub(u2, mul(mul(scalar_tensor(2.0), z), mul(u1, u1))));
    }
    if (layer.idt.defined()) {
      z = mul(z, layer.idt);
      z1 = mul(z1, layer.idt);
      z2 = mul(z2, layer.idt);
    }
    if (layer.resnet) {
      const int64_t in = layer.w.size(0), out = layer.w.size(1);
      if (out == in) {
        z = add(z, y); z1 = add(z1, d1); z2 = add(z2, d2);
      } else if (out == 2 * in) {
        z = add(z, concat({y, y}, 1)); z1 = add(z1, concat({d1, d1}, 1)); z2 = add(z2, concat({d2, d2}, 1));
      }
    }
    y = z; d1 = z1; d2 = z2;
  }
  return {y, d1, d2};
}

EmbeddingTable tabulate_embedding(const DenseNet& net, double lower, double upper, double step, double extrapolate) {
  SAMPAN_CHECK(step > 0 && std::isfinite(step), ValueError, "deepmd compress: step must be > 0, got ", step);
  SAMPAN_CHECK(extrapolate >= 1 && std::isfinite(extrapolate), ValueError,
               "deepmd compress: extrapolate must be >= 1, got ", extrapolate);
  SAMPAN_CHECK(std::isfinite(lower) && std::isfinite(upper) && upper > lower, ValueError,
               "deepmd compress: the range of s~ must be finite with upper > lower, got [", lower, ", ", upper, "]");
  EmbeddingTable t;
  t.stride0 = step;
  t.stride1 = 10 * step;
  const int64_t k_lo = static_cast<int64_t>(std::floor(lower / step)), k_hi = static_cast<int64_t>(std::ceil(upper / step));
  const int64_t nint0 = k_hi - k_lo;
  t.lower = static_cast<double>(k_lo) * step;
  t.upper = t.lower + static_cast<double>(nint0) * step;
  const int64_t nint1 = static_cast<int64_t>(std::ceil((extrapolate - 1) * (t.upper - t.lower) / t.stride1 - 1e-9));
  // the interval ends: nint0 + 1 fine nodes, then nint1 coarse ones past upper
  std::vector<double> nodes;
  for (int64_t j = 0; j <= nint0; ++j) nodes.push_back(t.lower + static_cast<double>(j) * step);
  for (int64_t j = 1; j <= nint1; ++j) nodes.push_back(t.upper + static_cast<double>(j) * t.stride1);
  const int64_t nn = static_cast<int64_t>(nodes.size()), intervals = nn - 1;
  std::vector<Tensor> d;
  {
    NoGradGuard no_grad;
    d = embedding_derivatives(net, from_vector(nodes, {nn, 1}, DType::Float64));
  }
  const int64_t M = d[0].size(1);
  Tensor y = d[0].contiguous(), y1 = d[1].contiguous(), y2 = d[2].contiguous();
  const double *f = y.data<double>(), *f1 = y1.data<double>(), *f2 = y2.data<double>();
  t.table = Tensor::empty({intervals, 6, M}, DType::Float64);
  double* a = t.table.data<double>();
  for (int64_t k = 0; k < intervals; ++k) {
    const double h = nodes[k + 1] - nodes[k], h2 = h * h, h3 = h2 * h;
    for (int64_t m = 0; m < M; ++m) {
      // the quintic with value, slope and curvature (p0, v0, c0) at t = 0 and (p1, v1, c1) at t = h
      const double p0 = f[k * M + m], p1 = f[(k + 1) * M + m];
      const double v0 = f1[k * M + m], v1 = f1[(k + 1) * M + m];
      const double c0 = f2[k * M + m], c1 = f2[(k + 1) * M + m];
      double* out = a + k * 6 * M + m;  // [interval][c][m]
      out[0] = p0;
      out[M] = v0;
      out[2 * M] = c0 / 2;
      out[3 * M] = (20 * (p1 - p0) - (8 * v1 + 12 * v0) * h - (3 * c0 - c1) * h2) / (2 * h3);
      out[4 * M] = (30 * (p0 - p1) + (14 * v1 + 16 * v0) * h + (3 * c0 - 2 * c1) * h2) / (2 * h3 * h);
      out[5 * M] = (12 * (p1 - p0) - 6 * (v1 + v0) * h - (c0 - c1) * h2) / (2 * h3 * h2);
    }
  }
  return t;
}

}  // namespace sampan::deepmd
