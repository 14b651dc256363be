// sampan internal: the names the op files' sample declarations (.sample / .samples) use.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "sampan/testing/samples.h"

namespace sampan::op_samples {
using sample_args::c128;
using sample_args::f64;
using IntList = std::vector<int64_t>;
}  // namespace sampan::op_samples
