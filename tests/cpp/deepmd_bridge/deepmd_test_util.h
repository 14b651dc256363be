// Shared helpers of the deepmd_bridge tests: where the shared DeePMD data lives, temp folders.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace deepmd_test {

/// The project's shared data folder (deepmd_water, deepmd_golden_se_e2_a ...): the environment
/// variable SAMPAN_SHARED_DATA, else <checkout>/../shared/data (the rule of tests/python/shared_data.py).
inline std::string shared_data_dir() {
  if (const char* env = std::getenv("SAMPAN_SHARED_DATA")) return env;
  return std::string(SAMPAN_SOURCE_DIR) + "/../shared/data";
}

inline std::string water_system(int index) {
  return shared_data_dir() + "/deepmd_water/data_" + std::to_string(index);
}

inline std::string golden_dir() { return shared_data_dir() + "/deepmd_golden_se_e2_a"; }

/// A fresh empty folder under the system temp dir, removed by the destructor.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& tag) {
    path = std::filesystem::temp_directory_path() /
           ("sampan_deepmd_" + tag + "_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            std::to_string(reinterpret_cast<uintptr_t>(this)));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace deepmd_test

#define DEEPMD_SKIP_WITHOUT(path)                                                     \
  do {                                                                                \
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "data not found: " << (path) \
                                                     << " (set SAMPAN_SHARED_DATA)";  \
  } while (0)

#include "sampan/deepmd/extended_system.h"
#include "sampan/ops.h"

namespace deepmd_test {

/// The extended system's arrays as tensors for the ops: coord float64 [nall, 3], atype and
/// nlist int64.
struct ExtTensors {
  sampan::Tensor coord, atype, nlist, mapping;
};
inline ExtTensors to_tensors(const sampan::deepmd::ExtendedSystem& ext) {
  using namespace sampan;
  std::vector<double> types(ext.types.begin(), ext.types.end()), nl(ext.nlist.begin(), ext.nlist.end()),
      map(ext.mapping.begin(), ext.mapping.end());
  return {from_vector(ext.coord, {ext.nall, 3}), cast(from_vector(types, {ext.nall}), DType::Int64),
          cast(from_vector(nl, {ext.nloc, ext.nnei}), DType::Int64), cast(from_vector(map, {ext.nall}), DType::Int64)};
}

}  // namespace deepmd_test
