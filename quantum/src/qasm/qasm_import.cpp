// OpenQASM 2.0 import into the C++ circuit builder (qasm.h): statements, registers and
// broadcasting, gate definitions expanded by substitution, measurements and resets.
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "qasm/qasm_gates.h"
#include "qasm/qasm_syntax.h"
#include "sampan/error.h"
#include "sampan/quantum/qasm.h"

namespace sampan::quantum {

namespace {

using qasm::Cursor;
using qasm::ExprPtr;
using qasm::fail;
using qasm::Token;

constexpr int64_t kMaxQubits = 60;

std::string quoted(const std::string& s) { return "'" + s + "'"; }

struct Call {  // one gate call in a definition's body
  std::string name;
  std::vector<ExprPtr> exprs;
  std::vector<int> args;  // indices into the definition's qubit arguments
  Token at;
};

struct Definition {
  std::string name;
  std::vector<std::string> params, args;
  std::vector<Call> body;
};

struct Register {
  int64_t offset = 0, size = 0;
};

struct Argument {  // reg or reg[i]
  std::vector<int64_t> bits;
  bool whole = false;
};

// Receives built-in gates after expansion.
using Sink = std::function<void(const std::string&, const std::vector<double>&, const std::vector<int64_t>&)>;

class Importer : public Cursor {
 public:
  explicit Importer(const std::string& text) : Cursor(qasm::tokenize(text)) {}

  QasmProgram run() {
    if (!at("OPENQASM")) fail(peek(), "expected 'OPENQASM 2.0;' first");
    next("OPENQASM");
    const Token& ver = next("a version");
    if (ver.text != "2.0" && ver.text != "2") fail(ver, "only OpenQASM 2.0 is supported, got version " + quoted(ver.text));
    expect(";");
    while (!at_end()) statement();
    SAMPAN_CHECK(n_qubits_ != 0, ValueError, "from_qasm: no qreg declared");
    program_.circuit = Circuit(n_qubits_);
    for (auto& op : ops_) op(program_.circuit);  // replayed now that the number of qubits is known
    for (const auto& [bit, qubit] : terminal_) program_.measurements.emplace_back(qubit, bit);
    return std::move(program_);
  }

 private:
  // The circuit is only created once every qreg is known, so statements are queued as closures.
  std::vector<std::function<void(Circuit&)>> ops_;
  std::map<std::string, Register> qregs_, cregs_;
  std::map<std::string, Definition> definitions_;
  int64_t n_qubits_ = 0, n_clbits_ = 0;
  bool included_ = false;
  QasmProgram program_;
  std::map<int64_t, int64_t> terminal_;  // clbit -> qubit of pending (terminal) measurements
  std::set<int64_t> touched_;

  std::pair<int, int> arity(const std::string& name) const {
    auto d = definitions_.find(name);
    if (d != definitions_.end()) return {static_cast<int>(d->second.params.size()), static_cast<int>(d->second.args.size())};
    if (const auto* b = qasm::builtin_gate(name)) return {b->n_params, b->n_qubits};
    return {-1, -1};
  }

  void statement() {
    const Token tok = next("a statement");
    const std::string& w = tok.text;
    if (tok.kind != Token::kIdentifier) fail(tok, "expected a statement, got " + quoted(w));
    if (w == "include") {
      const Token s = next("a file name");
      if (s.kind != Token::kString) fail(s, "expected a quoted file name after include, got " + quoted(s.text));
      if (s.text != "\"qelib1.inc\"")
        fail(s, "cannot include " + s.text + ": only \"qelib1.inc\" is built in (paste other files' gate "
                "definitions into the program)");
      expect(";");
      included_ = true;
    } else if (w == "qreg" || w == "creg") {
      declare(w);
    } else if (w == "gate") {
      define();
    } else if (w == "opaque") {
      const Token name = identifier("a gate name");
      fail(tok, "opaque gate " + quoted(name.text) + " has no definition, so it cannot be simulated (give it a "
                "'gate' body instead)");
    } else if (w == "barrier") {
      arguments();  // checked, then ignored: a barrier does not change the state
      expect(";");
    } else if (w == "measure") {
      measure(tok);
    } else if (w == "reset") {
      const Argument a = argument(false);
      expect(";");
      for (int64_t q : a.bits) ops_.push_back([this, q](Circuit& c) { reset(c, q); });
    } else if (w == "if") {
      conditional();
    } else if (arity(w).first >= 0) {
      call(tok);
    } else {
      fail(tok, "unknown gate or statement " + quoted(w));
    }
  }

  void declare(const std::string& word) {
    const Token name = identifier("a register name");
    if (!(name.text[0] >= 'a' && name.text[0] <= 'z'))
      fail(name, "a register name starts with a lowercase letter, got " + quoted(name.text));
    expect("[");
    Token size_tok;
    const int64_t size = integer(&size_tok);
    expect("]");
    expect(";");
    if (qregs_.count(name.text) || cregs_.count(name.text)) fail(name, "register " + quoted(name.text) + " is declared twice");
    if (size < 1) fail(size_tok, word + " " + quoted(name.text) + " must have at least one bit");
    if (word == "qreg") {
      if (n_qubits_ + size > kMaxQubits)
        fail(name, "qreg " + quoted(name.text) + " brings the circuit to " + std::to_string(n_qubits_ + size) +
                       " qubits (at most 60)");
      qregs_[name.text] = {n_qubits_, size};
      n_qubits_ += size;
    } else {
      cregs_[name.text] = {n_clbits_, size};
      program_.cregs.emplace_back(name.text, size);
      n_clbits_ += size;
    }
  }

  Argument argument(bool classical) {
    auto& regs = classical ? cregs_ : qregs_;
    const std::string kind = classical ? "classical" : "quantum";
    const Token name = next("a " + kind + " register");
    auto it = regs.find(name.text);
    if (name.kind != Token::kIdentifier || it == regs.end()) {
      std::string declared;
      for (const auto& [n, r] : regs) declared += (declared.empty() ? "" : ", ") + quoted(n);
      fail(name, "unknown " + kind + " register " + quoted(name.text) + " (declared: [" + declared + "])");
    }
    Argument a;
    if (!at("[")) {
      a.whole = true;
      for (int64_t i = 0; i < it->second.size; ++i) a.bits.push_back(it->second.offset + i);
      return a;
    }
    expect("[");
    Token idx;
    const int64_t i = integer(&idx);
    expect("]");
    if (i >= it->second.size)
      fail(idx, std::string(classical ? "bit " : "qubit ") + name.text + "[" + std::to_string(i) + "] is out of range: " +
                    name.text + " has " + std::to_string(it->second.size));
    a.bits = {it->second.offset + i};
    return a;
  }

  std::vector<Argument> arguments() {
    std::vector<Argument> args = {argument(false)};
    while (at(",")) {
      expect(",");
      args.push_back(argument(false));
    }
    return args;
  }

  // measure q -> c;  (or a qubit into a bit). Returns the (qubit, bit) pairs, checked.
  std::vector<std::pair<int64_t, int64_t>> measure_arguments(const Token& tok) {
    const Argument q = argument(false);
    expect("->");
    const Argument c = argument(true);
    expect(";");
    if (q.whole != c.whole || q.bits.size() != c.bits.size())
      fail(tok, "measure: " + std::to_string(q.bits.size()) + " qubit(s) into " + std::to_string(c.bits.size()) +
                    " bit(s) (a register into a register of the same size, or a qubit into a bit)");
    std::vector<std::pair<int64_t, int64_t>> pairs;
    for (size_t k = 0; k < q.bits.size(); ++k) pairs.emplace_back(q.bits[k], c.bits[k]);
    return pairs;
  }

  void measure(const Token& tok) {
    for (const auto& [qb, cb] : measure_arguments(tok)) {
      ops_.push_back([this, qb = qb, cb = cb](Circuit& c) {
        // A pending measurement of another qubit into this bit still collapsed that qubit: make it
        // here (mid-circuit; its bit is overwritten by this one later), so later gates on it see it.
        auto t = terminal_.find(cb);
        if (t != terminal_.end() && t->second != qb) before_gate(c, {t->second});
        terminal_[cb] = qb;
        touched_.insert(qb);
      });
    }
  }

  // Pending measurements of these qubits become mid-circuit: the non-selective measurement channel.
  void before_gate(Circuit& c, const std::vector<int64_t>& qubits) {
    for (int64_t q : qubits) {
      std::vector<int64_t> bits;
      for (auto it = terminal_.begin(); it != terminal_.end();) {
        if (it->second == q) {
          bits.push_back(it->first);
          it = terminal_.erase(it);
        } else {
          ++it;
        }
      }
      if (bits.empty()) continue;
      program_.mid_measurements.push_back({c.size(), q, bits});
      c.kraus({{1, 0, 0, 0}, {0, 0, 0, 1}}, {q});
    }
  }

  void reset(Circuit& c, int64_t q) {
    if (!touched_.count(q)) return;  // nothing acted on it yet: already |0>
    before_gate(c, {q});
    c.reset(1.0, 0.0, q);
  }

  // if (creg == n) qop;  with qop a gate, measure or reset (OpenQASM 2.0, section 3.4). A statement
  // that broadcasts over registers gives one condition per instance, each read when that instance
  // runs, as Qiskit's reader makes one if_test per instance (`if (c==0) measure q -> c;` stops
  // measuring once a bit of c is 1).
  void conditional() {
    expect("(");
    const Token name = next("a classical register");
    auto it = cregs_.find(name.text);
    if (it == cregs_.end()) {
      if (qregs_.count(name.text)) fail(name, "a condition reads a classical register; " + quoted(name.text) + " is a qreg");
      fail(name, "unknown classical register " + quoted(name.text) + " in the condition");
    }
    expect("==");
    const int64_t value = integer();  // may exceed the register (never true), as Qiskit reads it
    expect(")");
    const Register reg = it->second;
    const Token op = identifier("a gate, measure or reset after the condition");
    if (op.text == "if") fail(op, "'if' cannot follow 'if': one condition per statement");
    if (op.text == "barrier" || op.text == "gate" || op.text == "opaque" || op.text == "qreg" || op.text == "creg" ||
        op.text == "include")
      fail(op, quoted(op.text) + " cannot be classically controlled (only a gate, measure or reset)");
    const QasmCondition condition{0, 0, reg.offset, reg.size, value};
    if (op.text == "measure") {
      for (const auto& [qb, cb] : measure_arguments(op))
        ops_.push_back([this, qb = qb, cb = cb, condition](Circuit& c) { conditional_measure(c, qb, cb, condition); });
    } else if (op.text == "reset") {
      const Argument a = argument(false);
      expect(";");
      for (int64_t q : a.bits)
        ops_.push_back([this, q, condition](Circuit& c) { conditional_reset(c, q, condition); });
    } else {
      if (arity(op.text).first < 0) fail(op, "unknown gate " + quoted(op.text));
      call(op, condition);
    }
  }

  // Measurements into the condition's register must happen before the condition reads it: they
  // become mid-circuit (their channel outside the conditional range).
  void read_register(Circuit& c, const QasmCondition& k) {
    for (int64_t b = k.clbit_offset; b < k.clbit_offset + k.n_bits; ++b) {
      auto t = terminal_.find(b);
      if (t != terminal_.end()) before_gate(c, {t->second});
    }
  }

  void add_condition(Circuit& c, QasmCondition k, int64_t begin) {
    if (c.size() == begin) return;
    k.gate_begin = begin;
    k.gate_end = c.size();
    program_.conditions.push_back(k);
  }

  // if (creg == n) measure q -> b;  A measurement that only some branches make cannot be sampled
  // at the end like a terminal one: it is a mid-circuit measurement inside the conditional range.
  // Pending measurements of q, and a pending one into b (which this one overwrites only where the
  // condition holds), are made first.
  void conditional_measure(Circuit& c, int64_t q, int64_t b, const QasmCondition& k) {
    read_register(c, k);
    auto t = terminal_.find(b);
    if (t != terminal_.end()) before_gate(c, {t->second});
    before_gate(c, {q});
    const int64_t begin = c.size();
    program_.mid_measurements.push_back({begin, q, {b}});
    c.kraus({{1, 0, 0, 0}, {0, 0, 0, 1}}, {q});
    touched_.insert(q);
    add_condition(c, k, begin);
  }

  // if (creg == n) reset q;  The reset channel inside the conditional range (nothing when q is
  // still |0>, as for an unconditional reset).
  void conditional_reset(Circuit& c, int64_t q, const QasmCondition& k) {
    read_register(c, k);
    if (!touched_.count(q)) return;
    before_gate(c, {q});
    const int64_t begin = c.size();
    c.reset(1.0, 0.0, q);
    add_condition(c, k, begin);
  }

  void call(const Token& tok, std::optional<QasmCondition> condition = std::nullopt) {
    const auto [n_params, n_qubits] = arity(tok.text);
    std::vector<double> angles;
    for (const ExprPtr& e : expression_list({})) angles.push_back(qasm::evaluate(*e, {}));
    const std::vector<Argument> args = arguments();
    expect(";");
    for (double a : angles)
      if (!std::isfinite(a)) fail(tok, "gate " + quoted(tok.text) + ": angle " + detail::concat(a) + " is not finite");
    if (static_cast<int>(angles.size()) != n_params)
      fail(tok, "gate " + quoted(tok.text) + " takes " + std::to_string(n_params) + " parameter(s), got " +
                    std::to_string(angles.size()));
    if (static_cast<int>(args.size()) != n_qubits)
      fail(tok, "gate " + quoted(tok.text) + " acts on " + std::to_string(n_qubits) + " qubit(s), got " +
                    std::to_string(args.size()));
    // Broadcasting: whole registers (all of one size) give one instance per bit.
    size_t count = 1;
    for (const Argument& a : args)
      if (a.whole) {
        if (count > 1 && a.bits.size() != count) fail(tok, "registers of different sizes in one statement");
        count = a.bits.size();
      }
    for (size_t k = 0; k < count; ++k) {
      std::vector<int64_t> qs;
      for (const Argument& a : args) qs.push_back(a.whole ? a.bits[k] : a.bits[0]);
      for (size_t i = 0; i < qs.size(); ++i)
        for (size_t j = 0; j < i; ++j)
          if (qs[i] == qs[j]) fail(tok, "gate " + quoted(tok.text) + " repeats a qubit");
      const std::string name = tok.text;
      ops_.push_back([this, name, angles, qs, tok, condition](Circuit& c) {
        if (condition) {  // measurement channels stay outside the conditional range
          read_register(c, *condition);
          before_gate(c, qs);
        }
        const int64_t begin = c.size();
        expand(name, angles, qs, tok, [this, &c](const std::string& n, const std::vector<double>& a,
                                                 const std::vector<int64_t>& q) {
          before_gate(c, q);
          qasm::emit_builtin(c, n, a, q);
          touched_.insert(q.begin(), q.end());
        });
        if (condition) add_condition(c, *condition, begin);
      });
    }
  }

  void expand(const std::string& name, const std::vector<double>& angles, const std::vector<int64_t>& qubits,
              const Token& tok, const Sink& sink, const Definition* definition = nullptr) {
    if (!definition) {
      auto it = definitions_.find(name);
      if (it == definitions_.end()) return sink(name, angles, qubits);
      definition = &it->second;
    }
    try {
      for (const Call& c : definition->body) {
        std::vector<double> values;
        for (const ExprPtr& e : c.exprs) {
          values.push_back(qasm::evaluate(*e, angles));
          if (!std::isfinite(values.back()))
            fail(c.at, "gate " + quoted(c.name) + ": angle " + detail::concat(values.back()) + " is not finite");
        }
        std::vector<int64_t> qs;
        for (int i : c.args) qs.push_back(qubits[static_cast<size_t>(i)]);
        expand(c.name, values, qs, c.at, sink);
      }
    } catch (const ValueError& e) {
      SAMPAN_THROW(ValueError, e.what(), " (in gate ", quoted(name), " used at line ", tok.line, ", column ", tok.col,
                   ")");
    }
  }

  std::vector<std::string> id_list(const std::string& what) {
    std::vector<std::string> names;
    while (true) {
      const Token t = identifier(what);
      for (const auto& n : names)
        if (n == t.text) fail(t, quoted(t.text) + " is listed twice");
      names.push_back(t.text);
      if (!at(",")) return names;
      expect(",");
    }
  }

  std::vector<int> body_args(const std::vector<std::string>& args) {
    std::vector<int> out;
    while (true) {
      const Token t = identifier("a qubit argument");
      int index = -1;
      for (size_t k = 0; k < args.size(); ++k)
        if (args[k] == t.text) index = static_cast<int>(k);
      if (index < 0) fail(t, quoted(t.text) + " is not a qubit argument of this gate; a gate body names its arguments, not register bits");
      out.push_back(index);
      if (!at(",")) return out;
      expect(",");
    }
  }

  void define() {
    const Token name = identifier("a gate name");
    const auto* builtin = qasm::builtin_gate(name.text);
    const bool language = name.text == "U" || name.text == "CX";
    if (language || (included_ && builtin && builtin->in_paper))
      fail(name, "gate " + quoted(name.text) + " is already defined by " + (language ? "the language" : "qelib1.inc"));
    if (definitions_.count(name.text)) fail(name, "gate " + quoted(name.text) + " is defined twice");
    Definition d;
    d.name = name.text;
    if (at("(")) {
      expect("(");
      if (!at(")")) d.params = id_list("a parameter name");
      expect(")");
    }
    d.args = id_list("a qubit argument name");
    expect("{");
    while (!at("}")) {
      const Token t = identifier("a gate call or '}'");
      if (t.text == "barrier") {
        body_args(d.args);
        expect(";");
        continue;
      }
      static const std::set<std::string> kForbidden = {"measure", "reset", "if", "gate", "opaque", "qreg", "creg"};
      if (kForbidden.count(t.text)) fail(t, quoted(t.text) + " cannot appear in a gate body (only gate calls and barrier)");
      if (t.text == name.text) fail(t, "gate " + quoted(name.text) + " calls itself (a gate can only use gates defined before it)");
      const auto [np, nq] = arity(t.text);
      if (np < 0) fail(t, "unknown gate " + quoted(t.text) + " in the body of " + quoted(name.text) + " (gates must be defined before use)");
      Call c{t.text, expression_list(d.params), {}, t};
      c.args = body_args(d.args);
      expect(";");
      if (static_cast<int>(c.exprs.size()) != np)
        fail(t, "gate " + quoted(t.text) + " takes " + std::to_string(np) + " parameter(s), got " + std::to_string(c.exprs.size()));
      if (static_cast<int>(c.args.size()) != nq)
        fail(t, "gate " + quoted(t.text) + " acts on " + std::to_string(nq) + " qubit(s), got " + std::to_string(c.args.size()));
      for (size_t i = 0; i < c.args.size(); ++i)
        for (size_t j = 0; j < i; ++j)
          if (c.args[i] == c.args[j]) fail(t, "gate " + quoted(t.text) + " repeats a qubit");
      d.body.push_back(std::move(c));
    }
    expect("}");
    if (builtin && builtin->n_params == static_cast<int>(d.params.size()) &&
        builtin->n_qubits == static_cast<int>(d.args.size()) && same_as_builtin(d, name))
      return;  // e.g. the `gate swap a,b {...}` of a portable export: the native gate is exact
    definitions_[d.name] = std::move(d);
  }

  // Whether a definition of a built-in name has the built-in matrix, global phase included, at two
  // random sets of parameters (equal analytic functions agree there; different ones almost surely not).
  bool same_as_builtin(const Definition& d, const Token& tok) {
    const int k = static_cast<int>(d.args.size());
    if (k > 6) return false;
    std::mt19937_64 rng(d.body.size());
    std::uniform_real_distribution<double> uniform(-3, 3);
    std::vector<int64_t> qubits(static_cast<size_t>(k));
    for (int i = 0; i < k; ++i) qubits[static_cast<size_t>(i)] = i;
    try {
      for (int trial = 0; trial < 2; ++trial) {
        std::vector<double> angles(d.params.size());
        for (double& a : angles) a = uniform(rng);
        for (int64_t j = 0; j < (int64_t(1) << k); ++j) {
          std::vector<complex128> mine, ref;
          for (int which = 0; which < 2; ++which) {
            Circuit c(k);
            for (int b = 0; b < k; ++b)
              if (j >> b & 1) c.x(b);
            const Sink sink = [&c](const std::string& n, const std::vector<double>& a, const std::vector<int64_t>& q) {
              qasm::emit_builtin(c, n, a, q);
            };
            if (which == 0) expand(d.name, angles, qubits, tok, sink, &d);
            else sink(d.name, angles, qubits);
            std::vector<complex128> psi(size_t(1) << k);
            const std::vector<double> no_params;
            simulate(no_params.data(), decode_circuit(c.encoding(), 0, c.constants(), k, "from_qasm"), c.constants(), k,
                     psi.data());
            (which == 0 ? mine : ref) = std::move(psi);
          }
          for (size_t i = 0; i < mine.size(); ++i)
            if (!(std::abs(mine[i] - ref[i]) <= 1e-10)) return false;
        }
      }
    } catch (const ValueError&) {
      return false;
    }
    return true;
  }
};

}  // namespace

QasmProgram parse_qasm(const std::string& text) { return Importer(text).run(); }

}  // namespace sampan::quantum
