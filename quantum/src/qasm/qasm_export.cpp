// OpenQASM 2.0 export of an encoded circuit (qasm.h): the C++ builder's and Python's Circuit.to_qasm.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "qasm/qasm_gates.h"
#include "sampan/error.h"
#include "sampan/quantum/channels.h"
#include "sampan/quantum/qasm.h"

namespace sampan::quantum {

namespace {

/// A double as an OpenQASM real: the shortest of 15 to 17 significant digits that reads back
/// exactly, with a '.' before any exponent (the grammar's real needs one).
std::string number(double v) {
  char buf[40];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s(buf);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  else if (s.find('.') == std::string::npos) s.insert(s.find('e'), ".0");
  return s;
}

/// Lines applying e^{i lam} where every qubit is 1, exactly: x_1...x_m = 2^{1-m} sum over nonempty
/// subsets S of (-1)^{|S|+1} parity_S(x); each parity is computed into S's last qubit by CNOTs,
/// phased by u1 and uncomputed.
std::string mcphase(const std::vector<std::string>& q, double lam) {
  const size_t m = q.size();
  std::string out;
  for (size_t mask = 1; mask < (size_t(1) << m); ++mask) {
    std::vector<std::string> s;
    for (size_t i = 0; i < m; ++i)
      if (mask >> i & 1) s.push_back(q[i]);
    const double angle = (s.size() % 2 ? 1 : -1) * lam / double(size_t(1) << (m - 1));
    const std::string& t = s.back();
    for (size_t i = 0; i + 1 < s.size(); ++i) out += " cx " + s[i] + "," + t + ";";
    out += " u1(" + number(angle) + ") " + t + ";";
    for (size_t i = s.size() - 1; i-- > 0;) out += " cx " + s[i] + "," + t + ";";
  }
  return out;
}

std::string controlled_x_like(const std::string& name, size_t n, double lam) {
  std::vector<std::string> q;
  std::string args;
  for (size_t i = 0; i < n; ++i) {
    q.push_back("a" + std::to_string(i));
    args += (i ? "," : "") + q.back();
  }
  return "gate " + name + " " + args + " { h " + q.back() + ";" + mcphase(q, lam) + " h " + q.back() + "; }";
}

// Definitions in the paper's qelib1.inc gates of the gates Qiskit's default reader lacks; exact
// with Qiskit's matrices, global phase included (rz(t) u1(-t) is the phase e^{-i t/2}).
const std::vector<std::pair<std::string, std::string>>& definitions() {
  static const std::vector<std::pair<std::string, std::string>> d = {
      {"swap", "gate swap a,b { cx a,b; cx b,a; cx a,b; }"},
      {"cswap", "gate cswap a,b,c { cx c,b; ccx a,b,c; cx c,b; }"},
      {"crx", "gate crx(theta) a,b { h b; crz(theta) a,b; h b; }"},
      {"cry", "gate cry(theta) a,b { sdg b; h b; crz(theta) a,b; h b; s b; }"},
      {"rzz", "gate rzz(theta) a,b { cx a,b; rz(theta) b; cx a,b; }"},
      {"rxx", "gate rxx(theta) a,b { h a; h b; cx a,b; rz(theta) b; cx a,b; h a; h b; }"},
      {"ryy", "gate ryy(theta) a,b { rx(pi/2) a; rx(pi/2) b; cx a,b; rz(theta) b; cx a,b; rx(-pi/2) a; rx(-pi/2) b; }"},
      {"sx", "gate sx a { sdg a; h a; sdg a; rz(-pi/2) a; u1(pi/2) a; }"},
      {"sxdg", "gate sxdg a { s a; h a; s a; rz(pi/2) a; u1(-pi/2) a; }"},
      {"csx", "gate csx a,b { h b; cu1(pi/2) a,b; h b; }"},
      {"cu", "gate cu(theta,phi,lam,gamma) c,t { u1(gamma) c; cu3(theta,phi,lam) c,t; }"},
      {"c3x", controlled_x_like("c3x", 4, M_PI)},
      {"c3sqrtx", controlled_x_like("c3sqrtx", 4, M_PI / 2)},
      {"c4x", controlled_x_like("c4x", 5, M_PI)},
  };
  return d;
}

const char* qasm_name(int64_t op) {
  switch (op) {
    case kH: return "h";      case kX: return "x";      case kY: return "y";      case kZ: return "z";
    case kS: return "s";      case kSdg: return "sdg";  case kT: return "t";      case kTdg: return "tdg";
    case kP: return "u1";     case kRX: return "rx";    case kRY: return "ry";    case kRZ: return "rz";
    case kU3: return "u3";    case kCNOT: return "cx";  case kCY: return "cy";    case kCZ: return "cz";
    case kSWAP: return "swap"; case kCP: return "cu1";  case kCRX: return "crx";  case kCRY: return "cry";
    case kCRZ: return "crz";  case kRXX: return "rxx";  case kRYY: return "ryy";  case kRZZ: return "rzz";
    case kCCX: return "ccx";  case kCU: return "cu3";   case kCSWAP: return "cswap";
    default: return nullptr;
  }
}

}  // namespace

std::string to_qasm(const Circuit& circuit, const std::vector<double>& params) {
  QasmProgram p;
  p.circuit = circuit;
  return to_qasm(p, params);
}

std::string to_qasm(const QasmProgram& program, const std::vector<double>& params) {
  const Circuit& c = program.circuit;
  return to_qasm(c.n_qubits(), c.encoding(), c.constants(), params, program.cregs, program.measurements,
                 program.mid_measurements, program.conditions);
}

std::string to_qasm(int64_t n_qubits, const std::vector<int64_t>& encoding, const std::vector<double>& constants,
                    const std::vector<double>& params, const std::vector<std::pair<std::string, int64_t>>& cregs,
                    const std::vector<std::pair<int64_t, int64_t>>& measurements,
                    const std::vector<QasmMidMeasurement>& mid_measurements,
                    const std::vector<QasmCondition>& conditions) {
  const auto gates = decode_circuit(encoding, -1, constants, n_qubits, "to_qasm", true);
  std::string qname = "q";
  for (bool clash = true; clash;) {
    clash = false;
    for (const auto& [name, size] : cregs) clash = clash || name == qname;
    if (clash) qname += "_";
  }
  std::vector<std::string> bit_names;
  for (const auto& [name, size] : cregs)
    for (int64_t i = 0; i < size; ++i) bit_names.push_back(name + "[" + std::to_string(i) + "]");
  auto bit = [&](int64_t b) -> const std::string& {
    SAMPAN_CHECK(b >= 0 && b < static_cast<int64_t>(bit_names.size()), IndexError, "to_qasm: classical bit ", b,
                 " is out of range for the registers (", bit_names.size(), " bits)");
    return bit_names[static_cast<size_t>(b)];
  };
  // "if(c==n) " in front of every gate of a conditional range (a QASM condition reads a whole creg).
  std::map<int64_t, std::string> prefix;
  for (const auto& k : conditions) {
    std::string reg;
    int64_t offset = 0;
    for (const auto& [name, size] : cregs) {
      if (offset == k.clbit_offset && size == k.n_bits) reg = name;
      offset += size;
    }
    SAMPAN_CHECK(!reg.empty(), ValueError, "to_qasm: a condition on classical bits [", k.clbit_offset, ", ",
                 k.clbit_offset + k.n_bits, ") is not one whole classical register");
    for (int64_t g = k.gate_begin; g < k.gate_end; ++g) prefix[g] = "if(" + reg + "==" + std::to_string(k.value) + ") ";
  }
  const std::string no_prefix;
  std::map<int64_t, const QasmMidMeasurement*> mid;
  for (const auto& m : mid_measurements) mid[m.gate] = &m;
  std::ostringstream body;
  std::set<std::string> used;
  for (size_t k = 0; k < gates.size(); ++k) {
    const Gate& g = gates[k];
    std::vector<std::string> q;
    for (int i : g.qubits) q.push_back(qname + "[" + std::to_string(i) + "]");
    std::string qs;
    for (const auto& s : q) qs += (qs.empty() ? "" : ",") + s;
    auto value = [&](size_t j) {
      const int64_t s = g.slots[j];
      if (s < 0) return constants[static_cast<size_t>(-s - 1)];
      SAMPAN_CHECK(s < static_cast<int64_t>(params.size()), ValueError, "to_qasm: gate ", k, " reads params[", s,
                   "] but ", params.size(), " parameter value(s) were given");
      return params[static_cast<size_t>(s)];
    };
    const std::string& if_prefix = prefix.count(static_cast<int64_t>(k)) ? prefix[static_cast<int64_t>(k)] : no_prefix;
    if (mid.count(static_cast<int64_t>(k))) {  // a conditional one writes each of its bits under the condition
      for (int64_t b : mid[static_cast<int64_t>(k)]->clbits)
        body << if_prefix << "measure " << qname << "[" << mid[static_cast<int64_t>(k)]->qubit << "] -> " << bit(b)
             << ";\n";
      continue;
    }
    body << if_prefix;
    if (const char* name = qasm_name(g.op)) {
      body << name;
      if (!g.slots.empty()) {
        body << "(";
        for (size_t j = 0; j < g.slots.size(); ++j) body << (j ? "," : "") << number(value(j));
        body << ")";
      }
      body << " " << qs << ";\n";
      used.insert(name);
      continue;
    }
    if (g.op == kMS) {  // exp(+i pi/4 XX) = RXX(-pi/2)
      body << "rxx(" << number(-M_PI / 2) << ") " << qs << ";\n";
      used.insert("rxx");
      continue;
    }
    if (g.op == kReset && value(0) == 1.0 && value(1) == 0.0) {
      body << "reset " << q[0] << ";\n";
      continue;
    }
    bool written = false;
    if (g.op == kUnitary && g.qubits.size() == static_cast<size_t>(g.n_controls) + 1) {
      std::vector<complex128> m(4);
      for (size_t i = 0; i < 4; ++i)
        m[i] = complex128(constants[static_cast<size_t>(g.matrix_offset) + 2 * i],
                          constants[static_cast<size_t>(g.matrix_offset) + 2 * i + 1]);
      for (const auto& named : qasm::named_matrices()) {
        double dev = 0;
        for (size_t i = 0; i < 4; ++i) dev = std::max(dev, std::abs(m[i] - named.matrix[i]));
        if (named.n_controls == g.n_controls && dev <= 1e-14) {
          body << named.name << " " << qs << ";\n";
          used.insert(named.name);
          written = true;
          break;
        }
      }
      if (!written && g.n_controls <= 1) {
        const auto a = qasm::zyz_angles(m);
        if (g.n_controls == 0) {  // the global phase of an uncontrolled gate is unobservable
          body << "u3(" << number(a[0]) << "," << number(a[1]) << "," << number(a[2]) << ") " << qs << ";\n";
        } else {
          body << "cu(" << number(a[0]) << "," << number(a[1]) << "," << number(a[2]) << "," << number(a[3]) << ") "
               << qs << ";\n";
          used.insert("cu");
        }
        written = true;
      }
    }
    SAMPAN_CHECK(written, ValueError, "to_qasm: gate ", k, " (", is_channel_opcode(g.op) ? channel_info(g.op).name : gate_info(g.op).name,
                 ") has no OpenQASM 2.0 equivalent in qelib1.inc (only 1-qubit matrices, with at most one control, "
                 "the fixed qelib1.inc gates, reset and mid-circuit measurement are exported)");
  }
  for (const auto& [qubit, b] : measurements) body << "measure " << qname << "[" << qubit << "] -> " << bit(b) << ";\n";
  std::ostringstream out;
  out << "OPENQASM 2.0;\ninclude \"qelib1.inc\";\n";
  for (const auto& [name, text] : definitions())
    if (used.count(name)) out << text << "\n";
  out << "qreg " << qname << "[" << n_qubits << "];\n";
  for (const auto& [name, size] : cregs) out << "creg " << name << "[" << size << "];\n";
  return out.str() + body.str();
}

}  // namespace sampan::quantum
