// Tests of the CPU caching allocator's placement: cache-line alignment for every block, and for
// large blocks (over 1 MiB) 2 MiB alignment plus the transparent-huge-page advice that the
// state-vector kernels rely on (see framework/src/allocator.cpp), for fresh and reused blocks.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "sampan/allocator.h"

using namespace sampan;

namespace {

// The VmFlags line of the mapping in /proc/self/smaps that contains `p`; empty when there is no
// such file (not Linux) or no mapping holds p.
std::string vm_flags_of(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {  // a mapping's header line
      inside = addr >= lo && addr < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

bool has_flag(const std::string& vm_flags, const char* flag) {
  std::istringstream words(vm_flags.substr(std::strlen("VmFlags:")));
  std::string w;
  while (words >> w)
    if (w == flag) return true;
  return false;
}

}  // namespace

TEST(Allocator, SmallBlocksAreCacheLineAligned) {
  Allocator& cpu = allocator_for(DeviceType::CPU);
  for (size_t bytes : {size_t{1}, size_t{24}, size_t{4096}, size_t{1} << 20}) {
    void* p = cpu.allocate(bytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kCpuAlignment, 0u) << bytes << " bytes";
    cpu.deallocate(p, bytes);
  }
}

TEST(Allocator, LargeBlocksAreHugePageAlignedAndAdvised) {
  Allocator& cpu = allocator_for(DeviceType::CPU);
  // A kernel built without transparent huge pages refuses MADV_HUGEPAGE (the allocator then only
  // loses speed), so the advice can be checked only where THP exists.
  const bool kernel_has_thp = static_cast<bool>(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"));
  const size_t bytes = (size_t{6} << 20) + 48;  // rounded up to 8 MiB
  for (int reuse = 0; reuse < 2; ++reuse) {     // a fresh block, then the cached one
    char* p = static_cast<char*>(cpu.allocate(bytes));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (size_t{2} << 20), 0u) << "reuse " << reuse;
    std::memset(p, 1, bytes);  // the whole block is usable
    const std::string flags = vm_flags_of(p);
    if (flags.empty()) {
      cpu.deallocate(p, bytes);
      GTEST_SKIP() << "no /proc/self/smaps VmFlags here (not Linux?): cannot check the huge-page advice";
    }
    // "hg": the mapping carries MADV_HUGEPAGE. Its last byte lies in the same advised mapping.
    if (!kernel_has_thp) {
      cpu.deallocate(p, bytes);
      GTEST_SKIP() << "kernel without transparent huge pages (no /sys/kernel/mm/transparent_hugepage): "
                      "alignment checked, the huge-page advice cannot be";
    }
    EXPECT_TRUE(has_flag(flags, "hg")) << flags;
    EXPECT_EQ(vm_flags_of(p + bytes - 1), flags);
    cpu.deallocate(p, bytes);
  }
}
