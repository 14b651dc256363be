// Box geometry and the neighbour-list builders (cell list and brute-force reference).
#include "sampan/deepmd/neighbor_list.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "neighbor/cell_list_kernels.h"
#include "sampan/error.h"

namespace sampan::deepmd {

Box Box::open() { return Box{}; }

Box Box::orthorhombic(double lx, double ly, double lz) {
  Box b;
  b.cell = {lx, 0, 0, 0, ly, 0, 0, 0, lz};
  b.periodic = {true, true, true};
  b.validate();
  return b;
}

Box Box::triclinic(const double* cell9) {
  Box b;
  std::copy(cell9, cell9 + 9, b.cell.begin());
  b.periodic = {true, true, true};
  b.validate();
  return b;
}

bool Box::is_orthorhombic() const {
  return cell[1] == 0 && cell[2] == 0 && cell[3] == 0 && cell[5] == 0 && cell[6] == 0 && cell[7] == 0;
}

double Box::volume() const {
  double inv[9];
  return std::abs(kernels::invert_3x3(cell.data(), inv));
}

double Box::height(int k) const {
  const double* a = cell.data() + 3 * ((k + 1) % 3);
  const double* b = cell.data() + 3 * ((k + 2) % 3);
  double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  return volume() / std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
}

void Box::validate() const {
  static const char* names[9] = {"a_x", "a_y", "a_z", "b_x", "b_y", "b_z", "c_x", "c_y", "c_z"};
  for (int e = 0; e < 9; ++e)
    SAMPAN_CHECK(std::isfinite(cell[e]), ValueError, "box: cell entry ", e, " (", names[e],
                 ") must be finite, got ", cell[e]);
  double inv[9];
  double det = kernels::invert_3x3(cell.data(), inv);
  double scale = 0;
  for (double v : cell) scale = std::max(scale, std::abs(v));
  SAMPAN_CHECK(std::abs(det) > 1e-12 * scale * scale * scale && scale > 0, ValueError,
               "box: the lattice vectors (rows of the cell) are linearly dependent: det(cell) = ", det,
               " for the cell [", cell[0], " ", cell[1], " ", cell[2], "; ", cell[3], " ", cell[4], " ", cell[5],
               "; ", cell[6], " ", cell[7], " ", cell[8], "] (Å)");
}

int64_t NeighborList::max_count() const {
  int64_t m = 0;
  for (int64_t i = 0; i < natoms; ++i) m = std::max(m, count(i));
  return m;
}

namespace {

void check_inputs(const double* positions, int64_t natoms, const Box& box, double rcut, const char* who) {
  SAMPAN_CHECK(rcut > 0 && std::isfinite(rcut), ValueError, who, ": rcut must be a positive finite length (Å), got ",
               rcut);
  SAMPAN_CHECK(natoms >= 0, ValueError, who, ": natoms must be >= 0, got ", natoms);
  box.validate();
  for (int64_t i = 0; i < natoms; ++i)
    for (int k = 0; k < 3; ++k)
      SAMPAN_CHECK(std::isfinite(positions[3 * i + k]), ValueError, who, ": position of atom ", i,
                   " component ", k, " is not finite (", positions[3 * i + k], ")");
}

// Keeps one of (i, j, n) and (j, i, -n): j > i, or j == i with n > 0 lexicographically.
inline bool keep_in_half(int64_t i, int64_t j, const int32_t* n) {
  if (j != i) return j > i;
  if (n[0] != 0) return n[0] > 0;
  if (n[1] != 0) return n[1] > 0;
  return n[2] > 0;
}

constexpr int64_t kParallelAtoms = 2048;

inline int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Per-thread output of the search, concatenated in thread order (= atom order).
struct Rows {
  std::vector<int64_t> neighbors;
  std::vector<int32_t> shifts;
  std::vector<double> vectors;
};

}  // namespace

NeighborList build_neighbor_list(const double* positions, int64_t natoms, const Box& box, double rcut, bool half,
                                 bool vectors) {
  NeighborList list;
  build_neighbor_list_into(list, positions, natoms, box, rcut, half, vectors);
  return list;
}

void build_neighbor_list_into(NeighborList& list, const double* positions, int64_t natoms, const Box& box, double rcut,
                              bool half, bool vectors) {
  check_inputs(positions, natoms, box, rcut, "build_neighbor_list");
  list.natoms = natoms;
  list.rcut = rcut;
  list.half = half;
  list.offsets.assign(static_cast<size_t>(natoms + 1), 0);
  list.neighbors.clear();
  list.shifts.clear();
  list.vectors.clear();
  if (natoms == 0) return;

  double inv[9];
  kernels::invert_3x3(box.cell.data(), inv);
  std::vector<double> frac(static_cast<size_t>(3 * natoms));
  std::vector<int32_t> wrap(static_cast<size_t>(3 * natoms));
  kernels::fractional_coordinates(positions, natoms, inv, box.periodic, frac.data(), wrap.data());
  double heights[3] = {box.height(0), box.height(1), box.height(2)};
  kernels::CellGrid g = kernels::plan_cell_grid(frac.data(), natoms, heights, box.periodic, rcut);
  std::vector<int64_t> atom_cell(static_cast<size_t>(3 * natoms)), cell_start, cell_atoms;
  kernels::bin_atoms(frac.data(), natoms, g, atom_cell.data(), cell_start, cell_atoms);

  const double rc2 = rcut * rcut;
  // Candidates are screened with wrapped positions (xw = x - wrap . cell) and one shift vector per
  // visited cell; only pairs that pass are recomputed from the positions as given and tested
  // exactly, so the list equals the brute-force one (the screen is 1e-12 wider than rcut).
  const double screen2 = rc2 * (1.0 + 1e-12);
  const double* cell = box.cell.data();
  std::vector<double> xw(static_cast<size_t>(3 * natoms));
  for (int64_t i = 0; i < natoms; ++i)
    for (int d = 0; d < 3; ++d)
      xw[3 * i + d] = positions[3 * i + d] - (wrap[3 * i] * cell[d] + wrap[3 * i + 1] * cell[3 + d] +
                                              wrap[3 * i + 2] * cell[6 + d]);
  // The wrapped coordinates again in cell order, one array per axis, for the screen.
  std::vector<double> cx(static_cast<size_t>(natoms)), cy(cx.size()), cz(cx.size());
  for (int64_t a = 0; a < natoms; ++a) {
    const double* p = xw.data() + 3 * cell_atoms[a];
    cx[a] = p[0], cy[a] = p[1], cz[a] = p[2];
  }
  // Threads pay only from a few thousand atoms on (a frame of 192 waters takes ~1 ms alone).
  // Atoms go in contiguous chunks, each with its own rows, handed to threads as they free up (a
  // half list's rows are longer for some atoms than for others, in no order known beforehand);
  // concatenating the chunks' rows in chunk order keeps atom order for any thread count.
  const int threads = natoms >= kParallelAtoms ? omp_get_max_threads() : 1;
  const int64_t nchunks = threads == 1 ? 1 : std::min<int64_t>(natoms, 8 * static_cast<int64_t>(threads));
  // The chunks' row buffers stay with the calling thread from build to build: fresh memory
  // costs a page fault per 4 KiB on first touch, which took longer than the search itself.
  static thread_local std::vector<Rows> cached_rows;
  std::vector<Rows>& rows = cached_rows;  // the caller's buffers, also inside the parallel region
  if (rows.size() < static_cast<size_t>(nchunks)) rows.resize(static_cast<size_t>(nchunks));
  for (int64_t c = 0; c < nchunks; ++c) {
    rows[c].neighbors.clear();
    rows[c].shifts.clear();
    rows[c].vectors.clear();
  }
  // Reserve for the expected pair count (uniform density over the grid's volume, plus 25 %), so
  // the rows rarely grow: regrowth (page faults and copies) is costly next to the search.
  double grid_volume = box.volume();
  for (int k = 0; k < 3; ++k)
    if (!box.periodic[k]) grid_volume *= std::max(g.width[k] * static_cast<double>(g.n[k]), rcut / box.height(k));
  const double expected = static_cast<double>(natoms) * static_cast<double>(natoms) / grid_volume * 4.18879 * rcut *
                          rcut * rcut * (half ? 0.5 : 1.0);
  const size_t reserve_pairs =
      static_cast<size_t>(std::min(1.25 * expected + 16.0, 1e9)) / static_cast<size_t>(nchunks) + 16;
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    std::vector<int64_t> hits;
#pragma omp for schedule(dynamic, 1)
    for (int64_t chunk = 0; chunk < nchunks; ++chunk) {
    Rows& out = rows[static_cast<size_t>(chunk)];
    out.neighbors.reserve(reserve_pairs);
    out.shifts.reserve(3 * reserve_pairs);
    if (vectors) out.vectors.reserve(3 * reserve_pairs);
    const int64_t i_begin = chunk * natoms / nchunks, i_end = (chunk + 1) * natoms / nchunks;
    for (int64_t i = i_begin; i < i_end; ++i) {
      const int64_t before = static_cast<int64_t>(out.neighbors.size());
      const double* xi = positions + 3 * i;
      const double* wi_pos = xw.data() + 3 * i;
      const int64_t* ci = atom_cell.data() + 3 * i;
      const int32_t* wi = wrap.data() + 3 * i;
      for (int64_t o0 = -g.reach[0]; o0 <= g.reach[0]; ++o0) {
        int64_t t0 = ci[0] + o0, q0 = 0;
        if (g.periodic[0]) { q0 = floor_div(t0, g.n[0]); t0 -= q0 * g.n[0]; }
        else if (t0 < 0 || t0 >= g.n[0]) continue;
        for (int64_t o1 = -g.reach[1]; o1 <= g.reach[1]; ++o1) {
          int64_t t1 = ci[1] + o1, q1 = 0;
          if (g.periodic[1]) { q1 = floor_div(t1, g.n[1]); t1 -= q1 * g.n[1]; }
          else if (t1 < 0 || t1 >= g.n[1]) continue;
          for (int64_t o2 = -g.reach[2]; o2 <= g.reach[2]; ++o2) {
            int64_t t2 = ci[2] + o2, q2 = 0;
            if (g.periodic[2]) { q2 = floor_div(t2, g.n[2]); t2 -= q2 * g.n[2]; }
            else if (t2 < 0 || t2 >= g.n[2]) continue;
            const int64_t c = (t0 * g.n[1] + t1) * g.n[2] + t2;
            // This cell's image of a wrapped atom sits at xw + q . cell.
            double base[3];
            for (int d = 0; d < 3; ++d)
              base[d] = q0 * cell[d] + q1 * cell[3 + d] + q2 * cell[6 + d] - wi_pos[d];
            const bool q_zero = q0 == 0 && q1 == 0 && q2 == 0;
            // A cell's atoms are in increasing order: a half list starts at the first j >= i (the
            // pairs with j < i are kept as (j, i, -n) instead).
            const int64_t a_end = cell_start[c + 1];
            int64_t a_begin = cell_start[c];
            if (half)
              a_begin = std::lower_bound(cell_atoms.begin() + a_begin, cell_atoms.begin() + a_end, i) -
                        cell_atoms.begin();
            // The screen, branch free over the cell's contiguous coordinates (whether a candidate
            // passes is unpredictable, so a branch per candidate would mispredict often).
            hits.resize(static_cast<size_t>(a_end - a_begin));
            int64_t nhits = 0;
            for (int64_t a = a_begin; a < a_end; ++a) {
              const double sx = cx[a] + base[0], sy = cy[a] + base[1], sz = cz[a] + base[2];
              hits[static_cast<size_t>(nhits)] = a;
              nhits += sx * sx + sy * sy + sz * sz < screen2;
            }
            for (int64_t h = 0; h < nhits; ++h) {
              const int64_t j = cell_atoms[hits[static_cast<size_t>(h)]];
              if (j == i && (q_zero || (half && !keep_in_half(i, j, std::array<int32_t, 3>{
                                                    static_cast<int32_t>(q0), static_cast<int32_t>(q1),
                                                    static_cast<int32_t>(q2)}.data()))))
                continue;
              // Image of j in cell (t + q n): x_j - x_i + (q - wrap_j + wrap_i) . cell (header).
              const int32_t* wj = wrap.data() + 3 * j;
              int32_t n[3] = {static_cast<int32_t>(q0 - wj[0] + wi[0]), static_cast<int32_t>(q1 - wj[1] + wi[1]),
                              static_cast<int32_t>(q2 - wj[2] + wi[2])};
              const double* xo = positions + 3 * j;
              double d[3], r2 = 0;
              for (int k = 0; k < 3; ++k) {
                d[k] = xo[k] - xi[k] + n[0] * cell[k] + n[1] * cell[3 + k] + n[2] * cell[6 + k];
                r2 += d[k] * d[k];
              }
              if (r2 >= rc2) continue;
              out.neighbors.push_back(j);
              out.shifts.insert(out.shifts.end(), n, n + 3);
              if (vectors) out.vectors.insert(out.vectors.end(), d, d + 3);
            }
          }
        }
      }
      list.offsets[i + 1] = static_cast<int64_t>(out.neighbors.size()) - before;
    }
    }
  }
  for (int64_t i = 0; i < natoms; ++i) list.offsets[i + 1] += list.offsets[i];
  if (nchunks == 1) {  // one chunk: swap buffers with the list (a reused list gives its old ones back)
    std::swap(list.neighbors, rows[0].neighbors);
    std::swap(list.shifts, rows[0].shifts);
    std::swap(list.vectors, rows[0].vectors);
    return;
  }
  const size_t total = static_cast<size_t>(list.offsets[natoms]);
  list.neighbors.resize(total);
  list.shifts.resize(3 * total);
  if (vectors) list.vectors.resize(3 * total);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t c = 0; c < nchunks; ++c) {
    const Rows& r = rows[static_cast<size_t>(c)];
    const size_t at = static_cast<size_t>(list.offsets[c * natoms / nchunks]);
    std::copy(r.neighbors.begin(), r.neighbors.end(), list.neighbors.begin() + at);
    std::copy(r.shifts.begin(), r.shifts.end(), list.shifts.begin() + 3 * at);
    std::copy(r.vectors.begin(), r.vectors.end(), list.vectors.begin() + 3 * at);
  }
}

NeighborList brute_force_neighbor_list(const double* positions, int64_t natoms, const Box& box, double rcut,
                                       bool half) {
  check_inputs(positions, natoms, box, rcut, "brute_force_neighbor_list");
  NeighborList list;
  list.natoms = natoms;
  list.rcut = rcut;
  list.half = half;
  list.offsets.assign(static_cast<size_t>(natoms + 1), 0);
  double inv[9];
  kernels::invert_3x3(box.cell.data(), inv);
  const double* cell = box.cell.data();
  // Images: around the nearest one (rounded fractional difference), as many as the sphere reaches.
  int reach[3];
  for (int k = 0; k < 3; ++k)
    reach[k] = box.periodic[k] ? static_cast<int>(std::ceil(rcut / box.height(k))) + 1 : 0;
  for (int64_t i = 0; i < natoms; ++i) {
    for (int64_t j = 0; j < natoms; ++j) {
      int32_t base[3] = {0, 0, 0};
      for (int k = 0; k < 3; ++k) {
        if (!box.periodic[k]) continue;
        double ds = 0;
        for (int d = 0; d < 3; ++d) ds += (positions[3 * j + d] - positions[3 * i + d]) * inv[3 * d + k];
        base[k] = static_cast<int32_t>(-std::round(ds));
      }
      for (int m0 = -reach[0]; m0 <= reach[0]; ++m0)
        for (int m1 = -reach[1]; m1 <= reach[1]; ++m1)
          for (int m2 = -reach[2]; m2 <= reach[2]; ++m2) {
            int32_t n[3] = {base[0] + m0, base[1] + m1, base[2] + m2};
            if (j == i && n[0] == 0 && n[1] == 0 && n[2] == 0) continue;
            if (half && !keep_in_half(i, j, n)) continue;
            double d[3], r2 = 0;
            for (int k = 0; k < 3; ++k) {
              d[k] = positions[3 * j + k] - positions[3 * i + k] + n[0] * cell[k] + n[1] * cell[3 + k] +
                     n[2] * cell[6 + k];
              r2 += d[k] * d[k];
            }
            if (r2 >= rcut * rcut) continue;
            list.neighbors.push_back(j);
            list.shifts.insert(list.shifts.end(), n, n + 3);
            list.vectors.insert(list.vectors.end(), d, d + 3);
            ++list.offsets[i + 1];
          }
    }
  }
  for (int64_t i = 0; i < natoms; ++i) list.offsets[i + 1] += list.offsets[i];
  sort_rows(list);
  return list;
}

void sort_rows(NeighborList& list) {
  std::vector<int64_t> order;
  std::vector<int64_t> nb;
  std::vector<int32_t> sh;
  std::vector<double> vec;
  for (int64_t i = 0; i < list.natoms; ++i) {
    const int64_t b = list.offsets[i], e = list.offsets[i + 1];
    order.resize(static_cast<size_t>(e - b));
    std::iota(order.begin(), order.end(), b);
    std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
      if (list.neighbors[x] != list.neighbors[y]) return list.neighbors[x] < list.neighbors[y];
      for (int k = 0; k < 3; ++k)
        if (list.shifts[3 * x + k] != list.shifts[3 * y + k]) return list.shifts[3 * x + k] < list.shifts[3 * y + k];
      return false;
    });
    nb.clear();
    sh.clear();
    vec.clear();
    for (int64_t p : order) {
      nb.push_back(list.neighbors[p]);
      for (int k = 0; k < 3; ++k) {
        sh.push_back(list.shifts[3 * p + k]);
        vec.push_back(list.vectors[3 * p + k]);
      }
    }
    std::copy(nb.begin(), nb.end(), list.neighbors.begin() + b);
    std::copy(sh.begin(), sh.end(), list.shifts.begin() + 3 * b);
    std::copy(vec.begin(), vec.end(), list.vectors.begin() + 3 * b);
  }
}

}  // namespace sampan::deepmd
