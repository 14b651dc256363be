// sampan: softmax and log_softmax along one axis (stable for large inputs).
#pragma once

#include <cstdint>

#include "sampan/tensor.h"

namespace sampan {

/// exp(x) / sum(exp(x)) along `axis`; integer inputs become float32.
Tensor softmax(const Tensor& x, int64_t axis = -1);
/// x - logsumexp(x) along `axis` (the log of softmax, without its underflow).
Tensor log_softmax(const Tensor& x, int64_t axis = -1);

}  // namespace sampan
