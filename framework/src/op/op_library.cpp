// sampan: loading ahead-of-time op libraries with dlopen.
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <map>
#include <mutex>

#include "sampan/error.h"
#include "sampan/op_library.h"

namespace sampan {

namespace {
// Libraries loaded so far, by canonical path: loading one again returns the ops it registered
// the first time (dlopen does not run its static initializers twice).
std::mutex g_mu;
std::map<std::string, std::vector<std::string>>& loaded() {
  static auto* m = new std::map<std::string, std::vector<std::string>>();
  return *m;
}
}  // namespace

std::vector<std::string> load_op_library(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) SAMPAN_THROW(IOError, "op library '", path, "' does not exist");
  char resolved[PATH_MAX];
  std::string canonical = realpath(path.c_str(), resolved) ? std::string(resolved) : path;
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = loaded().find(canonical);
  if (it != loaded().end()) return it->second;
  begin_library_load(path);
  void* handle = dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  LibraryLoadResult res = end_library_load();
  if (!handle) {
    const char* err = dlerror();
    SAMPAN_THROW(IOError, "cannot load op library '", path, "': ", (err ? err : "unknown dlopen error"));
  }
  if (!res.errors.empty()) {
    // Its ops were taken out of the registry; unloading it lets a fixed rebuild load cleanly.
    dlclose(handle);
    std::string msg = "op library '" + path + "' could not register its ops:";
    for (auto& e : res.errors) msg += "\n  " + e;
    throw RuntimeError(msg);
  }
  loaded()[canonical] = res.ops;
  return res.ops;
}

}  // namespace sampan
