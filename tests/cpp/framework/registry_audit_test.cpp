// The registry audit: every registered op has sample arguments here and passes check_op. An op
// added without an entry fails this test by name, so the table (like the op set) stays complete.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>

#include "sampan/cuda.h"
#include "sampan/op_library.h"
#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

using namespace sampan;

namespace {

// Deterministic, well-separated float64 values (no ties, no zeros) for smooth gradient checks.
Tensor f64(const Shape& s, double start = 0.35, double step = 0.173) {
  std::vector<double> v;
  for (int64_t i = 0; i < shape_numel(s); ++i) v.push_back(start + step * static_cast<double>((i * 7) % 11) + 0.01 * i);
  return from_vector(v, s);
}
Tensor c128(const Shape& s, double start = 0.2) {
  Tensor t = Tensor::empty(s, DType::Complex128);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<complex128>()[i] = {start + 0.31 * i, 0.4 - 0.17 * i};
  return t;
}
using IntList = std::vector<int64_t>;
using Sample = std::function<std::vector<Values>()>;

// op name -> one or more sample argument lists.
const std::map<std::string, Sample>& samples() {
  static const std::map<std::string, Sample> table = {
      {"core::add", [] { return std::vector<Values>{{f64({2, 3}), f64({3})}, {c128({3}), c128({3}, -0.5)}}; }},
      {"core::sub", [] { return std::vector<Values>{{f64({2, 3}), f64({2, 1})}}; }},
      {"core::mul", [] { return std::vector<Values>{{f64({2, 3}), f64({3})}, {c128({3}), c128({3}, 0.9)}}; }},
      {"core::div", [] { return std::vector<Values>{{f64({2, 3}), f64({3}, 1.0)}}; }},
      // optim.cpp: a step beyond the first (bias corrections), L2 decay, and AdamW's decoupled decay
      {"core::adam_update_", [] { return std::vector<Values>{{f64({2, 3}), f64({2, 3}, -1.0, 0.31), f64({2, 3}, 0.1, 0.05), f64({2, 3}, 0.2, 0.02), 1e-2, 0.9, 0.999, 1e-8, 0.0, int64_t(3), false, false},
                                                             {f64({4}), f64({4}, -1.0, 0.31), f64({4}, 0.1, 0.05), f64({4}, 0.2, 0.02), 1e-2, 0.8, 0.99, 1e-6, 0.1, int64_t(1), true, true}}; }},
      {"core::add_", [] { return std::vector<Values>{{f64({2, 3}), f64({3})}}; }},
      {"core::sub_", [] { return std::vector<Values>{{f64({2, 3}), f64({3})}}; }},
      {"core::mul_", [] { return std::vector<Values>{{f64({2, 3}), f64({3})}}; }},
      {"core::div_", [] { return std::vector<Values>{{f64({2, 3}), f64({3}, 1.0)}}; }},
      // elementwise math (unary.cpp, activation.cpp, binary.cpp, compare.cpp, complex.cpp); f64(s, -1.0, 0.31)
      // has both signs and no zeros, f64(s) lies in (0.3, 2.2) away from integers and halves.
      {"core::abs", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}, {c128({3})}}; }},
      {"core::sign", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}, {c128({3})}}; }},
      {"core::log1p", [] { return std::vector<Values>{{f64({2, 3})}}; }},
      {"core::expm1", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}}; }},
      {"core::sqrt", [] { return std::vector<Values>{{f64({2, 3})}, {c128({3})}}; }},
      {"core::rsqrt", [] { return std::vector<Values>{{f64({2, 3})}, {c128({3})}}; }},
      {"core::sin", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}, {c128({3})}}; }},
      {"core::cos", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}, {c128({3})}}; }},
      {"core::tan", [] { return std::vector<Values>{{f64({2, 3}, -0.6, 0.1)}, {c128({2})}}; }},
      {"core::tanh", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}, {c128({2})}}; }},
      {"core::erf", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}}; }},
      {"core::floor", [] { return std::vector<Values>{{f64({2, 3})}}; }},
      {"core::ceil", [] { return std::vector<Values>{{f64({2, 3})}}; }},
      {"core::round", [] { return std::vector<Values>{{f64({2, 3})}}; }},
      {"core::square", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}, {c128({3})}}; }},
      {"core::reciprocal", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}, {c128({3})}}; }},
      {"core::exp_", [] { return std::vector<Values>{{f64({2, 3})}}; }},
      {"core::sqrt_", [] { return std::vector<Values>{{f64({2, 3})}}; }},
      {"core::sigmoid", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}, {c128({3})}}; }},
      {"core::relu", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}}; }},
      {"core::relu_backward", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31), f64({2, 3}, 0.2, 0.4)}, {f64({2, 3}, -1.0, 0.31), f64({3}, 0.2, 0.4)}}; }},
      {"core::relu_", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}}; }},
      {"core::gelu", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}}; }},
      {"core::silu", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}}; }},
      {"core::softplus", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31), 1.0, 20.0}, {f64({2, 3}), 1.5, 2.0}}; }},
      {"core::clamp", [] { return std::vector<Values>{{f64({2, 3}), 0.8, 1.9}, {f64({2, 3}), 0.8, std::nan("")}}; }},
      {"core::clamp_", [] { return std::vector<Values>{{f64({2, 3}), 0.8, 1.9}}; }},
      {"core::pow", [] { return std::vector<Values>{{f64({2, 3}), f64({3}, -1.0, 0.31)}, {c128({3}), c128({3}, 0.5)}}; }},
      {"core::maximum", [] { return std::vector<Values>{{f64({2, 3}), f64({3}, 0.9)}}; }},
      {"core::minimum", [] { return std::vector<Values>{{f64({2, 3}), f64({3}, 0.9)}}; }},
      {"core::atan2", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31), f64({3}, -0.5, 0.4)}}; }},
      {"core::remainder", [] { return std::vector<Values>{{from_vector({5.3, -5.3, 2.2, -0.7, 7.9, 3.3}, {2, 3}), from_vector({2.0, -1.5, 0.9}, {3})}}; }},
      {"core::floor_divide", [] { return std::vector<Values>{{from_vector({5.3, -5.3, 2.2, -0.7, 7.9, 3.3}, {2, 3}), from_vector({2.0, -1.5, 0.9}, {3})}}; }},
      {"core::where", [] { return std::vector<Values>{{from_vector({1, 0}, {2, 1}, DType::Bool), f64({2, 3}), f64({3}, 0.9)}}; }},
      {"core::eq", [] { return std::vector<Values>{{f64({2, 3}), f64({3})}}; }},
      {"core::ne", [] { return std::vector<Values>{{f64({2, 3}), f64({3})}}; }},
      {"core::lt", [] { return std::vector<Values>{{f64({2, 3}), f64({3}, 0.9)}}; }},
      {"core::le", [] { return std::vector<Values>{{f64({2, 3}), f64({3}, 0.9)}}; }},
      {"core::gt", [] { return std::vector<Values>{{f64({2, 3}), f64({3}, 0.9)}}; }},
      {"core::ge", [] { return std::vector<Values>{{f64({2, 3}), f64({3}, 0.9)}}; }},
      {"core::logical_and", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31), from_vector({1, 0, 1}, {3}, DType::Bool)}}; }},
      {"core::logical_or", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31), from_vector({1, 0, 1}, {3}, DType::Bool)}}; }},
      {"core::logical_xor", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31), from_vector({1, 0, 1}, {3}, DType::Bool)}}; }},
      {"core::logical_not", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}}; }},
      {"core::isnan", [] { return std::vector<Values>{{f64({2, 3})}}; }},
      {"core::isfinite", [] { return std::vector<Values>{{f64({2, 3})}}; }},
      {"core::imag", [] { return std::vector<Values>{{c128({3})}}; }},
      {"core::angle", [] { return std::vector<Values>{{c128({3})}, {f64({2, 3}, -1.0, 0.31)}}; }},
      {"core::polar", [] { return std::vector<Values>{{f64({2, 3}), f64({3}, -1.0, 0.9)}}; }},
      {"core::complex", [] { return std::vector<Values>{{f64({2, 3}), f64({3}, -1.0, 0.9)}}; }},
      {"core::neg", [] { return std::vector<Values>{{f64({4})}}; }},
      {"core::exp", [] { return std::vector<Values>{{f64({4})}, {c128({2})}}; }},
      {"core::log", [] { return std::vector<Values>{{f64({4}, 0.5)}}; }},
      {"core::real", [] { return std::vector<Values>{{c128({3})}}; }},
      {"core::conj", [] { return std::vector<Values>{{c128({3})}}; }},
      {"core::cast", [] { return std::vector<Values>{{f64({3}), std::string("float64")}, {c128({2}), std::string("complex128")}}; }},
      {"core::clone", [] { return std::vector<Values>{{f64({2, 2})}}; }},
      // To the CPU: a sample that runs everywhere; the GPU direction is cuda_device_test's.
      {"core::to_device", [] { return std::vector<Values>{{f64({2, 3}), std::string("cpu")}, {c128({4}), std::string("cpu")}}; }},
      {"core::copy_", [] { return std::vector<Values>{{f64({2, 3}), f64({3})}}; }},
      {"core::full", [] { return std::vector<Values>{{IntList{2, 2}, 1.5, std::string("float32")}}; }},
      {"core::arange", [] { return std::vector<Values>{{0.0, 5.0, 1.5, std::string("float64")}}; }},
      {"core::sum", [] { return std::vector<Values>{{f64({2, 3, 2}), IntList{0, 2}, false}, {f64({3}), IntList{}, true}}; }},
      // linear algebra (linalg.cpp, linalg_decomp.cpp); A is well conditioned with distinct eigenvalues
      {"core::matmul", [] { return std::vector<Values>{{f64({2, 3}), f64({3, 2})}, {c128({2, 2}), c128({2})}, {f64({3}), f64({2, 3, 2})}}; }},
      {"core::outer", [] { return std::vector<Values>{{f64({3}), f64({2})}}; }},
      {"core::dot", [] { return std::vector<Values>{{f64({3}), f64({3}, 0.9)}}; }},
      {"core::vdot", [] { return std::vector<Values>{{c128({3}), c128({3}, -0.5)}}; }},
      {"core::inv", [] { return std::vector<Values>{{from_vector({2.0, 0.3, -0.4, 0.1, 1.5, 0.2, 0.5, -0.3, 1.8}, {3, 3})}}; }},
      {"core::solve", [] { Tensor a = from_vector({2.0, 0.3, -0.4, 0.1, 1.5, 0.2, 0.5, -0.3, 1.8}, {3, 3}); return std::vector<Values>{{a, f64({3})}, {a, f64({3, 2})}}; }},
      {"core::det", [] { return std::vector<Values>{{from_vector({2.0, 0.3, -0.4, 0.1, 1.5, 0.2, 0.5, -0.3, 1.8}, {3, 3})}, {c128({2, 2})}}; }},
      {"core::eigh", [] { return std::vector<Values>{{from_vector({2.0, 0.3, -0.4, 0.3, 1.0, 0.2, -0.4, 0.2, -0.5}, {3, 3})}}; }},
      {"core::svd", [] { return std::vector<Values>{{from_vector({2.0, 0.3, -0.4, 0.1, 1.5, 0.2}, {2, 3})}}; }},
      // softmax.cpp
      {"core::softmax", [] { return std::vector<Values>{{f64({2, 3}), int64_t(1)}, {f64({2, 3}), int64_t(0)}}; }},
      {"core::log_softmax", [] { return std::vector<Values>{{f64({2, 3}), int64_t(-1)}}; }},
      // reductions (reduce.cpp)
      {"core::prod", [] { return std::vector<Values>{{f64({2, 3}), IntList{1}, false}, {c128({3}), IntList{}, true}}; }},
      {"core::amax", [] { return std::vector<Values>{{f64({2, 3}), IntList{1}, false}}; }},
      {"core::amin", [] { return std::vector<Values>{{f64({2, 3, 2}), IntList{0, 2}, true}}; }},
      {"core::argmax", [] { return std::vector<Values>{{f64({2, 3}), IntList{1}, false}}; }},
      {"core::argmin", [] { return std::vector<Values>{{f64({2, 3}), IntList{}, false}}; }},
      {"core::var", [] { return std::vector<Values>{{f64({2, 3}), IntList{1}, 1.0, false}, {c128({3}), IntList{}, 0.0, false}}; }},
      {"core::std", [] { return std::vector<Values>{{f64({2, 3}), IntList{0}, 0.0, true}}; }},
      {"core::logsumexp", [] { return std::vector<Values>{{f64({2, 3}), IntList{1}, false}}; }},
      {"core::norm", [] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31), 2.0, IntList{}, false}, {c128({3}), 1.0, IntList{0}, true}, {f64({2, 3}, -1.0, 0.31), HUGE_VAL, IntList{1}, false}}; }},
      {"core::cumsum", [] { return std::vector<Values>{{f64({2, 3}), int64_t(1), false}, {c128({3}), int64_t(0), true}}; }},
      {"core::reshape", [] { return std::vector<Values>{{f64({2, 3}), IntList{3, -1}}, {transpose(f64({2, 3}), 0, 1), IntList{6}}}; }},
      {"core::broadcast_to", [] { return std::vector<Values>{{f64({3, 1}), IntList{2, 3, 4}}}; }},
      {"core::permute", [] { return std::vector<Values>{{f64({2, 3, 4}), IntList{2, 0, 1}}}; }},
      // views and their scatters (shape.cpp), indexing (index.cpp, mask.cpp, assemble.cpp), ordering (sort.cpp)
      {"core::slice", [] { return std::vector<Values>{{f64({3, 4}), int64_t(1), int64_t(3), int64_t(0), int64_t(-2)}}; }},
      {"core::select", [] { return std::vector<Values>{{f64({3, 4}), int64_t(1), int64_t(-1)}}; }},
      {"core::squeeze", [] { return std::vector<Values>{{f64({3, 1}), IntList{}}}; }},
      {"core::unsqueeze", [] { return std::vector<Values>{{f64({3, 2}), int64_t(-1)}}; }},
      {"core::diagonal", [] { return std::vector<Values>{{f64({2, 3, 4}), int64_t(1), int64_t(2), int64_t(1)}}; }},
      {"core::slice_scatter", [] { return std::vector<Values>{{f64({3, 4}), f64({3, 2}, 0.9), int64_t(1), int64_t(3), int64_t(0), int64_t(-2)}}; }},
      {"core::select_scatter", [] { return std::vector<Values>{{f64({3, 4}), f64({3}, 0.9), int64_t(1), int64_t(2)}}; }},
      {"core::diagonal_scatter", [] { return std::vector<Values>{{f64({3, 4}), f64({2}, 0.9), int64_t(-1), int64_t(0), int64_t(1)}}; }},
      {"core::index_select", [] { return std::vector<Values>{{f64({3, 4}), int64_t(1), from_vector({3, 0, 3, -2}, {4}, DType::Int64)}}; }},
      {"core::index_add", [] { return std::vector<Values>{{f64({3, 4}), int64_t(0), from_vector({2, 0, 2}, {3}, DType::Int64), f64({3, 4}, 0.9)}}; }},
      {"core::index_copy", [] { return std::vector<Values>{{f64({3, 4}), int64_t(1), from_vector({3, 0}, {2}, DType::Int64), f64({3, 2}, 0.9)}}; }},
      {"core::gather", [] { return std::vector<Values>{{f64({3, 4}), int64_t(1), from_vector({0, 3, 3, 1, 2, 2}, {3, 2}, DType::Int64)}}; }},
      {"core::scatter_add", [] { return std::vector<Values>{{f64({3, 4}), int64_t(0), from_vector({0, 2, 2, 0, 1, 1}, {2, 3}, DType::Int64), f64({2, 3}, 0.9)}}; }},
      {"core::masked_select", [] { return std::vector<Values>{{f64({2, 3}), from_vector({1, 0, 1}, {3}, DType::Bool)}}; }},
      {"core::masked_scatter", [] { return std::vector<Values>{{f64({2, 3}), from_vector({1, 0, 1}, {3}, DType::Bool), f64({5}, 0.9)}}; }},
      {"core::masked_fill", [] { return std::vector<Values>{{f64({2, 3}), from_vector({1, 0, 1}, {3}, DType::Bool), f64({}, 0.9)}}; }},
      {"core::concat", [] { return std::vector<Values>{{std::vector<Tensor>{f64({2, 3}), f64({2, 1}, 0.9)}, int64_t(1)}}; }},
      {"core::stack", [] { return std::vector<Values>{{std::vector<Tensor>{f64({2, 3}), f64({2, 3}, 0.9)}, int64_t(-1)}}; }},
      {"core::pad", [] { return std::vector<Values>{{f64({2, 3}), IntList{1, 0, 2, 1}, 0.5}}; }},
      {"core::repeat_index", [] { return std::vector<Values>{{from_vector({2, 0, 1}, {3}, DType::Int64)}}; }},
      {"core::sort", [] { return std::vector<Values>{{f64({3, 4}), int64_t(0), true}}; }},
      {"core::topk", [] { return std::vector<Values>{{f64({3, 4}), int64_t(2), int64_t(1), false}}; }},
      // segment reductions (segment.cpp)
      // gather_add_scatter (segment.cpp): unsorted scatter ids, a repeated gather index,
      // an empty segment (2 of 4); with and without the edge term
      {"core::gather_add_scatter", [] { return std::vector<Values>{{f64({4, 3}), from_vector({3, 0, 1, 3, 2}, {5}, DType::Int64), from_vector({1, 0, 1, 3, 0}, {5}, DType::Int64), int64_t(4), f64({5, 3}, -1.0, 0.31)},
                                                                   {f64({3, 2}), from_vector({2, 0, 2}, {3}, DType::Int64), from_vector({0, 0, 1}, {3}, DType::Int64), int64_t(-1), Value()}}; }},
      // normalization.cpp: batch_norm_train (first order through the fused backward, second order
      // through the composition) and its once-differentiable backward, every output weighted
      {"core::batch_norm_train", [] { return std::vector<Values>{{f64({5, 3}, -1.0, 0.31), f64({3}, 0.5, 0.4), f64({3}, -0.2, 0.3), 1e-5},
                                                                 {f64({4, 2}), f64({2}, 1.2, -0.5), f64({2}, 0.1), 0.1}}; }},
      {"core::batch_norm_train_backward", [] { return std::vector<Values>{{f64({5, 3}, -1.0, 0.31), f64({5, 3}, 0.2, -0.13), f64({3}, -0.1, 0.2), f64({3}, 0.6, 0.3), f64({3}, 0.5, 0.4), 1e-5, f64({3}, 0.3, -0.2), f64({3}, -0.4, 0.25)}}; }},
      {"core::segment_sum", [] { return std::vector<Values>{{f64({5, 3}), from_vector({2, 0, 2, 3, 0}, {5}, DType::Int64), int64_t(4)}, {f64({4}), from_vector({0, 0, 1, 1}, {4}, DType::Int64), int64_t(-1)}}; }},
      {"core::segment_mean", [] { return std::vector<Values>{{f64({5, 3}), from_vector({2, 0, 2, 3, 0}, {5}, DType::Int64), int64_t(4)}}; }},
      {"core::segment_max", [] { return std::vector<Values>{{f64({5, 3}), from_vector({2, 0, 2, 3, 0}, {5}, DType::Int64), int64_t(4)}}; }},
      {"core::segment_min", [] { return std::vector<Values>{{f64({5, 3}), from_vector({2, 0, 2, 3, 0}, {5}, DType::Int64), int64_t(4)}}; }},
      {"core::segment_count", [] { return std::vector<Values>{{from_vector({2, 0, 2, 3, 0}, {5}, DType::Int64), int64_t(5)}}; }},
      // creation (creation.cpp) and random (random.cpp)
      {"core::linspace", [] { return std::vector<Values>{{0.0, 1.0, int64_t(5), std::string("float64")}}; }},
      {"core::eye", [] { return std::vector<Values>{{int64_t(3), int64_t(2), std::string("float32")}}; }},
      {"core::one_hot", [] { return std::vector<Values>{{from_vector({2, 0, 1}, {3}, DType::Int64), int64_t(4)}}; }},
      {"core::rand", [] { return std::vector<Values>{{IntList{3, 2}, std::string("float64"), int64_t(5), int64_t(0)}}; }},
      {"core::dropout_mask", [] { return std::vector<Values>{{IntList{3, 4}, 0.5, std::string("float64"), int64_t(5), int64_t(3)}, {IntList{5}, 0.0, std::string("float32"), int64_t(1), int64_t(0)}}; }},
      {"core::randn", [] { return std::vector<Values>{{IntList{4}, std::string("float32"), int64_t(5), int64_t(1)}}; }},
      {"core::randint", [] { return std::vector<Values>{{int64_t(-2), int64_t(9), IntList{4}, std::string("int64"), int64_t(5), int64_t(2)}}; }},
      {"core::bernoulli", [] { return std::vector<Values>{{full({2, 2}, 0.5, DType::Float64), int64_t(5), int64_t(3)}}; }},
      {"core::randperm", [] { return std::vector<Values>{{int64_t(6), std::string("int64"), int64_t(5), int64_t(4)}}; }},
  };
  return table;
}

// Namespaces registered by test binaries themselves (deliberately broken or example ops).
bool is_test_namespace(const std::string& name) {
  return name.rfind("test::", 0) == 0 || name.rfind("demo::", 0) == 0;
}

}  // namespace

TEST(RegistryAudit, BuiltInRegistrationsHadNoErrors) {
  auto errors = take_pending_registration_errors();
  for (auto& e : errors) ADD_FAILURE() << e;
}

TEST(RegistryAudit, EveryOpHasSamplesAndPassesCheckOp) {
  int checked = 0;
  for (const auto& name : registered_ops()) {
    if (is_test_namespace(name)) continue;
    const OpSchema& op = find_op(name);
    EXPECT_TRUE(op.shape_fn) << name << " has no shape function";
    EXPECT_TRUE(op.vjp || op.nondifferentiable) << name << " has neither a vjp nor a nondifferentiable mark";
    auto it = samples().find(name);
    if (it == samples().end()) {
      ADD_FAILURE() << "op '" << name << "' has no sample arguments in registry_audit_test.cpp: add them";
      continue;
    }
    for (const auto& args : it->second()) {
      auto r = check_op(op, args);
      EXPECT_TRUE(r.ok) << name << ": " << r.summary();
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
}

// The graph ops of message passing (helix's GNN layers: gather rows with index_select, its
// gradient index_add, reduce messages with the segment ops, count them with segment_count), the
// other gathers and scatters (gather, scatter_add, index_copy), the fused GIN ops, and the copies
// (clone, to_device) have CUDA twins (framework/src/kernels/*.cu) over the same per-element
// functions as their CPU kernels. In a build with nvcc the registry must list a CUDA kernel for
// each; with a GPU in the process check_op runs each on cuda:0 and must find the CPU's bits (the
// twins fold every sum in the CPU's order), without one it must report the comparison as skipped
// (not pretend it ran); without nvcc there is no CUDA kernel and check_op says so.
TEST(RegistryAudit, GraphOpsHaveCudaTwinsExactlyWhereBuiltWithNvcc) {
  const char* skipped = "CPU vs CUDA: no GPU in this process, skipped";
  const char* identical = "CPU vs CUDA: identical bits";
  const char* absent = "CPU vs CUDA: op has no CUDA kernel";
  for (const char* name : {"core::index_select", "core::index_add", "core::index_copy", "core::gather", "core::scatter_add",
                           "core::segment_sum", "core::segment_mean", "core::segment_max", "core::segment_min",
                           "core::segment_count", "core::gather_add_scatter", "core::batch_norm_train",
                           "core::batch_norm_train_backward", "core::clone", "core::to_device"}) {
    const OpSchema& op = find_op(name);
    auto it = samples().find(name);
    ASSERT_NE(it, samples().end()) << name;
    CheckOpOptions quick;
    quick.gradients = false;
    quick.dtype_sweep = false;
    auto r = check_op(op, it->second().front(), quick);
    EXPECT_TRUE(r.ok) << name << ": " << r.summary();
    auto noted = [&](const char* note) { return std::find(r.notes.begin(), r.notes.end(), note) != r.notes.end(); };
#if defined(SAMPAN_CUDA_KERNELS)
    EXPECT_EQ(op.kernels.count(DeviceType::CUDA), 1u) << name << ": built with nvcc but no CUDA kernel registered";
    EXPECT_TRUE(noted(cuda::is_available() ? identical : skipped)) << name << ": " << r.summary();
#else
    EXPECT_EQ(op.kernels.count(DeviceType::CUDA), 0u) << name << ": a CUDA kernel in a build without nvcc";
    EXPECT_TRUE(noted(absent)) << name << ": " << r.summary();
#endif
  }
}
