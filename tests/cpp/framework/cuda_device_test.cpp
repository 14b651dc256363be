// GPU memory and copies (sampan/cuda.h, core::to_device). Without a GPU the errors must name why;
// with one, copies round-trip every dtype bit for bit, the caching allocator's counts are exact,
// gradients cross devices, and ops without a CUDA kernel refuse GPU tensors by name.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "sampan/allocator.h"
#include "sampan/autograd.h"
#include "sampan/cuda.h"
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
  // An op without a CUDA kernel names itself and the device.
  const std::string no_kernel = thrown_message([&] { (void)exp(g); });
  EXPECT_NE(no_kernel.find("no kernel for device cuda:0"), std::string::npos) << no_kernel;
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
