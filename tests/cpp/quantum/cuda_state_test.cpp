// State vectors on the GPU (quantum/src/circuit_cuda.cpp over kernels/gates.cu): random circuits
// over the whole gate set against the CPU (state, <H>, the adjoint gradient, the state's vjp,
// fusion on and off, 12 qubits so that targets reach past a warp), run_circuit(device="cuda")
// against the CPU run (the same counts from the same sampler), and, without a GPU, the errors.
// The ops' own CPU-vs-GPU comparison is check_op's (registry_audit_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "quantum/random_circuit.h"
#include "sampan/cuda.h"
#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "sampan/quantum/circuit.h"
#include "sampan/quantum/distributed.h"
#include "sampan/quantum/runtime.h"

using namespace sampan;
using namespace sampan::quantum;
using namespace sampan::quantum::test;

namespace {

const std::vector<int64_t> kPaulis = {3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3,   // Z0 Z11
                                      1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   // X0 Y1
                                      0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0};  // X5 X6 X7
const std::vector<double> kCoeffs = {1.0, -0.5, 0.25};
constexpr int kQubits = 12;

Tensor params_tensor(const RandomCircuit& c, const Device& d) {
  Tensor p = zeros({static_cast<int64_t>(c.params.size())}, DType::Float64);
  std::copy(c.params.begin(), c.params.end(), p.data<double>());
  return to_device(p, d);
}

void expect_close(const Tensor& gpu, const Tensor& cpu, double tol, const char* what) {
  const Tensor back = to_device(gpu, cpu_device());
  ASSERT_EQ(back.numel(), cpu.numel()) << what;
  double worst = 0;
  if (cpu.dtype() == DType::Complex128) {
    for (int64_t i = 0; i < cpu.numel(); ++i)
      worst = std::max(worst, std::abs(back.data<complex128>()[i] - cpu.data<complex128>()[i]));
  } else {
    for (int64_t i = 0; i < cpu.numel(); ++i)
      worst = std::max(worst, std::abs(back.data<double>()[i] - cpu.data<double>()[i]));
  }
  EXPECT_LE(worst, tol) << what;
}

class QuantumCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no GPU in this process: " << cuda::unavailable_reason();
  }
};

}  // namespace

TEST_F(QuantumCuda, RandomCircuitsGiveTheCpusStateEnergyAndGradients) {
  static OpHandle sv("quantum::statevector"), ex("quantum::expectation"), eg("quantum::expectation_grad"),
      vjp("quantum::statevector_vjp");
  const Device gpu = Device::parse("cuda");
  for (bool fusion : {true, false}) {
    const bool previous = set_fusion_enabled(fusion);
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      const RandomCircuit c = random_circuit(kQubits, 60, seed);
      const Tensor pc = params_tensor(c, cpu_device()), pg = params_tensor(c, gpu);
      const Tensor psi_c = sv(pc, c.enc, c.constants, int64_t(kQubits))[0];
      const Tensor psi_g = sv(pg, c.enc, c.constants, int64_t(kQubits))[0];
      EXPECT_TRUE(psi_g.device().is_cuda());
      expect_close(psi_g, psi_c, 1e-13, "state");
      expect_close(ex(pg, c.enc, c.constants, int64_t(kQubits), kPaulis, kCoeffs)[0],
                   ex(pc, c.enc, c.constants, int64_t(kQubits), kPaulis, kCoeffs)[0], 1e-12, "energy");
      expect_close(eg(pg, c.enc, c.constants, int64_t(kQubits), kPaulis, kCoeffs)[0],
                   eg(pc, c.enc, c.constants, int64_t(kQubits), kPaulis, kCoeffs)[0], 1e-11, "energy gradient");
      const Tensor cot = to_device(psi_c, cpu_device()).clone();  // a complex cotangent: the state itself
      expect_close(vjp(pg, to_device(cot, gpu), c.enc, c.constants, int64_t(kQubits))[0],
                   vjp(pc, cot, c.enc, c.constants, int64_t(kQubits))[0], 1e-11, "state vjp");
    }
    set_fusion_enabled(previous);
  }
}

TEST_F(QuantumCuda, RunCircuitOnTheGpuGivesTheCpusEnergyAndCounts) {
  const RandomCircuit c = random_circuit(kQubits, 80, 9);
  const DistributedRun cpu = run_circuit(kQubits, c.enc, c.params, c.constants, kPaulis, kCoeffs, 5000, 3, true, 0, false);
  const DistributedRun gpu =
      run_circuit(kQubits, c.enc, c.params, c.constants, kPaulis, kCoeffs, 5000, 3, true, 0, false, "cuda");
  ASSERT_TRUE(gpu.has_expectation);
  EXPECT_NEAR(gpu.expectation, cpu.expectation, 1e-12);
  ASSERT_EQ(gpu.state.size(), cpu.state.size());
  double worst = 0;
  for (size_t i = 0; i < cpu.state.size(); ++i) worst = std::max(worst, std::abs(gpu.state[i] - cpu.state[i]));
  EXPECT_LE(worst, 1e-13);
  EXPECT_EQ(gpu.counts, cpu.counts);
}

// Probabilities of a GPU state are summed there (the 2^m numbers come back), in a fixed
// partition past 2^15 terms an outcome: the CPU's to rounding, the same bits run to run; their
// gradient is the CPU's; shots drawn from them are the CPU's; post-selection and its gradient
// run there with the CPU's values to rounding.
TEST_F(QuantumCuda, MeasurementOfAGpuStateGivesTheCpusNumbers) {
  static OpHandle sv("quantum::statevector"), probs("quantum::probabilities"), pvjp("quantum::probabilities_vjp"),
      sample("quantum::sample"), measure("quantum::measure"), measure_vjp("quantum::measure_vjp");
  const Device gpu = Device::parse("cuda");
  for (int n : {kQubits, 18}) {  // 18 qubits, one measured: 2^17 terms an outcome, in parts
    const RandomCircuit c = random_circuit(n, 40, 7);
    const Tensor psi_c = sv(params_tensor(c, cpu_device()), c.enc, c.constants, int64_t(n))[0];
    const Tensor psi_g = sv(params_tensor(c, gpu), c.enc, c.constants, int64_t(n))[0];
    for (const std::vector<int64_t>& q : std::vector<std::vector<int64_t>>{{}, {3, 0, 5}, {1}}) {
      const Tensor pg = probs(psi_g, q)[0], pc = probs(psi_c, q)[0];
      EXPECT_TRUE(pg.device().is_cuda());
      expect_close(pg, pc, 1e-13, "probabilities");
      const Tensor again = to_device(probs(psi_g, q)[0], cpu_device()), first = to_device(pg, cpu_device());
      EXPECT_EQ(std::memcmp(again.raw_data(), first.raw_data(), first.nbytes()), 0) << "run to run";
      const Tensor w = mul(arange(0, pc.numel(), 1, DType::Float64), scalar_tensor(0.25, DType::Float64));
      expect_close(pvjp(psi_g, to_device(w, gpu), q)[0], pvjp(psi_c, w, q)[0], 0.0, "probabilities_vjp");
      const Tensor shots_g = to_device(sample(psi_g, q, int64_t(300), int64_t(5), int64_t(0))[0], cpu_device());
      const Tensor shots_c = sample(psi_c, q, int64_t(300), int64_t(5), int64_t(0))[0];
      EXPECT_EQ(std::memcmp(shots_g.raw_data(), shots_c.raw_data(), shots_c.nbytes()), 0) << "shots";
      if (q.size() != 1) continue;
      const auto post_g = measure(psi_g, q, std::vector<int64_t>{1}), post_c = measure(psi_c, q, std::vector<int64_t>{1});
      EXPECT_TRUE(post_g[0].device().is_cuda());
      expect_close(post_g[0], post_c[0], 1e-13, "post-measurement state");
      expect_close(post_g[1], post_c[1], 1e-13, "outcome probability");
      const Tensor gp = scalar_tensor(0.7, DType::Float64), cot = to_device(psi_c, cpu_device()).clone();
      expect_close(measure_vjp(psi_g, to_device(cot, gpu), to_device(gp, gpu), q, std::vector<int64_t>{1})[0],
                   measure_vjp(psi_c, cot, gp, q, std::vector<int64_t>{1})[0], 1e-12, "measure_vjp");
    }
  }
}

TEST(QuantumCudaErrors, WithoutAGpuRunCircuitOnCudaSaysWhy) {
  if (cuda::is_available()) GTEST_SKIP() << "a GPU is present: the no-GPU error does not arise";
  const RandomCircuit c = random_circuit(4, 10, 2);
  try {
    run_circuit(4, c.enc, c.params, c.constants, {}, {}, 10, 1, false, 0, false, "cuda");
    FAIL() << "run_circuit on cuda ran without a GPU";
  } catch (const RuntimeError& e) {  // built with nvcc: the driver's answer
    EXPECT_NE(std::string(e.what()).find("cuda"), std::string::npos) << e.what();
  } catch (const NotImplementedError& e) {  // built without nvcc
    EXPECT_NE(std::string(e.what()).find("no CUDA kernels"), std::string::npos) << e.what();
  }
}

TEST(QuantumCudaErrors, AnUnknownDeviceIsAValueError) {
  EXPECT_THROW(run_circuit(2, {0, 0}, {}, {}, {}, {}, 0, 0, false, 0, false, "tpu"), ValueError);
}
