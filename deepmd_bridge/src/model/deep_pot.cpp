// DeepPot: the se_e2_a energy model on sampan ops (see sampan/deepmd/deep_pot.h).
#include "sampan/deepmd/deep_pot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>

#include "sampan/autograd.h"
#include "sampan/deepmd/neighbor_list.h"
#include "sampan/error.h"
#include "sampan/generator.h"
#include "sampan/op.h"
#include "sampan/ops.h"

namespace sampan::deepmd {

namespace {

const OpHandle& env_mat_op() {
  static OpHandle op("deepmd::prod_env_mat_a");
  return op;
}
const OpHandle& force_op() {
  static OpHandle op("deepmd::prod_force_se_a");
  return op;
}
const OpHandle& virial_op() {
  static OpHandle op("deepmd::prod_virial_se_a");
  return op;
}

// Centre atoms per chunk when a large system is evaluated without a graph (see evaluate()).
constexpr int64_t kInferenceChunkAtoms = 512;

// An index tensor of host data on `device` (made on the host, then copied once).
Tensor int64_tensor(const std::vector<int64_t>& v, const Shape& shape, const Device& device = {}) {
  Tensor t = Tensor::empty(shape, DType::Int64);
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return device.is_cpu() ? t : to_device(t, device);
}

// A host copy (itself on the CPU), contiguous: what the index bookkeeping reads.
Tensor on_host(const Tensor& t) { return to_device(t, cpu_device()).contiguous(); }

DenseNet init_net(int64_t in, const std::vector<int64_t>& widths, bool timestep, bool output_layer, Generator& gen) {
  DenseNet net;
  int64_t prev = in;
  std::vector<int64_t> all = widths;
  if (output_layer) all.push_back(1);
  for (size_t k = 0; k < all.size(); ++k) {
    const int64_t out = all[k];
    const bool last = output_layer && k + 1 == all.size();
    DenseLayer layer;
    // dpmodel's initialisation: W ~ N(0, 1/sqrt(in+out)), b ~ N(0, 1), idt ~ N(0.1, 0.001)
    layer.w = normal({prev, out}, 0.0, 1.0 / std::sqrt(static_cast<double>(prev + out)), DType::Float64, &gen);
    layer.b = normal({out}, 0.0, 1.0, DType::Float64, &gen);
    layer.resnet = !last;
    layer.tanh = !last;
    if (timestep && !last && (out == prev || out == 2 * prev)) layer.idt = normal({out}, 0.1, 0.001, DType::Float64, &gen);
    net.layers.push_back(layer);
    prev = out;
  }
  return net;
}

// The embedding net's input rows of one neighbour-type block without the repeats. An empty slot
// (nlist < 0) has the em row (0 - davg) / dstd of its (centre type, slot) (prod_env_mat_a), so
// all empty slots of one (centre type, slot) have the same s and the same G row: the net runs on
// the filled slots and on one representative of each such class, and G [rows, M] is gathered
// back from those rows. On liquid water a third of the sel slots are empty (mean 29.5 O / 59.4 H
// neighbours within 6 Å for sel 46 / 92), and the embedding net's three passes (forward, dE/d em,
// and the force loss's backward through both) were most of a training step. The derivatives are
// the same sums in another order: the net's backward is linear in what reaches G, so the class's
// rows may be summed before it (index_select's vjp), and empty slots carry no force
// (prod_force_se_a and prod_virial_se_a skip them).
struct CompactRows {
  Tensor source;  // [compact rows]: the block row each compact row is evaluated for
  Tensor gather;  // [block rows]: the compact row of each block row
  bool useful = false;
};

// Block rows are (listed centre a, slot k) -> a * n + k, for the centres `atoms` (null: 0..count-1)
// and the slots [first_slot, first_slot + n) of nlist [., nnei]; only slots k < kept are
// gathered (gather is [count * kept], source holds block rows a * n + k).
CompactRows compact_block_rows(const int64_t* nlist, int64_t nnei, int64_t first_slot, int64_t n, int64_t kept,
                               const int64_t* atoms, int64_t count, const int64_t* centre_types, int64_t ntypes,
                               const Device& device) {
  CompactRows out;
  std::vector<int64_t> source, gather(static_cast<size_t>(count * kept));
  source.reserve(static_cast<size_t>(count * kept));
  std::vector<int64_t> class_row(static_cast<size_t>(ntypes * kept), -1);
  for (int64_t a = 0; a < count; ++a) {
    const int64_t i = atoms ? atoms[a] : a;
    const int64_t* slots = nlist + i * nnei + first_slot;
    for (int64_t k = 0; k < kept; ++k) {
      const int64_t row = a * kept + k;
      if (slots[k] >= 0) {
        gather[row] = static_cast<int64_t>(source.size());
        source.push_back(a * n + k);
        continue;
      }
      int64_t& rep = class_row[centre_types[i] * kept + k];
      if (rep < 0) {
        rep = static_cast<int64_t>(source.size());
        source.push_back(a * n + k);
      }
      gather[row] = rep;
    }
  }
  // a gather and its scatter-add back cost about two passes over G: not worth it for a few rows
  const int64_t compact = static_cast<int64_t>(source.size());
  if (kept == n && compact * 8 > count * n * 7) return out;
  out.source = int64_tensor(source, {compact}, device);
  out.gather = int64_tensor(gather, {count * kept}, device);
  out.useful = true;
  return out;
}

// sum_k em[i, k]^T G[i, k] over one neighbour-type block of a one-sided embedding: block is em's
// [nloc, n, 4] slice at slots [first_slot, first_slot + n) of nlist, the result [nloc, 4, M].
// Besides the row classes above: the slots from `kept` on are empty for every centre (the frame's
// largest neighbour count of this type is below sel; on water about a fifth of the slots), so
// their rows depend on (centre type, slot) alone and their sum is one [4, M] term per centre
// type, from one representative centre; the dense [nloc, kept, M] G and the products over it
// stop at `kept`. (What reaches em's rows of those slots goes to the representative's, as for
// the row classes: the class sums, all that davg and dstd see, are unchanged; no force there.)
// `net` is the embedding (a net or its table: DeepPot::embed).
using Embedding = std::function<Tensor(const Tensor&)>;
// em [R, J, 4] -> sum_j em[r, j]^T G(s[r, j]) [R, 4, M] in one fused op (a compressed model's
// table: deepmd::tabulated_contract); empty for a net.
using Contraction = std::function<Tensor(const Tensor&)>;

Tensor table_contraction(const EmbeddingTable& t, const Tensor& em) {
  static OpHandle op("deepmd::tabulated_contract");
  const int64_t R = em.size(0), J = em.size(1);
  Tensor s = reshape(slice(em, 2, 0, 1), {R, J});
  return op(em, s, t.table, t.lower, t.upper, t.stride0, t.stride1, int64_t{0})[0];
}

Tensor one_sided_block_term(const Embedding& net, const Contraction& fused, const Tensor& block, const int64_t* nlist, int64_t nnei,
                            int64_t first_slot, const int64_t* centre_types, int64_t ntypes, int64_t M) {
  const int64_t nloc = block.size(0), n = block.size(1);
  Tensor s = reshape(slice(block, 2, 0, 1), {nloc * n, 1});
  int64_t kept = 0;
  for (int64_t i = 0; i < nloc; ++i)
    for (int64_t k = n; k-- > kept;)
      if (nlist[i * nnei + first_slot + k] >= 0) {
        kept = k + 1;
        break;
      }
  CompactRows rows;
  // a table costs little per row: no row classes, every kept slot is evaluated where it lies
  if (!fused) rows = compact_block_rows(nlist, nnei, first_slot, n, kept, nullptr, nloc, centre_types, ntypes, block.device());
  else if (kept == n) return fused(block);
  if (!fused && !rows.useful) return matmul(transpose(block, 1, 2), reshape(net(s), {nloc, n, M}));
  Tensor term;
  if (kept > 0 && fused) {
    term = fused(slice(block, 1, 0, kept));
  } else if (kept > 0) {
    // em^T G with G's rows read from the compact net output where they lie (no dense G)
    static OpHandle gather_contract_op("deepmd::gather_contract");
    Tensor G_compact = net(index_select(s, 0, rows.source));
    term = gather_contract_op(slice(block, 1, 0, kept), G_compact, rows.gather)[0];
  }
  if (kept < n) {
    // one representative centre per centre type present; each centre takes its type's sum
    std::vector<int64_t> representative(static_cast<size_t>(ntypes), -1), type_position(static_cast<size_t>(nloc));
    std::vector<int64_t> reps;
    for (int64_t i = 0; i < nloc; ++i) {
      int64_t& r = representative[centre_types[i]];
      if (r < 0) {
        r = static_cast<int64_t>(reps.size());
        reps.push_back(i);
      }
      type_position[i] = r;
    }
    const int64_t nrep = static_cast<int64_t>(reps.size()), tail = n - kept;
    Tensor em_tail = index_select(slice(block, 1, kept, n), 0, int64_tensor(reps, {nrep}, block.device()));  // [nrep, tail, 4]
    Tensor per_type;  // [nrep, 4, M]
    if (fused) {
      per_type = fused(em_tail);
    } else {
      Tensor s_tail = reshape(slice(em_tail, 2, 0, 1), {nrep * tail, 1});
      per_type = matmul(transpose(em_tail, 1, 2), reshape(net(s_tail), {nrep, tail, M}));
    }
    Tensor tail_term = index_select(per_type, 0, int64_tensor(type_position, {nloc}, block.device()));
    term = term.defined() ? add(term, tail_term) : tail_term;
  }
  return term;
}

// G = net(s) for s [rows, 1], evaluating the rows of `rows` only once each (see CompactRows).
Tensor embed_rows(const Embedding& net, const Tensor& s, const CompactRows& rows) {
  if (!rows.useful) return net(s);
  return index_select(net(index_select(s, 0, rows.source)), 0, rows.gather);
}

}  // namespace

namespace {
void note_sel_overflow(const ExtendedSystem& ext, const SeAConfig& config, int64_t& count) {
  if (!ext.any_overflow()) return;
  if (count++ == 0)
    std::fprintf(stderr, "sampan DeepPot warning: %s; neighbours beyond sel are dropped, so MD with this model does not "
                 "conserve energy (increase sel; further overflows are counted in sel_overflow_evaluations)\n",
                 ext.overflow_message(config.sel).c_str());
}
}  // namespace

Tensor DenseLayer::forward(const Tensor& x) const {
  // bias and tanh in one fused op (deepmd::bias_tanh): the embedding net runs on every
  // (atom, neighbour) row, and unfused elementwise passes over those rows dominated training.
  static OpHandle bias_tanh_op("deepmd::bias_tanh");
  static OpHandle add_tiled_op("deepmd::add_tiled");
  Tensor u = matmul(x, w);
  Tensor y = tanh ? bias_tanh_op(u, b)[0] : add(u, b);
  if (idt.defined()) y = mul(y, idt);
  if (resnet) {
    const int64_t in = w.size(0), out = w.size(1);
    if (out == in) y = add(y, x);
    else if (out == 2 * in) y = add_tiled_op(y, x)[0];  // y + [x, x] without a concatenated copy
  }
  return y;
}

Tensor DenseNet::forward(const Tensor& x) const {
  Tensor y = x;
  for (const DenseLayer& layer : layers) y = layer.forward(y);
  return y;
}

int64_t SeAConfig::nnei() const {
  int64_t n = 0;
  for (int64_t s : sel) n += s;
  return n;
}

DeepPot::DeepPot(SeAConfig cfg, uint64_t seed) : config(std::move(cfg)) {
  const int64_t nt = config.ntypes(), nd = config.nnei() * 4;
  SAMPAN_CHECK(nt > 0, ValueError, "DeepPot: sel must have one entry per type");
  Generator gen(seed);
  const int64_t nets = config.type_one_side ? nt : nt * nt;
  for (int64_t k = 0; k < nets; ++k) embeddings.push_back(init_net(1, config.neuron, config.resnet_dt, false, gen));
  for (int64_t t = 0; t < nt; ++t)
    fittings.push_back(init_net(config.descriptor_dim(), config.fitting_neuron, config.fitting_resnet_dt, true, gen));
  davg = zeros({nt, nd}, DType::Float64);
  dstd = ones({nt, nd}, DType::Float64);
  bias_atom_e = zeros({nt}, DType::Float64);
  out_bias = zeros({nt}, DType::Float64);
}

void DeepPot::to(const Device& device) {
  DeepPot moved = *this;  // tensors are shared handles: every slot is replaced below, none written
  auto move = [&](Tensor& t) {
    if (t.defined()) t = to_device(t.detach(), device);
  };
  for (Tensor* t : {&moved.davg, &moved.dstd, &moved.bias_atom_e, &moved.out_bias}) move(*t);
  for (auto* nets : {&moved.embeddings, &moved.fittings})
    for (DenseNet& net : *nets)
      for (DenseLayer& layer : net.layers)
        for (Tensor* t : {&layer.w, &layer.b, &layer.idt}) move(*t);
  for (EmbeddingTable& table : moved.tables) move(table.table);
  *this = std::move(moved);
}

std::vector<Tensor> DeepPot::parameters() const {
  std::vector<Tensor> out;
  for (const auto* nets : {&embeddings, &fittings})
    for (const DenseNet& net : *nets)
      for (const DenseLayer& layer : net.layers) {
        out.push_back(layer.w);
        out.push_back(layer.b);
        if (layer.idt.defined()) out.push_back(layer.idt);
      }
  return out;
}

std::vector<std::string> DeepPot::parameter_names() const {
  std::vector<std::string> out;
  for (int part = 0; part < 2; ++part) {
    const auto& nets = part == 0 ? embeddings : fittings;
    for (size_t n = 0; n < nets.size(); ++n)
      for (size_t l = 0; l < nets[n].layers.size(); ++l) {
        std::string base = std::string(part == 0 ? "embedding." : "fitting.") + std::to_string(n) + ".layer." + std::to_string(l);
        out.push_back(base + ".w");
        out.push_back(base + ".b");
        if (nets[n].layers[l].idt.defined()) out.push_back(base + ".idt");
      }
  }
  return out;
}

void DeepPot::validate() const {
  const int64_t nt = config.ntypes(), nd = config.nnei() * 4;
  auto expect = [](const Tensor& t, const Shape& shape, const std::string& name) {
    SAMPAN_CHECK(t.defined(), ValueError, "DeepPot: ", name, " is missing");
    SAMPAN_CHECK(t.shape() == shape, ValueError, "DeepPot: ", name, " has shape ", shape_str(t.shape()), ", expected ",
                 shape_str(shape));
    SAMPAN_CHECK(t.dtype() == DType::Float64, TypeError, "DeepPot: ", name, " must be float64, got ", dtype_name(t.dtype()));
  };
  expect(davg, {nt, nd}, "davg");
  expect(dstd, {nt, nd}, "dstd");
  expect(bias_atom_e, {nt}, "bias_atom_e");
  expect(out_bias, {nt}, "out_bias");
  SAMPAN_CHECK(config.axis_neuron >= 1 && config.axis_neuron <= config.neuron.back(), ValueError,
               "DeepPot: axis_neuron = ", config.axis_neuron, " must lie in [1, last embedding width ", config.neuron.back(), "]");
  SAMPAN_CHECK(static_cast<int64_t>(embeddings.size()) == (config.type_one_side ? nt : nt * nt), ValueError,
               "DeepPot: ", embeddings.size(), " embedding nets for ", nt, " types (type_one_side = ", config.type_one_side, ")");
  SAMPAN_CHECK(static_cast<int64_t>(fittings.size()) == nt, ValueError, "DeepPot: ", fittings.size(), " fitting nets for ", nt,
               " types");
  auto names = parameter_names();
  auto params = parameters();
  for (size_t k = 0; k < params.size(); ++k)
    SAMPAN_CHECK(params[k].dtype() == DType::Float64, TypeError, "DeepPot: ", names[k], " must be float64");
  for (const DenseNet& net : embeddings) {
    SAMPAN_CHECK(!net.layers.empty() && net.layers.front().w.size(0) == 1 && net.layers.back().w.size(1) == config.neuron.back(),
                 ValueError, "DeepPot: an embedding net must map 1 -> ", config.neuron.back());
  }
  for (const DenseNet& net : fittings) {
    SAMPAN_CHECK(!net.layers.empty() && net.layers.front().w.size(0) == config.descriptor_dim() &&
                     net.layers.back().w.size(1) == 1,
                 ValueError, "DeepPot: a fitting net must map ", config.descriptor_dim(), " -> 1");
  }
}

Tensor DeepPot::embed(size_t k, const Tensor& s) const {
  return tables.empty() ? embeddings[k].forward(s) : tables[k].forward(s);
}

void DeepPot::compress(double min_dist, double step, double extrapolate) {
  validate();
  SAMPAN_CHECK(device().is_cpu(), ValueError, "deepmd compress: the model is on ", device().str(),
               "; compress it on the CPU (to('cpu')), then move it");
  SAMPAN_CHECK(min_dist > 0 && std::isfinite(min_dist), ValueError, "deepmd compress: min_dist must be > 0 Å, got ",
               min_dist);
  const int64_t nt = config.ntypes();
  Tensor avg = davg.contiguous(), std_ = dstd.contiguous();
  const double* av = avg.data<double>();
  const double* sd = std_.data<double>();
  const int64_t width = config.nnei() * 4;
  const double s_max = 1.0 / min_dist;  // s = sw(r)/r <= 1/r, and s = 0 at the cutoff and in empty slots
  std::vector<EmbeddingTable> made;
  for (size_t k = 0; k < embeddings.size(); ++k) {
    // the columns net k sees: its neighbour type's slots, for every centre type (one-sided) or one
    const int64_t tj = config.type_one_side ? static_cast<int64_t>(k) : static_cast<int64_t>(k) % nt;
    const int64_t t_first = config.type_one_side ? 0 : static_cast<int64_t>(k) / nt;
    const int64_t t_last = config.type_one_side ? nt : t_first + 1;
    int64_t slot0 = 0;
    for (int64_t t = 0; t < tj; ++t) slot0 += config.sel[t];
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t ti = t_first; ti < t_last; ++ti)
      for (int64_t j = slot0; j < slot0 + config.sel[tj]; ++j) {
        const double a = av[ti * width + 4 * j], d = sd[ti * width + 4 * j];
        SAMPAN_CHECK(d > 0, ValueError, "deepmd compress: dstd[", ti, ", ", 4 * j, "] = ", d, " must be > 0");
        lo = std::min(lo, (0.0 - a) / d);
        hi = std::max(hi, (s_max - a) / d);
      }
    if (!(hi > lo)) hi = lo + step;  // a type with sel 0: a one-interval table, never read
    made.push_back(tabulate_embedding(embeddings[k], lo, hi, step, extrapolate));
  }
  tables = std::move(made);
  compression = {min_dist, step, extrapolate};
}

ExtendedSystem DeepPot::extend(const double* coord, const int64_t* types, int64_t natoms, const double* cell) const {
  return build_extended_system(coord, types, natoms, cell, config.rcut, config.sel);
}

Tensor DeepPot::atomic_energy(const Tensor& em, const Tensor& centre_types, Tensor* descriptor, Tensor* fit_last,
                              const Tensor& nlist_in) const {
  const int64_t nloc = em.size(0), nt = config.ntypes(), nnei = config.nnei();
  Tensor nlist;
  if (nlist_in.defined()) {
    SAMPAN_CHECK(nlist_in.dtype() == DType::Int64 && nlist_in.shape() == Shape({nloc, nnei}), ValueError,
                 "DeepPot::atomic_energy: nlist must be int64 [nloc, nnei] = [", nloc, ", ", nnei, "], got ",
                 dtype_name(nlist_in.dtype()), " ", shape_str(nlist_in.shape()));
    nlist = on_host(nlist_in);  // the row bookkeeping below runs on the host
  }
  const int64_t* nl = nlist.defined() ? nlist.data<int64_t>() : nullptr;
  const int64_t M = config.neuron.back(), M2 = config.axis_neuron;
  const Device dev = em.device();
  Tensor em3 = reshape(em, {nloc, nnei, 4});
  const Tensor centre_types_host = on_host(centre_types);
  const int64_t* ct = centre_types_host.data<int64_t>();
  // centre atoms of each type (for per-centre-type nets)
  std::vector<std::vector<int64_t>> of_type(static_cast<size_t>(nt));
  for (int64_t i = 0; i < nloc; ++i) of_type[static_cast<size_t>(ct[i])].push_back(i);

  Tensor gr;  // sum over neighbour-type blocks of em^T G: [nloc, 4, M] (T_i^T of deep_pot.h)
  int64_t start = 0;
  for (int64_t tj = 0; tj < nt; ++tj) {
    const int64_t n = config.sel[tj];
    if (n == 0) continue;
    Tensor block = slice(em3, 1, start, start + n);  // [nloc, n, 4]
    start += n;
    Contraction fused;  // a compressed model contracts with its tables directly
    if (compressed()) fused = [&](const Tensor& em_rows) { return table_contraction(tables[static_cast<size_t>(tj)], em_rows); };
    if (config.type_one_side && nl) {
      Tensor term = one_sided_block_term([&](const Tensor& x) { return embed(static_cast<size_t>(tj), x); }, fused,
                                         block, nl, nnei, start - n, ct, nt, M);
      gr = gr.defined() ? add(gr, term) : term;
      continue;
    }
    if (compressed()) {
      Tensor term;
      if (config.type_one_side) {
        term = fused(block);
      } else {
        term = zeros({nloc, 4, M}, DType::Float64, dev);
        for (int64_t ti = 0; ti < nt; ++ti) {
          if (of_type[ti].empty()) continue;
          Tensor rows = int64_tensor(of_type[ti], {static_cast<int64_t>(of_type[ti].size())}, dev);
          const EmbeddingTable& table = tables[static_cast<size_t>(ti * nt + tj)];
          term = index_add(term, 0, rows, table_contraction(table, index_select(block, 0, rows)));
        }
      }
      gr = gr.defined() ? add(gr, term) : term;
      continue;
    }
    Tensor s = reshape(slice(block, 2, 0, 1), {nloc * n, 1});
    Tensor G;
    if (config.type_one_side) {
      G = reshape(embed(static_cast<size_t>(tj), s), {nloc, n, M});
    } else {
      // one net per (centre type, neighbour type): evaluate each on the rows of its centres
      G = zeros({nloc, n, M}, DType::Float64, dev);
      for (int64_t ti = 0; ti < nt; ++ti) {
        if (of_type[ti].empty()) continue;
        const int64_t nc = static_cast<int64_t>(of_type[ti].size());
        Tensor rows = int64_tensor(of_type[ti], {nc}, dev);
        Tensor s_ti = reshape(index_select(reshape(s, {nloc, n}), 0, rows), {nc * n, 1});
        CompactRows compact;
        if (nl) compact = compact_block_rows(nl, nnei, start - n, n, n, of_type[ti].data(), nc, ct, nt, dev);
        const auto k = static_cast<size_t>(ti * nt + tj);
        Tensor g_ti = reshape(embed_rows([&](const Tensor& x) { return embed(k, x); }, s_ti, compact), {nc, n, M});
        G = index_add(G, 0, rows, g_ti);
      }
    }
    // (em^T G) rather than (G^T em): the gradient in G then comes out in G's own layout, with
    // no transposed copy of the largest tensor of the model in either backward pass
    Tensor term = matmul(transpose(block, 1, 2), G);  // [nloc, 4, M]
    gr = gr.defined() ? add(gr, term) : term;
  }
  gr = div(gr, scalar_like(static_cast<double>(nnei), gr));
  Tensor gr_axis = slice(gr, 2, 0, M2);                          // [nloc, 4, M2]
  Tensor D = reshape(matmul(transpose(gr, 1, 2), gr_axis), {nloc, M * M2});  // T T_axis^T, T = gr^T
  if (descriptor) *descriptor = D;

  Tensor energy = zeros({nloc}, DType::Float64, dev);
  Tensor last_all;
  if (fit_last)
    last_all = zeros({nloc, config.fitting_neuron.empty() ? M * M2 : config.fitting_neuron.back()}, DType::Float64, dev);
  for (int64_t ti = 0; ti < nt; ++ti) {
    if (of_type[ti].empty()) continue;
    const int64_t nc = static_cast<int64_t>(of_type[ti].size());
    Tensor rows = int64_tensor(of_type[ti], {nc}, dev);
    Tensor x = index_select(D, 0, rows);
    const DenseNet& net = fittings[ti];
    for (size_t l = 0; l + 1 < net.layers.size(); ++l) x = net.layers[l].forward(x);
    if (fit_last) last_all = index_add(last_all, 0, rows, x);
    Tensor e = reshape(net.layers.back().forward(x), {nc});
    // bias_atom_e: per-type energy from data statistics; out_bias: DeePMD-kit's output bias
    e = add(e, add(select(bias_atom_e, 0, ti), select(out_bias, 0, ti)));
    energy = index_add(energy, 0, rows, e);
  }
  if (fit_last) *fit_last = last_all;
  return energy;
}

DeepPotOutput DeepPot::evaluate(const ExtendedSystem& ext, bool forces, bool create_graph) const {
  DeepPotOutput out;
  const Device dev = device();  // the host-built frame goes where the model is
  Tensor coord = from_vector(ext.coord, {ext.nall, 3}, DType::Float64);
  if (!dev.is_cpu()) coord = to_device(coord, dev);
  Tensor atype = int64_tensor(ext.types, {ext.nall}, dev);
  Tensor nlist = int64_tensor(ext.nlist, {ext.nloc, ext.nnei}, dev);
  SAMPAN_CHECK(ext.nnei == config.nnei(), ValueError, "DeepPot: the extended system has ", ext.nnei,
               " neighbour slots, the model expects sum(sel) = ", config.nnei());
  if (ext.nloc == 0) {  // an empty subdomain (a LAMMPS rank without owned atoms)
    const int64_t nout = ext.nowners > 0 ? ext.nowners : 0;
    out.atom_energy = zeros({0}, DType::Float64, dev);
    out.energy = zeros({}, DType::Float64, dev);
    out.descriptor = zeros({0, config.descriptor_dim()}, DType::Float64, dev);
    out.fit_last = zeros({0, config.fitting_neuron.empty() ? config.descriptor_dim() : config.fitting_neuron.back()},
                         DType::Float64, dev);
    if (forces) {
      out.force = zeros({nout, 3}, DType::Float64, dev);
      out.virial = zeros({9}, DType::Float64, dev);
      out.atom_virial = zeros({nout, 9}, DType::Float64, dev);
    }
    return out;
  }
  std::vector<Tensor> env;
  {
    NoGradGuard no_grad;  // the env matrix depends on coordinates only
    env = env_mat_op()(coord, atype, nlist, davg, dstd, config.rcut, config.rcut_smth);
  }
  Tensor em = env[0];
  Tensor centre_types = slice(atype, 0, 0, ext.nloc).contiguous();
  Tensor net_deriv;
  if (forces && !create_graph && !grad_mode_enabled() && ext.nloc > kInferenceChunkAtoms) {
    // Inference on a large system: the network acts on each centre atom's rows alone, so dE/d em
    // is computed chunk by chunk and peak memory follows the chunk, not the system (a 12,288-atom
    // water box needed 11 GB in one piece). The values are the per-atom ones of a single pass.
    std::vector<Tensor> atom_energy, descriptor, fit_last, deriv;
    for (int64_t start = 0; start < ext.nloc; start += kInferenceChunkAtoms) {
      const int64_t end = std::min(ext.nloc, start + kInferenceChunkAtoms);
      Tensor em_chunk = slice(em, 0, start, end).contiguous().detach().requires_grad_();
      Tensor d, f;
      Tensor e;
      {
        EnableGradGuard enable(true);
        e = atomic_energy(em_chunk, slice(centre_types, 0, start, end).contiguous(), &d, &f,
                          slice(nlist, 0, start, end).contiguous());
        deriv.push_back(grad({sum(e)}, {em_chunk}, {}, false, false)[0]);
      }
      atom_energy.push_back(e.detach());
      descriptor.push_back(d.detach());
      fit_last.push_back(f.detach());
    }
    out.atom_energy = concat(atom_energy, 0);
    out.descriptor = concat(descriptor, 0);
    out.fit_last = concat(fit_last, 0);
    out.energy = sum(out.atom_energy);
    net_deriv = concat(deriv, 0);
  } else {
    if (forces) em = em.detach().requires_grad_();
    EnableGradGuard enable(forces || create_graph || grad_mode_enabled());
    out.atom_energy = atomic_energy(em, centre_types, &out.descriptor, &out.fit_last, nlist);
    out.energy = sum(out.atom_energy);
    if (!forces) return out;
    net_deriv = grad({out.energy}, {em}, {}, create_graph, create_graph)[0];
  }
  Tensor mapping = int64_tensor(ext.mapping, {ext.nall}, dev);
  Tensor force_ext = force_op()(net_deriv, env[1], nlist, ext.nall)[0];
  // forces on ghost images belong to the local atoms they copy
  const int64_t nout = ext.nowners > 0 ? ext.nowners : ext.nloc;
  out.force = index_add(zeros({nout, 3}, DType::Float64, dev), 0, mapping, force_ext);
  auto vir = virial_op()(net_deriv, env[1], env[2], nlist, ext.nall);
  out.virial = vir[0];
  out.atom_virial = index_add(zeros({nout, 9}, DType::Float64, dev), 0, mapping, vir[1]);
  return out;
}

void DeepPot::compute(const double* positions, const int* types, int64_t natoms, const Box& box, double* energy,
                      double* forces, double* virial) {
  std::vector<int64_t> t(types, types + natoms);
  SAMPAN_CHECK(box.all_periodic() || !box.any_periodic(), NotImplementedError,
               "DeepPot: mixed periodic/open boundaries are not supported (use all periodic or all open)");
  ExtendedSystem ext = extend(positions, t.data(), natoms, box.any_periodic() ? box.cell.data() : nullptr);
  note_sel_overflow(ext, config, sel_overflow_evaluations);
  NoGradGuard outer;  // no graph beyond what evaluate() needs internally
  DeepPotOutput out = evaluate(ext, forces != nullptr || virial != nullptr, false);
  if (energy) *energy = on_host(out.energy.detach()).data<double>()[0];
  if (forces) {
    Tensor f = on_host(out.force.detach());
    std::copy(f.data<double>(), f.data<double>() + natoms * 3, forces);
  }
  if (virial) {
    Tensor v = on_host(out.virial.detach());
    std::copy(v.data<double>(), v.data<double>() + 9, virial);
  }
}

void DeepPot::compute_local(const double* positions, const int* types, int64_t nlocal, int64_t natoms, double* energy,
                            double* forces) {
  SAMPAN_CHECK(nlocal >= 0 && nlocal <= natoms, ValueError, "DeepPot::compute_local: nlocal = ", nlocal,
               " must lie in [0, natoms = ", natoms, "]");
  std::vector<int64_t> t(types, types + natoms);
  for (int64_t i = 0; i < natoms; ++i)
    SAMPAN_CHECK(t[i] >= 0 && t[i] < config.ntypes(), ValueError, "DeepPot::compute_local: atom ", i, " has type ", t[i],
                 ", the model has ", config.ntypes(), " types");
  // neighbours of the owned atoms among all atoms, in open space (ghosts are explicit points)
  NeighborList list = build_neighbor_list(positions, natoms, Box::open(), config.rcut);
  NeighborCandidates candidates;
  candidates.offsets.assign(list.offsets.begin(), list.offsets.begin() + nlocal + 1);
  const int64_t used = candidates.offsets.back();
  candidates.index.assign(list.neighbors.begin(), list.neighbors.begin() + used);
  candidates.shift.assign(list.shifts.begin(), list.shifts.begin() + 3 * used);
  candidates.vector.assign(list.vectors.begin(), list.vectors.begin() + 3 * used);
  ExtendedSystem ext = format_extended_system(positions, t.data(), nlocal, nullptr, candidates, config.sel);
  note_sel_overflow(ext, config, sel_overflow_evaluations);
  // every atom is its own owner: the caller folds ghost forces (LAMMPS reverse communication)
  ext.coord.assign(positions, positions + natoms * 3);
  ext.types = t;
  ext.mapping.resize(static_cast<size_t>(natoms));
  for (int64_t i = 0; i < natoms; ++i) ext.mapping[i] = i;
  ext.nall = natoms;
  ext.nowners = natoms;
  NoGradGuard outer;
  DeepPotOutput out = evaluate(ext, forces != nullptr, false);
  if (energy) *energy = on_host(out.energy.detach()).data<double>()[0];
  if (forces) {
    Tensor f = on_host(out.force.detach());
    std::copy(f.data<double>(), f.data<double>() + natoms * 3, forces);
  }
}

std::string DeepPot::describe() const {
  std::ostringstream os;
  os << "deeppot se_e2_a rcut=" << config.rcut << " rcut_smth=" << config.rcut_smth << " sel=[";
  for (size_t k = 0; k < config.sel.size(); ++k) os << (k ? "," : "") << config.sel[k];
  os << "] neuron=[";
  for (size_t k = 0; k < config.neuron.size(); ++k) os << (k ? "," : "") << config.neuron[k];
  os << "] axis_neuron=" << config.axis_neuron << " fitting=[";
  for (size_t k = 0; k < config.fitting_neuron.size(); ++k) os << (k ? "," : "") << config.fitting_neuron[k];
  os << "]";
  return os.str();
}

}  // namespace sampan::deepmd
