// sampan: check_op, the generic op test. Gradients are compared against central finite
// differences of a random real projection of the outputs, L = sum_o Re(sum(w_o * out_o)); for a
// complex input the expected gradient is dL/dRe + i dL/dIm (PyTorch's convention).
#include "sampan/testing/check_op.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>

#include "sampan/autograd.h"
#include "sampan/cuda.h"
#include "sampan/ops.h"
#include "../op/validate_args.h"

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

// Every tensor in an argument list with the index of its argument, in slot order.
std::vector<std::pair<size_t, Tensor*>> tensor_args(Values& args) {
  std::vector<std::pair<size_t, Tensor*>> s;
  for (size_t i = 0; i < args.size(); ++i) {
    if (auto* t = std::get_if<Tensor>(&args[i])) s.emplace_back(i, t);
    else if (auto* l = std::get_if<std::vector<Tensor>>(&args[i]))
      for (auto& t : *l) s.emplace_back(i, &t);
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

// The shape function against the kernel. The CPU kernel runs directly (not through call_op,
// which refuses a kernel that contradicts the shape function before check_op could say which
// check failed) on outputs allocated from the shape function's specs as call_op allocates them,
// filled with a byte pattern; twice, with two patterns. A kernel that replaced an output with
// one of another shape or dtype contradicts the shape function, and so does one that left
// elements as allocated (both runs still hold their pattern there): the shape function promised
// more than the kernel makes. Bad arguments or a raising kernel are left to the call_op that
// follows, which reports them. Returns false when it reported a failure.
bool check_shapes(const OpSchema& op, const std::function<Values()>& fresh, CheckOpReport& rep) {
  auto kernel = op.kernels.find(DeviceType::CPU);
  if (kernel == op.kernels.end()) return true;
  const size_t n_out = op.output_names.size();
  const unsigned char patterns[2] = {0xA5, 0x5A};
  std::vector<Tensor> runs[2];
  for (int run = 0; run < 2; ++run) {
    Values args = fresh();
    std::vector<TensorSpec> specs;
    std::vector<Tensor>& outs = runs[run];
    outs.assign(n_out, Tensor());
    try {
      detail::validate_op_args(op, args);
      for (Tensor* t : tensor_slots(args))
        if (!t->device().is_cpu()) return true;  // call_op checks other devices' outputs itself
      specs = op.shape_fn(args);
      if (specs.size() != n_out) return true;
      for (size_t o = 0; o < n_out; ++o) {
        const int in = op.inplace_input(static_cast<int>(o));
        bool unknown = false;
        for (auto d : specs[o].shape) unknown = unknown || d < 0;
        if (in >= 0) {
          outs[o] = std::get<Tensor>(args[static_cast<size_t>(in)]);
        } else if (!op.is_view_output(static_cast<int>(o)) && !unknown) {
          if (!specs[o].device.is_cpu()) return true;
          outs[o] = Tensor::empty(specs[o].shape, specs[o].dtype);
          if (outs[o].nbytes()) std::memset(outs[o].raw_data(), patterns[run], outs[o].nbytes());
        }
      }
      std::vector<Tensor> written = outs;
      NoGradGuard ng;
      kernel->second(args, written);
      for (size_t o = 0; o < n_out; ++o) {
        if (!written[o].defined()) return rep.ok;  // call_op names the missing output
        const Shape& want = specs[o].shape;
        const Shape& got = written[o].shape();
        bool ok = want.size() == got.size() && specs[o].dtype == written[o].dtype();
        for (size_t d = 0; ok && d < want.size(); ++d) ok = want[d] < 0 || want[d] == got[d];
        if (!ok) {
          rep.ok = false;
          rep.failures.push_back("shape function of '" + op.name + "' gives " + shape_str(want) + " " +
                                 dtype_name(specs[o].dtype) + " for output " + std::to_string(o) + " ('" +
                                 op.output_names[o] + "') but the kernel made " + shape_str(got) + " " +
                                 dtype_name(written[o].dtype()));
        }
        // Only an output the kernel wrote into (not one it replaced, nor an input) is compared.
        if (!(outs[o].defined() && written[o].is_same(outs[o]) && op.inplace_input(static_cast<int>(o)) < 0))
          outs[o] = Tensor();
      }
    } catch (const std::exception&) {
      return rep.ok;
    }
    if (!rep.ok) return false;
  }
  for (size_t o = 0; o < n_out; ++o) {
    const Tensor& a = runs[0][o];
    const Tensor& b = runs[1][o];
    if (!a.defined() || !b.defined() || a.nbytes() != b.nbytes()) continue;
    const size_t item = a.itemsize();
    const auto* pa = static_cast<const unsigned char*>(a.raw_data());
    const auto* pb = static_cast<const unsigned char*>(b.raw_data());
    int64_t unwritten = 0, first = -1;
    for (int64_t i = 0; i < a.numel(); ++i) {
      bool left = true;
      for (size_t k = 0; left && k < item; ++k)
        left = pa[i * item + k] == patterns[0] && pb[i * item + k] == patterns[1];
      if (left && unwritten++ == 0) first = i;
    }
    if (unwritten) {
      rep.ok = false;
      rep.failures.push_back("shape function of '" + op.name + "' gives " + shape_str(a.shape()) + " " +
                             dtype_name(a.dtype()) + " for output " + std::to_string(o) + " ('" +
                             op.output_names[o] + "') but the kernel wrote only " +
                             std::to_string(a.numel() - unwritten) + " of its " + std::to_string(a.numel()) +
                             " elements (element " + std::to_string(first) + " is left as allocated)");
    }
  }
  return rep.ok;
}

// A tensor argument that the op does not declare in-place must come out of the call unchanged:
// a kernel that writes it anyway leaves its version counter where it was, so a gradient saved
// from it before the write is silently wrong (call_op bumps the versions of declared ones).
void check_undeclared_writes(const OpSchema& op, Values& args, const std::vector<Tensor>& before,
                             CheckOpReport& rep) {
  size_t k = 0;
  for (auto& [i, t] : tensor_args(args)) {
    const Tensor& was = before[k++];
    bool declared = false;
    for (auto& [o, in] : op.inplace) declared = declared || in == static_cast<int>(i);
    if (declared || !t->device().is_cpu() || bitwise_equal(*t, was)) continue;
    rep.ok = false;
    rep.failures.push_back("in-place version bump: '" + op.name + "' wrote its argument '" + op.arg_names[i] +
                           "' without declaring it in-place (.inplace(output, input)), so its version counter "
                           "stayed at " + std::to_string(t->version()) +
                           " and a gradient saved from it before the write would be silently wrong");
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
    // an op without tensor inputs (rand, randn ...) is placed by its `device` attribute
    for (size_t i = 0; i < a.size() && i < op.arg_names.size(); ++i)
      if (op.arg_names[i] == "device" && std::holds_alternative<std::string>(a[i])) a[i] = gpu.str();
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

CheckOpReport check_op(const OpSchema& op, const Values& given_args, const CheckOpOptions& opt) {
  CheckOpReport rep;
  // Missing trailing arguments take their defaults (and ints become floats ...), as in call_op.
  Values sample_args = given_args;
  detail::validate_op_args(op, sample_args);
  // Inplace ops write their inputs: always work on copies of the caller's tensors.
  auto fresh = [&]() {
    Values a = sample_args;
    for (Tensor* t : tensor_slots(a)) *t = t->detach().clone();
    return a;
  };
  // The shape function first: an op whose kernel contradicts it is refused by call_op, so the
  // checks below could only report that refusal.
  if (!check_shapes(op, fresh, rep)) return rep;
  std::vector<Tensor> outs;
  try {
    Values a = fresh();
    std::vector<Tensor> before;  // the tensor arguments' values before the call
    for (auto& [i, t] : tensor_args(a)) before.push_back(t->clone());
    NoGradGuard ng;
    outs = call_op(op, a);
    check_undeclared_writes(op, a, before, rep);
    for (auto& [o, in] : op.inplace) {
      Values b = fresh();
      Tensor target = std::get<Tensor>(b[in]);
      const uint64_t version = target.version();
      auto r = call_op(op, b);
      const std::string what = "in-place version bump: output " + std::to_string(o) + " ('" +
                               op.output_names[o] + "') of '" + op.name + "'";
      if (!r[o].is_same(target)) {
        rep.ok = false;
        rep.failures.push_back(what + " is not its input '" + op.arg_names[in] +
                               "' (the kernel replaced it), so the input was neither written nor its version bumped");
      } else if (target.version() != version + 1) {
        rep.ok = false;
        rep.failures.push_back(what + " moved the version counter of '" + op.arg_names[in] + "' from " +
                               std::to_string(version) + " to " + std::to_string(target.version()) +
                               " (one write, one bump)");
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
        rep.failures.push_back("determinism: '" + op.name + "' gave different bits in two runs on the same arguments (output " +
                               std::to_string(o) + " ('" + op.output_names[o] + "'))");
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
      check_cuda(op, fresh(), outs, opt.determinism && opt.cuda_deterministic && op.cuda_deterministic, rep);
  }
  return rep;
}

CheckOpReport check_op(const OpSchema& op, const CheckOpOptions& opt) {
  CheckOpReport rep;
  std::vector<Values> all;
  for (const SampleFn& make : op.samples)
    for (Values& v : make()) all.push_back(std::move(v));
  if (all.empty()) {
    rep.ok = false;
    rep.failures.push_back("samples: op '" + op.name + "' declares no sample arguments; add .sample(...) to its SAMPAN_OP");
    return rep;
  }
  for (size_t k = 0; k < all.size(); ++k) {
    CheckOpReport one;
    try {
      one = check_op(op, all[k], opt);
    } catch (const std::exception& e) {
      one.ok = false;
      one.failures.push_back(std::string("raised: ") + e.what());
    }
    const std::string tag = all.size() > 1 ? "sample " + std::to_string(k + 1) + " of " + std::to_string(all.size()) + ": " : "";
    rep.ok = rep.ok && one.ok;
    for (auto& f : one.failures) rep.failures.push_back(tag + f);
    for (auto& n : one.notes)
      if (std::find(rep.notes.begin(), rep.notes.end(), n) == rep.notes.end()) rep.notes.push_back(n);
  }
  return rep;
}

}  // namespace sampan
