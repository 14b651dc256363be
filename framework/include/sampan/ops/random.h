// sampan: random tensors. Each call reserves one draw from `gen` (the default generator when
// null) and runs a random op with that draw's (seed, offset) as attributes; see
// sampan/generator.h for the design (reproducible, independent of the thread count, replayable
// from a traced graph). Random results carry no gradient; dropout's gradient flows through x.
// `device` says where the sample is made (rand, randn, randint and dropout_mask have CUDA
// kernels): the same draw gives the same bits on every device (randn: to its libm's rounding).
#pragma once

#include "sampan/generator.h"
#include "sampan/tensor.h"

namespace sampan {

/// Uniform in [0, 1) (float32 or float64).
Tensor rand(const Shape& shape, DType dtype = DType::Float32, Generator* gen = nullptr, Device device = Device{});
/// Standard normal (float32 or float64).
Tensor randn(const Shape& shape, DType dtype = DType::Float32, Generator* gen = nullptr, Device device = Device{});
/// Integers uniform in [low, high).
Tensor randint(int64_t low, int64_t high, const Shape& shape, DType dtype = DType::Int64, Generator* gen = nullptr,
               Device device = Device{});
/// 1 with probability p (elementwise), else 0; p's shape and dtype.
Tensor bernoulli(const Tensor& p, Generator* gen = nullptr);
/// A random permutation of 0 .. n-1.
Tensor randperm(int64_t n, DType dtype = DType::Int64, Generator* gen = nullptr, Device device = Device{});
Tensor rand_like(const Tensor& t, Generator* gen = nullptr);
Tensor randn_like(const Tensor& t, Generator* gen = nullptr);
/// Uniform in [low, high).
Tensor uniform(const Shape& shape, double low, double high, DType dtype = DType::Float32, Generator* gen = nullptr);
/// Normal with `mean` and standard deviation `std`.
Tensor normal(const Shape& shape, double mean, double std, DType dtype = DType::Float32, Generator* gen = nullptr);
/// Inverted-dropout mask: 0 with probability p, else 1 / (1 - p) (all 0 for p = 1).
Tensor dropout_mask(const Shape& shape, double p, DType dtype = DType::Float32, Generator* gen = nullptr,
                    Device device = Device{});
/// x * dropout_mask(x.shape(), p) when training, else x.
Tensor dropout(const Tensor& x, double p, bool training = true, Generator* gen = nullptr);

}  // namespace sampan
