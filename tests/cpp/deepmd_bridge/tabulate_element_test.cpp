// The per-element bodies of the tabulated embedding ops' CUDA twins (deepmd_bridge/src/kernels/
// tabulate_element.h), run on the CPU: every output element of each op goes through the body a
// GPU thread runs and must have the CPU op's bits: the fused contraction in the CPU's visiting
// order (by interval, then slot), the sums over m in its eight lanes. The float64 fused ops
// (contract, expand, pair) agree to 1e-13 only, as their CPU clone for AVX-512 contracts products
// into fused multiply-adds (on other CPUs they too give the bits). Both dtypes; M = 19 (two
// full lane rounds and a tail); s inside the fine and the coarse intervals and beyond both ends
// (held rows); derivative orders 0, 1, 2, 3 and 6 (identically zero).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "../../../deepmd_bridge/src/kernels/tabulate_element.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "test_util.h"

using namespace sampan;
namespace dk = sampan::deepmd::kernels;

namespace {

Tensor call(const char* name, Values args) { return call_op(find_op(name), std::move(args))[0]; }

template <class T> Tensor through(const Tensor& like, const std::function<T(int64_t)>& body) {
  Tensor out = Tensor::empty(like.shape(), like.dtype());
  for (int64_t k = 0; k < out.numel(); ++k) out.data<T>()[k] = body(k);
  return out;
}

void expect_bits(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  EXPECT_EQ(std::memcmp(got.raw_data(), want.contiguous().raw_data(), want.nbytes()), 0) << what;
}

// The CPU's bits, or for float64 (an FMA clone on AVX-512) its values to 1e-13 relative.
void expect_fused(const Tensor& got, const Tensor& want, const std::string& what) {
  if (want.dtype() == DType::Float32) return expect_bits(got, want, what);
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const auto a = test::values(got), b = test::values(want);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_LE(std::abs(a[i] - b[i]), 1e-13 * (1.0 + std::abs(b[i]))) << what << " " << i;
}

// 8 intervals of 0.25 on [-1, 1), then 4 of 0.5 up to 3; s from -1.6 to 3.6.
constexpr double kLower = -1.0, kUpper = 1.0, kStride0 = 0.25, kStride1 = 0.5;
const dk::TableGrid kGrid{kLower, kUpper, kStride0, kStride1, 8, 4};

template <class T> void check_table_elements(DType dt) {
  const int64_t A = 5, J = 13, C = 4, M = 19, intervals = 12;
  Tensor table = test::uniform({intervals, 6, M}, -1, 1, 51).to(dt);
  Tensor s = test::uniform({A, J}, -1.6, 3.6, 52).to(dt);
  Tensor X = test::uniform({A, J, C}, -1, 1, 53).to(dt), H = test::uniform({A, C, M}, -1, 1, 54).to(dt);
  Tensor rows_s = reshape(s, {A * J, 1}), w = test::uniform({A * J, M}, -1, 1, 55).to(dt);
  const T *pt = table.data<T>(), *ps = s.data<T>(), *px = X.data<T>(), *ph = H.data<T>(), *pw = w.data<T>();
  int held = 0;
  for (int64_t r = 0; r < A * J; ++r) held += dk::locate(kGrid, static_cast<double>(ps[r])).held;
  ASSERT_GT(held, 2) << "the sample must reach beyond the table";

  std::vector<int64_t> order(static_cast<size_t>(A * J));
  for (int64_t a = 0; a < A; ++a) dk::pair_order_of_centre(kGrid, ps, J, a, order.data() + a * J);

  for (int64_t k : {0, 1, 2, 3, 6}) {
    const std::string at = std::string(dtype_name(dt)) + ", order " + std::to_string(k);
    const int o = static_cast<int>(k);
    Tensor G = call("deepmd::tabulated_embedding", {rows_s, table, kLower, kUpper, kStride0, kStride1, k});
    expect_bits(through<T>(G, [&](int64_t i) { return dk::tabulated_embedding_at(kGrid, pt, M, ps, o, i); }), G,
                "tabulated_embedding, " + at);
    Tensor y = call("deepmd::tabulated_embedding_dot", {rows_s, w, table, kLower, kUpper, kStride0, kStride1, k});
    expect_bits(through<T>(y, [&](int64_t r) { return dk::tabulated_row_dot(kGrid, pt, M, ps[r], o, pw + r * M); }), y,
                "tabulated_embedding_dot, " + at);
    Tensor dA = call("deepmd::tabulated_embedding_table_grad",
                     {rows_s, w, intervals, kLower, kUpper, kStride0, kStride1, k});
    Tensor got = Tensor::empty(dA.shape(), dt);
    for (int64_t col = 0; col < 6 * M; ++col)
      dk::tabulated_table_grad_column(kGrid, intervals, M, ps, pw, A * J, o, col, got.data<T>());
    expect_bits(got, dA, "tabulated_embedding_table_grad, " + at);
    Tensor O = call("deepmd::tabulated_contract", {X, s, table, kLower, kUpper, kStride0, kStride1, k});
    expect_fused(through<T>(O, [&](int64_t i) {
                  return dk::tabulated_contract_at(kGrid, pt, M, px, ps, order.data(), J, C, o, i);
                }),
                O, "tabulated_contract, " + at);
    Tensor E = call("deepmd::tabulated_expand", {H, s, table, kLower, kUpper, kStride0, kStride1, k});
    expect_fused(through<T>(E, [&](int64_t i) { return dk::tabulated_expand_at(kGrid, pt, M, ph, ps, J, C, o, i); }), E,
                "tabulated_expand, " + at);
    Tensor P = call("deepmd::tabulated_pair", {H, X, s, table, kLower, kUpper, kStride0, kStride1, k});
    expect_fused(through<T>(P, [&](int64_t i) { return dk::tabulated_pair_at(kGrid, pt, M, ph, px, ps, J, C, o, i); }), P,
                "tabulated_pair, " + at);
  }
}

}  // namespace

TEST(TabulateElements, EveryOutputElementHasTheCpuOpsBits) {
  check_table_elements<float>(DType::Float32);
  check_table_elements<double>(DType::Float64);
}

// The visiting order of one centre's slots: by interval, ties in slot order (the CPU's stable
// counting sort of a chunk's pairs, restricted to the centre).
TEST(TabulateElements, PairOrderIsByIntervalThenSlot) {
  const std::vector<double> s = {2.9, -0.1, 0.6, -0.05, -3.0, 2.95, 0.6};
  std::vector<int64_t> order(s.size());
  dk::pair_order_of_centre(kGrid, s.data(), static_cast<int64_t>(s.size()), 0, order.data());
  // intervals: 2.9 -> 11, -0.1 -> 3, 0.6 -> 6, -0.05 -> 3, -3.0 -> 0 (held), 2.95 -> 11, 0.6 -> 6
  EXPECT_EQ(order, (std::vector<int64_t>{4, 1, 3, 2, 6, 0, 5}));
}
