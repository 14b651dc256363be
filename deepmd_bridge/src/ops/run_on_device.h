// run_device(f): f(), with the std::runtime_error of a CUDA twin (the .cu files know nothing of
// sampan's errors) raised as sampan::RuntimeError, so Python sees a RuntimeError with the CUDA
// message. The deepmd op files' CUDA twins call their kernels through it.
#pragma once

#include <stdexcept>

#include "sampan/error.h"

namespace sampan::deepmd {

template <class F> auto run_device(F f) {
  try {
    return f();
  } catch (const sampan::RuntimeError&) {
    throw;
  } catch (const std::runtime_error& e) {
    throw sampan::RuntimeError(e.what());
  }
}

}  // namespace sampan::deepmd
