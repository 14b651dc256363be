// DeepPot on a device (deep_pot.h: device(), to()): every tensor of the model moves, a failed move
// leaves the model as it was, and on a GPU evaluate() gives the CPU's energy, forces and virial,
// and the parameter gradient of a force loss (training's double backward), to float64 rounding,
// for one-sided and type-pair embeddings. The neighbour search and the row bookkeeping stay on
// the host, so the index tensors the ops read are copies of the CPU's.
#include <gtest/gtest.h>

#include <cmath>

#include "sampan/autograd.h"
#include "sampan/cuda.h"
#include "sampan/deepmd/deep_pot.h"
#include "sampan/error.h"
#include "sampan/ops.h"
#include "test_util.h"

using namespace sampan;
using sampan::deepmd::DeepPot;

namespace {

DeepPot model(bool type_one_side) {
  deepmd::SeAConfig cfg;
  cfg.type_map = {"O", "H"};
  cfg.rcut = 4.0;
  cfg.rcut_smth = 0.5;
  cfg.sel = {20, 24};
  cfg.neuron = {4, 8};
  cfg.axis_neuron = 3;
  cfg.type_one_side = type_one_side;
  cfg.fitting_neuron = {12, 12};
  DeepPot pot(cfg, 13);
  pot.davg = test::uniform({2, cfg.nnei() * 4}, -0.3, 0.3, 7);
  pot.dstd = test::uniform({2, cfg.nnei() * 4}, 0.5, 1.5, 8);
  return pot;
}

deepmd::ExtendedSystem frame(const DeepPot& pot) {
  std::vector<double> coord;
  std::vector<int64_t> types;
  for (int i = 0; i < 16; ++i) {
    coord.insert(coord.end(), {std::fmod(1.37 * i + 0.2, 7.0), std::fmod(2.71 * i + 0.5, 7.0), std::fmod(3.93 * i + 0.9, 7.0)});
    types.push_back(i % 3 == 0 ? 0 : 1);
  }
  const std::vector<double> cell = {7.0, 0, 0, 0, 7.0, 0, 0, 0, 7.0};
  return pot.extend(coord.data(), types.data(), 16, cell.data());
}

double max_diff(const Tensor& a, const Tensor& b) {
  Tensor d = abs(sub(to_device(a.detach(), cpu_device()), to_device(b.detach(), cpu_device())));
  return d.numel() ? amax(d).item() : 0.0;
}

// energy, forces and virial of the GPU model against the CPU model's, to float64 rounding.
void expect_cpus_outputs(const deepmd::DeepPotOutput& cpu, const deepmd::DeepPotOutput& gpu, bool one_side) {
  EXPECT_TRUE(gpu.force.device().is_cuda());
  EXPECT_LE(max_diff(cpu.energy, gpu.energy), 1e-10 * std::abs(cpu.energy.item())) << one_side;
  EXPECT_LE(max_diff(cpu.force, gpu.force), 1e-10) << one_side;
  EXPECT_LE(max_diff(cpu.virial, gpu.virial), 1e-10) << one_side;
}

// sum(F^2) differentiated in the parameters: the force loss's double backward.
std::vector<Tensor> force_loss_grads(const DeepPot& pot, const deepmd::ExtendedSystem& ext) {
  std::vector<Tensor> params = pot.parameters();
  for (Tensor& p : params) p.requires_grad_(true);
  deepmd::DeepPotOutput out = pot.evaluate(ext, true, true);
  Tensor loss = add(sum(square(out.force)), out.energy);
  return grad({loss}, params);
}

}  // namespace

TEST(DeepPotDevice, ToTheCpuKeepsEveryTensorAndAFailedMoveLeavesTheModel) {
  DeepPot pot = model(true);
  EXPECT_TRUE(pot.device().is_cpu());
  const std::vector<Tensor> before = pot.parameters();
  pot.to(cpu_device());
  const std::vector<Tensor> after = pot.parameters();
  ASSERT_EQ(after.size(), before.size());
  for (size_t k = 0; k < before.size(); ++k) EXPECT_EQ(max_diff(after[k], before[k]), 0.0);
  if (cuda::is_available()) GTEST_SKIP() << "a GPU is present: the failed move does not arise";
  EXPECT_ANY_THROW(pot.to(Device::parse("cuda")));
  EXPECT_TRUE(pot.device().is_cpu());
  for (const Tensor& p : pot.parameters()) EXPECT_TRUE(p.device().is_cpu());
  EXPECT_TRUE(pot.davg.device().is_cpu() && pot.bias_atom_e.device().is_cpu());
}

TEST(DeepPotDevice, OnTheGpuEvaluateGivesTheCpusEnergyForcesVirialAndTrainingGradients) {
  if (!cuda::is_available()) GTEST_SKIP() << "no GPU in this process: " << cuda::unavailable_reason();
  for (bool one_side : {true, false}) {
    DeepPot cpu = model(one_side), gpu = model(one_side);
    gpu.to(Device::parse("cuda"));
    ASSERT_TRUE(gpu.device().is_cuda());
    const deepmd::ExtendedSystem ext = frame(cpu);
    expect_cpus_outputs(cpu.evaluate(ext), gpu.evaluate(ext), one_side);
    const std::vector<Tensor> ga = force_loss_grads(cpu, ext), gb = force_loss_grads(gpu, ext);
    ASSERT_EQ(ga.size(), gb.size());
    for (size_t k = 0; k < ga.size(); ++k) EXPECT_LE(max_diff(ga[k], gb[k]), 1e-8) << one_side << " param " << k;
  }
}

// A compressed model (tables in place of the embedding nets: the tabulated ops' CUDA twins) on the
// GPU: the CPU's energy, forces and virial to float64 rounding, one-sided and type-pair, and the
// force of a compressed model moved after compression is the force of the model compressed on the
// CPU (the tables move with it).
TEST(DeepPotDevice, ACompressedModelEvaluatesOnTheGpuAsOnTheCpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no GPU in this process: " << cuda::unavailable_reason();
  for (bool one_side : {true, false}) {
    DeepPot cpu = model(one_side);
    cpu.compress(0.5);
    DeepPot gpu = cpu;
    gpu.to(Device::parse("cuda"));
    ASSERT_TRUE(gpu.compressed());
    const deepmd::ExtendedSystem ext = frame(cpu);
    expect_cpus_outputs(cpu.evaluate(ext), gpu.evaluate(ext), one_side);
  }
}
