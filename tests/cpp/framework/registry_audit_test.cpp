// The registry audit: every registered op declares sample arguments on its SAMPAN_OP
// (.sample / .samples) and passes check_op on each. The audit has no table of its own: an op
// added without samples fails here by name, and the devices an op runs on are its kernels.
#include <gtest/gtest.h>

#include <algorithm>

#include "sampan/cuda.h"
#include "sampan/op_library.h"
#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

using namespace sampan;

namespace {

// Namespaces registered by test binaries themselves (deliberately broken or example ops).
bool is_test_namespace(const std::string& name) {
  return name.rfind("test::", 0) == 0 || name.rfind("demo::", 0) == 0;
}

}  // namespace

TEST(RegistryAudit, BuiltInRegistrationsHadNoErrors) {
  auto errors = take_pending_registration_errors();
  for (auto& e : errors) ADD_FAILURE() << e;
}

TEST(RegistryAudit, EveryOpDeclaresSamplesAndPassesCheckOp) {
  int checked = 0;
  for (const auto& name : registered_ops()) {
    if (is_test_namespace(name)) continue;
    const OpSchema& op = find_op(name);
    EXPECT_TRUE(op.shape_fn) << name << " has no shape function";
    EXPECT_TRUE(op.vjp || op.nondifferentiable) << name << " has neither a vjp nor a nondifferentiable mark";
    auto r = check_op(op);  // every declared sample; fails naming the op when it declares none
    EXPECT_TRUE(r.ok) << name << ": " << r.summary();
    ++checked;
  }
  EXPECT_GT(checked, 100);  // the core ops are all registered (a broken static init would leave few)
}

// Where an op has a CUDA kernel (framework/src/kernels/*.cu, over the same per-element functions
// as its CPU kernel), check_op runs it on cuda:0 with a GPU in the process and must find the
// CPU's bits (the twins fold every sum in the CPU's order), or the CPU's values to rounding where
// the op declares .cuda_rounds_differently() (CUDA's math library, cuBLAS); without a GPU it must
// report the comparison as skipped (not pretend it ran). A build with nvcc registers CUDA kernels
// (the graph ops, batch norm, the copies, elementwise, matmul, sum); one without has none at all.
TEST(RegistryAudit, CudaKernelsExistExactlyWhereBuiltWithNvccAndMatchTheCpu) {
  const char* skipped = "CPU vs CUDA: no GPU in this process, skipped";
  const char* identical = "CPU vs CUDA: identical bits";
  int with_cuda = 0;
  for (const auto& name : registered_ops()) {
    if (is_test_namespace(name)) continue;
    const OpSchema& op = find_op(name);
    if (!op.has_kernel(DeviceType::CUDA)) continue;
    ++with_cuda;
    CheckOpOptions quick;
    quick.gradients = false;
    quick.dtype_sweep = false;
    auto r = check_op(op, quick);
    EXPECT_TRUE(r.ok) << name << ": " << r.summary();
    auto noted = [&](const char* note) { return std::find(r.notes.begin(), r.notes.end(), note) != r.notes.end(); };
    auto noted_prefix = [&](const std::string& prefix) {
      return std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) { return n.rfind(prefix, 0) == 0; });
    };
    if (!cuda::is_available())
      EXPECT_TRUE(noted(skipped)) << name << ": " << r.summary();
    else if (op.cuda_bitwise)
      EXPECT_TRUE(noted(identical)) << name << ": " << r.summary();
    else
      EXPECT_TRUE(noted(identical) || noted_prefix("CPU vs CUDA: within tolerance")) << name << ": " << r.summary();
  }
#if defined(SAMPAN_CUDA_KERNELS)
  EXPECT_GT(with_cuda, 0) << "built with nvcc but no core op registered a CUDA kernel";
#else
  EXPECT_EQ(with_cuda, 0) << "CUDA kernels registered in a build without nvcc";
#endif
}

// What a schema says about defaults, read by call_op, the C++ signature and Python alike.
TEST(RegistryAudit, DeclaredDefaultsFillMissingTrailingArguments) {
  const OpSchema& sum_op = find_op("core::sum");
  ASSERT_EQ(sum_op.defaults.size(), 3u);
  EXPECT_FALSE(sum_op.defaults[0]);
  EXPECT_EQ(std::get<std::vector<int64_t>>(*sum_op.defaults[1]), std::vector<int64_t>{});
  EXPECT_EQ(std::get<bool>(*sum_op.defaults[2]), false);
  EXPECT_EQ(sum_op.signature(), "sum(x: Tensor, axes: List[int] = [], keepdim: bool = False) -> out");
  Tensor x = from_vector({1.0, 2.0, 3.0, 4.0}, {2, 2});
  EXPECT_DOUBLE_EQ(call_op(sum_op, {x})[0].item(), 10.0);
  EXPECT_EQ(call_op("core::softmax", {x})[0].shape(), (Shape{2, 2}));
  // softmax's axis defaults to -1: rows sum to one
  Tensor rows = sum(call_op("core::softmax", {x})[0], {1});
  EXPECT_NEAR(rows.data<double>()[0], 1.0, 1e-15);
  EXPECT_NEAR(rows.data<double>()[1], 1.0, 1e-15);
  EXPECT_EQ(find_op("core::batch_norm_train").signature().find("eps: float = 1e-05") != std::string::npos, true)
      << find_op("core::batch_norm_train").signature();
  // an optional tensor defaults to None where it trails
  const OpSchema& gas = find_op("core::gather_add_scatter");
  ASSERT_TRUE(gas.defaults.back());
  EXPECT_TRUE(std::holds_alternative<std::monostate>(*gas.defaults.back()));
  // an argument without a default is still required
  EXPECT_THROW(call_op("core::cumsum", {x}), TypeError);
}
