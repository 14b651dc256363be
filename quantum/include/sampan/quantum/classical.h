// sampan quantum: the classical part of a circuit, as OpenQASM 2.0 gives it (qasm.h) and as the
// shot-branching runner takes it (distributed.h): mid-circuit measurements into classical bits,
// and ranges of gates that run only where a classical register holds a value. Gate indices refer
// to the circuit encoding (circuit.h); classical bits are numbered over all registers in
// declaration order (register offset + index in it).
#pragma once

#include <cstdint>
#include <vector>

namespace sampan::quantum {

/// A measurement applied where it stands (its circuit gate is the measurement channel, Kraus
/// {|0><0|, |1><1|} on `qubit`): the outcome is written to every bit of `clbits`.
struct MidMeasurement {
  int64_t gate;                  // index (in the circuit's gates) of its measurement channel
  int64_t qubit;
  std::vector<int64_t> clbits;   // classical bits that receive its outcome
};

/// `if (creg == value) qop;`: the circuit's gates [gate_begin, gate_end) (gates, measurement
/// channels of mid-circuit measurements, reset channels) run only where the classical register
/// (bits [clbit_offset, clbit_offset + n_bits), bit 0 the least significant) holds `value`. The
/// register is read once, when the range starts. Ranges do not overlap.
struct ClassicalCondition {
  int64_t gate_begin = 0, gate_end = 0;
  int64_t clbit_offset = 0, n_bits = 0;
  int64_t value = 0;
};

}  // namespace sampan::quantum
