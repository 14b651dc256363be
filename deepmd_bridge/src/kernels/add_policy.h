// How the se_e2_a kernels add into a scattered output, on the CPU.
//
// Each kernel's per-slot body (one centre atom i, one neighbour slot j) is ONE inline function
// marked SAMPAN_HOST_DEVICE (sampan/host_device.h), in env_mat_slot.h and prod_force_virial_slot.h.
// The CPU loop (the .cpp files, OpenMP) and the CUDA grid-stride loop (the .cu files) both call it,
// so the CPU tests exercise exactly the arithmetic a GPU runs; only the launch glue is CUDA-only.
//
// Where a slot adds into an output that other slots also touch (forces on atoms, the virial, the
// davg/dstd gradients), the slot function takes an `add` policy: PlainAdd on the CPU, which calls
// it serially in slot order (a fixed summation order: bit-identical results for any thread
// count), and AtomicAdd (atomic_add.cuh) on the GPU (the order of the additions, hence the last
// bits, may vary from run to run there).
#pragma once

#include <math.h>  // sqrt: the same name for float and double on the host and in CUDA device code

#include <cstdint>

#include "sampan/host_device.h"

namespace sampan::deepmd::kernels {

/// `*target += value` (serial callers only).
struct PlainAdd {
  template <class T> SAMPAN_HOST_DEVICE void operator()(T* target, T value) const { *target += value; }
};

}  // namespace sampan::deepmd::kernels
