// sampan: where a tensor's memory lives.
#pragma once

#include <string>

namespace sampan {

enum class DeviceType : unsigned char { CPU, CUDA };

/// A device: its type and, for CUDA, the ordinal of the GPU.
struct Device {
  DeviceType type = DeviceType::CPU;
  int index = 0;
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  /// "cpu" or "cuda:0".
  std::string str() const;
  /// Parse "cpu", "cuda", "cuda:1".
  static Device parse(const std::string& s);
};

inline Device cpu_device() { return Device{}; }

}  // namespace sampan
