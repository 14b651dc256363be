// OpenQASM 2.0 tokens and parameter expressions (grammar of Cross, Bishop, Smolin, Gambetta,
// arXiv:1707.03429, appendix). Every error is a ValueError "from_qasm: line L, column C: ...".
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sampan::quantum::qasm {

struct Token {
  enum Kind { kNumber, kIdentifier, kString, kSymbol, kEnd } kind = kEnd;
  std::string text;
  int line = 0, col = 0;
};

[[noreturn]] void fail(const Token& at, const std::string& message);

/// Tokens with 1-based line and column; comments and white space dropped; a kEnd token last.
std::vector<Token> tokenize(const std::string& text);

/// A parameter expression: numbers, pi, parameters of the enclosing gate definition (by index),
/// + - * / ^, unary minus, sin cos tan exp ln sqrt. Numerical failures are reported at the
/// operator or function token.
struct Expr {
  enum Kind { kConst, kParam, kNeg, kBinary, kFunction } kind = kConst;
  double value = 0;                       // kConst
  int param = -1;                         // kParam
  std::string op;                         // kBinary: + - * / ^; kFunction: its name
  std::shared_ptr<const Expr> lhs, rhs;   // kNeg, kFunction: lhs
  Token at;
};
using ExprPtr = std::shared_ptr<const Expr>;

double evaluate(const Expr& e, const std::vector<double>& env);

/// A cursor over the tokens with the expression grammar.
class Cursor {
 public:
  explicit Cursor(std::vector<Token> tokens) : toks_(std::move(tokens)) {}
  const Token& peek(size_t k = 0) const { return toks_[std::min(i_ + k, toks_.size() - 1)]; }
  bool at_end() const { return peek().kind == Token::kEnd; }
  bool at(const char* text) const;
  const Token& next(const std::string& what);
  const Token& expect(const char* text);
  const Token& identifier(const std::string& what);
  int64_t integer(Token* where = nullptr);
  /// expression := term (('+'|'-') term)*; term := factor (('*'|'/') factor)*;
  /// factor := ('-'|'+') factor | atom ('^' factor)?   (-a^b = -(a^b), a^b^c = a^(b^c))
  ExprPtr expression(const std::vector<std::string>& params);
  /// '(' expr (',' expr)* ')', '()' or nothing.
  std::vector<ExprPtr> expression_list(const std::vector<std::string>& params);

 private:
  ExprPtr term(const std::vector<std::string>& params);
  ExprPtr factor(const std::vector<std::string>& params);
  ExprPtr atom(const std::vector<std::string>& params);
  std::vector<Token> toks_;
  size_t i_ = 0;
};

}  // namespace sampan::quantum::qasm
