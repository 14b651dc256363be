// sampan: random ops (core::rand, randn, randint, bernoulli, randperm) and the helpers built on
// them (uniform, normal, dropout). Each op is a pure function of its arguments: the `seed` and
// `offset` attributes select the draw, element i uses Philox block (i, offset) under key seed
// (kernels/philox.h), so results are reproducible, independent of the thread count, and replayed
// exactly by traced graphs. The C++ API reserves one draw from a Generator per call
// (sampan/generator.h). Random ops are nondifferentiable.
#include <algorithm>
#include <numeric>

#include "sampan/generator.h"
#include "sampan/ops.h"
#include "elementwise_support.h"
#include "../kernels/philox.h"
#include "../kernels/philox_batch.h"
#include "../kernels/random_element.h"
#include "sample_support.h"
#if defined(SAMPAN_CUDA_KERNELS)
#include "cuda_support.h"
#include "../kernels/random_kernels_cuda.h"
#endif

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

// Attributes are int64; seeds and offsets are uint64 bit patterns.
uint64_t as_u64(int64_t v) { return static_cast<uint64_t>(v); }
int64_t as_i64(uint64_t v) { return static_cast<int64_t>(v); }

void check_shape(const char* op, const std::vector<int64_t>& shape) {
  for (auto s : shape)
    SAMPAN_CHECK(s >= 0, ValueError, op, ": negative dimension in shape ", shape_str(shape));
}

// out[i] = f(block(i)) for every element, in parallel; element i's value depends only on i.
template <class T, class F> void fill_random(Tensor& out, int64_t seed, int64_t offset, F f) {
  T* p = out.data<T>();
  const int64_t n = out.numel();
  const uint64_t s = as_u64(seed), o = as_u64(offset);
#pragma omp parallel for if (n > kernels::kParallelGrain / 16) schedule(static)
  for (int64_t i = 0; i < n; ++i) p[i] = f(kernels::random_block(s, o, static_cast<uint64_t>(i)));
}

// out[i] = f.words(words 0 and 1 of block i) (word 1 only made for Words == 2, else 0): the
// values of fill_random with f, with the blocks made 8 or 16 at a time (kernels/philox_batch.h)
// in chunks of consecutive elements that stay in L1.
template <class T, int Words, class F> void fill_from_words(Tensor& out, int64_t seed, int64_t offset, F f) {
  static_assert(Words == 1 || Words == 2, "fill_from_words takes one or two words per element");
  constexpr int64_t kChunk = 512;
  T* p = out.data<T>();
  const int64_t n = out.numel(), chunks = (n + kChunk - 1) / kChunk;
  const uint64_t s = as_u64(seed), o = as_u64(offset);
#pragma omp parallel for if (n > kernels::kParallelGrain / 4) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    uint32_t w0[kChunk], w1[Words == 2 ? kChunk : 1];
    const int64_t i0 = c * kChunk, len = std::min(kChunk, n - i0);
    kernels::philox_words(s, o, static_cast<uint64_t>(i0), len, w0, Words == 2 ? w1 : nullptr);
    T* pc = p + i0;
    if constexpr (Words == 1) {
      for (int64_t j = 0; j < len; ++j) pc[j] = f.words(w0[j], 0u);
    } else {
      for (int64_t j = 0; j < len; ++j) pc[j] = f.words(w0[j], w1[j]);
    }
  }
}

DType floating_dtype(const char* op, const std::string& name) {
  DType d = dtype_from_name(name);
  if (d != DType::Float32 && d != DType::Float64)
    SAMPAN_THROW(TypeError, op, ": dtype must be float32 or float64, got ", name);
  return d;
}

// float32 needs word 0 only (24 bits), float64 words 0 and 1 (53 bits).
template <class T, class F> void fill_uniform_based(Tensor& out, int64_t seed, int64_t offset, F f) {
  if constexpr (sizeof(T) == 4) fill_from_words<T, 1>(out, seed, offset, f);
  else fill_from_words<T, 2>(out, seed, offset, f);
}

#if defined(SAMPAN_CUDA_KERNELS)
template <class T, class F> void fill_random_cuda(Tensor& out, int64_t seed, int64_t offset, F f) {
  kernels::random_fill_cuda<T>(as_u64(seed), as_u64(offset), out.numel(), out.data<T>(), f);
}
#endif

std::pair<int64_t, int64_t> draw(Generator* gen) {
  Generator::State s = (gen ? *gen : default_generator()).reserve();
  return {as_i64(s.seed), as_i64(s.offset)};
}

}  // namespace

// rand, randn, randint and dropout_mask have no tensor input: their `device` attribute (default
// "cpu") says where the output is made, and dispatch runs the kernel there. Their CUDA twins apply
// the CPU's per-element functors (kernels/random_element.h) to the same Philox blocks.

SAMPAN_OP(core, rand)
    .doc("Uniform samples in [0, 1) (float32: 24 random bits, float64: 53), from draw (seed, offset), "
         "made on `device` (the same bits on every device).")
    .args("shape", "dtype", "seed", "offset", "device")
    .defaults({{"device", "cpu"}})
    .outputs("out")
    .nondifferentiable()
    .shape([](const std::vector<int64_t>& shape, const std::string& dtype, int64_t, int64_t, const std::string& device) {
      check_shape("rand", shape);
      return TensorSpec{shape, floating_dtype("rand", dtype), Device::parse(device)};
    })
    .cpu([](const std::vector<int64_t>&, const std::string&, int64_t seed, int64_t offset, const std::string&, Tensor& out) {
      visit_floating(out.dtype(), "core::rand", [&](auto tag) {
        using T = typename decltype(tag)::type;
        fill_uniform_based<T>(out, seed, offset, kernels::UniformElement<T>{});
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const std::vector<int64_t>&, const std::string&, int64_t seed, int64_t offset, const std::string&, Tensor& out) {
      visit_floating(out.dtype(), "core::rand", [&](auto tag) {
        using T = typename decltype(tag)::type;
        fill_random_cuda<T>(out, seed, offset, kernels::UniformElement<T>{});
      });
    })
#endif
    .samples([] { return std::vector<Values>{{IntList{3, 2}, std::string("float64"), int64_t(5), int64_t(0), std::string("cpu")},
                                             {IntList{7}, std::string("float32"), int64_t(9), int64_t(2), std::string("cpu")}}; });

SAMPAN_OP(core, randn)
    .doc("Standard normal samples (Box-Muller in float64, rounded for float32), from draw (seed, offset), "
         "made on `device` (the same draw everywhere; log, sqrt and cos round as each device's libm does).")
    .args("shape", "dtype", "seed", "offset", "device")
    .defaults({{"device", "cpu"}})
    .outputs("out")
    .nondifferentiable()
    .cuda_rounds_differently()
    .shape([](const std::vector<int64_t>& shape, const std::string& dtype, int64_t, int64_t, const std::string& device) {
      check_shape("randn", shape);
      return TensorSpec{shape, floating_dtype("randn", dtype), Device::parse(device)};
    })
    .cpu([](const std::vector<int64_t>&, const std::string&, int64_t seed, int64_t offset, const std::string&, Tensor& out) {
      visit_floating(out.dtype(), "core::randn", [&](auto tag) {
        using T = typename decltype(tag)::type;
        fill_random<T>(out, seed, offset, kernels::NormalElement<T>{});
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const std::vector<int64_t>&, const std::string&, int64_t seed, int64_t offset, const std::string&, Tensor& out) {
      visit_floating(out.dtype(), "core::randn", [&](auto tag) {
        using T = typename decltype(tag)::type;
        fill_random_cuda<T>(out, seed, offset, kernels::NormalElement<T>{});
      });
    })
#endif
    .samples([] { return std::vector<Values>{{IntList{4}, std::string("float32"), int64_t(5), int64_t(1), std::string("cpu")},
                                             {IntList{2, 3}, std::string("float64"), int64_t(6), int64_t(0), std::string("cpu")}}; });

SAMPAN_OP(core, randint)
    .doc("Integers uniform in [low, high), from draw (seed, offset); dtype int32, int64 or floating; "
         "made on `device` (the same bits on every device).")
    .args("low", "high", "shape", "dtype", "seed", "offset", "device")
    .defaults({{"device", "cpu"}})
    .outputs("out")
    .nondifferentiable()
    .shape([](int64_t low, int64_t high, const std::vector<int64_t>& shape, const std::string& dtype, int64_t, int64_t,
              const std::string& device) {
      check_shape("randint", shape);
      SAMPAN_CHECK(high > low, ValueError, "randint: high (", high, ") must be greater than low (", low, ")");
      return TensorSpec{shape, dtype_from_name(dtype), Device::parse(device)};
    })
    .cpu([](int64_t low, int64_t high, const std::vector<int64_t>&, const std::string&, int64_t seed, int64_t offset,
            const std::string&, Tensor& out) {
      visit_real(out.dtype(), "core::randint", [&](auto tag) {
        using T = typename decltype(tag)::type;
        fill_random<T>(out, seed, offset, kernels::RandintElement<T>{as_u64(low), as_u64(high) - as_u64(low)});
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](int64_t low, int64_t high, const std::vector<int64_t>&, const std::string&, int64_t seed, int64_t offset,
             const std::string&, Tensor& out) {
      visit_real(out.dtype(), "core::randint", [&](auto tag) {
        using T = typename decltype(tag)::type;
        fill_random_cuda<T>(out, seed, offset, kernels::RandintElement<T>{as_u64(low), as_u64(high) - as_u64(low)});
      });
    })
#endif
    .samples([] { return std::vector<Values>{{int64_t(-2), int64_t(9), IntList{4}, std::string("int64"), int64_t(5), int64_t(2), std::string("cpu")},
                                             {int64_t(0), int64_t(3), IntList{5}, std::string("int32"), int64_t(1), int64_t(7), std::string("cpu")}}; });

namespace {
// 1 where core::rand's float64 sample of (seed, offset) is below p, as ops on p's device (so one
// definition for both devices: rand's twin draws the CPU's bits, the comparison is exact). The
// first probability outside [0, 1] (or NaN) is named, with its element.
void bernoulli_kernel(const Tensor& p, int64_t seed, int64_t offset, Tensor& out) {
  const Tensor pc = contiguous(cast(p, DType::Float64));
  const Tensor inside = logical_and(ge(pc, scalar_like(0.0, pc)), le(pc, scalar_like(1.0, pc)));
  const Tensor outside = reshape(logical_not(inside), {-1});
  if (pc.numel() > 0 && sum(outside).item() > 0) {
    const int64_t i = static_cast<int64_t>(argmax(cast(outside, DType::Int64)).item());
    SAMPAN_THROW(ValueError, "bernoulli: probabilities must lie in [0, 1], got ",
                 std::to_string(select(reshape(pc, {-1}), 0, i).item()), " at element ", i);
  }
  static OpHandle rand_op("core::rand");
  const Tensor u = rand_op(pc.shape(), std::string("float64"), seed, offset, p.device().str())[0];
  copy_(out, lt(u, pc));
}
}  // namespace

SAMPAN_OP(core, bernoulli)
    .doc("1 with probability p, else 0, elementwise (p in [0, 1]; the result has p's shape and "
         "dtype), from draw (seed, offset).")
    .args("p", "seed", "offset")
    .outputs("out")
    .nondifferentiable()
    .shape([](const TensorSpec& p, int64_t, int64_t) {
      if (!is_floating(p.dtype)) SAMPAN_THROW(TypeError, "bernoulli: p must be floating, got ", dtype_name(p.dtype));
      return p;
    })
    .cpu(bernoulli_kernel)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(bernoulli_kernel)  // the same ops, on the GPU: rand's draw there is the CPU's
#endif
    .samples([] { return std::vector<Values>{{full({2, 2}, 0.5, DType::Float64), int64_t(5), int64_t(3)}}; });

SAMPAN_OP(core, dropout_mask)
    .doc("The scaled keep mask of dropout: 1 / (1 - p) where the uniform sample u of core::rand "
         "with the same (seed, offset) is below 1 - p, else 0 (p in [0, 1); float32 or float64), made "
         "on `device` (the same bits on every device). One pass instead of rand, compare, cast and scale.")
    .args("shape", "p", "dtype", "seed", "offset", "device")
    .defaults({{"device", "cpu"}})
    .outputs("out")
    .nondifferentiable()
    .shape([](const std::vector<int64_t>& shape, double p, const std::string& dtype, int64_t, int64_t,
              const std::string& device) {
      check_shape("dropout_mask", shape);
      SAMPAN_CHECK(p >= 0.0 && p < 1.0, ValueError, "dropout_mask: p must lie in [0, 1), got ", std::to_string(p));
      return TensorSpec{shape, floating_dtype("dropout_mask", dtype), Device::parse(device)};
    })
    .cpu([](const std::vector<int64_t>&, double p, const std::string&, int64_t seed, int64_t offset, const std::string&,
            Tensor& out) {
      // One block per element as core::rand (the same words, made 8 or 16 blocks a vector),
      // compared in out's dtype as `rand(...) < 1 - p` is: both give one mask.
      visit_floating(out.dtype(), "core::dropout_mask", [&](auto tag) {
        using T = typename decltype(tag)::type;
        fill_uniform_based<T>(out, seed, offset,
                              kernels::DropoutElement<T>{static_cast<T>(1.0 - p), static_cast<T>(1.0 / (1.0 - p))});
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const std::vector<int64_t>&, double p, const std::string&, int64_t seed, int64_t offset, const std::string&,
             Tensor& out) {
      visit_floating(out.dtype(), "core::dropout_mask", [&](auto tag) {
        using T = typename decltype(tag)::type;
        fill_random_cuda<T>(out, seed, offset,
                            kernels::DropoutElement<T>{static_cast<T>(1.0 - p), static_cast<T>(1.0 / (1.0 - p))});
      });
    })
#endif
    .samples([] { return std::vector<Values>{{IntList{3, 4}, 0.5, std::string("float64"), int64_t(5), int64_t(3), std::string("cpu")}, {IntList{5}, 0.0, std::string("float32"), int64_t(1), int64_t(0), std::string("cpu")}}; });

SAMPAN_OP(core, randperm)
    .doc("A uniformly random permutation of 0 .. n-1, from draw (seed, offset): the positions "
         "sorted by a 64-bit random key each (ties by position), made on `device`.")
    .args("n", "dtype", "seed", "offset", "device")
    .defaults({{"device", "cpu"}})
    .outputs("out")
    .nondifferentiable()
    .shape([](int64_t n, const std::string& dtype, int64_t, int64_t, const std::string& device) {
      SAMPAN_CHECK(n >= 0, ValueError, "randperm: n must be >= 0, got ", n);
      return TensorSpec{{n}, dtype_from_name(dtype), Device::parse(device)};
    })
    .cpu([](int64_t n, const std::string&, int64_t seed, int64_t offset, const std::string&, Tensor& out) {
      std::vector<uint64_t> key(static_cast<size_t>(n));
      const uint64_t s = as_u64(seed), o = as_u64(offset);
#pragma omp parallel for if (n > kernels::kParallelGrain / 16) schedule(static)
      for (int64_t i = 0; i < n; ++i)
        key[i] = kernels::PermutationKeyElement{}(kernels::random_block(s, o, static_cast<uint64_t>(i)));
      std::vector<int64_t> perm(static_cast<size_t>(n));
      std::iota(perm.begin(), perm.end(), int64_t(0));
      // Ties between 64-bit keys are astronomically rare; breaking them by position keeps the
      // result a deterministic function of the keys (and is what the GPU's stable sort does).
      std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return key[a] != key[b] ? key[a] < key[b] : a < b; });
      visit_real(out.dtype(), "core::randperm", [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* p = out.data<T>();
        for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(perm[i]);
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](int64_t n, const std::string&, int64_t seed, int64_t offset, const std::string&, Tensor& out) {
      visit_real(out.dtype(), "core::randperm", [](auto) {});  // the CPU's dtype check
      Tensor keys = Tensor::empty({n}, DType::Int64, out.device()), perm = Tensor::empty({n}, DType::Int64, out.device());
      uint64_t* kp = static_cast<uint64_t*>(keys.raw_data());
      cuda_support::run_device([&] {
        kernels::random_fill_cuda<uint64_t>(as_u64(seed), as_u64(offset), n, kp, kernels::PermutationKeyElement{});
        kernels::sort_permutation_cuda(kp, n, static_cast<int64_t*>(perm.raw_data()));
      });
      copy_(out, perm);
    })
#endif
    .samples([] { return std::vector<Values>{{int64_t(6), std::string("int64"), int64_t(5), int64_t(4), std::string("cpu")}}; });

// ------------------------------------------------------------------------------------------
// C++ API: each call reserves one draw from the generator.
// ------------------------------------------------------------------------------------------

Tensor rand(const Shape& shape, DType dtype, Generator* gen, Device device) {
  static OpHandle op("core::rand");
  auto [seed, offset] = draw(gen);
  return op(shape, std::string(dtype_name(dtype)), seed, offset, device.str())[0];
}
Tensor randn(const Shape& shape, DType dtype, Generator* gen, Device device) {
  static OpHandle op("core::randn");
  auto [seed, offset] = draw(gen);
  return op(shape, std::string(dtype_name(dtype)), seed, offset, device.str())[0];
}
Tensor randint(int64_t low, int64_t high, const Shape& shape, DType dtype, Generator* gen, Device device) {
  static OpHandle op("core::randint");
  auto [seed, offset] = draw(gen);
  return op(low, high, shape, std::string(dtype_name(dtype)), seed, offset, device.str())[0];
}
Tensor bernoulli(const Tensor& p, Generator* gen) {
  static OpHandle op("core::bernoulli");
  auto [seed, offset] = draw(gen);
  return op(p.detach(), seed, offset)[0];
}
Tensor randperm(int64_t n, DType dtype, Generator* gen, Device device) {
  static OpHandle op("core::randperm");
  auto [seed, offset] = draw(gen);
  return op(n, std::string(dtype_name(dtype)), seed, offset, device.str())[0];
}
Tensor rand_like(const Tensor& t, Generator* gen) { return rand(t.shape(), t.dtype(), gen, t.device()); }
Tensor randn_like(const Tensor& t, Generator* gen) { return randn(t.shape(), t.dtype(), gen, t.device()); }
Tensor uniform(const Shape& shape, double low, double high, DType dtype, Generator* gen) {
  SAMPAN_CHECK(high >= low, ValueError, "uniform: high (", std::to_string(high), ") must be >= low (", std::to_string(low), ")");
  Tensor u = rand(shape, dtype, gen);
  return add(mul(u, scalar_tensor(high - low, dtype)), scalar_tensor(low, dtype));
}
Tensor normal(const Shape& shape, double mean, double std, DType dtype, Generator* gen) {
  SAMPAN_CHECK(std >= 0, ValueError, "normal: std must be >= 0, got ", std::to_string(std));
  Tensor z = randn(shape, dtype, gen);
  return add(mul(z, scalar_tensor(std, dtype)), scalar_tensor(mean, dtype));
}
Tensor dropout_mask(const Shape& shape, double p, DType dtype, Generator* gen, Device device) {
  static OpHandle op("core::dropout_mask");
  SAMPAN_CHECK(p >= 0.0 && p <= 1.0, ValueError, "dropout: p must lie in [0, 1], got ", std::to_string(p));
  if (p == 1.0) return zeros(shape, dtype, device);
  // Keep with probability 1 - p and scale by 1 / (1 - p) so the expectation is unchanged.
  auto [seed, offset] = draw(gen);
  return op(shape, p, std::string(dtype_name(dtype)), seed, offset, device.str())[0];
}
Tensor dropout(const Tensor& x, double p, bool training, Generator* gen) {
  if (!training || p == 0.0) return x;
  // The mask is made where x is: on a GPU the CPU's mask for the same draw, without a copy.
  const DType mask_dtype = x.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
  Tensor mask = dropout_mask(x.shape(), p, mask_dtype, gen, x.device());
  return mul(x, mask.dtype() == x.dtype() ? mask : cast(mask, x.dtype()));
}

}  // namespace sampan
