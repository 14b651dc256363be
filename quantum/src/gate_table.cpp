// sampan quantum: the gate and channel table (see gate_table.h).
#include "sampan/quantum/gate_table.h"

#include <string>

#include "sampan/error.h"
#include "sampan/quantum/circuit.h"

namespace sampan::quantum {

namespace {

constexpr Layout F = Layout::kFixed;

// {name, method, opcode, n_qubits, n_params, n_controls, channel, layout}, in opcode order.
const GateSpec kTable[] = {
    {"H", "h", kH, 1, 0, 0, false, F},
    {"X", "x", kX, 1, 0, 0, false, F},
    {"Y", "y", kY, 1, 0, 0, false, F},
    {"Z", "z", kZ, 1, 0, 0, false, F},
    {"S", "s", kS, 1, 0, 0, false, F},
    {"Sdg", "sdg", kSdg, 1, 0, 0, false, F},
    {"T", "t", kT, 1, 0, 0, false, F},
    {"Tdg", "tdg", kTdg, 1, 0, 0, false, F},
    {"P", "p", kP, 1, 1, 0, false, F},
    {"RX", "rx", kRX, 1, 1, 0, false, F},
    {"RY", "ry", kRY, 1, 1, 0, false, F},
    {"RZ", "rz", kRZ, 1, 1, 0, false, F},
    {"U3", "u3", kU3, 1, 3, 0, false, F},
    {"CNOT", "cnot", kCNOT, 2, 0, 1, false, F},
    {"CY", "cy", kCY, 2, 0, 1, false, F},
    {"CZ", "cz", kCZ, 2, 0, 1, false, F},
    {"SWAP", "swap", kSWAP, 2, 0, 0, false, F},
    {"CP", "cp", kCP, 2, 1, 1, false, F},
    {"CRX", "crx", kCRX, 2, 1, 1, false, F},
    {"CRY", "cry", kCRY, 2, 1, 1, false, F},
    {"CRZ", "crz", kCRZ, 2, 1, 1, false, F},
    {"RXX", "rxx", kRXX, 2, 1, 0, false, F},
    {"RYY", "ryy", kRYY, 2, 1, 0, false, F},
    {"RZZ", "rzz", kRZZ, 2, 1, 0, false, F},
    {"CCX", "ccx", kCCX, 3, 0, 2, false, F},
    {"CU", "cu", kCU, 2, 3, 1, false, F},
    {"MS", "ms", kMS, 2, 0, 0, false, F},
    {"CSWAP", "cswap", kCSWAP, 3, 0, 1, false, F},
    {"UNITARY", "unitary", kUnitary, -1, 0, -1, false, Layout::kUnitary},
    {"BIT_FLIP", "bit_flip", kBitFlip, 1, 1, 0, true, F},
    {"PHASE_FLIP", "phase_flip", kPhaseFlip, 1, 1, 0, true, F},
    {"BIT_PHASE_FLIP", "bit_phase_flip", kBitPhaseFlip, 1, 1, 0, true, F},
    {"AMPLITUDE_DAMPING", "amplitude_damping", kAmplitudeDamping, 1, 1, 0, true, F},
    {"GENERALIZED_AMPLITUDE_DAMPING", "generalized_amplitude_damping", kGeneralizedAmplitudeDamping, 1, 2, 0, true, F},
    {"PHASE_DAMPING", "phase_damping", kPhaseDamping, 1, 1, 0, true, F},
    {"DEPOLARIZING", "depolarizing", kDepolarizing, 1, 1, 0, true, F},
    {"PAULI_CHANNEL", "pauli_channel", kPauliChannel, 1, 3, 0, true, F},
    {"RESET", "reset_channel", kReset, 1, 2, 0, true, F},
    {"THERMAL_RELAXATION", "thermal_relaxation", kThermalRelaxation, 1, 3, 0, true, F},
    {"GENERALIZED_DEPOLARIZING", "generalized_depolarizing", kGeneralizedDepolarizing, -1, 1, 0, true,
     Layout::kQubitList},
    {"MIXED_UNITARY", "mixed_unitary_channel", kMixedUnitary, -1, 0, 0, true, Layout::kMatrixTerms},
    {"KRAUS", "kraus_repr", kKraus, -1, 0, 0, true, Layout::kMatrixTerms},
    {"CHOI", "choi_repr", kChoi, -1, 0, 0, true, Layout::kMatrix},
};
constexpr size_t kTableSize = sizeof(kTable) / sizeof(kTable[0]);
static_assert(kTableSize == size_t(kNumOpcodes) + size_t(kEndChannelOpcodes - kBitFlip),
              "one table entry per gate and channel opcode");

// The table is in opcode order: gates at [0, kNumOpcodes), channels after them.
size_t index_of(int64_t op) {
  if (op >= 0 && op < kNumOpcodes) return static_cast<size_t>(op);
  if (is_channel_opcode(op)) return static_cast<size_t>(kNumOpcodes + (op - kBitFlip));
  return kTableSize;
}

}  // namespace

const char* layout_name(Layout layout) {
  switch (layout) {
    case Layout::kFixed: return "fixed";
    case Layout::kUnitary: return "unitary";
    case Layout::kQubitList: return "qubit_list";
    case Layout::kMatrixTerms: return "matrix_terms";
    case Layout::kMatrix: return "matrix";
  }
  return "?";
}

const std::vector<GateSpec>& gate_table() {
  static const std::vector<GateSpec> table = [] {
    std::vector<GateSpec> t(kTable, kTable + kTableSize);
    for (size_t i = 0; i < t.size(); ++i)
      SAMPAN_CHECK(index_of(t[i].opcode) == i, RuntimeError, "quantum: the gate table is out of opcode order at ",
                   t[i].name);
    return t;
  }();
  return table;
}

const GateSpec& gate_spec(int64_t op) {
  const size_t i = index_of(op);
  SAMPAN_CHECK(i < kTableSize, ValueError, "quantum: unknown gate opcode ", op, " (valid: 0 to ", kNumOpcodes - 1,
               " for gates, ", int64_t(kBitFlip), " to ", int64_t(kEndChannelOpcodes) - 1, " for channels)");
  return gate_table()[i];
}

const GateSpec* find_gate(std::string_view method) {
  for (const GateSpec& g : gate_table())
    if (method == g.method) return &g;
  return nullptr;
}

}  // namespace sampan::quantum
