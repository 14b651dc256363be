// sampan: check_op, the generic test every op passes (and users run on their own ops).
//
//   auto r = sampan::check_op("core::mul", {x, y});   // sample args; floats should be float64
//   EXPECT_TRUE(r.ok) << r.summary();
//
// It checks, each failure line starting with the check's name: the shape function against
// what the kernel makes and writes ("shape function"); first-order gradients against central
// finite differences in float64 ("first-order gradient"); second-order gradients (the gradient
// of a random projection of the first-order gradient, again by finite differences) unless the
// op is once-differentiable ("second-order gradient"); the op's declared dtypes against float64
// ("dtype sweep"); that declared in-place outputs are their inputs with one version bump, and
// that no other argument is written ("in-place version bump"); two runs giving identical bits
// ("determinism"); CPU against CUDA when a GPU is present ("CPU vs CUDA").
#pragma once

#include <string>
#include <vector>

#include "sampan/op.h"

namespace sampan {

struct CheckOpOptions {
  double eps = 1e-6;    // finite-difference step (float64)
  double atol = 1e-6;   // |analytic - numeric| <= atol + rtol * |numeric|
  double rtol = 1e-5;
  bool gradients = true;
  bool second_order = true;
  bool dtype_sweep = true;
  bool determinism = true;
  bool cuda = true;
  // On cuda:0, two runs must give the same bits (false for kernels that sum with atomics).
  bool cuda_deterministic = true;
  uint64_t seed = 1234;  // for the random output projections
};

struct CheckOpReport {
  bool ok = true;
  std::vector<std::string> failures;  // one line each: which check, which argument, numbers
  std::vector<std::string> notes;     // checks that were skipped and why
  std::string summary() const;
};

CheckOpReport check_op(const OpSchema& op, const Values& sample_args, const CheckOpOptions& opt = {});
/// check_op on every sample the op declares (.sample / .samples); fails when it declares none.
/// Failures name the sample ("sample 2 of 3: ..."); notes are merged.
CheckOpReport check_op(const OpSchema& op, const CheckOpOptions& opt = {});
inline CheckOpReport check_op(const std::string& name, const Values& sample_args,
                              const CheckOpOptions& opt = {}) {
  return check_op(find_op(name), sample_args, opt);
}

}  // namespace sampan
