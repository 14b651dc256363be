// sampan helix benchmark: where the 'ogb' featurization time goes, step by step, in thread CPU time
// per molecule (one thread; CPU time so that a loaded machine disturbs it less than wall time).
//
//   build/bench/helix_featurize_steps_bench [FILE.csv[.gz]|FILE.smi] [N=3000] [REPEATS=3]
//
// Default FILE: $SAMPAN_SHARED_DATA/moleculenet/hiv.csv.gz (or ../shared/data/...). Prints:
//  1. RDKit's SmilesToMol work done step by step as Chem.MolFromSmiles does it (parse, removeHs,
//     each sanitization step, legacy stereo perception, freeing the molecule): what OGB pays
//     before its Python feature loop;
//  2. the steps of sampan's fast path (helix/src/featurize/ogb_fast.cpp), and how many molecules
//     it took (the others go through the full path: parse_smiles, i.e. the steps of 1 without
//     the stereo perception where there are no stereo marks);
//  3. molecules per second of the full path alone and of featurize_smiles (fast path first);
//  4. the molecules by why they left sampan's reader or the fast path, with their CPU time
//     (SAMPAN_STEPS_EXAMPLES=k also prints k SMILES of each reason).
// Best of REPEATS per step.
#include <GraphMol/GraphMol.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <RDGeneral/RDLog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "featurize/molecule_graph.h"
#include "sampan/helix/featurize.h"
#include "sampan/helix/readers.h"

using namespace sampan::helix;

namespace {

double cpu_now() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

std::string default_file() {
  const char* shared = std::getenv("SAMPAN_SHARED_DATA");
  return std::string(shared ? shared : "../shared/data") + "/moleculenet/hiv.csv.gz";
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

void print_rows(const char* title, const std::vector<const char*>& names, const std::vector<double>& secs, size_t n) {
  double total = 0;
  for (double s : secs) total += s;
  std::printf("%s\n", title);
  for (size_t k = 0; k < names.size(); ++k) {
    std::printf("  %-44s %8.2f us/mol  %5.1f%%\n", names[k], 1e6 * secs[k] / n, 100 * secs[k] / total);
  }
  std::printf("  %-44s %8.2f us/mol  (%.0f mol/s)\n", "total", 1e6 * total / n, n / total);
}

/// Chem.MolFromSmiles, step by step (RDKit's SmilesToMol with default parameters).
void rdkit_steps(const std::vector<std::string>& smiles, int repeats) {
  const std::vector<const char*> names = {
      "parse (SmilesToMol, no sanitization)", "removeHs", "clearComputedProps", "cleanUp",
      "updatePropertyCache (strict)", "symmetrizeSSSR", "Kekulize", "assignRadicals", "setAromaticity",
      "setConjugation", "setHybridization", "cleanupChirality", "adjustHs",
      "updatePropertyCache (strict) 2", "assignStereochemistry (legacy, CIP ranks)", "free the molecule"};
  std::vector<double> best(names.size(), 1e300);
  for (int r = 0; r < repeats; ++r) {
    std::vector<double> t(names.size(), 0);
    for (const std::string& s : smiles) {
      double a = cpu_now();
      auto lap = [&](size_t k) {
        const double b = cpu_now();
        t[k] += b - a;
        a = b;
      };
      RDKit::SmilesParserParams raw;
      raw.sanitize = false;
      raw.removeHs = false;
      std::unique_ptr<RDKit::RWMol> m;
      try {
        m.reset(RDKit::SmilesToMol(s, raw));
      } catch (const std::exception&) {
      }
      lap(0);
      if (!m) continue;
      try {
        RDKit::MolOps::removeHs(*m, false, true, false);
        lap(1);
        m->clearComputedProps();
        lap(2);
        RDKit::MolOps::cleanUp(*m);
        lap(3);
        m->updatePropertyCache(true);
        lap(4);
        RDKit::VECT_INT_VECT rings;
        RDKit::MolOps::symmetrizeSSSR(*m, rings);
        lap(5);
        RDKit::MolOps::Kekulize(*m);
        lap(6);
        RDKit::MolOps::assignRadicals(*m);
        lap(7);
        RDKit::MolOps::setAromaticity(*m);
        lap(8);
        RDKit::MolOps::setConjugation(*m);
        lap(9);
        RDKit::MolOps::setHybridization(*m);
        lap(10);
        RDKit::MolOps::cleanupChirality(*m);
        lap(11);
        RDKit::MolOps::adjustHs(*m);
        lap(12);
        m->updatePropertyCache(true);
        lap(13);
        RDKit::MolOps::assignStereochemistry(*m, true, true, true);
        lap(14);
      } catch (const std::exception&) {
      }
      a = cpu_now();
      m.reset();
      lap(15);
    }
    for (size_t k = 0; k < names.size(); ++k) best[k] = std::min(best[k], t[k]);
  }
  print_rows("RDKit SmilesToMol step by step (what Chem.MolFromSmiles runs):", names, best, smiles.size());
}

/// Molecules by why they left sampan's reader (for RDKit's parse) and why they left the fast
/// path (for the full path): count, their CPU time per molecule (the whole molecule, best of the
/// repeats) and their share of the set's time; what each costs beyond a molecule read by sampan's
/// reader is (us/mol - the reader's us/mol) * count. SAMPAN_STEPS_EXAMPLES=k prints k SMILES of each.
void print_declines(const std::vector<std::string>& smiles, const std::vector<double>& seconds,
                    const std::vector<const char*>& reader_decline, const std::vector<const char*>& decline) {
  struct Row {
    int64_t count = 0;
    double seconds = 0;
    std::vector<size_t> examples;
  };
  const char* env = std::getenv("SAMPAN_STEPS_EXAMPLES");
  const size_t examples = env ? std::strtoul(env, nullptr, 10) : 0;
  std::map<std::string, Row> rows;
  Row reader_taken;
  double total = 0;
  for (size_t i = 0; i < smiles.size(); ++i) {
    total += seconds[i];
    std::string key;
    if (decline[i]) {
      key = std::string("full path:    ") + decline[i];
      if (reader_decline[i]) key += std::string("  [reader: ") + reader_decline[i] + "]";
    } else if (reader_decline[i]) {
      key = std::string("RDKit parse:  ") + reader_decline[i];
    } else {
      ++reader_taken.count;
      reader_taken.seconds += seconds[i];
      continue;
    }
    Row& row = rows[key];
    ++row.count;
    row.seconds += seconds[i];
    if (row.examples.size() < examples) row.examples.push_back(i);
  }
  const double reader_us = reader_taken.count ? 1e6 * reader_taken.seconds / reader_taken.count : 0;
  std::printf("molecules by where they went and why (CPU time of the whole molecule, best of the repeats):\n");
  std::printf("  %6lld  %7.1f us/mol  %5.1f%% of the time  taken through sampan's reader\n",
              static_cast<long long>(reader_taken.count), reader_us, 100 * reader_taken.seconds / total);
  std::vector<std::pair<std::string, Row>> sorted(rows.begin(), rows.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) {
    return x.second.seconds > y.second.seconds;
  });
  for (const auto& [key, row] : sorted) {
    const double us = 1e6 * row.seconds / row.count;
    std::printf("  %6lld  %7.1f us/mol  %5.1f%% of the time  (%.1f%% beyond the reader's cost)  %s\n",
                static_cast<long long>(row.count), us, 100 * row.seconds / total,
                100 * (row.seconds - row.count * reader_us * 1e-6) / total, key.c_str());
    for (size_t i : row.examples) std::printf("            %s\n", smiles[i].c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : default_file();
  const size_t limit = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 3000;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 3;
  if (!std::ifstream(path)) {
    std::printf("helix_featurize_steps_bench: input not found: %s (set SAMPAN_SHARED_DATA or pass a file); skipped\n",
                path.c_str());
    return 0;
  }
  std::vector<std::string> smiles =
      ends_with(path, ".smi") || ends_with(path, ".txt") ? read_smiles_lines(path).smiles : read_smiles_csv(path).smiles;
  if (limit && smiles.size() > limit) smiles.resize(limit);
  const size_t n = smiles.size();
  std::printf("helix_featurize_steps_bench: %zu molecules from %s, one thread, CPU time, best of %d\n", n,
              path.c_str(), repeats);
  RDLog::LogStateSetter quiet;

  rdkit_steps(smiles, repeats);

  // The fast path, step by step; molecules it does not take are timed through the full path.
  std::vector<double> best(FastPathTimes::num_steps + 1, 1e300);
  int64_t taken = 0, read = 0, stereo = 0, stereo_arrays = 0;
  // Per molecule: its whole CPU time (fast path attempt plus the full path where declined), best
  // of the repeats, and why it left sampan's reader and the fast path (FastPathTimes).
  std::vector<double> molecule_seconds(n, 1e300);
  std::vector<const char*> reader_decline(n, nullptr), decline(n, nullptr);
  for (int r = 0; r < repeats; ++r) {
    FastPathTimes times;
    double full = 0;
    MoleculeGraph graph;
    for (size_t i = 0; i < n; ++i) {
      const std::string& s = smiles[i];
      const double start = cpu_now();
      const bool fast = ogb_graph_fast(s, graph, &times);
      reader_decline[i] = times.reader_decline;
      decline[i] = times.decline;
      if (!fast) {
        const double a = cpu_now();
        std::string reason;
        std::unique_ptr<RDKit::ROMol> mol = parse_smiles(s, reason);
        if (mol) molecule_graph(*mol, FeaturizerKind::ogb, graph);
        full += cpu_now() - a;
      }
      molecule_seconds[i] = std::min(molecule_seconds[i], cpu_now() - start);
    }
    taken = times.molecules;
    read = times.read_molecules;
    stereo = times.stereo_molecules;
    stereo_arrays = times.stereo_on_arrays;
    for (int k = 0; k < FastPathTimes::num_steps; ++k) best[k] = std::min(best[k], times.seconds[k]);
    best.back() = std::min(best.back(), full);
  }
  std::vector<const char*> names(FastPathTimes::names, FastPathTimes::names + FastPathTimes::num_steps);
  names.push_back("full path for the molecules not taken");
  std::printf("fast path took %lld of %zu molecules (%.1f%%), %lld of them (%.1f%%) through sampan's reader\n",
              static_cast<long long>(taken), n, 100.0 * taken / n, static_cast<long long>(read), 100.0 * read / n);
  std::printf("of those, %lld with stereo marks: %lld settled on arrays (legacy_stereo.h), %lld by RDKit's stereo step\n",
              static_cast<long long>(stereo), static_cast<long long>(stereo_arrays),
              static_cast<long long>(stereo - stereo_arrays));
  print_rows("sampan 'ogb' featurization step by step (per molecule of the input):", names, best, n);
  print_declines(smiles, molecule_seconds, reader_decline, decline);

  double full_best = 1e300, all_best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    double a = cpu_now();
    MoleculeGraph graph;
    for (const std::string& s : smiles) {
      std::string reason;
      std::unique_ptr<RDKit::ROMol> mol = parse_smiles(s, reason);
      if (mol) molecule_graph(*mol, FeaturizerKind::ogb, graph);
    }
    full_best = std::min(full_best, cpu_now() - a);
    a = cpu_now();
    GraphSet set = featurize_smiles(smiles, "ogb", {}, 1);
    all_best = std::min(all_best, cpu_now() - a);
  }
  std::printf("RESULT: full path (parse_smiles + features) %.0f mol/s; featurize_smiles 'ogb' %.0f mol/s (x%.2f)\n",
              n / full_best, n / all_best, full_best / all_best);
  return 0;
}
