// sampan: check_op, the generic op test. Gradients are compared against central finite
// differences of a random real projection of the outputs, L = sum_o Re(sum(w_o * out_o)); for a
// complex input the expected gradient is dL/dRe + i dL/dIm (PyTorch's convention).
#include "sampan/testing/check_op.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

#include "sampan/autograd.h"
#include "sampan/cuda.h"
#include "sampan/ops.h"

namespace sampan {

std::string CheckOpReport::summary() const {
  std::ostringstream os;
  os << (ok ? "check_op passed" : "check_op FAILED");
  for (auto& f : failures) os << "\n  FAIL " << f;
  for (auto& n : notes) os << "\n  note " << n;
  return os.str();
}

namespace {

// Pointers to every tensor in an argument list, in slot order.
std::vector<Tensor*> tensor_slots(Values& args) {
  std::vector<Tensor*> s;
  for (auto& v : args) {
    if (auto* t = std::get_if<Tensor>(&v)) s.push_back(t);
    else if (auto* l = std::get_if<std::vector<Tensor>>(&v))
      for (auto& t : *l) s.push_back(&t);
  }
  return s;
}

// A contiguous float64/complex128 copy of a tensor, as doubles (complex: interleaved re, im).
std::vector<double> to_doubles(const Tensor& t) {
  bool cplx = is_complex(t.dtype());
  Tensor c = cast(t.detach(), cplx ? DType::Complex128 : DType::Float64).contiguous();
  size_t n = static_cast<size_t>(c.numel()) * (cplx ? 2 : 1);
  std::vector<double> v(n);
  if (n) std::memcpy(v.data(), c.raw_data(), n * sizeof(double));
  return v;
}

Tensor random_like(const Tensor& t, std::mt19937_64& rng) {
  std::normal_distribution<double> nd;
  bool cplx = is_complex(t.dtype());
  Tensor r = Tensor::empty(t.shape(), cplx ? DType::Complex128 : DType::Float64);
  size_t n = static_cast<size_t>(r.numel()) * (cplx ? 2 : 1);
  double* p = static_cast<double*>(r.raw_data());
  for (size_t i = 0; i < n; ++i) p[i] = nd(rng);
  return r.to(t.dtype());
}

// L = sum_o Re(sum(w_o * out_o)) over differentiable outputs, built with ops.
Tensor projection(const std::vector<Tensor>& outs, const std::vector<Tensor>& w) {
  Tensor total;
  for (size_t o = 0; o < outs.size(); ++o) {
    if (!w[o].defined()) continue;
    Tensor term = real(sum(mul(outs[o], w[o])));
    total = total.defined() ? add(total, term) : term;
  }
  return total;
}

double value_of(const Tensor& t) { return t.defined() ? t.item() : 0.0; }

bool close(double a, double n, const CheckOpOptions& o) {
  return std::abs(a - n) <= o.atol + o.rtol * std::abs(n);
}

std::string fmt(double v) {
  std::ostringstream os;
  os.precision(10);
  os << v;
  return os.str();
}

struct GradProblem {
  const OpSchema* op;
  Values args;                 // with differentiable slots replaced by float64 leaves
  std::vector<size_t> slots;   // indices (into tensor_slots) of the differentiable inputs
  std::vector<Tensor> weights; // per output
};

// Analytic gradient of the projection w.r.t. the differentiable slots (undefined = zero).
std::vector<Tensor> analytic_grad(const GradProblem& p, Values args, bool create_graph) {
  auto sl = tensor_slots(args);
  std::vector<Tensor> leaves;
  for (size_t s : p.slots) {
    *sl[s] = sl[s]->detach().requires_grad_();
    leaves.push_back(*sl[s]);
  }
  auto outs = call_op(*p.op, args);
  Tensor L = projection(outs, p.weights);
  if (!L.defined() || !L.requires_grad()) return std::vector<Tensor>(leaves.size());
  return grad({L}, leaves, {}, create_graph, create_graph, /*allow_unused=*/true);
}

// Runs `f(args)` -> scalar at args with slot `k` perturbed at element `i` by `delta` (imag if `imag`).
template <class F>
double perturbed(const GradProblem& p, size_t k, int64_t i, bool imag, double delta, F f) {
  Values args = p.args;
  auto sl = tensor_slots(args);
  Tensor& t = *sl[p.slots[k]];
  Tensor c = t.detach().clone();
  if (is_complex(c.dtype())) {
    auto* d = c.data<complex128>();
    d[i] += imag ? complex128(0, delta) : complex128(delta, 0);
  } else {
    c.data<double>()[i] += delta;
  }
  t = c;
  NoGradGuard ng;
  return f(args);
}

// Compares analytic gradients against central differences of `f`.
template <class F>
void compare_fd(const GradProblem& p, const std::vector<Tensor>& analytic, F f, const char* what,
                const CheckOpOptions& opt, CheckOpReport& rep) {
  for (size_t k = 0; k < p.slots.size(); ++k) {
    Values a = p.args;
    Tensor in = *tensor_slots(a)[p.slots[k]];
    bool cplx = is_complex(in.dtype());
    std::vector<double> an = analytic[k].defined() ? to_doubles(analytic[k])
                                                   : std::vector<double>(static_cast<size_t>(in.numel()) * (cplx ? 2 : 1), 0.0);
    int reported = 0;
    for (int64_t i = 0; i < in.numel(); ++i) {
      for (int part = 0; part < (cplx ? 2 : 1); ++part) {
        double num = (perturbed(p, k, i, part == 1, opt.eps, f) - perturbed(p, k, i, part == 1, -opt.eps, f)) / (2 * opt.eps);
        double got = an[static_cast<size_t>(i) * (cplx ? 2 : 1) + part];
        if (!close(got, num, opt) && reported++ < 3) {
          rep.ok = false;
          rep.failures.push_back(std::string(what) + " of '" + p.op->name + "' w.r.t. tensor argument " +
                                 std::to_string(p.slots[k]) + ", element " + std::to_string(i) +
                                 (cplx ? (part ? " (imag)" : " (real)") : "") + ": analytic " + fmt(got) +
                                 ", finite difference " + fmt(num));
        }
      }
    }
  }
}

void check_gradients(const OpSchema& op, const Values& sample, const CheckOpOptions& opt,
                     CheckOpReport& rep) {
  GradProblem p{&op, sample, {}, {}};
  auto sl = tensor_slots(p.args);
  for (size_t s = 0; s < sl.size(); ++s) {
    if (!is_differentiable(sl[s]->dtype())) continue;
    DType hi = is_complex(sl[s]->dtype()) ? DType::Complex128 : DType::Float64;
    *sl[s] = cast(sl[s]->detach(), hi).contiguous().clone();
    p.slots.push_back(s);
  }
  if (p.slots.empty()) {
    rep.notes.push_back("no floating-point tensor argument: gradient checks skipped");
    return;
  }
  std::mt19937_64 rng(opt.seed);
  std::vector<Tensor> outs;
  {
    NoGradGuard ng;
    outs = call_op(op, p.args);
  }
  for (auto& o : outs) p.weights.push_back(is_differentiable(o.dtype()) ? random_like(o, rng) : Tensor());

  auto L_of = [&](const Values& args) {
    auto o = call_op(op, args);
    return value_of(projection(o, p.weights));
  };
  std::vector<Tensor> g1;
  try {
    g1 = analytic_grad(p, p.args, false);
  } catch (const std::exception& e) {
    rep.ok = false;
    rep.failures.push_back("first-order gradient of '" + op.name + "' raised: " + e.what());
    return;
  }
  compare_fd(p, g1, L_of, "first-order gradient", opt, rep);

  if (!opt.second_order) return;
  // M = sum_k Re(sum(v_k * grad_k)); its gradient is a Hessian-vector product.
  std::vector<Tensor> v;
  for (size_t k = 0; k < p.slots.size(); ++k) v.push_back(random_like(*sl[p.slots[k]], rng));
  auto M_of_grads = [&](const std::vector<Tensor>& g) {
    Tensor total;
    for (size_t k = 0; k < g.size(); ++k) {
      if (!g[k].defined()) continue;
      Tensor t = real(sum(mul(g[k], v[k])));
      total = total.defined() ? add(total, t) : t;
    }
    return total;
  };
  // Hessian-vector product by double backward through the op.
  auto second_order = [&]() {
    Values args = p.args;
    auto s2 = tensor_slots(args);
    std::vector<Tensor> leaves;
    for (size_t s : p.slots) {
      *s2[s] = s2[s]->detach().requires_grad_();
      leaves.push_back(*s2[s]);
    }
    Tensor L = projection(call_op(op, args), p.weights);
    auto gg = grad({L}, leaves, {}, true, true, true);
    Tensor M = M_of_grads(gg);
    return (M.defined() && M.requires_grad()) ? grad({M}, leaves, {}, false, false, true)
                                              : std::vector<Tensor>(leaves.size());
  };
  if (op.once_differentiable) {
    try {
      second_order();
      rep.notes.push_back("once-differentiable, but no second derivative reached it (gradient independent of inputs)");
    } catch (const RuntimeError&) {
      rep.notes.push_back("once-differentiable: a second derivative raised as declared");
    }
    return;
  }
  std::vector<Tensor> g2;
  try {
    g2 = second_order();
  } catch (const std::exception& e) {
    rep.ok = false;
    rep.failures.push_back("second-order gradient of '" + op.name + "' raised: " + e.what());
    return;
  }
  auto M_of = [&](const Values& args) {
    EnableGradGuard eg(true);
    auto g = analytic_grad(p, args, false);
    NoGradGuard ng;
    return value_of(M_of_grads(g));
  };
  compare_fd(p, g2, M_of, "second-order gradient", opt, rep);
}

bool bitwise_equal(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  Tensor ca = a.detach().contiguous(), cb = b.detach().contiguous();
  return ca.nbytes() == 0 || std::memcmp(ca.raw_data(), cb.raw_data(), ca.nbytes()) == 0;
}

void check_shapes(const OpSchema& op, const Values& args, const std::vector<Tensor>& outs, CheckOpReport& rep) {
  auto specs = infer_op(op, args);
  for (size_t o = 0; o < outs.size(); ++o) {
    const Shape& want = specs[o].shape;
    bool ok = want.size() == outs[o].shape().size() && specs[o].dtype == outs[o].dtype();
    for (size_t d = 0; ok && d < want.size(); ++d) ok = want[d] < 0 || want[d] == outs[o].shape()[d];
    if (!ok) {
      rep.ok = false;
      rep.failures.push_back("shape function of '" + op.name + "' gives " + shape_str(want) + " " +
                             dtype_name(specs[o].dtype) + " for output " + std::to_string(o) + " but the kernel made " +
                             shape_str(outs[o].shape()) + " " + dtype_name(outs[o].dtype()));
    }
  }
}

void check_dtype_sweep(const OpSchema& op, const Values& sample, const std::vector<Tensor>& ref,
                       CheckOpReport& rep) {
  for (DType d : op.dtypes) {
    Values args = sample;
    // Every run gets its own copies: an in-place op must not see the previous run's writes.
    for (Tensor* t : tensor_slots(args))
      if (is_differentiable(t->dtype()) && is_differentiable(d) && is_complex(t->dtype()) == is_complex(d))
        *t = cast(t->detach(), d);
      else
        *t = t->detach().clone();
    std::vector<Tensor> outs;
    try {
      NoGradGuard ng;
      outs = call_op(op, args);
    } catch (const std::exception& e) {
      rep.ok = false;
      rep.failures.push_back(std::string("dtype sweep: '") + op.name + "' declares " + dtype_name(d) + " but raised: " + e.what());
      continue;
    }
    double tol = (d == DType::Float16 || d == DType::BFloat16) ? 2e-2 : (d == DType::Float32 || d == DType::Complex64) ? 1e-4 : 1e-12;
    for (size_t o = 0; o < outs.size() && o < ref.size(); ++o) {
      if (!is_differentiable(ref[o].dtype()) && ref[o].dtype() != outs[o].dtype()) continue;
      auto a = to_doubles(outs[o]), b = to_doubles(ref[o]);
      if (a.size() != b.size()) continue;
      for (size_t i = 0; i < a.size(); ++i)
        if (std::abs(a[i] - b[i]) > tol * (1 + std::abs(b[i]))) {
          rep.ok = false;
          rep.failures.push_back(std::string("dtype sweep: '") + op.name + "' in " + dtype_name(d) + " output " +
                                 std::to_string(o) + " element " + std::to_string(i) + " is " + fmt(a[i]) +
                                 ", float64 gives " + fmt(b[i]));
          break;
        }
    }
  }
}

// CPU against CUDA: the sample arguments copied to cuda:0, the op run there (twice, for
// determinism), its outputs copied back and compared with the CPU's. The twins are written to give
// the CPU's bits (the same per-element functions, the CPU's order of every sum); where they do
// not, they must agree to `tol` relative (1e-5 for float32, 1e-12 for float64), and the note says so.
void check_cuda(const OpSchema& op, const Values& sample, const std::vector<Tensor>& cpu_outs, bool determinism,
                CheckOpReport& rep) {
  const Device gpu{DeviceType::CUDA, 0};
  auto on_gpu = [&] {
    Values a = sample;
    for (Tensor* t : tensor_slots(a)) *t = to_device(t->detach().contiguous(), gpu);
    return a;
  };
  auto run = [&](std::vector<Tensor>& outs) {
    try {
      NoGradGuard ng;
      outs = call_op(op, on_gpu());
      cuda::synchronize();
      return true;
    } catch (const std::exception& e) {
      rep.ok = false;
      rep.failures.push_back("CPU vs CUDA: '" + op.name + "' on cuda:0 raised: " + e.what());
      return false;
    }
  };
  std::vector<Tensor> outs;
  if (!run(outs)) return;
  bool identical = true;
  double worst = 0.0;
  for (size_t o = 0; o < outs.size() && o < cpu_outs.size(); ++o) {
    const std::string which = "CPU vs CUDA: '" + op.name + "' output " + std::to_string(o);
    if (!op.transfers_device && !outs[o].device().is_cuda()) {
      rep.ok = false;
      rep.failures.push_back(which + " is on " + outs[o].device().str() + ", not cuda:0");
      continue;
    }
    Tensor host = outs[o].to(cpu_device());
    if (host.shape() != cpu_outs[o].shape() || host.dtype() != cpu_outs[o].dtype()) {
      rep.ok = false;
      rep.failures.push_back(which + " is " + shape_str(host.shape()) + " " + dtype_name(host.dtype()) + ", the CPU's " +
                             shape_str(cpu_outs[o].shape()) + " " + dtype_name(cpu_outs[o].dtype()));
      continue;
    }
    if (bitwise_equal(host, cpu_outs[o])) continue;
    identical = false;
    const DType d = host.dtype();
    const double tol = (d == DType::Float32 || d == DType::Complex64) ? 1e-5 : (d == DType::Float64 || d == DType::Complex128) ? 1e-12 : 0.0;
    auto a = to_doubles(host), b = to_doubles(cpu_outs[o]);
    for (size_t i = 0; i < a.size(); ++i) {
      const double rel = std::abs(a[i] - b[i]) / (1.0 + std::abs(b[i]));
      worst = std::max(worst, rel);
      if (!(rel <= tol)) {
        rep.ok = false;
        rep.failures.push_back(which + " element " + std::to_string(i) + " is " + fmt(a[i]) + " on cuda:0 and " +
                               fmt(b[i]) + " on the CPU");
        break;
      }
    }
  }
  if (determinism) {
    std::vector<Tensor> again;
    if (!run(again)) return;
    for (size_t o = 0; o < outs.size() && o < again.size(); ++o)
      if (!bitwise_equal(outs[o].to(cpu_device()), again[o].to(cpu_device()))) {
        rep.ok = false;
        rep.failures.push_back("CPU vs CUDA: '" + op.name + "' is not deterministic on cuda:0: output " +
                               std::to_string(o) + " differs between two runs");
      }
  }
  rep.notes.push_back(identical ? std::string("CPU vs CUDA: identical bits")
                                : "CPU vs CUDA: within tolerance, not bitwise (largest relative difference " + fmt(worst) + ")");
}

}  // namespace

CheckOpReport check_op(const OpSchema& op, const Values& sample_args, const CheckOpOptions& opt) {
  CheckOpReport rep;
  // Inplace ops write their inputs: always work on copies of the caller's tensors.
  auto fresh = [&]() {
    Values a = sample_args;
    for (Tensor* t : tensor_slots(a)) *t = t->detach().clone();
    return a;
  };
  std::vector<Tensor> outs;
  try {
    Values a = fresh();
    NoGradGuard ng;
    outs = call_op(op, a);
    check_shapes(op, fresh(), outs, rep);
    for (auto& [o, in] : op.inplace) {
      Values b = fresh();
      Tensor target = std::get<Tensor>(b[in]);
      uint64_t before = target.version();
      auto r = call_op(op, b);
      if (!r[o].is_same(target) || target.version() != before + 1) {
        rep.ok = false;
        rep.failures.push_back("in-place output " + std::to_string(o) + " of '" + op.name +
                               "' is not its input or did not bump the version counter by one");
      }
    }
  } catch (const std::exception& e) {
    rep.ok = false;
    rep.failures.push_back(std::string("calling '") + op.name + "' with the sample arguments raised: " + e.what());
    return rep;
  }
  if (opt.determinism && op.inplace.empty()) {
    NoGradGuard ng;
    auto again = call_op(op, fresh());
    for (size_t o = 0; o < outs.size(); ++o)
      if (!bitwise_equal(outs[o], again[o])) {
        rep.ok = false;
        rep.failures.push_back("'" + op.name + "' is not deterministic: output " + std::to_string(o) + " differs between two runs");
      }
  }
  if (opt.gradients && !op.nondifferentiable) {
    if (op.inplace.empty()) check_gradients(op, fresh(), opt, rep);
    else rep.notes.push_back("in-place op: gradients are checked through its out-of-place form");
  }
  if (opt.dtype_sweep && !op.dtypes.empty()) check_dtype_sweep(op, fresh(), outs, rep);
  if (opt.cuda) {
    if (!op.kernels.count(DeviceType::CUDA))
      rep.notes.push_back("CPU vs CUDA: op has no CUDA kernel");
    else if (!cuda::is_available())
      rep.notes.push_back("CPU vs CUDA: no GPU in this process, skipped");
    else
      check_cuda(op, fresh(), outs, opt.determinism && opt.cuda_deterministic, rep);
  }
  return rep;
}

}  // namespace sampan
