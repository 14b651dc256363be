// Tests of the tape's saved-tensor selection (.saves_for_vjp): what a vjp does not read is not
// kept alive by the tape, gradients are the same bits either way, and a vjp that reads what its
// op does not keep fails with an error naming the op instead of reading freed memory.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "sampan/allocator.h"
#include "sampan/autograd.h"
#include "sampan/generator.h"
#include "sampan/op_library.h"
#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

using namespace sampan;

namespace {

// A square whose vjp reads x although the op declares that it keeps nothing: the mistake the
// tape must turn into an error.
SAMPAN_OP(test, forgetful_square)
    .args("x")
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) { copy_(out, mul(x, x)); })
    .vjp([](const VjpContext& c) -> Grads { return {mul(c.grad_output(0), c.input(0) * 2.0)}; })
    .saves_for_vjp({})
    .sample([] { return Values{from_vector({1.0, 2.0}, {2})}; });

// Restores the process-wide switch whatever a test does.
struct SelectionGuard {
  bool before = saved_tensor_selection_enabled();
  explicit SelectionGuard(bool enabled) { set_saved_tensor_selection(enabled); }
  ~SelectionGuard() { set_saved_tensor_selection(before); }
};

Tensor leaf(std::vector<double> v, Shape s) {
  Tensor t = from_vector(std::move(v), std::move(s));
  t.requires_grad_();
  return t;
}

// Whether the product x @ w, consumed only by a bias add, is still alive once the caller drops it.
bool product_outlives_its_consumer(bool selection) {
  SelectionGuard guard(selection);
  Tensor x = leaf({1, 2, 3, 4, 5, 6}, {2, 3}), w = leaf({1, 0, -1, 2, 0.5, 1}, {3, 2}), b = leaf({0.1, 0.2}, {2});
  Tensor m = matmul(x, w);
  std::weak_ptr<Storage> product = m.storage();
  Tensor y = add(m, b);  // add's vjp reads neither operand
  m = Tensor();
  const bool alive = !product.expired();
  sum(y).backward();  // the graph still differentiates
  EXPECT_DOUBLE_EQ(b.grad().data<double>()[0], 2.0);
  EXPECT_DOUBLE_EQ(w.grad().data<double>()[0], 1.0 + 4.0);  // column sums of x
  return alive;
}

}  // namespace

TEST(SavedTensors, AnInputNoVjpReadsIsFreedDuringTheForwardPass) {
  EXPECT_FALSE(product_outlives_its_consumer(true));
  EXPECT_TRUE(product_outlives_its_consumer(false));  // the switch restores keeping everything
}

// relu's vjp reads its output, so the input (a batch norm's output, the widest activation of a
// GIN layer) is freed once nothing else holds it.
TEST(SavedTensors, ReluKeepsItsOutputNotItsInput) {
  SelectionGuard guard(true);
  Tensor x = leaf({-1, 2, 0.5, -3, 4, 1}, {3, 2});
  Tensor pre = x * 2.0;
  std::weak_ptr<Storage> input = pre.storage();
  Tensor r = relu(pre);
  pre = Tensor();
  EXPECT_TRUE(input.expired());
  sum(r).backward();
  const double want[] = {0, 2, 2, 0, 2, 2};
  for (int i = 0; i < 6; ++i) EXPECT_DOUBLE_EQ(x.grad().data<double>()[i], want[i]) << i;
}

// An in-place op whose vjp does not read the overwritten value makes no copy of it: after add_
// on a recorded tensor, the only storage alive is the tensor itself.
TEST(SavedTensors, InPlaceAddCopiesNothingForItsGradient) {
  SelectionGuard guard(true);
  Tensor x = leaf({1, 2, 3}, {3});
  Tensor y = x * 3.0;
  const size_t before = allocator_for(DeviceType::CPU).bytes_in_use();
  add_(y, ones({3}, DType::Float64));
  // the ones tensor is gone again; a copy of y for the vjp would have stayed
  EXPECT_EQ(allocator_for(DeviceType::CPU).bytes_in_use(), before);
  sum(mul(y, y)).backward();  // d/dx (3x + 1)^2 = 6 (3x + 1)
  for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(x.grad().data<double>()[i], 6.0 * (3.0 * (i + 1) + 1.0)) << i;
}

// A small network through the annotated ops: first and second derivatives give the same bits
// with and without the selection.
TEST(SavedTensors, GradientsAreTheSameBitsWithAndWithoutTheSelection) {
  auto run = [](bool selection) {
    SelectionGuard guard(selection);
    manual_seed(7);
    Tensor x = randn({6, 4}, DType::Float64).requires_grad_();
    Tensor w = randn({4, 5}, DType::Float64).requires_grad_();
    Tensor b = randn({5}, DType::Float64).requires_grad_();
    Tensor gamma = randn({5}, DType::Float64).requires_grad_();
    Tensor beta = randn({5}, DType::Float64).requires_grad_();
    Tensor ids = from_vector({0, 0, 1, 2, 2, 2}, {6}, DType::Int64);
    Tensor h = relu(std::get<0>(batch_norm_train(add(matmul(x, w), b), gamma, beta, 1e-5)));
    Tensor pooled = segment_sum(tanh(h), ids, 3);
    Tensor z = concat({index_select(pooled, 0, from_vector({2, 0}, {2}, DType::Int64)), exp(slice(pooled, 0, 1, 2))}, 0);
    Tensor loss = sum(mul(log_softmax(z, 1), sqrt(z * z + 1.0)));
    auto g = grad({loss}, {x, w, b, gamma, beta}, {}, /*create_graph=*/true);
    auto gg = grad({sum(mul(g[0], g[0])) + sum(g[1])}, {x, w});
    std::vector<Tensor> all(g.begin(), g.end());
    all.insert(all.end(), gg.begin(), gg.end());
    return all;
  };
  auto on = run(true), off = run(false);
  ASSERT_EQ(on.size(), off.size());
  for (size_t k = 0; k < on.size(); ++k) {
    ASSERT_EQ(on[k].shape(), off[k].shape()) << k;
    EXPECT_EQ(std::memcmp(on[k].contiguous().raw_data(), off[k].contiguous().raw_data(), on[k].nbytes()), 0) << k;
  }
}

TEST(SavedTensors, AVjpReadingWhatItsOpDoesNotKeepRaisesNamingTheOp) {
  SelectionGuard guard(true);
  Tensor x = leaf({1.0, 2.0}, {2});
  Tensor y = call_op("test::forgetful_square", {x})[0];
  try {
    sum(y).backward();
    FAIL() << "the vjp read an input the tape did not keep";
  } catch (const ValueError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("test::forgetful_square"), std::string::npos) << m;
    EXPECT_NE(m.find(".saves_for_vjp()"), std::string::npos) << m;
  }
  // check_op's gradient check is what catches such a declaration in an op's own tests
  CheckOpReport r = check_op(find_op("test::forgetful_square"));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.summary().find("saves_for_vjp"), std::string::npos) << r.summary();
}

TEST(SavedTensors, UnknownNamesAreRegistrationErrors) {
  begin_library_load("libsaves.so");
  OpBuilder b("demo::saves_unknown");
  b.args("x").outputs("out").shape([](const TensorSpec& x) { return x; })
      .cpu([](const Tensor&, Tensor&) {})
      .vjp([](const VjpContext& c) -> Grads { return {c.grad_output(0)}; })
      .saves_for_vjp({"y"});
  sampan_register_op(SAMPAN_ABI_VERSION, &b);
  auto res = end_library_load();
  ASSERT_EQ(res.errors.size(), 1u);
  EXPECT_NE(res.errors[0].find(".saves_for_vjp names 'y', which is neither an argument (x) nor an output (out)"),
            std::string::npos) << res.errors[0];
  EXPECT_EQ(find_op_if("demo::saves_unknown"), nullptr);
}
