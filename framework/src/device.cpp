// sampan: device names.
#include "sampan/device.h"

#include "sampan/error.h"

namespace sampan {

std::string Device::str() const {
  return is_cpu() ? std::string("cpu") : "cuda:" + std::to_string(index);
}

Device Device::parse(const std::string& s) {
  if (s == "cpu") return Device{};
  if (s == "cuda") return Device{DeviceType::CUDA, 0};
  if (s.rfind("cuda:", 0) == 0) {
    try {
      return Device{DeviceType::CUDA, std::stoi(s.substr(5))};
    } catch (const std::exception&) {
    }
  }
  SAMPAN_THROW(ValueError, "unknown device '", s, "': expected 'cpu', 'cuda' or 'cuda:N'");
}

}  // namespace sampan
