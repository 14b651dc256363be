// Defaults of the Potential interface.
#include "sampan/deepmd/potential.h"

#include "sampan/error.h"

namespace sampan::deepmd {

void Potential::compute_local(const double*, const int*, int64_t, int64_t, double*, double*) {
  SAMPAN_THROW(NotImplementedError, "potential '", describe(),
               "' does not provide compute_local (owned + ghost atoms, as LAMMPS's domain decomposition "
               "needs): it needs an atomic energy decomposition");
}

}  // namespace sampan::deepmd
