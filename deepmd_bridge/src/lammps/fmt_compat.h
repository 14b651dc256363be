// LAMMPS 29 Sep 2021's headers (Debian's liblammps-dev) were written against the fmt library
// LAMMPS bundles (fmt 7), whose fmt::make_args_checked newer fmt releases dropped. Its templates
// are parsed, never instantiated, here (this code calls no fmt-formatting LAMMPS function), so a
// declaration with the old name suffices. Include before any LAMMPS header.
#pragma once

#include <fmt/format.h>

#if FMT_VERSION >= 80000
namespace fmt {
template <typename... Args, typename S>
inline auto make_args_checked(const S&, const std::remove_reference_t<Args>&... args) {
  return make_format_args(args...);
}
}  // namespace fmt
#endif
