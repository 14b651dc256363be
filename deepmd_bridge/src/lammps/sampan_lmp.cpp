// sampan-lmp: LAMMPS with sampan's pair styles registered. Run as LAMMPS is run:
//
//   sampan-lmp in.file                 (same as: sampan-lmp -in in.file)
//   mpirun -n 4 sampan-lmp -in in.file -log log.lammps -var T 300
//
// Every LAMMPS command-line switch is passed through; `pair_style sampan/deepmd ...` becomes
// available to the input script.
#include "lammps/fmt_compat.h"  // first: before any LAMMPS header

#include <mpi.h>

#include <string>
#include <vector>

#include "input.h"
#include "lammps.h"
#include "lammps/pair_sampan.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  // A first argument that is not a switch is the input file.
  std::vector<std::string> args(argv, argv + argc);
  if (args.size() > 1 && !args[1].empty() && args[1][0] != '-') args.insert(args.begin() + 1, "-in");
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(&a[0]);
  int n = static_cast<int>(cargs.size());
  auto* lmp = new LAMMPS_NS::LAMMPS(n, cargs.data(), MPI_COMM_WORLD);
  sampan::deepmd::lammps::register_pair_styles(lmp);
  lmp->input->file();
  delete lmp;
  MPI_Finalize();
  return 0;
}
