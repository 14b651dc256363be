// The message an error carries, for tests that assert what a refusal says (file, field,
// expected vs got) rather than only that something was thrown.
#pragma once

#include <exception>
#include <functional>
#include <string>

namespace sampan::test {

/// Runs `f` and returns what() of the exception it throws, or "(nothing thrown)" so that an
/// assertion on the text fails with a readable diff when no error came.
inline std::string thrown_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

}  // namespace sampan::test
