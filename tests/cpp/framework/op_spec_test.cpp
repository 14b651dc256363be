// The op spec: the README's example op, registration errors, and call-time argument errors.
#include <gtest/gtest.h>

#include "sampan/op_library.h"
#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

using namespace sampan;

// The example from README.md, verbatim.
SAMPAN_OP(demo, scaled_square)
    .doc("a * x**2, elementwise.")
    .args("x", "a")
    .outputs("out")
    .shape([](const TensorSpec& x, double) { return x; })
    .cpu([](const Tensor& x, double a, Tensor& out) {
      const double* px = x.contiguous().data<double>();
      double* po = out.data<double>();
      for (int64_t i = 0; i < x.numel(); ++i) po[i] = a * px[i] * px[i];
    })
    .vjp([](const VjpContext& c) -> Grads {
      double a = c.attr<double>(1);
      return {c.grad_output(0) * c.input(0) * (2 * a)};
    });

TEST(OpSpec, ReadmeExampleRegistersAndPassesCheckOp) {
  const OpSchema& s = find_op("demo::scaled_square");
  EXPECT_EQ(s.arg_kinds, (std::vector<ArgKind>{ArgKind::Tensor, ArgKind::Float}));
  EXPECT_EQ(s.signature(), "scaled_square(x: Tensor, a: float) -> out");
  auto r = check_op(s, {from_vector({0.5, -1.5, 2.0}, {3}), 1.7});
  EXPECT_TRUE(r.ok) << r.summary();
  // An int where a float attribute is expected is accepted and converted.
  auto out = call_op(s, {from_vector({2.0}, {1}), int64_t{3}});
  EXPECT_DOUBLE_EQ(out[0].item(), 12.0);
}

TEST(OpSpec, CallErrorsNameOpArgumentAndExpectation) {
  try {
    call_op("demo::scaled_square", {from_vector({1.0}, {1}), std::string("x")});
    FAIL() << "expected TypeError";
  } catch (const TypeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("demo::scaled_square"), std::string::npos) << m;
    EXPECT_NE(m.find("'a'"), std::string::npos) << m;
    EXPECT_NE(m.find("expects float, got str"), std::string::npos) << m;
  }
  EXPECT_THROW(call_op("demo::scaled_square", {from_vector({1.0}, {1})}), TypeError);
  try {
    find_op("demo::scaled_sqare");
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'demo::scaled_square'"), std::string::npos) << e.what();
  }
  try {
    add(ones({2, 3}), ones({4}));
    FAIL();
  } catch (const ValueError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("core::add"), std::string::npos) << m;
    EXPECT_NE(m.find("[2, 3]"), std::string::npos) << m;
    EXPECT_NE(m.find("[4]"), std::string::npos) << m;
  }
}

TEST(OpSpec, RegistrationErrorsAreReportedNotFatal) {
  begin_library_load("libbroken.so");
  OpBuilder dup("demo::scaled_square");
  dup.args("x").shape([](const TensorSpec& x) { return x; })
      .cpu([](const Tensor&, Tensor&) {}).nondifferentiable();
  sampan_register_op(SAMPAN_ABI_VERSION, &dup);
  OpBuilder novjp("demo::no_vjp");
  novjp.shape([](const TensorSpec& x) { return x; }).cpu([](const Tensor&, Tensor&) {});
  sampan_register_op(SAMPAN_ABI_VERSION, &novjp);
  OpBuilder mismatch("demo::mismatch");
  mismatch.shape([](const TensorSpec& x, double) { return x; })
      .cpu([](const Tensor&, int64_t, Tensor&) {}).nondifferentiable();
  sampan_register_op(SAMPAN_ABI_VERSION, &mismatch);
  OpBuilder future("demo::future");
  sampan_register_op(SAMPAN_ABI_VERSION + 1, &future);
  OpBuilder fine("demo::fine_but_in_a_broken_library");
  fine.shape([](const TensorSpec& x) { return x; }).cpu([](const Tensor&, Tensor&) {}).nondifferentiable();
  sampan_register_op(SAMPAN_ABI_VERSION, &fine);
  auto res = end_library_load();
  ASSERT_EQ(res.errors.size(), 4u);
  EXPECT_NE(res.errors[0].find("registered twice: by library 'sampan' and by library 'libbroken.so'"), std::string::npos) << res.errors[0];
  EXPECT_NE(res.errors[1].find("no vjp"), std::string::npos) << res.errors[1];
  EXPECT_NE(res.errors[2].find("(Tensor, float) do not match the kernel's inputs (Tensor, int)"), std::string::npos) << res.errors[2];
  EXPECT_NE(res.errors[3].find("ABI " + std::to_string(SAMPAN_ABI_VERSION + 1)), std::string::npos) << res.errors[3];
  EXPECT_EQ(find_op_if("demo::no_vjp"), nullptr);
  // The library is taken back whole: its valid op does not stay registered either.
  EXPECT_EQ(res.ops, std::vector<std::string>{"demo::fine_but_in_a_broken_library"});
  EXPECT_EQ(find_op_if("demo::fine_but_in_a_broken_library"), nullptr);
}

// Defaults are checked where they are declared: a name the op does not have, a value of the
// wrong kind, a default followed by an argument without one, a default for a plain tensor.
TEST(OpSpec, BadDefaultsAreRegistrationErrorsNamingTheArgument) {
  begin_library_load("libdefaults.so");
  auto unary = [](const char* name) {
    OpBuilder b(name);
    b.args("x", "a", "n").shape([](const TensorSpec& x, double, int64_t) { return x; })
        .cpu([](const Tensor&, double, int64_t, Tensor&) {}).nondifferentiable();
    return b;
  };
  OpBuilder unknown = unary("demo::default_unknown");
  unknown.defaults({{"alpha", 1.0}});
  sampan_register_op(SAMPAN_ABI_VERSION, &unknown);
  OpBuilder wrong_kind = unary("demo::default_wrong_kind");
  wrong_kind.defaults({{"n", "three"}});
  sampan_register_op(SAMPAN_ABI_VERSION, &wrong_kind);
  OpBuilder not_trailing = unary("demo::default_not_trailing");
  not_trailing.defaults({{"a", 2.0}});
  sampan_register_op(SAMPAN_ABI_VERSION, &not_trailing);
  OpBuilder tensor_default = unary("demo::default_tensor");
  tensor_default.defaults({{"x", 1.0}, {"a", 1.0}, {"n", 1}});
  sampan_register_op(SAMPAN_ABI_VERSION, &tensor_default);
  auto res = end_library_load();
  ASSERT_EQ(res.errors.size(), 4u);
  EXPECT_NE(res.errors[0].find("a default for 'alpha', which is not an argument (x, a, n)"), std::string::npos) << res.errors[0];
  EXPECT_NE(res.errors[1].find("the default of 'n' is str but the argument is int"), std::string::npos) << res.errors[1];
  EXPECT_NE(res.errors[2].find("the default of 'a' is followed by 'n', which has none"), std::string::npos) << res.errors[2];
  EXPECT_NE(res.errors[3].find("a default for tensor argument 'x'"), std::string::npos) << res.errors[3];
}

TEST(OpSpec, DeclaredDefaultsAndSamplesReachCallOpAndCheckOp) {
  // An int default for a float argument is converted, as call_op converts an int argument.
  begin_library_load("libdefaults_ok.so");
  OpBuilder b("demo::scaled_by_default");
  b.args("x", "a").defaults({{"a", 3}})
      .shape([](const TensorSpec& x, double) { return x; })
      .cpu([](const Tensor& x, double a, Tensor& out) { copy_(out, mul(x, full({}, a, DType::Float64))); })
      .vjp([](const VjpContext& c) -> Grads { return {c.grad_output(0) * c.attr<double>(1)}; })
      .sample([] { return Values{from_vector({0.5, -1.5}, {2}), 1.5}; })
      .sample([] { return Values{from_vector({2.0}, {1})}; });  // a left to its default
  sampan_register_op(SAMPAN_ABI_VERSION, &b);
  auto res = end_library_load();
  ASSERT_TRUE(res.errors.empty()) << res.errors[0];
  const OpSchema& op = find_op("demo::scaled_by_default");
  EXPECT_EQ(op.signature(), "scaled_by_default(x: Tensor, a: float = 3.0) -> out");
  EXPECT_DOUBLE_EQ(call_op(op, {from_vector({2.0}, {1})})[0].item(), 6.0);
  auto r = check_op(op);
  EXPECT_TRUE(r.ok) << r.summary();
  // check_op(op) on an op without samples fails, naming the op and what to add.
  auto none = check_op(find_op("demo::scaled_square"));
  EXPECT_FALSE(none.ok);
  EXPECT_NE(none.summary().find("'demo::scaled_square' declares no sample arguments; add .sample(...)"), std::string::npos)
      << none.summary();
}

TEST(OpSpec, LoadingAMissingLibraryNamesThePath) {
  try {
    load_op_library("/nonexistent/libops.so");
    FAIL();
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/libops.so"), std::string::npos);
  }
}

// call_op reuses a shape function's result when every argument's shape, dtype, device and
// attribute value is the same as in one of the last two distinct argument specs that op was
// called with on this thread (a 2-way set-associative cache, LRU, unless other ops evicted them
// meanwhile); any other difference runs the shape function again.
namespace {
int g_shape_calls = 0;

// The probe's kernel in plain loops over contiguous inputs, calling no op: the per-thread shape
// cache has 2 entries per set, sets chosen by a hash of the schema's address and the argument
// shapes, so an op called between two probe calls (mul, add, sum, cast, ...) can evict one of
// the probe's entries and add a shape call that depends only on where the schemas happen to lie
// in memory (adding an unrelated test file to this binary did that when the cache was direct-mapped).
// out = a x (+ b), broadcast right-aligned to out's shape without its leading `reps` axis.
template <class T>
void probe_kernel(const Tensor& x, const std::optional<Tensor>& b, double a, Tensor& out) {
  const Shape& os = out.shape();
  const Shape inner_shape(os.begin() + 1, os.end());
  const int64_t inner = shape_numel(inner_shape);
  auto offset_in = [&](const Shape& s, int64_t flat) {
    int64_t off = 0, stride = 1;
    for (int d = static_cast<int>(inner_shape.size()) - 1, e = static_cast<int>(s.size()) - 1; d >= 0; --d, --e) {
      const int64_t idx = flat % inner_shape[d];
      flat /= inner_shape[d];
      if (e < 0) continue;
      if (s[e] != 1) off += idx * stride;
      stride *= s[e];
    }
    return off;
  };
  const T* xp = x.data<T>();
  const T* bp = b ? b->data<T>() : nullptr;
  T* op = out.data<T>();
  for (int64_t i = 0; i < inner; ++i) {
    T v = static_cast<T>(a) * xp[offset_in(x.shape(), i)];
    if (bp) v += bp[offset_in(b->shape(), i)];
    for (int64_t r = 0; r < os[0]; ++r) op[r * inner + i] = v;
  }
}
}  // namespace
SAMPAN_OP(demo, shape_cache_probe)
    .doc("x scaled by a, optionally plus b; repeats rows `reps` times.")
    .args("x", "b", "a", "reps", "mode")
    .outputs("out")
    .shape([](const TensorSpec& x, const std::optional<TensorSpec>& b, double, int64_t reps,
              const std::string& mode) {
      ++g_shape_calls;
      if (mode != "scale") throw ValueError("mode must be 'scale', got '" + mode + "'");
      Shape s = b ? broadcast_shapes(x.shape, b->shape) : x.shape;
      s.insert(s.begin(), reps);
      return TensorSpec{s, x.dtype, x.device};
    })
    .cpu([](const Tensor& x, const std::optional<Tensor>& b, double a, int64_t reps, const std::string&,
            Tensor& out) {
      if (x.dtype() == DType::Float32) probe_kernel<float>(x, b, a, out);
      else probe_kernel<double>(x, b, a, out);
    })
    .nondifferentiable();

TEST(OpSpec, ShapeResultsAreReusedOnlyForIdenticalArgumentSpecs) {
  const OpSchema& s = find_op("demo::shape_cache_probe");
  // Every input made before counting (from_vector calls no op, Tensor::to does): between two
  // probe calls no other op may run on this thread (see probe_kernel).
  Tensor x = from_vector({1.0, 2.0}, {2}), x_other_data = from_vector({5.0, 6.0}, {2});
  Tensor x3 = from_vector({1.0, 2.0, 3.0}, {3}), b22 = from_vector({1.0, 1.0, 1.0, 1.0}, {2, 2});
  Tensor x32 = x.to(DType::Float32);
  auto run = [&](Value xv, Value b, double a, int64_t reps, std::string mode) {
    return call_op(s, {std::move(xv), std::move(b), a, reps, std::move(mode)})[0];
  };
  int before = g_shape_calls;
  Tensor r = run(x, Value(), 2.0, 3, "scale");
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_EQ(g_shape_calls, before + 1);
  Tensor r_other_data = run(x_other_data, Value(), 2.0, 3, "scale");  // same specs, other data
  EXPECT_EQ(g_shape_calls, before + 1);
  r = run(x3, Value(), 2.0, 3, "scale");  // another shape
  EXPECT_EQ(r.shape(), (Shape{3, 3}));
  EXPECT_EQ(g_shape_calls, before + 2);
  // One op alternating between two specs (an MLP's layers): the cache is 2-way set-associative
  // and LRU, so the two specs used last are both kept, whichever sets they hash to.
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(run(x, Value(), 2.0, 3, "scale").shape(), (Shape{3, 2}));
    EXPECT_EQ(run(x3, Value(), 2.0, 3, "scale").shape(), (Shape{3, 3}));
  }
  EXPECT_EQ(g_shape_calls, before + 2);
  r = run(x, Value(), 2.0, 4, "scale");  // another attribute
  EXPECT_EQ(r.shape(), (Shape{4, 2}));
  Tensor r_with_b = run(x, b22, 2.0, 4, "scale");  // optional given
  EXPECT_EQ(r_with_b.shape(), (Shape{4, 2, 2}));
  EXPECT_EQ(g_shape_calls, before + 4);
  r = run(x, Value(), 2.0, 4, "scale");  // and absent again: one of the two specs used last
  EXPECT_EQ(r.shape(), (Shape{4, 2}));
  EXPECT_EQ(g_shape_calls, before + 4);
  r = run(x32, Value(), 2.0, 4, "scale");  // another dtype
  EXPECT_EQ(r.dtype(), DType::Float32);
  EXPECT_EQ(g_shape_calls, before + 5);
  r = run(x, Value(), -0.0, 4, "scale");  // -0.0 and 0.0 are different attributes
  r = run(x, Value(), 0.0, 4, "scale");
  EXPECT_EQ(g_shape_calls, before + 7);
  // A failing shape function is not remembered: the error comes every time.
  for (int k = 0; k < 2; ++k) EXPECT_THROW(run(x, Value(), 0.0, 4, "other"), ValueError);
  EXPECT_EQ(g_shape_calls, before + 9);
  // The values, checked after the counting: 2 x per row, and 2 x + b broadcast over {2, 2}.
  EXPECT_DOUBLE_EQ(sum(r_other_data).item(), 3 * 22.0);
  EXPECT_DOUBLE_EQ(sum(r_with_b).item(), 4 * 2 * (3.0 + 5.0));
}
