// sampan: loading ahead-of-time op libraries with dlopen.
#include <dlfcn.h>
#include <sys/stat.h>

#include "sampan/error.h"
#include "sampan/op_library.h"

namespace sampan {

std::vector<std::string> load_op_library(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) throw IOError("op library '" + path + "' does not exist");
  begin_library_load(path);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  LibraryLoadResult res = end_library_load();
  if (!handle) {
    const char* err = dlerror();
    throw IOError("cannot load op library '" + path + "': " + (err ? err : "unknown dlopen error"));
  }
  if (!res.errors.empty()) {
    std::string msg = "op library '" + path + "' could not register its ops:";
    for (auto& e : res.errors) msg += "\n  " + e;
    throw RuntimeError(msg);
  }
  return res.ops;
}

}  // namespace sampan
