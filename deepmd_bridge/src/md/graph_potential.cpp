// A traced energy graph as a Potential (sampan/deepmd/md/graph_potential.h).
#include "sampan/deepmd/md/graph_potential.h"

#include <cmath>
#include <sstream>

#include "sampan/autograd.h"
#include "sampan/error.h"
#include "sampan/io.h"
#include "sampan/ops.h"

namespace sampan::deepmd::md {

namespace {

std::string inputs_str(const jit::Graph& g) {
  std::string s;
  for (size_t i = 0; i < g.inputs().size(); ++i) s += (i ? ", " : "") + g.inputs()[i].str();
  return s;
}

constexpr const char* kExpected =
    "3: positions float64 [N, 3], types int64 [N], box float64 [3, 3] (trace energy(positions, types, box), e.g. "
    "sampan.deepmd.md.trace_potential)";

void check_graph(const jit::Graph& g, const std::string& source) {
  const auto& in = g.inputs();
  SAMPAN_CHECK(in.size() == 3, ValueError, "graph potential '", source, "': the graph takes ", in.size(), " input",
               in.size() == 1 ? "" : "s", " (", inputs_str(g), "); an MD potential's graph takes ", kExpected);
  auto expect = [&](size_t i, const char* what, DType dtype, size_t rank, int64_t last) {
    const jit::InputSpec& s = in[i];
    const bool ok = s.dtype == dtype && s.shape.size() == rank && (last < 0 || (s.shape.back() == last && s.dims.back().empty()));
    SAMPAN_CHECK(ok, ValueError, "graph potential '", source, "': graph input ", i, " is ", s.str(), ", expected ", what,
                 " (an MD potential's graph takes ", kExpected, ")");
  };
  expect(0, "positions float64 [N, 3]", DType::Float64, 2, 3);
  expect(1, "types int64 [N]", DType::Int64, 1, -1);
  expect(2, "box float64 [3, 3]", DType::Float64, 2, 3);
  SAMPAN_CHECK(in[2].shape[0] == 3 && in[2].dims[0].empty(), ValueError, "graph potential '", source,
               "': graph input 2 is ", in[2].str(), ", expected box float64 [3, 3]");
  SAMPAN_CHECK(g.num_outputs() >= 1, ValueError, "graph potential '", source,
               "': the graph has no output; its first output must be the energy");
}

}  // namespace

GraphPotential::GraphPotential(jit::Graph graph, double cutoff, std::vector<std::string> type_map, std::string source)
    : graph_(std::move(graph)), type_map_(std::move(type_map)), source_(std::move(source)) {
  check_graph(graph_, source_);
  set_cutoff(cutoff);
}

void GraphPotential::set_cutoff(double cutoff) {
  SAMPAN_CHECK(cutoff >= 0 && std::isfinite(cutoff), ValueError, "graph potential '", source_,
               "': cutoff must be >= 0 (Å; 0 = unknown), got ", cutoff);
  cutoff_ = cutoff;
}

bool GraphPotential::is_graph_file(const std::string& path) {
  try {
    IoValue root = sampan::load(path);
    const IoValue* format = root.is_dict() ? root.find("format") : nullptr;
    return format && format->kind() == IoValue::Kind::String && format->as_string() == "sampan-graph";
  } catch (const std::exception&) {
    return false;  // missing, not HDF5, or not written by sampan: not a graph file
  }
}

GraphPotential GraphPotential::load(const std::string& path) {
  jit::Graph graph = jit::load(path);
  double cutoff = 0.0;
  std::vector<std::string> type_map;
  IoValue root = sampan::load(path);
  if (const IoValue* meta = root.find("potential")) {
    if (const IoValue* c = meta->find("cutoff")) cutoff = c->as_double();
    if (const IoValue* t = meta->find("type_map"))
      for (const IoValue& name : t->as_list()) type_map.push_back(name.as_string());
  }
  return GraphPotential(std::move(graph), cutoff, std::move(type_map), path);
}

void GraphPotential::save(const std::string& path, bool embed_libraries) const {
  jit::save(graph_, path, embed_libraries);
  IoValue root = sampan::load(path);
  IoValue meta = IoValue::dict();
  meta.set("cutoff", cutoff_);
  IoValue names = IoValue::list();
  for (const std::string& n : type_map_) names.push_back(n);
  meta.set("type_map", names);
  root.set("potential", meta);
  sampan::save(root, path);
}

void GraphPotential::compute(const double* positions, const int* types, int64_t natoms, const Box& box, double* energy,
                             double* forces, double* virial) {
  SAMPAN_CHECK(box.all_periodic() || !box.any_periodic(), NotImplementedError, "graph potential '", source_,
               "': mixed periodic/open boundaries are not supported (the graph's box input is one [3, 3] cell, all "
               "zeros for open boundaries)");
  Tensor pos = from_vector(std::vector<double>(positions, positions + 3 * natoms), {natoms, 3}, DType::Float64);
  Tensor typ = Tensor::empty({natoms}, DType::Int64);
  for (int64_t i = 0; i < natoms; ++i) typ.data<int64_t>()[i] = types[i];
  Tensor cell = box.all_periodic() ? from_vector(std::vector<double>(box.cell.begin(), box.cell.end()), {3, 3}, DType::Float64)
                                   : zeros({3, 3}, DType::Float64);
  const bool want_grad = forces != nullptr || virial != nullptr;
  if (want_grad) {
    pos.requires_grad_();
    cell.requires_grad_();
  }
  std::vector<Tensor> out;
  Tensor e;
  {
    EnableGradGuard grad_mode(want_grad);
    try {
      out = graph_.run({pos, typ, cell});
    } catch (const std::exception& ex) {
      SAMPAN_THROW(ValueError, "graph potential '", source_, "' on ", natoms, " atoms: ", ex.what());
    }
    e = out[0];
    SAMPAN_CHECK(e.numel() == 1 && e.dtype() == DType::Float64, ValueError, "graph potential '", source_,
                 "': the graph's first output must be the energy (one float64 value), got ", dtype_name(e.dtype()), " ",
                 shape_str(e.shape()));
  }
  if (energy) *energy = e.detach().item();
  if (!want_grad) return;
  std::vector<Tensor> g;
  if (e.requires_grad()) g = grad({reshape(e, {})}, {pos, cell}, {}, false, false, true);
  else g = {Tensor(), Tensor()};  // an energy that depends on neither: no force, no virial
  Tensor gx = g[0].defined() ? g[0].contiguous() : zeros({natoms, 3}, DType::Float64);
  Tensor gh = g[1].defined() ? g[1].contiguous() : zeros({3, 3}, DType::Float64);
  const double* dx = gx.data<double>();
  const double* dh = gh.data<double>();
  if (forces)
    for (int64_t k = 0; k < 3 * natoms; ++k) forces[k] = -dx[k];
  if (virial) {
    const double* h = box.all_periodic() ? box.cell.data() : nullptr;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        double w = 0;
        for (int64_t i = 0; i < natoms; ++i) w += dx[3 * i + a] * positions[3 * i + b];
        if (h)
          for (int k = 0; k < 3; ++k) w += dh[3 * k + a] * h[3 * k + b];
        virial[3 * a + b] = -w;
      }
  }
}

std::string GraphPotential::describe() const {
  std::ostringstream os;
  os << "traced graph '" << source_ << "' (" << graph_.num_nodes() << " nodes; inputs " << inputs_str(graph_) << ")";
  if (cutoff_ > 0) os << " rcut=" << cutoff_;
  return os.str();
}

}  // namespace sampan::deepmd::md
