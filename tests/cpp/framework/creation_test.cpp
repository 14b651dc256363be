// Tests of the creation ops: linspace, eye, one_hot (values, dtypes, errors) next to the
// existing full/arange helpers.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "sampan/ops.h"
#include "sampan/testing/check_op.h"
#include "../../../framework/src/kernels/convert_element.h"
#include "../../../framework/src/kernels/creation_element.h"
#include "../../../framework/src/ops/device_elements.h"

using namespace sampan;

namespace {
using V = std::vector<double>;
std::vector<double> values(const Tensor& t) {
  Tensor c = contiguous(cast(t.detach(), DType::Float64));
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}
}  // namespace

TEST(Creation, Linspace) {
  EXPECT_EQ(values(linspace(0, 1, 5, DType::Float64)), (V{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(values(linspace(2, -1, 4, DType::Float64)), (V{2, 1, 0, -1}));
  EXPECT_EQ(values(linspace(3, 7, 1, DType::Float64)), (V{3}));
  EXPECT_EQ(linspace(0, 1, 0).shape(), (Shape{0}));
  // both ends exact even when the step is not representable
  Tensor t = linspace(0.1, 0.7, 7, DType::Float64);
  EXPECT_EQ(values(t).front(), 0.1);
  EXPECT_EQ(values(t).back(), 0.7);
  EXPECT_EQ(linspace(0, 1, 3).dtype(), DType::Float32);
  EXPECT_EQ(values(linspace(0, 10, 3, DType::Int64)), (V{0, 5, 10}));
  EXPECT_THROW(linspace(0, 1, -1), ValueError);
}

TEST(Creation, Eye) {
  EXPECT_EQ(values(eye(2)), (V{1, 0, 0, 1}));
  Tensor e = eye(2, 3, DType::Int64);
  EXPECT_EQ(e.shape(), (Shape{2, 3}));
  EXPECT_EQ(e.dtype(), DType::Int64);
  EXPECT_EQ(values(e), (V{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(values(eye(3, 1)), (V{1, 0, 0}));
  EXPECT_EQ(eye(0).shape(), (Shape{0, 0}));
  EXPECT_EQ(values(eye(2, 2, DType::Complex128)), (V{1, 0, 0, 1}));
  EXPECT_THROW(eye(-1), ValueError);
}

TEST(Creation, OneHot) {
  Tensor idx = from_vector({2, 0, 1, 2}, {2, 2}, DType::Int64);
  Tensor h = one_hot(idx, 3);
  EXPECT_EQ(h.shape(), (Shape{2, 2, 3}));
  EXPECT_EQ(h.dtype(), DType::Int64);
  EXPECT_EQ(values(h), (V{0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(one_hot(from_vector({1, 4}, {2}, DType::Int32)).shape(), (Shape{2, 5}));  // inferred
  try {
    one_hot(idx, 2);
    FAIL() << "expected IndexError";
  } catch (const IndexError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("class index 2"), std::string::npos) << m;
    EXPECT_NE(m.find("num_classes 2"), std::string::npos) << m;
  }
  EXPECT_THROW(one_hot(from_vector({-1}, {1}, DType::Int64), 3), IndexError);
  EXPECT_THROW(one_hot(from_vector({1}, {1}), 3), TypeError);
}

TEST(Creation, CheckOp) {
  for (const auto& [name, args] : std::vector<std::pair<std::string, Values>>{
           {"core::linspace", {0.0, 1.0, int64_t(5), std::string("float64")}},
           {"core::eye", {int64_t(3), int64_t(2), std::string("float32")}},
           {"core::one_hot", {from_vector({2, 0, 1}, {3}, DType::Int64), int64_t(4)}}}) {
    auto r = check_op(name, args);
    EXPECT_TRUE(r.ok) << name << ": " << r.summary();
  }
}

// arange, linspace and eye as their CUDA kernel computes them (kernels/creation_element.h's value
// of element i through convert_element, over the element types visit_storage_element picks) give
// the CPU ops' bits in every dtype, half precision and complex included.
TEST(Creation, TheGpuBodiesOfTheIndexMadeOpsGiveTheCpusBits) {
  const std::vector<DType> dtypes = {DType::Bool,     DType::Int32,   DType::Int64,     DType::Float16,   DType::BFloat16,
                                     DType::Float32,  DType::Float64, DType::Complex64, DType::Complex128};
  for (DType d : dtypes) {
    SCOPED_TRACE(dtype_name(d));
    const std::string name = dtype_name(d);
    struct Case {
      Tensor want;
      std::function<double(int64_t)> value;
    };
    const std::vector<Case> cases = {
        {call_op("core::arange", {-2.5, 4.0, 0.75, name, std::string("cpu")})[0], kernels::ArangeValue{-2.5, 0.75}},
        {call_op("core::linspace", {-1.0, 3.0, int64_t(9), name, std::string("cpu")})[0],
         kernels::LinspaceValue{-1.0, 3.0, 9}},
        {call_op("core::eye", {int64_t(3), int64_t(4), name, std::string("cpu")})[0], kernels::EyeValue{4}}};
    for (const Case& c : cases) {
      Tensor got = Tensor::empty(c.want.shape(), d);
      detail::visit_storage_element(d, "test", [&](auto tag) {
        using T = typename decltype(tag)::type;
        for (int64_t i = 0; i < got.numel(); ++i) static_cast<T*>(got.raw_data())[i] = kernels::convert_element<T>(c.value(i));
      });
      EXPECT_EQ(std::memcmp(got.raw_data(), c.want.raw_data(), c.want.nbytes()), 0);
    }
  }
}
