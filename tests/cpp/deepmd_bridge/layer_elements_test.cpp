// The per-element bodies of the se_e2_a layer ops' CUDA twins (deepmd_bridge/src/kernels/
// layer_elements.h), run on the CPU: every output element of each op goes through the body a GPU
// thread runs, and must have the CPU op's bits, or for bias_tanh (CUDA's tanh against glibc's
// vector tanh) and gather_contract_em_grad (the CPU sums in SIMD lanes) its value to rounding.
// Both dtypes, the C = 4 path and the general one, rows that repeat and a row no slot names.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "../../../deepmd_bridge/src/kernels/gather_contract_kernels.h"
#include "../../../deepmd_bridge/src/kernels/layer_elements.h"
#include "sampan/dispatch.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "test_util.h"

using namespace sampan;
namespace dk = sampan::deepmd::kernels;

namespace {

Tensor call(const char* name, Values args, int output = 0) { return call_op(find_op(name), std::move(args))[output]; }

Tensor rows_for(int64_t A, int64_t K, int64_t R) {
  std::vector<double> v;
  for (int64_t j = 0; j < A * K; ++j) v.push_back(static_cast<double>((j * 7 + j / 5) % (R - 1)));
  return from_vector(v, {A * K}, DType::Int64);
}

// An output of `like`'s shape and dtype whose element k is body(k) in element type T.
template <class T> Tensor through(const Tensor& like, const std::function<T(int64_t)>& body) {
  Tensor out = Tensor::empty(like.shape(), like.dtype());
  for (int64_t k = 0; k < out.numel(); ++k) out.data<T>()[k] = body(k);
  return out;
}

void expect_bits(const Tensor& got, const Tensor& want, const char* what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  EXPECT_EQ(std::memcmp(got.raw_data(), want.raw_data(), want.nbytes()), 0) << what;
}

void expect_close(const Tensor& got, const Tensor& want, double rel, const char* what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  auto a = test::values(got), b = test::values(want);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_LE(std::abs(a[i] - b[i]), rel * (1.0 + std::abs(b[i]))) << what << " " << i;
}

template <class T> void check_layer_elements(DType dt) {
  const double rel = dt == DType::Float32 ? 1e-6 : 1e-14;
  Tensor u = test::uniform({7, 6}, -2.5, 2.5, 1).to(dt), b = test::uniform({6}, -0.5, 0.5, 2).to(dt);
  Tensor y = call("deepmd::bias_tanh", {u, b});
  const T *pu = u.data<T>(), *pb = b.data<T>(), *py = y.data<T>();
  expect_close(through<T>(y, [&](int64_t k) { return dk::bias_tanh_at(pu, pb, int64_t{6}, k); }), y, rel, "bias_tanh");
  Tensor g = test::uniform({7, 6}, -1, 1, 3).to(dt), h = test::uniform({7, 6}, -1, 1, 4).to(dt);
  const T *pg = g.data<T>(), *ph = h.data<T>();
  expect_bits(through<T>(g, [&](int64_t k) { return dk::tanh_backward_at(pg[k], py[k]); }),
              call("deepmd::tanh_backward", {g, y}), "tanh_backward");
  expect_bits(through<T>(g, [&](int64_t k) { return dk::tanh_curvature_at(pg[k], ph[k], py[k]); }),
              call("deepmd::tanh_curvature", {g, h, y}), "tanh_curvature");
  expect_bits(through<T>(g, [&](int64_t k) { return dk::tanh_backward_at(ph[k], py[k]); }),
              call("deepmd::tanh_backward_vjp", {g, h, y}, 0), "tanh_backward_vjp dg");
  expect_bits(through<T>(g, [&](int64_t k) { return dk::tanh_curvature_at(pg[k], ph[k], py[k]); }),
              call("deepmd::tanh_backward_vjp", {g, h, y}, 1), "tanh_backward_vjp dy");
  Tensor wide = test::uniform({5, 9}, -1, 1, 5).to(dt), x = test::uniform({5, 3}, -1, 1, 6).to(dt);
  const T *pw = wide.data<T>(), *px = x.data<T>();
  expect_bits(through<T>(wide, [&](int64_t k) { return dk::add_tiled_at(pw, px, int64_t{3}, int64_t{3}, k); }),
              call("deepmd::add_tiled", {wide, x}), "add_tiled");
  expect_bits(through<T>(x, [&](int64_t k) { return dk::fold_columns_at(pw, int64_t{3}, int64_t{3}, k); }),
              call("deepmd::fold_columns", {wide, int64_t{3}}), "fold_columns");
  expect_bits(through<T>(wide, [&](int64_t k) { return dk::tile_columns_at(px, int64_t{3}, int64_t{3}, k); }),
              call("deepmd::tile_columns", {x, int64_t{3}}), "tile_columns");
}

template <class T> void check_contract_elements(DType dt, int64_t C) {
  const double rel = dt == DType::Float32 ? 1e-5 : 1e-13;
  const int64_t A = 6, K = 9, M = 11, R = 8;
  Tensor em = test::uniform({A, K, C}, -1, 1, 7).to(dt), g = test::uniform({R, M}, -1, 1, 8).to(dt);
  Tensor rows = rows_for(A, K, R), h = test::uniform({A, C, M}, -1, 1, 9).to(dt);
  const T *pe = em.data<T>(), *pg = g.data<T>(), *ph = h.data<T>();
  const int64_t* pr = rows.data<int64_t>();
  Tensor out = call("deepmd::gather_contract", {em, g, rows});
  expect_bits(through<T>(out, [&](int64_t i) { return dk::gather_contract_at(pe, pg, pr, K, C, M, i); }), out,
              "gather_contract");
  Tensor dem = call("deepmd::gather_contract_em_grad", {h, g, rows});
  expect_close(through<T>(dem, [&](int64_t i) { return dk::gather_contract_em_grad_at(ph, pg, pr, K, C, M, i); }), dem,
               rel, "gather_contract_em_grad");
  std::vector<int64_t> start(R + 1), entries(A * K);
  dk::row_entries(pr, A * K, R, start.data(), entries.data());
  Tensor dg = call("deepmd::gather_contract_g_grad", {em, h, rows, R});
  expect_bits(through<T>(dg, [&](int64_t i) {
                return dk::gather_contract_g_grad_at(pe, ph, start.data(), entries.data(), K, C, M, i);
              }),
              dg, "gather_contract_g_grad");
  EXPECT_EQ(start[R] - start[R - 1], 0) << "the last row of g is named by no slot";
}

}  // namespace

TEST(LayerElements, TanhLayerBodiesGiveTheCpuOpsBits) {
  check_layer_elements<float>(DType::Float32);
  check_layer_elements<double>(DType::Float64);
}

TEST(LayerElements, GatherContractBodiesGiveTheCpuOpsBits) {
  for (int64_t C : {4, 3}) {
    check_contract_elements<float>(DType::Float32, C);
    check_contract_elements<double>(DType::Float64, C);
  }
}
