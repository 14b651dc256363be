// on_device(f): f(), with the std::runtime_error of a CUDA launcher (the .cu files know nothing
// of sampan's errors) raised as sampan::RuntimeError, for the quantum ops' GPU twins.
#pragma once

#include <stdexcept>

#include "sampan/error.h"

namespace sampan::quantum {

template <class F> auto on_device(F f) -> decltype(f()) {
  try {
    return f();
  } catch (const RuntimeError&) {
    throw;
  } catch (const std::runtime_error& e) {
    throw RuntimeError(e.what());
  }
}

}  // namespace sampan::quantum
