// sampan: the one way to declare an operator. Built-in ops, domain-module ops and users' ops
// all use it. Light on purpose: no Eigen, no pybind11.
//
//   SAMPAN_OP(md, lj_energy)
//       .doc("Lennard-Jones energy over a neighbour list.")
//       .args("pos", "pairs", "box", "eps", "sigma", "rcut")
//       .outputs("energy")
//       .shape([](const TensorSpec& pos, const TensorSpec&, const TensorSpec&, double, double, double) {
//         return TensorSpec{{}, pos.dtype, pos.device}; })
//       .cpu(lj_energy_cpu)   // void(const Tensor&, const Tensor&, const Tensor&, double, double, double, Tensor& energy)
//       .vjp([](const VjpContext& c) -> Grads { ... })
//       .defaults({{"rcut", 2.5}})                      // trailing arguments may have defaults
//       .sample([] { return Values{pos, pairs, box, 1.0, 1.0, 2.5}; });  // what check_op runs
//
// The declaration is the one source of what is known about the op: its Python function's
// signature and defaults, its docstring, the devices it runs on (its kernels), and the sample
// arguments with which the registry audit (check_op) tests it.
//
// Argument kinds come from the kernel's C++ signature: `const Tensor&` is a tensor input,
// `const std::optional<Tensor>&` an optional one, `const std::vector<Tensor>&` a list; bool,
// int64_t, double, std::string and std::vector<int64_t|double|std::string> are attributes. The
// kernel's trailing `Tensor&` parameters are its outputs: pre-allocated by the op layer when the
// shape function gives a full shape, left undefined (for the kernel to assign) when a dimension
// is -1 or the output is declared a view.
#pragma once

#include <array>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "sampan/tensor.h"

#ifndef SAMPAN_ABI_VERSION
#define SAMPAN_ABI_VERSION 3  // 2: OpSchema::amp; 3: vjp_keeps_*, output_reuses, VjpContext::take_grad_output
#endif

namespace sampan {

/// Shape, dtype and device of a tensor without its data: what shape functions see.
struct TensorSpec {
  Shape shape;
  DType dtype = DType::Float32;
  Device device;
  TensorSpec() = default;
  TensorSpec(Shape s, DType d, Device dev = {}) : shape(std::move(s)), dtype(d), device(dev) {}
  explicit TensorSpec(const Tensor& t) : shape(t.shape()), dtype(t.dtype()), device(t.device()) {}
  int64_t dim() const { return static_cast<int64_t>(shape.size()); }
};

/// What an argument slot holds.
enum class ArgKind : uint8_t {
  Tensor, OptionalTensor, TensorList,
  Bool, Int, Float, String, IntList, FloatList, StringList,
};
const char* arg_kind_name(ArgKind k);
inline bool is_tensor_kind(ArgKind k) { return k <= ArgKind::TensorList; }

/// One argument of an op call.
using Value = std::variant<std::monostate, Tensor, std::vector<Tensor>, bool, int64_t, double,
                           std::string, std::vector<int64_t>, std::vector<double>,
                           std::vector<std::string>>;
using Values = std::vector<Value>;

/// Gradients, one per tensor slot in argument order (a tensor list contributes one per element);
/// an undefined Tensor means "no gradient".
using Grads = std::vector<Tensor>;

class OpSchema;

/// How autocast (sampan/amp.h) casts an op's floating tensor arguments: Keep (no cast, the
/// default), LowPrecision (float32 to the scope's float16/bfloat16) or Float32 (float16/bfloat16
/// to float32).
enum class AmpCast : uint8_t { Keep, LowPrecision, Float32 };
const char* amp_cast_name(AmpCast c);

/// What a vjp sees: the call's arguments, outputs and output gradients.
class VjpContext {
 public:
  virtual ~VjpContext() = default;
  /// Tensor argument at argument position `i` (undefined for an absent optional).
  virtual Tensor input(size_t i) const = 0;
  /// Tensor-list argument at position `i`.
  virtual std::vector<Tensor> inputs(size_t i) const = 0;
  /// Output `i` of the forward call, connected to the graph so vjps stay differentiable.
  virtual Tensor output(size_t i) const = 0;
  /// Gradient of output `i` (zeros when that output did not reach the loss).
  virtual Tensor grad_output(size_t i) const = 0;
  /// The same gradient, handed over: the context lets go of it, so an op it is moved into
  /// (`op(std::move(g))`, or an OpHandle given the result directly) may write its output over
  /// the buffer (.output_may_reuse). grad_output(i) afterwards raises.
  virtual Tensor take_grad_output(size_t i) const = 0;
  /// Whether tensor slot `i` needs a gradient (skip work when not).
  virtual bool needs_grad(size_t slot) const = 0;
  virtual const Value& arg(size_t i) const = 0;
  virtual const OpSchema& schema() const = 0;
  template <class T> const T& attr(size_t i) const { return std::get<T>(arg(i)); }
};

namespace detail {
// C++ values as op arguments (what OpHandle passes and .defaults() stores).
inline Value to_value(const Tensor& t) { return t; }
inline Value to_value(Tensor&& t) { return Value(std::move(t)); }  // the call may hold the only handle
inline Value to_value(const std::optional<Tensor>& t) { return t ? Value(*t) : Value(); }
inline Value to_value(std::nullopt_t) { return Value(); }
inline Value to_value(const std::vector<Tensor>& t) { return t; }
inline Value to_value(bool b) { return b; }
inline Value to_value(int v) { return static_cast<int64_t>(v); }
inline Value to_value(int64_t v) { return v; }
inline Value to_value(double v) { return v; }
inline Value to_value(float v) { return static_cast<double>(v); }
inline Value to_value(const char* s) { return std::string(s); }
inline Value to_value(const std::string& s) { return s; }
inline Value to_value(const std::vector<int64_t>& v) { return v; }
inline Value to_value(const std::vector<double>& v) { return v; }
inline Value to_value(const std::vector<std::string>& v) { return v; }
}  // namespace detail

/// One declared default: an argument name and its value, `{"keepdim", false}`.
struct ArgDefault {
  std::string name;
  Value value;
  template <class T> ArgDefault(std::string n, const T& v) : name(std::move(n)), value(detail::to_value(v)) {}
};

/// Makes one or more sample argument lists for check_op (called only when the op is tested, so
/// declaring samples costs nothing at load time).
using SampleFn = std::function<std::vector<Values>()>;

using ShapeFn = std::function<std::vector<TensorSpec>(const Values&)>;
using KernelFn = std::function<void(const Values&, std::vector<Tensor>&)>;
using VjpFn = std::function<Grads(const VjpContext&)>;

/// Everything known about an op: the data from which its Python function, docstring, graph
/// record and generic test are derived.
class OpSchema {
 public:
  std::string name;        // "ns::name"
  std::string doc;
  std::string library;     // which library registered it ("sampan" for built-ins)
  std::vector<std::string> arg_names;
  std::vector<ArgKind> arg_kinds;
  std::vector<std::string> output_names;
  ShapeFn shape_fn;
  std::map<DeviceType, KernelFn> kernels;
  VjpFn vjp;
  bool once_differentiable = false;   // vjp runs without recording; a second derivative fails
  bool nondifferentiable = false;     // outputs never carry gradients (comparisons, argmax ...)
  std::vector<std::pair<int, int>> inplace;  // (output, input): output reuses the input tensor
  std::vector<int> views;             // outputs the kernel returns as views of an input
  std::vector<DType> dtypes;          // dtypes the op supports; check_op sweeps them
  bool transfers_device = false;      // outputs go to the device the shape function names
  bool cuda_deterministic = true;     // false: the CUDA kernel sums with atomics (bits vary run to run)
  bool cuda_bitwise = true;           // false: the CUDA kernel gives the CPU's values to rounding, not its bits
  AmpCast amp = AmpCast::Keep;        // what autocast does to its floating arguments (sampan/amp.h)
  // What the tape keeps for the vjp (.saves_for_vjp), per argument and per output: true keeps the
  // tensor's data, false only its shape, dtype and device. Empty: everything is kept (the default).
  std::vector<bool> vjp_keeps_arg, vjp_keeps_output;
  // Inputs whose buffer output 0 may take (.output_may_reuse), by argument index.
  std::vector<int> output_reuses;
  // Per argument, its default (std::nullopt: none); filled by the registry from .defaults() and
  // None for optional tensors, trailing only. call_op and the Python functions fill missing
  // trailing arguments from it.
  std::vector<std::optional<Value>> defaults;
  std::vector<SampleFn> samples;      // check_op's sample arguments (.sample / .samples)
  int abi_version = SAMPAN_ABI_VERSION;

  std::string ns() const { return name.substr(0, name.find("::")); }
  std::string short_name() const { return name.substr(name.find("::") + 2); }
  /// Input index reused by output `o`, or -1.
  int inplace_input(int o) const {
    for (auto& p : inplace) if (p.first == o) return p.second;
    return -1;
  }
  bool is_view_output(int o) const {
    for (int v : views) if (v == o) return true;
    return false;
  }
  bool has_kernel(DeviceType d) const { return kernels.count(d) != 0; }
  bool keeps_arg_for_vjp(size_t i) const { return vjp_keeps_arg.empty() || vjp_keeps_arg[i]; }
  bool keeps_output_for_vjp(size_t o) const { return vjp_keeps_output.empty() || vjp_keeps_output[o]; }
  /// "add(x: Tensor, y: Tensor) -> out" for docstrings and errors.
  std::string signature() const;
};

// ------------------------------------------------------------------------------------------
// Calling ops
// ------------------------------------------------------------------------------------------

/// A value as Python would write it (True, 1e-05, 'float32', [0, 1], None): for signatures.
std::string value_repr(const Value& v);

/// Looks an op up by "ns::name"; throws ValueError listing near names when absent.
const OpSchema& find_op(const std::string& name);
/// nullptr when absent.
const OpSchema* find_op_if(const std::string& name);
/// All registered op names, sorted.
std::vector<std::string> registered_ops();

/// Runs an op: validates, infers shapes, allocates, dispatches to the device kernel, records
/// autograd. The single entry point used by C++, Python and replayed graphs.
std::vector<Tensor> call_op(const OpSchema& op, Values args);
inline std::vector<Tensor> call_op(const std::string& name, Values args) {
  return call_op(find_op(name), std::move(args));
}
/// Runs only the shape function (no data is touched).
std::vector<TensorSpec> infer_op(const OpSchema& op, const Values& args);

/// A cached handle for calling one op from C++ with ordinary arguments: `static OpHandle add("core::add"); add(x, y)`.
class OpHandle {
 public:
  explicit OpHandle(std::string name) : name_(std::move(name)) {}
  template <class... A> std::vector<Tensor> operator()(A&&... a) const {
    Values v;
    v.reserve(sizeof...(A));
    (v.emplace_back(to_value(std::forward<A>(a))), ...);
    return call_op(schema(), std::move(v));
  }
  const OpSchema& schema() const {
    if (!op_) op_ = &find_op(name_);
    return *op_;
  }

 private:
  template <class T> static Value to_value(T&& a) { return detail::to_value(std::forward<T>(a)); }
  std::string name_;
  mutable const OpSchema* op_ = nullptr;
};

// ------------------------------------------------------------------------------------------
// Declaring ops: signature introspection
// ------------------------------------------------------------------------------------------
namespace detail {

template <class T> struct arg_traits { static constexpr bool is_arg = false; };
#define SAMPAN_ARG_TRAIT(CppType, Kind)                                        \
  template <> struct arg_traits<CppType> {                                     \
    static constexpr bool is_arg = true;                                       \
    static constexpr ArgKind kind = ArgKind::Kind;                             \
    static const CppType& get(const Value& v) { return std::get<CppType>(v); } \
  };
SAMPAN_ARG_TRAIT(Tensor, Tensor)
SAMPAN_ARG_TRAIT(std::vector<Tensor>, TensorList)
SAMPAN_ARG_TRAIT(bool, Bool)
SAMPAN_ARG_TRAIT(int64_t, Int)
SAMPAN_ARG_TRAIT(double, Float)
SAMPAN_ARG_TRAIT(std::string, String)
SAMPAN_ARG_TRAIT(std::vector<int64_t>, IntList)
SAMPAN_ARG_TRAIT(std::vector<double>, FloatList)
SAMPAN_ARG_TRAIT(std::vector<std::string>, StringList)
#undef SAMPAN_ARG_TRAIT
template <> struct arg_traits<std::optional<Tensor>> {
  static constexpr bool is_arg = true;
  static constexpr ArgKind kind = ArgKind::OptionalTensor;
  static std::optional<Tensor> get(const Value& v) {
    if (auto* t = std::get_if<Tensor>(&v)) return *t;
    return std::nullopt;
  }
};

// What shape functions receive in place of tensors.
template <class T> struct spec_traits : arg_traits<T> {};
template <> struct spec_traits<TensorSpec> {
  static constexpr bool is_arg = true;
  static constexpr ArgKind kind = ArgKind::Tensor;
  static TensorSpec get(const Value& v) { return TensorSpec(std::get<Tensor>(v)); }
};
template <> struct spec_traits<std::optional<TensorSpec>> {
  static constexpr bool is_arg = true;
  static constexpr ArgKind kind = ArgKind::OptionalTensor;
  static std::optional<TensorSpec> get(const Value& v) {
    if (auto* t = std::get_if<Tensor>(&v)) return TensorSpec(*t);
    return std::nullopt;
  }
};
template <> struct spec_traits<std::vector<TensorSpec>> {
  static constexpr bool is_arg = true;
  static constexpr ArgKind kind = ArgKind::TensorList;
  static std::vector<TensorSpec> get(const Value& v) {
    std::vector<TensorSpec> r;
    for (auto& t : std::get<std::vector<Tensor>>(v)) r.emplace_back(t);
    return r;
  }
};

template <class T> using bare_t = std::remove_cv_t<std::remove_reference_t<T>>;

template <class F> struct fn_traits : fn_traits<decltype(&F::operator())> {};
template <class R, class... A> struct fn_traits<R (*)(A...)> {
  using ret = R;
  using params = std::tuple<A...>;
};
template <class R, class... A> struct fn_traits<R(A...)> : fn_traits<R (*)(A...)> {};
template <class C, class R, class... A> struct fn_traits<R (C::*)(A...) const> : fn_traits<R (*)(A...)> {};
template <class C, class R, class... A> struct fn_traits<R (C::*)(A...)> : fn_traits<R (*)(A...)> {};

template <class P> constexpr bool is_output_param = std::is_same_v<P, Tensor&>;

template <class Tuple> struct kernel_sig;
template <class... P> struct kernel_sig<std::tuple<P...>> {
  static constexpr size_t n = sizeof...(P);
  static constexpr size_t n_out = (0 + ... + (is_output_param<P> ? 1 : 0));
  static constexpr size_t n_in = n - n_out;
  template <size_t I> using param = std::tuple_element_t<I, std::tuple<P...>>;
  template <size_t... I> static constexpr bool outputs_trail(std::index_sequence<I...>) {
    return (true && ... && (is_output_param<param<I>> == (I >= n_in)));
  }
  template <size_t... I> static std::vector<ArgKind> kinds(std::index_sequence<I...>) {
    static_assert((true && ... && arg_traits<bare_t<param<I>>>::is_arg),
                  "kernel parameter of a type sampan cannot pass: use const Tensor&, "
                  "std::optional<Tensor>, std::vector<Tensor>, bool, int64_t, double, std::string "
                  "or std::vector<int64_t|double|std::string>; outputs are trailing Tensor&");
    return {arg_traits<bare_t<param<I>>>::kind...};
  }
};

template <class F, size_t... I, size_t... O>
void invoke_kernel(const F& f, const Values& args, std::vector<Tensor>& outs,
                   std::index_sequence<I...>, std::index_sequence<O...>) {
  using P = typename fn_traits<F>::params;
  f(arg_traits<bare_t<std::tuple_element_t<I, P>>>::get(args[I])..., outs[O]...);
}

template <class F, size_t... I>
auto invoke_shape(const F& f, const Values& args, std::index_sequence<I...>) {
  using P = typename fn_traits<F>::params;
  return f(spec_traits<bare_t<std::tuple_element_t<I, P>>>::get(args[I])...);
}

template <class Tuple, size_t... I> std::vector<ArgKind> spec_kinds(std::index_sequence<I...>) {
  static_assert((true && ... && spec_traits<bare_t<std::tuple_element_t<I, Tuple>>>::is_arg),
                "shape function parameter of an unsupported type: tensors are const TensorSpec&, "
                "attributes as in the kernel");
  return {spec_traits<bare_t<std::tuple_element_t<I, Tuple>>>::kind...};
}

inline std::vector<TensorSpec> as_spec_list(std::vector<TensorSpec> v) { return v; }
inline std::vector<TensorSpec> as_spec_list(TensorSpec v) { return {std::move(v)}; }

}  // namespace detail

/// Registers an op when its static instance is constructed; see SAMPAN_OP.
class OpBuilder {
 public:
  explicit OpBuilder(std::string name) { schema_.name = std::move(name); }

  OpBuilder& doc(std::string d) { schema_.doc = std::move(d); return *this; }
  template <class... S> OpBuilder& args(S... names) {
    schema_.arg_names = {std::string(names)...};
    return *this;
  }
  template <class... S> OpBuilder& outputs(S... names) {
    schema_.output_names = {std::string(names)...};
    return *this;
  }
  /// The shape-and-dtype function: tensors arrive as TensorSpec, attributes as in the kernel.
  template <class F> OpBuilder& shape(F f) {
    using P = typename detail::fn_traits<F>::params;
    constexpr size_t n = std::tuple_size_v<P>;
    shape_kinds_ = detail::spec_kinds<P>(std::make_index_sequence<n>{});
    schema_.shape_fn = [f](const Values& a) {
      return detail::as_spec_list(detail::invoke_shape(f, a, std::make_index_sequence<n>{}));
    };
    return *this;
  }
  template <class F> OpBuilder& cpu(F f) { return kernel(DeviceType::CPU, std::move(f)); }
  template <class F> OpBuilder& cuda(F f) { return kernel(DeviceType::CUDA, std::move(f)); }
  template <class F> OpBuilder& kernel(DeviceType dev, F f) {
    using Sig = detail::kernel_sig<typename detail::fn_traits<F>::params>;
    static_assert(Sig::outputs_trail(std::make_index_sequence<Sig::n>{}),
                  "a kernel's outputs (Tensor&) must come after all its inputs and attributes");
    auto kinds = Sig::kinds(std::make_index_sequence<Sig::n_in>{});
    if (!kernel_kinds_.empty() && kinds != kernel_kinds_)
      error_ += "kernels for different devices have different signatures; ";
    kernel_kinds_ = kinds;
    n_kernel_outputs_ = Sig::n_out;
    schema_.kernels[dev] = [f](const Values& a, std::vector<Tensor>& outs) {
      detail::invoke_kernel(f, a, outs, std::make_index_sequence<Sig::n_in>{},
                            std::make_index_sequence<Sig::n_out>{});
    };
    return *this;
  }
  /// The vjp, written with ops so that it is differentiable again.
  OpBuilder& vjp(VjpFn f) { schema_.vjp = std::move(f); return *this; }
  /// The arguments and outputs, by name, whose data the vjp reads (through input(), inputs(),
  /// output()); the tape keeps only those, and of the others their shape, dtype and device, so
  /// intermediates nobody else holds are freed during the forward pass. `.saves_for_vjp({})`: the
  /// vjp reads none (add, sum, reshape). Without it every argument and output is kept. check_op's
  /// gradient checks catch a vjp that reads more than it declares (its data is then missing).
  OpBuilder& saves_for_vjp(std::initializer_list<const char*> names) {
    saves_declared_ = true;
    saves_names_.assign(names.begin(), names.end());
    return *this;
  }
  /// Output 0 may be written over the buffer of these tensor arguments (by name) on the CPU: the
  /// kernel is elementwise and tolerates its output aliasing that input exactly (the kernels an
  /// in-place twin shares are). The dispatcher donates the buffer only when the call holds the
  /// input's only handle (the caller moved it in), no other tensor shares its storage, its
  /// layout and dtype are the output's, and the tape does not keep it for the vjp.
  OpBuilder& output_may_reuse(std::initializer_list<const char*> names) {
    reuse_names_.insert(reuse_names_.end(), names.begin(), names.end());
    return *this;
  }
  /// The vjp is an opaque computation: a second derivative through it raises.
  OpBuilder& once_differentiable() { schema_.once_differentiable = true; return *this; }
  /// Outputs carry no gradient (integer results, comparisons ...).
  OpBuilder& nondifferentiable() { schema_.nondifferentiable = true; return *this; }
  /// Output `output` is input `input`, written in place (the op bumps its version counter).
  OpBuilder& inplace(int output, int input) { schema_.inplace.emplace_back(output, input); return *this; }
  /// Output `output` is a view the kernel makes of an input (no allocation).
  OpBuilder& view(int output = 0) { schema_.views.push_back(output); return *this; }
  OpBuilder& dtypes(std::vector<DType> d) { schema_.dtypes = std::move(d); return *this; }
  /// The outputs are allocated on the device the shape function names, not the inputs' (a copy
  /// between devices, core::to_device); the kernel is still the one of the inputs' device.
  OpBuilder& transfers_device() { schema_.transfers_device = true; return *this; }
  /// The CUDA kernel adds with atomics: the CPU's values to rounding, not the same bits run to
  /// run (check_op then compares CPU and CUDA within tolerance and skips CUDA determinism).
  OpBuilder& cuda_nondeterministic() {
    schema_.cuda_deterministic = false;
    schema_.cuda_bitwise = false;
    return *this;
  }
  /// The CUDA kernel is deterministic but rounds differently from the CPU's: CUDA's math library
  /// (exp, log, tanh ...: not glibc's last bit) or cuBLAS's order of a product's sums. check_op
  /// then compares CPU and CUDA within tolerance (1e-5 relative in float32, 1e-12 in float64).
  OpBuilder& cuda_rounds_differently() { schema_.cuda_bitwise = false; return *this; }
  /// Autocast's policy for the op: .amp(AmpCast::LowPrecision) for GEMM-like ops,
  /// .amp(AmpCast::Float32) for ops that need float32's range or accumulation.
  OpBuilder& amp(AmpCast policy) { schema_.amp = policy; return *this; }
  /// Defaults of trailing arguments by name: `.defaults({{"axes", std::vector<int64_t>{}}, {"keepdim", false}})`.
  /// The registry checks the names and kinds; optional tensors default to None without saying so.
  OpBuilder& defaults(std::initializer_list<ArgDefault> d) {
    declared_defaults_.insert(declared_defaults_.end(), d.begin(), d.end());
    return *this;
  }
  /// One sample argument list for check_op (float64 values away from kinks and ties); call
  /// again for more. The registry audit runs check_op on every sample of every op.
  template <class F> OpBuilder& sample(F make) {
    schema_.samples.emplace_back([make] { return std::vector<Values>{make()}; });
    return *this;
  }
  /// Several sample argument lists made by one function.
  OpBuilder& samples(SampleFn make) { schema_.samples.push_back(std::move(make)); return *this; }

  const OpSchema& schema() const { return schema_; }
  const std::vector<ArgKind>& kernel_kinds() const { return kernel_kinds_; }
  const std::vector<ArgKind>& shape_kinds() const { return shape_kinds_; }
  size_t n_kernel_outputs() const { return n_kernel_outputs_; }
  const std::string& error() const { return error_; }
  const std::vector<ArgDefault>& declared_defaults() const { return declared_defaults_; }
  bool saves_declared() const { return saves_declared_; }
  const std::vector<std::string>& saves_names() const { return saves_names_; }
  const std::vector<std::string>& reuse_names() const { return reuse_names_; }

 private:
  OpSchema schema_;
  std::vector<ArgDefault> declared_defaults_;
  std::vector<ArgKind> kernel_kinds_, shape_kinds_;
  size_t n_kernel_outputs_ = 0;
  std::string error_;
  bool saves_declared_ = false;
  std::vector<std::string> saves_names_;
  std::vector<std::string> reuse_names_;
};

/// Validates a builder and adds its op to the process-wide registry. Errors found while a
/// library is being loaded are kept and raised by the loader (static initializers cannot throw).
extern "C" void sampan_register_op(int abi_version, const OpBuilder* builder);

/// The static object whose construction registers an op.
struct OpRegistrar {
  OpRegistrar(const OpBuilder& b) { sampan_register_op(SAMPAN_ABI_VERSION, &b); }  // NOLINT
};

}  // namespace sampan

#define SAMPAN_CONCAT_INNER(a, b) a##b
#define SAMPAN_CONCAT(a, b) SAMPAN_CONCAT_INNER(a, b)
/// Declares op `ns::name`; chain builder calls after it and end with a semicolon.
#define SAMPAN_OP(ns, name)                                                        \
  static const ::sampan::OpRegistrar SAMPAN_CONCAT(sampan_op_registrar_, __COUNTER__) = \
      ::sampan::OpBuilder(#ns "::" #name)
