// sampan-run: runs a saved graph (sp.jit.save, sampan::jit::save) on inputs read from .npy files
// and writes its outputs as .npy, with no Python in the process.
//
//   sampan-run model.h5 --input x.npy [--input y.npy ...] [--output out.npy ...]
//              [--library libops.so ...] [--repeat N]
//
// Inputs are taken in the graph's input order; --output names the files of the outputs in order
// (outputs without a file are summarised on stdout). --library loads an op library first (a
// graph's libraries are otherwise loaded from the paths they were traced with, or from copies
// embedded in the file). --repeat N runs N more times and prints the median and best wall time
// per run. OpenMP's wait policy defaults to PASSIVE, as in the Python package.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "sampan/jit.h"
#include "sampan/npy.h"
#include "sampan/op_library.h"
#include "sampan/autograd.h"
#include "sampan/ops.h"

namespace {

int usage(const char* why) {
  std::fprintf(stderr,
               "sampan-run: %s\nusage: sampan-run MODEL.h5 --input X.npy [--input ...] [--output Y.npy ...] "
               "[--library LIB.so ...] [--repeat N]\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // sampan's default OpenMP wait policy (as the Python package sets it before loading the core,
  // see python/sampan/_wait_policy.py): waiting threads sleep instead of spinning, unless the
  // user chose. libgomp reads it when it loads, before main, so the program runs itself again.
  if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT") && !std::getenv("SAMPAN_RUN_REEXEC")) {
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    setenv("SAMPAN_RUN_REEXEC", "1", 1);
    execv("/proc/self/exe", argv);  // returns only on failure: then run with the policy as it is
    unsetenv("OMP_WAIT_POLICY");
  }
  unsetenv("SAMPAN_RUN_REEXEC");
  std::string model;
  std::vector<std::string> inputs, outputs, libraries;
  int repeat = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag) -> const char* { return i + 1 < argc ? argv[++i] : (usage((std::string(flag) + " needs a value").c_str()), nullptr); };
    if (a == "--input" || a == "-i") {
      const char* v = value("--input");
      if (!v) return 2;
      inputs.push_back(v);
    } else if (a == "--output" || a == "-o") {
      const char* v = value("--output");
      if (!v) return 2;
      outputs.push_back(v);
    } else if (a == "--library") {
      const char* v = value("--library");
      if (!v) return 2;
      libraries.push_back(v);
    } else if (a == "--repeat") {
      const char* v = value("--repeat");
      if (!v) return 2;
      char* end = nullptr;
      const long n = std::strtol(v, &end, 10);
      if (end == v || *end != '\0' || n < 0) return usage(("--repeat expects a count >= 0, got '" + std::string(v) + "'").c_str());
      repeat = static_cast<int>(n);
    } else if (a == "--help" || a == "-h") {
      usage("runs a saved sampan graph");
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return usage(("unknown option '" + a + "'").c_str());
    } else if (model.empty()) {
      model = a;
    } else {
      return usage(("a second model file '" + a + "'").c_str());
    }
  }
  if (model.empty()) return usage("no model file given");
  try {
    for (const auto& lib : libraries) sampan::load_op_library(lib);
    sampan::jit::Graph graph = sampan::jit::load(model);
    if (inputs.size() != graph.inputs().size()) {
      std::string specs;
      for (const auto& s : graph.inputs()) specs += "\n  " + s.str();
      std::fprintf(stderr, "sampan-run: %s takes %zu inputs, %zu given with --input:%s\n", model.c_str(),
                   graph.inputs().size(), inputs.size(), specs.c_str());
      return 2;
    }
    if (outputs.size() > graph.num_outputs()) {
      std::fprintf(stderr, "sampan-run: %s has %zu outputs, %zu --output files given\n", model.c_str(),
                   graph.num_outputs(), outputs.size());
      return 2;
    }
    std::vector<sampan::Tensor> values;
    for (const auto& path : inputs) values.push_back(sampan::read_npy(path));
    sampan::NoGradGuard no_tape;
    std::vector<sampan::Tensor> result = graph.run(values);
    for (size_t o = 0; o < result.size(); ++o) {
      if (o < outputs.size()) {
        sampan::write_npy(outputs[o], result[o]);
      } else {
        std::printf("output %zu: %s %s\n", o, sampan::dtype_name(result[o].dtype()),
                    sampan::shape_str(result[o].shape()).c_str());
      }
    }
    if (repeat > 0) {
      std::vector<double> seconds;
      for (int r = 0; r < repeat; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        result = graph.run(values);
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(seconds.begin(), seconds.end());
      std::printf("median of %d runs: %.6g ms per run (best %.6g ms)\n", repeat, 1e3 * seconds[seconds.size() / 2],
                  1e3 * seconds.front());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sampan-run: %s\n", e.what());
    return 1;
  }
  return 0;
}
