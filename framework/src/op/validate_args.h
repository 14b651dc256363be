// sampan (internal): call_op's argument validation, shared with check_op, which runs an op's
// CPU kernel directly to test its shape function against what the kernel writes.
#pragma once

#include "sampan/op.h"

namespace sampan::detail {

/// Checks `args` against the op's signature and converts them as call_op does (bool or int to
/// float, int to List[int], ...); throws TypeError naming the argument.
void validate_op_args(const OpSchema& op, Values& args);

/// Whether `v` can be passed as an argument of kind `k`, converting it as call_op does.
bool coerce_to_kind(ArgKind k, Value& v);

/// The kind of value `v` holds, for error messages ("int", "List[float]" ...).
const char* value_kind_name(const Value& v);

}  // namespace sampan::detail
