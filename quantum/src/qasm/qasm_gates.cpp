// qelib1.inc gates as circuit-builder calls (see qasm_gates.h).
#include "qasm/qasm_gates.h"

#include "sampan/quantum/qasm.h"

#include <cmath>
#include <map>

namespace sampan::quantum::qasm {

namespace {

using C = complex128;
const double kS2 = 1 / std::sqrt(2.0);
const std::vector<C> kX = {0, 1, 1, 0};
const std::vector<C> kH = {kS2, kS2, kS2, -kS2};
const std::vector<C> kSX = {C(0.5, 0.5), C(0.5, -0.5), C(0.5, -0.5), C(0.5, 0.5)};  // SX SX = X
const std::vector<C> kSXdg = {C(0.5, -0.5), C(0.5, 0.5), C(0.5, 0.5), C(0.5, -0.5)};

const std::map<std::string, BuiltinGate>& table() {
  static const std::map<std::string, BuiltinGate> t = {
      {"U", {3, 1, true}},     {"CX", {0, 2, true}},     {"u3", {3, 1, true}},    {"u2", {2, 1, true}},
      {"u1", {1, 1, true}},    {"cx", {0, 2, true}},     {"id", {0, 1, true}},    {"x", {0, 1, true}},
      {"y", {0, 1, true}},     {"z", {0, 1, true}},      {"h", {0, 1, true}},     {"s", {0, 1, true}},
      {"sdg", {0, 1, true}},   {"t", {0, 1, true}},      {"tdg", {0, 1, true}},   {"rx", {1, 1, true}},
      {"ry", {1, 1, true}},    {"rz", {1, 1, true}},     {"cz", {0, 2, true}},    {"cy", {0, 2, true}},
      {"ch", {0, 2, true}},    {"ccx", {0, 3, true}},    {"crz", {1, 2, true}},   {"cu1", {1, 2, true}},
      {"cu3", {3, 2, true}},   {"u", {3, 1, false}},     {"p", {1, 1, false}},    {"u0", {1, 1, false}},
      {"sx", {0, 1, false}},   {"sxdg", {0, 1, false}},  {"swap", {0, 2, false}}, {"cswap", {0, 3, false}},
      {"crx", {1, 2, false}},  {"cry", {1, 2, false}},   {"cp", {1, 2, false}},   {"csx", {0, 2, false}},
      {"cu", {4, 2, false}},   {"rxx", {1, 2, false}},   {"rzz", {1, 2, false}},  {"rccx", {0, 3, false}},
      {"rc3x", {0, 4, false}}, {"c3x", {0, 4, false}},   {"c3sqrtx", {0, 4, false}}, {"c4x", {0, 5, false}},
      {"ryy", {1, 2, false}},
  };
  return t;
}

// Relative-phase Toffolis: defined by these sequences of H, T, Tdg and CNOT (qelib1.inc).
void rccx(Circuit& c, int64_t a, int64_t b, int64_t t) {
  c.h(t).t(t).cnot(b, t).tdg(t).cnot(a, t).t(t).cnot(b, t).tdg(t).h(t);
}
void rc3x(Circuit& c, int64_t a, int64_t b, int64_t d, int64_t t) {
  c.h(t).t(t).cnot(d, t).tdg(t).h(t);
  c.cnot(a, t).t(t).cnot(b, t).tdg(t).cnot(a, t).t(t).cnot(b, t).tdg(t);
  c.h(t).t(t).cnot(d, t).tdg(t).h(t);
}

}  // namespace

std::vector<QasmGateInfo> builtin_gate_list() {
  std::vector<QasmGateInfo> out;
  for (const auto& [name, g] : table()) out.push_back({name, g.n_params, g.n_qubits, g.in_paper});
  return out;
}

const BuiltinGate* builtin_gate(const std::string& name) {
  auto it = table().find(name);
  return it == table().end() ? nullptr : &it->second;
}

void emit_builtin(Circuit& c, const std::string& n, const std::vector<double>& a, const std::vector<int64_t>& q) {
  if (n == "U" || n == "u3" || n == "u") c.u3(a[0], a[1], a[2], q[0]);
  else if (n == "u2") c.u3(M_PI / 2, a[0], a[1], q[0]);
  else if (n == "u1" || n == "p") c.p(a[0], q[0]);
  else if (n == "id" || n == "u0") return;  // identities
  else if (n == "CX" || n == "cx") c.cnot(q[0], q[1]);
  else if (n == "x") c.x(q[0]);
  else if (n == "y") c.y(q[0]);
  else if (n == "z") c.z(q[0]);
  else if (n == "h") c.h(q[0]);
  else if (n == "s") c.s(q[0]);
  else if (n == "sdg") c.sdg(q[0]);
  else if (n == "t") c.t(q[0]);
  else if (n == "tdg") c.tdg(q[0]);
  else if (n == "rx") c.rx(a[0], q[0]);
  else if (n == "ry") c.ry(a[0], q[0]);
  else if (n == "rz") c.rz(a[0], q[0]);
  else if (n == "sx") c.unitary(kSX, {q[0]});
  else if (n == "sxdg") c.unitary(kSXdg, {q[0]});
  else if (n == "cz") c.cz(q[0], q[1]);
  else if (n == "cy") c.cy(q[0], q[1]);
  else if (n == "swap") c.swap(q[0], q[1]);
  else if (n == "ch") c.unitary(kH, {q[1]}, {q[0]});
  else if (n == "ccx") c.ccx(q[0], q[1], q[2]);
  else if (n == "cswap") c.cswap(q[0], q[1], q[2]);
  else if (n == "crx") c.crx(a[0], q[0], q[1]);
  else if (n == "cry") c.cry(a[0], q[0], q[1]);
  else if (n == "crz") c.crz(a[0], q[0], q[1]);
  else if (n == "cu1" || n == "cp") c.cp(a[0], q[0], q[1]);
  else if (n == "cu3") c.cu(a[0], a[1], a[2], q[0], q[1]);
  else if (n == "csx") c.unitary(kSX, {q[1]}, {q[0]});
  else if (n == "cu") {  // |0><0| (x) I + |1><1| (x) e^{i gamma} U3: the phase gamma sits on the control
    c.cu(a[0], a[1], a[2], q[0], q[1]);
    if (a[3] != 0) c.p(a[3], q[0]);
  } else if (n == "rxx") c.rxx(a[0], q[0], q[1]);
  else if (n == "ryy") c.ryy(a[0], q[0], q[1]);
  else if (n == "rzz") c.rzz(a[0], q[0], q[1]);
  else if (n == "rccx") rccx(c, q[0], q[1], q[2]);
  else if (n == "rc3x") rc3x(c, q[0], q[1], q[2], q[3]);
  else if (n == "c3x") c.unitary(kX, {q[3]}, {q[0], q[1], q[2]});
  else if (n == "c3sqrtx") c.unitary(kSX, {q[3]}, {q[0], q[1], q[2]});
  else if (n == "c4x") c.unitary(kX, {q[4]}, {q[0], q[1], q[2], q[3]});
}

const std::vector<NamedMatrix>& named_matrices() {
  static const std::vector<NamedMatrix> m = {
      {"x", 0, kX},   {"h", 0, kH},    {"sx", 0, kSX},   {"sxdg", 0, kSXdg}, {"cx", 1, kX},         {"ch", 1, kH},
      {"csx", 1, kSX}, {"ccx", 2, kX}, {"c3x", 3, kX},   {"c3sqrtx", 3, kSX}, {"c4x", 4, kX},
  };
  return m;
}

std::vector<double> zyz_angles(const std::vector<complex128>& u) {
  const double theta = 2 * std::atan2(std::abs(u[2]), std::abs(u[0]));
  double phi, lam, gamma;
  if (std::abs(u[0]) > 1e-12) {
    gamma = std::arg(u[0]);
    if (std::abs(u[2]) > 1e-12) {
      phi = std::arg(u[2]) - gamma;
      lam = std::arg(-u[1]) - gamma;
    } else {  // diagonal: only phi + lam is defined
      phi = 0;
      lam = std::arg(u[3]) - gamma;
    }
  } else {  // anti-diagonal: only phi - lam is defined
    lam = 0;
    gamma = std::arg(-u[1]);
    phi = std::arg(u[2]) - gamma;
  }
  return {theta, phi, lam, gamma};
}

}  // namespace sampan::quantum::qasm

namespace sampan::quantum {
std::vector<QasmGateInfo> qasm_builtin_gates() { return qasm::builtin_gate_list(); }
}  // namespace sampan::quantum
