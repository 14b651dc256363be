// sampan::jit from C++: a traced computation replays to the bit with another size along its
// symbolic dimension, through a saved and loaded file, with gradients; refusals name the input;
// dead-code elimination keeps only what reaches the outputs; a corrupt graph file is refused.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "sampan/autograd.h"
#include "sampan/io.h"
#include "sampan/jit.h"
#include "sampan/ops.h"
#include "sampan/testing/samples.h"
#include "../thrown_message.h"

using namespace sampan;
using sampan::test::thrown_message;

namespace {
// x [n, 3] -> (tanh(x W + b) summed over rows, the mean of x): a parameter, a bias, a reduction.
struct Model {
  Tensor w = sample_args::f64({3, 2}, -0.4, 0.21), b = sample_args::f64({2}, 0.1, 0.05);
  std::vector<Tensor> operator()(const Tensor& x) const {
    Tensor h = tanh(add(matmul(x, w), b));
    Tensor unused = exp(x);  // reaches no output
    (void)unused;
    return {sum(h, {0}), mean(x)};
  }
};

bool same_bits(const Tensor& a, const Tensor& b) {
  Tensor x = a.contiguous(), y = b.contiguous();
  return x.shape() == y.shape() && x.dtype() == y.dtype() && std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()) == 0;
}

std::string temp_path(const char* name) { return ::testing::TempDir() + name; }
}  // namespace

TEST(Jit, ReplayAndFileRoundTripEqualEagerAlongASymbolicDimension) {
  Model m;
  Tensor x = sample_args::f64({4, 3});
  jit::Graph g = [&] {
    jit::Tracer tracer({x}, {"x"}, {{"x", {{0, "rows"}}}});
    return tracer.finish(m(x));
  }();
  EXPECT_EQ(g.inputs()[0].str(), "x: float64 [rows, 3]");
  const std::string path = temp_path("jit_model.h5");
  jit::save(g, path);
  jit::Graph loaded = jit::load(path);
  for (int64_t n : {4, 1, 7}) {
    Tensor xn = sample_args::f64({n, 3}, 0.2, 0.11);
    auto want = m(xn);
    for (const jit::Graph* graph : {&g, &loaded}) {
      auto got = graph->run({xn});
      ASSERT_EQ(got.size(), 2u);
      EXPECT_TRUE(same_bits(got[0], want[0])) << n;
      EXPECT_TRUE(same_bits(got[1], want[1])) << n;
    }
  }
  std::remove(path.c_str());
}

TEST(Jit, GradientsFlowThroughAReplay) {
  Model m;
  Tensor x0 = sample_args::f64({4, 3});
  jit::Tracer tracer({x0});
  jit::Graph g = tracer.finish({sum(m(x0)[0])});
  Tensor x = sample_args::f64({4, 3}, 0.3, 0.07).requires_grad_(true);
  Tensor gx_replay = grad({g.run({x})[0]}, {x})[0];
  Tensor y = sample_args::f64({4, 3}, 0.3, 0.07).requires_grad_(true);
  Tensor gx_eager = grad({sum(m(y)[0])}, {y})[0];
  EXPECT_TRUE(same_bits(gx_replay, gx_eager));
}

TEST(Jit, RefusalsNameTheInputAndTheAssumption) {
  Tensor x = sample_args::f64({4, 3});
  jit::Tracer tracer({x}, {"pos"});
  jit::Graph g = tracer.finish({mul(x, x)});
  EXPECT_NE(thrown_message([&] { g.run({sample_args::f64({5, 3})}); }).find("input 'pos': dimension 0 was fixed at 4"), std::string::npos);
  EXPECT_NE(thrown_message([&] { g.run({cast(x, DType::Float32)}); }).find("input 'pos' was traced as float64, got float32"),
            std::string::npos);
  EXPECT_NE(thrown_message([&] { g.run({}); }).find("graph takes 1 inputs, got 0"), std::string::npos);
}

TEST(Jit, DeadCodeEliminationKeepsWhatReachesTheOutputs) {
  Model m;
  Tensor x = sample_args::f64({2, 3});
  jit::Tracer tracer({x});
  jit::Graph g = tracer.finish(m(x));
  auto has = [&](const char* op) {
    for (const auto& n : g.nodes()) if (n.op_name == op) return true;
    return false;
  };
  ASSERT_TRUE(has("core::exp"));
  const size_t before = g.num_nodes();
  g.eliminate_dead_code();
  EXPECT_FALSE(has("core::exp"));
  EXPECT_EQ(g.num_nodes(), before - 1);
  auto want = m(x);
  EXPECT_TRUE(same_bits(g.run({x})[0], want[0]));
}

TEST(Jit, ATracerStopsRecordingWhenFinishedAndTracersDoNotNest) {
  Tensor x = sample_args::f64({2});
  jit::Tracer tracer({x});
  EXPECT_NE(thrown_message([&] { jit::Tracer inner({x}); }).find("already recording"), std::string::npos);
  jit::Graph g = tracer.finish({neg(x)});
  Tensor after = exp(x);  // not recorded
  (void)after;
  EXPECT_EQ(g.num_nodes(), 1u);
}

TEST(Jit, CorruptOrForeignFilesAreRefused) {
  const std::string foreign = temp_path("jit_foreign.h5");
  save(IoValue::dict({{"w", IoValue(sample_args::f64({2}))}}), foreign);
  EXPECT_NE(thrown_message([&] { jit::load(foreign); }).find("not a graph"), std::string::npos);
  // A graph whose node uses a value before it is defined.
  Tensor x = sample_args::f64({2});
  jit::Tracer tracer({x});
  jit::Graph g = tracer.finish({neg(exp(x))});
  const std::string path = temp_path("jit_bad_ref.h5");
  jit::save(g, path);
  IoValue tree = load(path);
  IoValue nodes = tree.at("nodes");
  IoValue first = nodes.as_list()[0];
  IoValue args = first.at("args");
  IoValue arg = args.as_list()[0];
  arg.set("value", int64_t{7});
  args.as_list()[0] = arg;
  first.set("args", args);
  nodes.as_list()[0] = first;
  tree.set("nodes", nodes);
  save(tree, path);
  EXPECT_NE(thrown_message([&] { jit::load(path); }).find("node 0 uses value 7 before it is defined"), std::string::npos);
  std::remove(foreign.c_str());
  std::remove(path.c_str());
}
