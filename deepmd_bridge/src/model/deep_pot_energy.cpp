// DeepPot::energy: the se_e2_a energy of (positions, types, box) with every step an op (see
// deep_pot.h), for tracing into a graph (sp.jit.trace, jit::Tracer) that replays at any atom
// count. The same arithmetic as DeepPot::atomic_energy without its data-dependent shortcuts
// (row compaction, per-type row selection): a centre's net outputs are the same numbers, and a
// 0/1 type mask selects them exactly (x * 1 + y * 0 = x for finite y).
#include "sampan/deepmd/deep_pot.h"
#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/ops.h"

namespace sampan::deepmd {

Tensor DeepPot::energy(const Tensor& positions, const Tensor& types, const Tensor& box) const {
  static OpHandle extended_op("deepmd::extended_system");
  static OpHandle env_mat_op("deepmd::prod_env_mat_a");
  SAMPAN_CHECK(positions.dtype() == DType::Float64 && positions.dim() == 2 && positions.size(1) == 3, ValueError,
               "DeepPot::energy: positions must be float64 [N, 3], got ", dtype_name(positions.dtype()), " ",
               shape_str(positions.shape()));
  const int64_t nt = config.ntypes(), nnei = config.nnei(), M = config.neuron.back(), M2 = config.axis_neuron;
  auto ext = extended_op(positions, types, box, config.rcut, config.sel);
  const Tensor& mapping = ext[0];
  const Tensor& images = ext[1];
  const Tensor& nlist = ext[2];
  Tensor coord = add(index_select(positions, 0, mapping), matmul(images, box));  // [nall, 3]
  Tensor atype = index_select(types, 0, mapping);
  Tensor em = env_mat_op(coord, atype, nlist, davg, dstd, config.rcut, config.rcut_smth)[0];  // [N, nnei*4]
  Tensor em3 = reshape(em, {-1, nnei, 4});
  std::vector<Tensor> is_type(static_cast<size_t>(nt));  // [N] float64: 1 where the centre has type t
  for (int64_t t = 0; t < nt; ++t) is_type[t] = cast(eq(types, scalar_tensor(static_cast<double>(t), DType::Int64)), DType::Float64);

  Tensor gr;  // sum over neighbour-type blocks of em^T G: [N, 4, M]
  int64_t start = 0;
  for (int64_t tj = 0; tj < nt; ++tj) {
    const int64_t n = config.sel[tj];
    if (n == 0) continue;
    Tensor block = slice(em3, 1, start, start + n);  // [N, n, 4]
    start += n;
    Tensor s = reshape(slice(block, 2, 0, 1), {-1, 1});
    Tensor G;
    if (config.type_one_side) {
      G = reshape(embed(static_cast<size_t>(tj), s), {-1, n, M});
    } else {
      for (int64_t ti = 0; ti < nt; ++ti) {
        Tensor g = mul(reshape(embed(static_cast<size_t>(ti * nt + tj), s), {-1, n, M}), reshape(is_type[ti], {-1, 1, 1}));
        G = G.defined() ? add(G, g) : g;
      }
    }
    Tensor term = matmul(transpose(block, 1, 2), G);  // [N, 4, M]
    gr = gr.defined() ? add(gr, term) : term;
  }
  gr = div(gr, scalar_tensor(static_cast<double>(nnei)));
  Tensor gr_axis = slice(gr, 2, 0, M2);
  Tensor D = reshape(matmul(transpose(gr, 1, 2), gr_axis), {-1, M * M2});  // [N, M * M2]

  Tensor atom_energy;
  for (int64_t ti = 0; ti < nt; ++ti) {
    Tensor e = reshape(fittings[ti].forward(D), {-1});
    e = add(e, add(select(bias_atom_e, 0, ti), select(out_bias, 0, ti)));
    e = mul(e, is_type[ti]);
    atom_energy = atom_energy.defined() ? add(atom_energy, e) : e;
  }
  return sum(atom_energy);
}

}  // namespace sampan::deepmd
