// sampan: the C++ API of the built-in ops. Every function here calls a registered op
// ("core::<name>") through call_op, so C++, Python and traced graphs share one path.
#pragma once

#include "sampan/ops/activation.h"
#include "sampan/ops/binary.h"
#include "sampan/ops/compare.h"
#include "sampan/ops/complex.h"
#include "sampan/ops/copy.h"
#include "sampan/ops/creation.h"
#include "sampan/ops/index.h"
#include "sampan/ops/linalg.h"
#include "sampan/ops/normalization.h"
#include "sampan/ops/random.h"
#include "sampan/ops/reduce.h"
#include "sampan/ops/segment.h"
#include "sampan/ops/shape.h"
#include "sampan/ops/softmax.h"
#include "sampan/ops/unary.h"
