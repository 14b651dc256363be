// sampan: tensor creation.
#pragma once

#include <vector>

#include "sampan/tensor.h"

namespace sampan {

Tensor zeros(const Shape& shape, DType dtype = DType::Float32, Device device = {});
Tensor ones(const Shape& shape, DType dtype = DType::Float32, Device device = {});
Tensor full(const Shape& shape, double value, DType dtype = DType::Float32, Device device = {});
Tensor zeros_like(const Tensor& t);
Tensor ones_like(const Tensor& t);
Tensor full_like(const Tensor& t, double value);
/// A 0-d tensor holding `value` (complex dtypes get value + 0i).
Tensor scalar_tensor(double value, DType dtype = DType::Float64, Device device = {});
/// [start, start+step, ...) below `end`.
Tensor arange(double start, double end, double step = 1.0, DType dtype = DType::Int64, Device device = {});
/// `steps` values evenly spaced from start to end, both included.
Tensor linspace(double start, double end, int64_t steps, DType dtype = DType::Float32);
/// An n x m identity-like matrix (m = -1: n x n).
Tensor eye(int64_t n, int64_t m = -1, DType dtype = DType::Float32);
/// int64 one-hot encoding: shape index.shape + [num_classes] (-1: max(index) + 1); IndexError
/// for a class outside [0, num_classes).
Tensor one_hot(const Tensor& index, int64_t num_classes = -1);
/// A tensor of `shape` copied from `values` (row-major), converted to `dtype`.
Tensor from_vector(const std::vector<double>& values, const Shape& shape, DType dtype = DType::Float64);

}  // namespace sampan
