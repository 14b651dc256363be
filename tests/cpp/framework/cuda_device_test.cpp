// GPU memory and copies (sampan/cuda.h, core::to_device). Without a GPU the errors must name why;
// with one, copies round-trip every dtype bit for bit, the caching allocator's counts are exact,
// gradients cross devices, and ops without a CUDA kernel refuse GPU tensors by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "sampan/allocator.h"
#include "sampan/amp.h"
#include "sampan/autograd.h"
#include "sampan/cuda.h"
#include "sampan/generator.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "../thrown_message.h"

using namespace sampan;
using sampan::test::thrown_message;

namespace {

const Device kGpu{DeviceType::CUDA, 0};

#define SKIP_WITHOUT_GPU() \
  if (!cuda::is_available()) GTEST_SKIP() << "no GPU in this process: " << cuda::unavailable_reason()

bool same_bytes(const Tensor& a, const Tensor& b) {
  Tensor ca = a.contiguous(), cb = b.contiguous();
  return ca.dtype() == cb.dtype() && ca.shape() == cb.shape() &&
         (ca.nbytes() == 0 || std::memcmp(ca.raw_data(), cb.raw_data(), ca.nbytes()) == 0);
}

}  // namespace

TEST(CudaDevice, WithoutGpuEveryEntryPointNamesTheReason) {
  if (cuda::is_available()) GTEST_SKIP() << "a GPU is present: " << cuda::device_description();
  EXPECT_EQ(cuda::device_count(), 0);
  EXPECT_FALSE(cuda::unavailable_reason().empty());
  EXPECT_EQ(cuda::memory_allocated(), 0u);
  cuda::synchronize();  // nothing to wait for: no error
  Tensor x = arange(0, 6, 1, DType::Float64);
  const std::string why = thrown_message([&] { (void)to_device(x, kGpu); });
  EXPECT_NE(why.find("cuda:0"), std::string::npos) << why;
  EXPECT_NE(why.find(cuda::unavailable_reason()), std::string::npos) << why;
  if (cuda::built()) {
    EXPECT_THROW((void)Tensor::empty({4}, DType::Float32, kGpu), RuntimeError);
  } else {
    EXPECT_THROW((void)Tensor::empty({4}, DType::Float32, kGpu), NotImplementedError);
    EXPECT_NE(why.find("built without CUDA"), std::string::npos) << why;
  }
  // The CPU tensor is untouched by the failed copy.
  EXPECT_EQ(x.numel(), 6);
  EXPECT_DOUBLE_EQ(sum(x).item(), 15.0);
}

TEST(CudaDevice, OnlyCudaZeroIsAccepted) {
  const std::string why = thrown_message([] { (void)Tensor::empty({2}, DType::Float32, Device{DeviceType::CUDA, 1}); });
  EXPECT_NE(why.find("cuda:1"), std::string::npos) << why;
  EXPECT_NE(why.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << why;
}

TEST(CudaDevice, CopiesRoundTripEveryDtypeBitForBit) {
  SKIP_WITHOUT_GPU();
  Tensor base = arange(0, 24, 1, DType::Float64);
  base = sub(mul(base, scalar_tensor(0.37, DType::Float64)), scalar_tensor(3.1, DType::Float64));
  for (DType d : {DType::Bool, DType::Int32, DType::Int64, DType::Float16, DType::BFloat16, DType::Float32,
                  DType::Float64, DType::Complex64, DType::Complex128}) {
    Tensor x = reshape(cast(base, d), {4, 6});
    Tensor g = to_device(x, kGpu);
    EXPECT_TRUE(g.device().is_cuda()) << dtype_name(d);
    EXPECT_EQ(g.shape(), x.shape());
    Tensor back = to_device(g, cpu_device());
    EXPECT_TRUE(back.device().is_cpu());
    EXPECT_TRUE(same_bytes(back, x)) << dtype_name(d);
    // A strided CPU source is made contiguous before the copy.
    Tensor t = transpose(x, 0, 1);
    EXPECT_TRUE(same_bytes(to_device(to_device(t, kGpu), cpu_device()), t)) << dtype_name(d);
    // On the GPU: clone copies device to device.
    EXPECT_TRUE(same_bytes(to_device(clone(g), cpu_device()), x)) << dtype_name(d);
  }
  // Empty and 0-d tensors.
  Tensor empty = Tensor::empty({0, 3}, DType::Float32);
  EXPECT_EQ(to_device(to_device(empty, kGpu), cpu_device()).shape(), empty.shape());
  EXPECT_DOUBLE_EQ(to_device(scalar_tensor(2.5, DType::Float64), kGpu).item(), 2.5);  // item() reads through the CPU
}

TEST(CudaDevice, CachingAllocatorCountsExactlyAndReusesBlocks) {
  SKIP_WITHOUT_GPU();
  cuda::synchronize();
  const size_t before = cuda::memory_allocated();
  void* first = nullptr;
  {
    Tensor a = Tensor::empty({1000, 1000}, DType::Float32, kGpu);  // 4,000,000 bytes
    first = a.raw_data();
    EXPECT_EQ(cuda::memory_allocated(), before + 4000000u);
    EXPECT_GE(cuda::max_memory_allocated(), before + 4000000u);
  }
  EXPECT_EQ(cuda::memory_allocated(), before);
  EXPECT_GE(cuda::memory_cached(), 4000000u);
  {
    Tensor b = Tensor::empty({4000000}, DType::Bool, kGpu);  // 4,000,000 bytes again
    EXPECT_EQ(b.raw_data(), first) << "a freed block of the same rounded size is handed out again";
  }
  cuda::empty_cache();
  EXPECT_EQ(cuda::memory_cached(), 0u);
  EXPECT_EQ(cuda::memory_allocated(), before);
}

TEST(CudaDevice, GradientsCrossDevices) {
  SKIP_WITHOUT_GPU();
  Tensor x = from_vector({1.5, -2.0, 0.25, 4.0}, {4});
  x.requires_grad_(true);
  Tensor w = from_vector({0.5, 3.0, -1.0, 2.0}, {4});
  Tensor on_gpu = clone(to_device(x, kGpu));
  EXPECT_TRUE(on_gpu.requires_grad());
  Tensor loss = sum(mul(to_device(on_gpu, cpu_device()), w));
  backward({loss});
  ASSERT_TRUE(x.grad().defined());
  EXPECT_TRUE(x.grad().device().is_cpu());
  EXPECT_TRUE(same_bytes(x.grad(), w));
}

TEST(CudaDevice, OpsRefuseWhatTheyCannotRunOnTheGpu) {
  SKIP_WITHOUT_GPU();
  Tensor g = to_device(from_vector({1.0, 2.0, 3.0}, {3}), kGpu);
  // An op without a CUDA kernel (the first in the registry with a tensor argument; its first
  // sample moved to the GPU) names itself and the device.
  const OpSchema* cpu_only = nullptr;
  Values args;
  for (const std::string& name : registered_ops()) {
    const OpSchema& op = find_op(name);
    if (op.kernels.count(DeviceType::CUDA) || op.samples.empty()) continue;
    args = op.samples[0]().at(0);
    bool has_tensor = false;
    for (Value& v : args)
      if (auto* t = std::get_if<Tensor>(&v); t && t->defined()) {
        *t = to_device(*t, kGpu);
        has_tensor = true;
      }
    if (has_tensor) {
      cpu_only = &op;
      break;
    }
  }
  ASSERT_NE(cpu_only, nullptr) << "every op with a tensor argument has a CUDA kernel";
  const std::string no_kernel = thrown_message([&] { (void)call_op(*cpu_only, args); });
  EXPECT_NE(no_kernel.find("'" + cpu_only->name + "' has no kernel for device cuda:0"), std::string::npos) << no_kernel;
  // Mixed devices name both arguments.
  const std::string mixed = thrown_message([&] { (void)index_select(g, 0, from_vector({0.0}, {1}, DType::Int64)); });
  EXPECT_NE(mixed.find("cuda:0"), std::string::npos) << mixed;
  EXPECT_NE(mixed.find("cpu"), std::string::npos) << mixed;
  // A GPU index out of range is caught on the host, as on the CPU, and nothing is written.
  Tensor bad = to_device(from_vector({0.0, 7.0}, {2}, DType::Int64), kGpu);
  EXPECT_THROW((void)index_select(g, 0, bad), IndexError);
  Tensor ok = to_device(from_vector({2.0, 0.0}, {2}, DType::Int64), kGpu);
  Tensor picked = to_device(index_select(g, 0, ok), cpu_device());
  EXPECT_TRUE(same_bytes(picked, from_vector({3.0, 1.0}, {2})));
}

// index_select's CUDA twin copies rows in the widest unit (16, 8, 4, 2 or 1 bytes) that divides the
// row and the alignment of source and output: rows of every width.
TEST(CudaDevice, IndexSelectMatchesTheCpuForEveryRowWidth) {
  SKIP_WITHOUT_GPU();
  const Tensor index = from_vector({4.0, 0.0, 2.0, 4.0, 1.0, 3.0}, {6}, DType::Int64);
  const Tensor index_gpu = to_device(index, kGpu);
  for (DType d : {DType::Bool, DType::Float16, DType::Float32, DType::Float64, DType::Complex128}) {
    for (int64_t inner : {1, 2, 3, 4, 5, 8}) {
      Tensor x = cast(reshape(arange(0, 5 * inner, 1, DType::Float64), {5, inner}), d);
      const Tensor want = index_select(x, 0, index);
      const Tensor got = to_device(index_select(to_device(x, kGpu), 0, index_gpu), cpu_device());
      EXPECT_TRUE(same_bytes(got, want)) << dtype_name(d) << " rows of " << inner;
    }
  }
}

// full / zeros / ones / *_like on the GPU: the value broadcast into a fresh device tensor, the
// CPU's bits for every dtype the GPU converts; a bad shape is refused before any GPU work.
TEST(CudaDevice, FullMakesItsTensorOnTheDevice) {
  EXPECT_THROW((void)full({2, -1}, 1.0, DType::Float32, kGpu), ValueError);
  SKIP_WITHOUT_GPU();
  for (DType dt : {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Bool, DType::Complex64}) {
    for (const Shape& shape : {Shape{}, Shape{0}, Shape{3, 5}, Shape{2, 1, 4}}) {
      Tensor g = full(shape, -2.75, dt, kGpu);
      EXPECT_EQ(g.device(), kGpu);
      EXPECT_TRUE(g.is_contiguous());
      EXPECT_TRUE(same_bytes(to_device(g, cpu_device()), full(shape, -2.75, dt))) << dtype_name(dt);
    }
  }
  Tensor x = to_device(from_vector({1.0, 2.0, 3.0}, {3}), kGpu);
  Tensor z = zeros_like(x);
  EXPECT_EQ(z.device(), kGpu);
  EXPECT_TRUE(same_bytes(to_device(z, cpu_device()), zeros({3}, DType::Float64)));
}

namespace {

// The largest relative difference |a - b| / (1 + |b|) between a GPU tensor and a CPU one.
double worst_difference(const Tensor& gpu, const Tensor& cpu) {
  Tensor a = to_device(gpu, cpu_device()).to(DType::Float64).contiguous(), b = cpu.to(DType::Float64).contiguous();
  EXPECT_EQ(a.shape(), b.shape());
  double worst = 0.0;
  for (int64_t i = 0; i < b.numel(); ++i)
    worst = std::max(worst, std::abs(a.data<double>()[i] - b.data<double>()[i]) / (1.0 + std::abs(b.data<double>()[i])));
  return worst;
}

}  // namespace

// core::sum's twin folds every output in the CPU's order: the CPU's bits along any axes of a
// permuted, sliced input, and mean (sum / count) with them; a full sum above the CPU's serial
// limit is folded in fixed parts: the same bits run to run, the CPU's value to rounding.
TEST(CudaDevice, SumsGiveTheCpusBitsAlongAnyAxes) {
  SKIP_WITHOUT_GPU();
  Tensor x = mul(rand({6, 5, 7}, DType::Float64), exp(mul(rand({6, 5, 7}, DType::Float64), scalar_tensor(10.0))));
  Tensor view = slice(permute(x, {2, 0, 1}), 1, 1, 6, 2);
  Tensor g = to_device(x, kGpu), gview = slice(permute(g, {2, 0, 1}), 1, 1, 6, 2);
  for (const std::vector<int64_t>& axes : std::vector<std::vector<int64_t>>{{}, {0}, {1}, {2}, {0, 2}, {1, 2}}) {
    EXPECT_TRUE(same_bytes(to_device(sum(gview, axes), cpu_device()), sum(view, axes))) << axes.size();
    EXPECT_TRUE(same_bytes(to_device(mean(gview, axes), cpu_device()), mean(view, axes))) << axes.size();
  }
  EXPECT_TRUE(same_bytes(to_device(sum(g.to(DType::Float32), {1}), cpu_device()), sum(x.to(DType::Float32), {1})));
  Tensor big = rand({70000}, DType::Float64), gbig = to_device(big, kGpu);
  Tensor once = to_device(sum(gbig), cpu_device()), again = to_device(sum(gbig), cpu_device());
  EXPECT_TRUE(same_bytes(once, again));
  EXPECT_LE(worst_difference(sum(gbig), sum(big)), 1e-12);
}

// matmul's twin (cuBLAS): the CPU's values to rounding for plain, transposed, batched and
// broadcast operands in every dtype it takes; integers refuse by name.
TEST(CudaDevice, MatmulThroughCublasMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  for (DType dt : {DType::Float32, DType::Float64, DType::Complex64, DType::Complex128}) {
    const double tol = (dt == DType::Float32 || dt == DType::Complex64) ? 1e-5 : 1e-12;
    Tensor a = rand({3, 17, 9}, DType::Float64).to(dt), b = rand({9, 13}, DType::Float64).to(dt);
    Tensor c = rand({13, 9}, DType::Float64).to(dt);
    Tensor ga = to_device(a, kGpu), gb = to_device(b, kGpu), gc = to_device(c, kGpu);
    EXPECT_LE(worst_difference(matmul(ga, gb), matmul(a, b)), tol) << dtype_name(dt) << " batched times one";
    EXPECT_LE(worst_difference(matmul(ga, transpose(gc, 0, 1)), matmul(a, transpose(c, 0, 1))), tol)
        << dtype_name(dt) << " times a transposed view";
    EXPECT_LE(worst_difference(matmul(transpose(ga, 1, 2), ga), matmul(transpose(a, 1, 2), a)), tol)
        << dtype_name(dt) << " transposed batch";
    EXPECT_LE(worst_difference(matmul(select(ga, 0, 1), select(gb, 1, 2)), matmul(select(a, 0, 1), select(b, 1, 2))), tol)
        << dtype_name(dt) << " matrix times vector";
  }
  Tensor i = to_device(from_vector({1.0, 2.0, 3.0, 4.0}, {2, 2}, DType::Int64), kGpu);
  const std::string refused = thrown_message([&] { (void)matmul(i, i); });
  EXPECT_NE(refused.find("core::matmul: no CUDA kernel for dtype int64"), std::string::npos) << refused;
}

// One training step of a two-layer perceptron on the GPU: forward (matmul, add with broadcasting,
// relu, tanh), loss (sub, square, mean), backward (matmul's vjp, the bias gradients' sums,
// relu_backward) all on the device, the CPU's loss and gradients to rounding.
TEST(CudaDevice, PerceptronTrainingStepRunsOnTheGpuWithTheCpusValues) {
  SKIP_WITHOUT_GPU();
  for (DType dt : {DType::Float32, DType::Float64}) {
    const double tol = dt == DType::Float32 ? 1e-5 : 1e-12;
    const std::vector<Tensor> host = {rand({64, 16}, DType::Float64).to(dt), rand({16, 32}, DType::Float64).to(dt),
                                      rand({32}, DType::Float64).to(dt),     rand({32, 1}, DType::Float64).to(dt),
                                      rand({1}, DType::Float64).to(dt),      rand({64, 1}, DType::Float64).to(dt)};
    auto step = [&](const Device& device) {
      std::vector<Tensor> t;
      for (const Tensor& h : host) t.push_back(to_device(h, device).detach());
      for (int p = 1; p <= 4; ++p) t[p].requires_grad_(true);
      Tensor hidden = relu(add(matmul(t[0], t[1]), t[2]));
      Tensor out = tanh(add(matmul(hidden, t[3]), t[4]));
      Tensor loss = mean(square(sub(out, t[5])));
      backward({loss});
      std::vector<Tensor> got = {loss};
      for (int p = 1; p <= 4; ++p) got.push_back(t[p].grad());
      return got;
    };
    const auto cpu = step(cpu_device()), gpu = step(kGpu);
    for (size_t k = 0; k < cpu.size(); ++k) {
      ASSERT_TRUE(gpu[k].defined()) << k;
      EXPECT_EQ(gpu[k].device(), kGpu) << k;
      EXPECT_LE(worst_difference(gpu[k], cpu[k]), tol) << dtype_name(dt) << " result " << k;
    }
  }
}

// amax / amin (exact: the CPU's bits, NaN included) and softmax / log_softmax composed of them on
// the GPU (the CPU's values to rounding), forward and backward.
TEST(CudaDevice, ExtremesAndSoftmaxRunOnTheGpu) {
  SKIP_WITHOUT_GPU();
  Tensor x = mul(rand({6, 70000}, DType::Float64), scalar_tensor(40.0));
  Tensor g = to_device(x, kGpu);
  EXPECT_TRUE(same_bytes(to_device(amax(g), cpu_device()), amax(x)));
  EXPECT_TRUE(same_bytes(to_device(amin(g, {1}), cpu_device()), amin(x, {1})));
  EXPECT_TRUE(same_bytes(to_device(amax(transpose(g, 0, 1), {1}), cpu_device()), amax(transpose(x, 0, 1), {1})));
  for (int64_t axis : {0, 1}) {
    EXPECT_LE(worst_difference(softmax(g, axis), softmax(x, axis)), 1e-12) << axis;
    EXPECT_LE(worst_difference(log_softmax(g, axis), log_softmax(x, axis)), 1e-12) << axis;
  }
  Tensor leaf = to_device(slice(x, 1, 0, 9), kGpu).detach(), cpu_leaf = slice(x, 1, 0, 9).detach();
  leaf.requires_grad_(true);
  cpu_leaf.requires_grad_(true);
  backward({sum(mul(log_softmax(leaf, 1), amax(leaf, {0}, true)))});
  backward({sum(mul(log_softmax(cpu_leaf, 1), amax(cpu_leaf, {0}, true)))});
  EXPECT_LE(worst_difference(leaf.grad(), cpu_leaf.grad()), 1e-12);
}

// rand, randn, randint and dropout_mask have no tensor input: their `device` attribute places
// them, and the CUDA kernels apply the CPU's per-element functors to the same Philox blocks. A
// process without a GPU refuses (it never hands back a CPU tensor for a GPU request).
TEST(CudaDevice, RandomOpsMakeTheCpusDrawOnTheDevice) {
  if (!cuda::is_available()) {
    for (const std::string& why : {thrown_message([] { (void)rand({4}, DType::Float32, nullptr, kGpu); }),
                                   thrown_message([] { (void)dropout_mask({4}, 0.5, DType::Float32, nullptr, kGpu); })})
      EXPECT_NE(why.find(cuda::unavailable_reason()), std::string::npos) << why;
    GTEST_SKIP() << "no GPU in this process: " << cuda::unavailable_reason();
  }
  const Shape shape{3, 70001};  // more elements than one grid-stride pass of a block
  for (uint64_t seed : {uint64_t(7), uint64_t(0xFEDCBA9876543210ull)}) {
    for (DType dt : {DType::Float32, DType::Float64}) {
      Generator gc(seed), gg(seed);
      gc.set_state({seed, 0x1234567890ull});
      gg.set_state({seed, 0x1234567890ull});
      Tensor g = rand(shape, dt, &gg, kGpu);
      EXPECT_EQ(g.device(), kGpu);
      EXPECT_TRUE(same_bytes(to_device(g, cpu_device()), rand(shape, dt, &gc))) << dtype_name(dt);
      EXPECT_TRUE(same_bytes(to_device(dropout_mask(shape, 0.3, dt, &gg, kGpu), cpu_device()),
                             dropout_mask(shape, 0.3, dt, &gc)))
          << dtype_name(dt);
      // Box-Muller's log, sqrt and cos round as CUDA's libm does: a few ulps at most
      EXPECT_LT(worst_difference(randn(shape, dt, &gg, kGpu), randn(shape, dt, &gc)), dt == DType::Float32 ? 1e-6 : 1e-14);
    }
    for (DType dt : {DType::Int32, DType::Int64, DType::Float64}) {
      Generator gc(seed), gg(seed);
      EXPECT_TRUE(same_bytes(to_device(randint(-5, 1000003, shape, dt, &gg, kGpu), cpu_device()),
                             randint(-5, 1000003, shape, dt, &gc)))
          << dtype_name(dt);
    }
  }
  // dropout of a GPU tensor makes its mask there: the CPU's product for the same draw
  Generator gc(3), gg(3);
  Tensor x = randn({64, 33}, DType::Float32, &gc);
  gg.set_state(gc.state());
  Tensor y = dropout(to_device(x, kGpu), 0.5, true, &gg);
  EXPECT_EQ(y.device(), kGpu);
  EXPECT_TRUE(same_bytes(to_device(y, cpu_device()), dropout(x, 0.5, true, &gc)));
}

// The decompositions' twins go through cuSOLVER (column-major, its own algorithms): the CPU's
// values to rounding, with the CPU's phase convention for the vectors, its errors for singular
// and non-finite matrices, and gradients that run on the GPU (the vjps' identities are made there).
TEST(CudaDevice, DecompositionsThroughCusolverMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  Generator gen(21);
  for (DType dt : {DType::Float64, DType::Complex128, DType::Float32}) {
    const double tol = dt == DType::Float32 ? 2e-4 : 1e-10;
    auto random = [&](const Shape& s) {
      Tensor r = randn(s, DType::Float64, &gen);
      return dt == DType::Complex128 ? complex(r, randn(s, DType::Float64, &gen)) : r.to(dt);
    };
    // diagonally dominant, so inv and solve are well conditioned
    const DType real = dt == DType::Complex128 ? DType::Float64 : dt;
    Tensor a = add(random({3, 4, 4}), mul(eye(4, -1, real), scalar_tensor(4.0, real)));
    Tensor ga = to_device(a, kGpu);
    EXPECT_LT(worst_difference(inv(ga), inv(a)), tol) << dtype_name(dt);
    EXPECT_LT(worst_difference(det(ga), det(a)), tol) << dtype_name(dt);
    Tensor b = random({3, 4, 2}), bv = random({4});
    EXPECT_LT(worst_difference(solve(ga, to_device(b, kGpu)), solve(a, b)), tol) << dtype_name(dt);
    EXPECT_LT(worst_difference(solve(ga, to_device(bv, kGpu)), solve(a, bv)), tol) << dtype_name(dt);
    auto [w, v] = eigh(a);
    auto [gw, gv] = eigh(ga);
    EXPECT_LT(worst_difference(gw, w), tol) << dtype_name(dt);
    EXPECT_LT(worst_difference(gv, v), tol) << dtype_name(dt);  // the same phases
    for (const Shape& s : {Shape{2, 5, 3}, Shape{2, 3, 5}, Shape{4, 4}}) {
      Tensor m = random(s);
      auto [u, sv, vh] = svd(m);
      auto [gu, gs, gvh] = svd(to_device(m, kGpu));
      EXPECT_LT(worst_difference(gs, sv), tol) << dtype_name(dt) << " " << shape_str(s);
      EXPECT_LT(worst_difference(gu, u), tol) << dtype_name(dt) << " " << shape_str(s);
      EXPECT_LT(worst_difference(gvh, vh), tol) << dtype_name(dt) << " " << shape_str(s);
    }
  }
  // a row swap flips det's sign; a singular matrix has det 0, and inv and solve name it
  Tensor swap = from_vector({0.0, 1.0, 1.0, 0.0, 2.0, 0.0, 4.0, 0.0}, {2, 2, 2});
  EXPECT_LT(worst_difference(det(to_device(swap, kGpu)), from_vector({-1.0, 0.0}, {2})), 1e-15);
  const std::string singular = thrown_message([&] { (void)inv(to_device(swap, kGpu)); });
  EXPECT_NE(singular.find("matrix 1 of the batch is singular"), std::string::npos) << singular;
  Tensor nan_matrix = to_device(from_vector({1.0, std::nan(""), 0.0, 1.0}, {2, 2}), kGpu);
  EXPECT_THROW((void)eigh(nan_matrix), ValueError);
  EXPECT_THROW((void)svd(nan_matrix), ValueError);
  // gradients of eigh and svd on the GPU: the CPU's to rounding
  Tensor x = from_vector({2.0, 0.3, -0.4, 0.3, 1.0, 0.2, -0.4, 0.2, -0.5}, {3, 3});
  Tensor xc = x.detach().requires_grad_(), xg = to_device(x, kGpu).requires_grad_();
  auto grad_of = [](Tensor& leaf) {
    auto [w, v] = eigh(leaf);
    auto [u, s, vh] = svd(leaf);
    sum(add(mul(w, w), sum(s))).backward();
    return leaf.grad();
  };
  EXPECT_LT(worst_difference(grad_of(xg), grad_of(xc)), 1e-10);
}

// float16 and bfloat16 on the GPU: casts and selections give the CPU's bits, elementwise ops run
// in float32 and round once (the CPU's bits for the correctly rounded ones), sums accumulate in
// float32 in the CPU's order (its bits), and matmul runs through cuBLAS with float32 accumulation.
// Then one training step of a perceptron under autocast(cuda, float16) with a loss scale: the
// product in float16, the master weights' gradients in float32 on the device, the CPU's (under
// its own float16 autocast) to float16's rounding.
TEST(CudaDevice, HalfPrecisionAndAutocastRunOnTheGpu) {
  SKIP_WITHOUT_GPU();
  const auto on_gpu = [](double v) { return to_device(scalar_tensor(v), kGpu); };
  for (DType d : {DType::Float16, DType::BFloat16}) {
    SCOPED_TRACE(dtype_name(d));
    const Tensor x = mul(rand({37, 29}, DType::Float64), scalar_tensor(8.0)).to(d), y = rand({29}, DType::Float64).to(d);
    const Tensor gx = to_device(x, kGpu), gy = to_device(y, kGpu);
    EXPECT_TRUE(same_bytes(to_device(gx.to(DType::Float32), cpu_device()), x.to(DType::Float32)));
    EXPECT_TRUE(same_bytes(to_device(to_device(x.to(DType::Float32), kGpu).to(d), cpu_device()), x));
    EXPECT_TRUE(same_bytes(to_device(add(gx, gy), cpu_device()), add(x, y)));
    EXPECT_TRUE(same_bytes(to_device(mul(transpose(gx, 0, 1), on_gpu(0.3)), cpu_device()),
                           mul(transpose(x, 0, 1), scalar_tensor(0.3))));
    EXPECT_TRUE(same_bytes(to_device(relu(sub(gx, gy)), cpu_device()), relu(sub(x, y))));
    EXPECT_TRUE(same_bytes(to_device(where(gt(gx, gy), gx, gy), cpu_device()), where(gt(x, y), x, y)));
    for (const std::vector<int64_t>& axes : std::vector<std::vector<int64_t>>{{}, {0}, {1}})
      EXPECT_TRUE(same_bytes(to_device(sum(gx, axes), cpu_device()), sum(x, axes))) << axes.size();
    EXPECT_LE(worst_difference(exp(mul(gx, on_gpu(0.1))), exp(mul(x, scalar_tensor(0.1)))), 0.01);
    const Tensor w = rand({29, 13}, DType::Float64).to(d);
    const Tensor want = matmul(x, w), got = matmul(gx, to_device(w, kGpu));
    ASSERT_EQ(got.dtype(), d);
    EXPECT_LE(worst_difference(got, want), 0.02);
  }

  const std::vector<Tensor> host = {rand({64, 16}, DType::Float32), rand({16, 32}, DType::Float32),
                                    rand({32}, DType::Float32),     rand({32, 1}, DType::Float32),
                                    rand({1}, DType::Float32),      rand({64, 1}, DType::Float32)};
  auto step = [&](const Device& device) {
    std::vector<Tensor> t;
    for (const Tensor& h : host) t.push_back(to_device(h, device).detach());
    for (int p = 1; p <= 4; ++p) t[p].requires_grad_(true);
    Tensor loss, product;
    {
      amp::Autocast autocast(device.type, DType::Float16);
      product = matmul(t[0], t[1]);
      Tensor hidden = relu(add(product, t[2]));
      Tensor out = tanh(add(matmul(hidden, t[3]), t[4]));
      loss = mean(square(sub(out, t[5])));
    }
    const Tensor scale = to_device(scalar_tensor(1024.0), device);
    backward({mul(loss, scale)});  // a loss scale, as GradScaler applies
    std::vector<Tensor> got = {product, loss};
    for (int p = 1; p <= 4; ++p) got.push_back(div(t[p].grad(), scale));
    return got;
  };
  const auto cpu = step(cpu_device()), gpu = step(kGpu);
  EXPECT_EQ(gpu[0].dtype(), DType::Float16);
  for (size_t k = 0; k < cpu.size(); ++k) {
    ASSERT_TRUE(gpu[k].defined()) << k;
    EXPECT_EQ(gpu[k].device(), kGpu) << k;
    EXPECT_EQ(gpu[k].dtype(), cpu[k].dtype()) << k;
    if (k >= 2) EXPECT_EQ(gpu[k].dtype(), DType::Float32) << "master weight gradient " << k;
    EXPECT_LE(worst_difference(gpu[k], cpu[k]), 0.01) << "result " << k;
  }
}

// arange, linspace and eye made on the device (their `device` attribute): the CPU's bits.
TEST(CudaDevice, IndexMadeTensorsAreMadeOnTheDeviceWithTheCpusBits) {
  SKIP_WITHOUT_GPU();
  for (DType d : {DType::Int64, DType::Float16, DType::Float32, DType::Float64, DType::Complex128}) {
    const std::string name = dtype_name(d);
    const Tensor a = arange(-2.5, 4.0, 0.75, d, kGpu);
    EXPECT_EQ(a.device(), kGpu);
    EXPECT_TRUE(same_bytes(to_device(a, cpu_device()), arange(-2.5, 4.0, 0.75, d))) << name;
    for (const char* op : {"core::linspace", "core::eye"}) {
      const Values args = std::string(op) == "core::eye" ? Values{int64_t(3), int64_t(4), name}
                                                          : Values{-1.0, 3.0, int64_t(9), name};
      Values on_gpu = args, on_cpu = args;
      on_gpu.push_back(kGpu.str());
      on_cpu.push_back(std::string("cpu"));
      const Tensor g = call_op(find_op(op), on_gpu)[0];
      EXPECT_EQ(g.device(), kGpu) << op;
      EXPECT_TRUE(same_bytes(to_device(g, cpu_device()), call_op(find_op(op), on_cpu)[0])) << op << " " << name;
    }
  }
}

// randperm on the device: the same keys (PermutationKeyElement of each position's Philox block)
// in a stable radix sort, so the CPU's permutation for the same draw, in every real dtype.
TEST(CudaDevice, RandpermDrawsTheCpusPermutationOnTheDevice) {
  SKIP_WITHOUT_GPU();
  for (int64_t n : {int64_t(0), int64_t(1), int64_t(1000), int64_t(100003)}) {
    for (DType d : {DType::Int64, DType::Int32, DType::Float64}) {
      Generator g1(21), g2(21);
      const Tensor on_gpu = randperm(n, d, &g1, kGpu), on_cpu = randperm(n, d, &g2);
      EXPECT_EQ(on_gpu.device(), kGpu);
      EXPECT_TRUE(same_bytes(to_device(on_gpu, cpu_device()), on_cpu)) << n << " " << dtype_name(d);
    }
  }
}
