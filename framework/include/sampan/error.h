// sampan: exception types. Each maps to the Python exception of the same name in the bindings.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace sampan {

/// Wrong shape or value (Python ValueError).
struct ValueError : std::invalid_argument { using std::invalid_argument::invalid_argument; };
/// Wrong dtype or argument kind (Python TypeError).
struct TypeError : std::invalid_argument { using std::invalid_argument::invalid_argument; };
/// Index out of range (Python IndexError).
struct IndexError : std::out_of_range { using std::out_of_range::out_of_range; };
/// A feature that does not exist for this input, e.g. no CUDA kernel (Python NotImplementedError).
struct NotImplementedError : std::logic_error { using std::logic_error::logic_error; };
/// Anything else that went wrong at run time, e.g. I/O (Python RuntimeError / OSError).
struct RuntimeError : std::runtime_error { using std::runtime_error::runtime_error; };
/// A file that is missing, truncated or not what was expected (Python OSError).
struct IOError : std::runtime_error { using std::runtime_error::runtime_error; };

namespace detail {
template <class... A> std::string concat(const A&... a) {
  std::ostringstream os;
  (os << ... << a);
  return os.str();
}
}  // namespace detail

}  // namespace sampan

// The one error idiom: a message streamed from its pieces (strings, numbers, shape_str(...)),
// thrown as one of the kinds above. Messages name the op or file, the argument or field, what
// was expected and what was found.

/// Throw `Kind` with the streamed message unless `cond` holds: SAMPAN_CHECK(n > 0, ValueError, "n=", n).
#define SAMPAN_CHECK(cond, Kind, ...) \
  do { if (!(cond)) throw ::sampan::Kind(::sampan::detail::concat(__VA_ARGS__)); } while (0)

/// Throw `Kind` with the streamed message: SAMPAN_THROW(TypeError, op, ": 'x' must be float64, got ", name).
#define SAMPAN_THROW(Kind, ...) throw ::sampan::Kind(::sampan::detail::concat(__VA_ARGS__))
