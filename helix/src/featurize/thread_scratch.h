// Per-thread scratch objects of the featurizer, reached through one opaque call each.
//
// A `thread_local` in a shared library (general-dynamic TLS model) costs a call to __tls_get_addr
// for its address, and GCC re-derives that address at many uses: it even clones a function that
// takes the object by reference (constant propagation) and then re-derives it inside. Measured
// with callgrind, ~2.4 million such calls per 3,000 HIV molecules in the ring finder alone. So
// each scratch object is returned by a function that the optimizer may neither inline nor
// analyse (noipa): its callers get a plain reference, taken once per molecule.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#define SAMPAN_HELIX_OPAQUE __attribute__((noipa))
#else
#define SAMPAN_HELIX_OPAQUE __attribute__((noinline))
#endif

namespace sampan::helix {

/// This thread's instance of T (default-constructed on first use, reused afterwards).
template <class T>
SAMPAN_HELIX_OPAQUE T& thread_scratch() {
  thread_local T instance;
  return instance;
}

}  // namespace sampan::helix
