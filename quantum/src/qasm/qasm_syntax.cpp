// OpenQASM 2.0 tokens and parameter expressions (see qasm_syntax.h).
#include "qasm/qasm_syntax.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "sampan/error.h"

namespace sampan::quantum::qasm {

void fail(const Token& at, const std::string& message) {
  SAMPAN_THROW(ValueError, "from_qasm: line ", at.line, ", column ", at.col, ": ", message);
}

namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

std::string quoted(const std::string& s) { return "'" + s + "'"; }

}  // namespace

std::vector<Token> tokenize(const std::string& text) {
  std::vector<Token> out;
  size_t pos = 0, line_start = 0;
  int line = 1;
  const size_t n = text.size();
  while (pos < n) {
    const char c = text[pos];
    Token t;
    t.line = line;
    t.col = static_cast<int>(pos - line_start) + 1;
    if (c == '\n') {
      ++line;
      line_start = ++pos;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++pos;
      continue;
    }
    if (c == '/' && pos + 1 < n && text[pos + 1] == '/') {
      while (pos < n && text[pos] != '\n') ++pos;
      continue;
    }
    size_t end = pos;
    if (is_digit(c) || (c == '.' && pos + 1 < n && is_digit(text[pos + 1]))) {
      while (end < n && is_digit(text[end])) ++end;
      if (end < n && text[end] == '.') {
        ++end;
        while (end < n && is_digit(text[end])) ++end;
      }
      if (end < n && (text[end] == 'e' || text[end] == 'E')) {
        size_t e = end + 1;
        if (e < n && (text[e] == '+' || text[e] == '-')) ++e;
        if (e < n && is_digit(text[e])) {
          while (e < n && is_digit(text[e])) ++e;
          end = e;
        }
      }
      t.kind = Token::kNumber;
    } else if (is_ident_start(c)) {
      while (end < n && is_ident(text[end])) ++end;
      t.kind = Token::kIdentifier;
    } else if (c == '"') {
      end = pos + 1;
      while (end < n && text[end] != '"' && text[end] != '\n') ++end;
      if (end >= n || text[end] != '"') fail(t, "unexpected character '\"'");
      ++end;
      t.kind = Token::kString;
    } else if ((c == '-' && pos + 1 < n && text[pos + 1] == '>') || (c == '=' && pos + 1 < n && text[pos + 1] == '=')) {
      end = pos + 2;
      t.kind = Token::kSymbol;
    } else if (std::string(";,()[]{}+-*/^").find(c) != std::string::npos) {
      end = pos + 1;
      t.kind = Token::kSymbol;
    } else {
      fail(t, "unexpected character " + quoted(std::string(1, c)));
    }
    t.text = text.substr(pos, end - pos);
    out.push_back(std::move(t));
    pos = end;
  }
  Token end_token;
  end_token.line = line;
  end_token.col = static_cast<int>(n - line_start) + 1;
  out.push_back(end_token);
  return out;
}

double evaluate(const Expr& e, const std::vector<double>& env) {
  switch (e.kind) {
    case Expr::kConst: return e.value;
    case Expr::kParam: return env[static_cast<size_t>(e.param)];
    case Expr::kNeg: return -evaluate(*e.lhs, env);
    case Expr::kFunction: {
      const double v = evaluate(*e.lhs, env);
      double r = 0;
      if (e.op == "sin") r = std::sin(v);
      else if (e.op == "cos") r = std::cos(v);
      else if (e.op == "tan") r = std::tan(v);
      else if (e.op == "exp") r = std::exp(v);
      else if (e.op == "ln") r = v > 0 ? std::log(v) : NAN;
      else r = v >= 0 ? std::sqrt(v) : NAN;
      if (std::isnan(r)) fail(e.at, e.op + "(" + detail::concat(v) + ") is undefined");
      if (std::isinf(r)) fail(e.at, e.op + "(" + detail::concat(v) + ") overflows a double");
      return r;
    }
    case Expr::kBinary: {
      const double a = evaluate(*e.lhs, env), b = evaluate(*e.rhs, env);
      const char op = e.op[0];
      if (op == '+') return a + b;
      if (op == '-') return a - b;
      if (op == '*') return a * b;
      if (op == '/') {
        if (b == 0) fail(e.at, "division by zero");
        return a / b;
      }
      const double r = std::pow(a, b);
      if (std::isnan(r)) fail(e.at, detail::concat(a, "^", b, " is not a real number"));
      if (std::isinf(r)) fail(e.at, detail::concat(a, "^", b, " is not a finite real number"));
      return r;
    }
  }
  return 0;
}

bool Cursor::at(const char* text) const {
  const Token& t = peek();
  return (t.kind == Token::kSymbol || t.kind == Token::kIdentifier) && t.text == text;
}

const Token& Cursor::next(const std::string& what) {
  const Token& t = peek();
  if (t.kind == Token::kEnd) fail(t, "expected " + what + ", got the end of the text");
  ++i_;
  return toks_[i_ - 1];
}

const Token& Cursor::expect(const char* text) {
  const Token& t = next(quoted(text));
  if (t.text != text) fail(t, "expected " + quoted(text) + ", got " + quoted(t.text));
  return t;
}

const Token& Cursor::identifier(const std::string& what) {
  const Token& t = next(what);
  if (t.kind != Token::kIdentifier) fail(t, "expected " + what + ", got " + quoted(t.text));
  return t;
}

int64_t Cursor::integer(Token* where) {
  const Token& t = next("an integer");
  bool digits = t.kind == Token::kNumber && !t.text.empty();
  for (char c : t.text) digits = digits && is_digit(c);
  if (!digits || t.text.size() > 12) fail(t, "expected an integer, got " + quoted(t.text));
  if (where) *where = t;
  return std::stoll(t.text);
}

ExprPtr Cursor::expression(const std::vector<std::string>& params) {
  ExprPtr v = term(params);
  while (peek().kind == Token::kSymbol && (peek().text == "+" || peek().text == "-")) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::kBinary;
    e->at = next("an operator");
    e->op = e->at.text;
    e->lhs = v;
    e->rhs = term(params);
    v = e;
  }
  return v;
}

ExprPtr Cursor::term(const std::vector<std::string>& params) {
  ExprPtr v = factor(params);
  while (peek().kind == Token::kSymbol && (peek().text == "*" || peek().text == "/")) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::kBinary;
    e->at = next("an operator");
    e->op = e->at.text;
    e->lhs = v;
    e->rhs = factor(params);
    v = e;
  }
  return v;
}

ExprPtr Cursor::factor(const std::vector<std::string>& params) {
  if (peek().kind == Token::kSymbol && (peek().text == "-" || peek().text == "+")) {
    const bool minus = next("a sign").text == "-";
    ExprPtr inner = factor(params);
    if (!minus) return inner;
    auto e = std::make_shared<Expr>();
    e->kind = Expr::kNeg;
    e->lhs = inner;
    return e;
  }
  ExprPtr v = atom(params);
  if (at("^")) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::kBinary;
    e->at = next("'^'");
    e->op = "^";
    e->lhs = v;
    e->rhs = factor(params);
    v = e;
  }
  return v;
}

ExprPtr Cursor::atom(const std::vector<std::string>& params) {
  const Token& t = next("a number, 'pi', a parameter or '('");
  auto e = std::make_shared<Expr>();
  e->at = t;
  if (t.kind == Token::kNumber) {
    e->value = std::strtod(t.text.c_str(), nullptr);
    return e;
  }
  if (t.kind == Token::kIdentifier) {
    if (t.text == "pi") {
      e->value = M_PI;
      return e;
    }
    static const char* kFunctions[] = {"sin", "cos", "tan", "exp", "ln", "sqrt"};
    for (const char* f : kFunctions)
      if (t.text == f && at("(")) {
        expect("(");
        e->kind = Expr::kFunction;
        e->op = f;
        e->lhs = expression(params);
        expect(")");
        return e;
      }
    for (size_t k = 0; k < params.size(); ++k)
      if (params[k] == t.text) {
        e->kind = Expr::kParam;
        e->param = static_cast<int>(k);
        return e;
      }
    std::string names;
    for (const auto& p : params) names += (names.empty() ? "" : ", ") + p;
    fail(t, "unknown parameter " + quoted(t.text) + " in an expression" +
                (names.empty() ? "" : " (parameters of this gate: " + names + ")"));
  }
  if (t.text == "(") {
    ExprPtr v = expression(params);
    expect(")");
    return v;
  }
  fail(t, "expected a number, 'pi', a parameter or '(' in an expression, got " + quoted(t.text));
}

std::vector<ExprPtr> Cursor::expression_list(const std::vector<std::string>& params) {
  std::vector<ExprPtr> out;
  if (!at("(")) return out;
  expect("(");
  if (!at(")")) {
    while (true) {
      out.push_back(expression(params));
      if (!at(",")) break;
      expect(",");
    }
  }
  expect(")");
  return out;
}

}  // namespace sampan::quantum::qasm
