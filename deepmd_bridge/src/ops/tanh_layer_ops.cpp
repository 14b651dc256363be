// The fused layer pieces of the se_e2_a nets (namespace `deepmd`): bias_tanh, tanh_backward,
// tanh_curvature, and the width-doubling ResNet shortcut add_tiled / fold_columns / tile_columns.
// Kernels in src/kernels/tanh_layer_kernels; this file checks arguments,
// dispatches on the dtype and writes the vjps.
//
// How the derivatives chain (force training needs the derivative of a derivative):
//   y = bias_tanh(u, b)                 vjp: du = tanh_backward(g, y), db = sum_rows(du)
//   d = tanh_backward(g, y) = g(1-y^2)  vjp: dg = tanh_backward(h, y), dy = tanh_curvature(g, h, y),
//                                       both at once by tanh_backward_vjp(g, h, y) (one pass)
//   (dg, dy) = tanh_backward_vjp(g, h, y) vjp (cotangents a, b): the sums of the two ops' vjps
//   c = tanh_curvature(g, h, y) = -2ghy vjp: trilinear and symmetric, so each input's gradient
//                                       is tanh_curvature of the other two and the cotangent.
//   z = add_tiled(y, x) = y + [x, x]   vjp: dy = g, dx = fold_columns(g) (sum of column blocks)
//   fold_columns and tile_columns are each other's transposes (each one's vjp is the other).
// Every vjp is written with these ops (and sum), so the chain is differentiable to any order.
#include <string>

#include "kernels/tanh_layer_kernels.h"
#if defined(SAMPAN_CUDA_KERNELS)
#include "kernels/layer_kernels_cuda.h"
#include "run_on_device.h"
#endif
#include "sampan/dispatch.h"
#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "sampan/testing/samples.h"

namespace sampan::deepmd {

namespace {

Tensor c(const Tensor& t) { return t.is_contiguous() ? t : t.contiguous(); }

void check_float(const TensorSpec& t, const char* op, const char* name) {
  SAMPAN_CHECK(t.dtype == DType::Float32 || t.dtype == DType::Float64, TypeError, op, ": argument '", name,
               "' must be float32 or float64, got ", dtype_name(t.dtype));
}
void check_like(const TensorSpec& t, const TensorSpec& like, const char* op, const char* name, const char* like_name) {
  SAMPAN_CHECK(t.dtype == like.dtype, TypeError, op, ": argument '", name, "' must have the dtype of '", like_name,
               "' (", dtype_name(like.dtype), "), got ", dtype_name(t.dtype));
  SAMPAN_CHECK(t.shape == like.shape, ValueError, op, ": argument '", name, "' must have the shape of '", like_name,
               "' ", shape_str(like.shape), ", got ", shape_str(t.shape));
}

const OpHandle& tanh_backward_op() {
  static OpHandle op("deepmd::tanh_backward");
  return op;
}
const OpHandle& tanh_curvature_op() {
  static OpHandle op("deepmd::tanh_curvature");
  return op;
}

const OpHandle& tanh_backward_vjp_op() {
  static OpHandle op("deepmd::tanh_backward_vjp");
  return op;
}

const OpHandle& fold_columns_op() {
  static OpHandle op("deepmd::fold_columns");
  return op;
}
const OpHandle& tile_columns_op() {
  static OpHandle op("deepmd::tile_columns");
  return op;
}

void check_matrix(const TensorSpec& t, const char* op, const char* name) {
  check_float(t, op, name);
  SAMPAN_CHECK(t.dim() == 2, ValueError, op, ": argument '", name, "' must have shape [rows, cols], got ",
               shape_str(t.shape));
}

const std::vector<DType> kFloatTypes = {DType::Float32, DType::Float64};

#if defined(SAMPAN_CUDA_KERNELS)
// Runs launch(Tag<T>) for t's dtype, the CUDA launcher's std::runtime_error as sampan's.
template <class F> void on_cuda(const Tensor& t, const char* op, F launch) {
  visit_floating(t.dtype(), op, [&](auto tag) { run_device([&] { launch(tag); }); });
}
template <class T> const T* in(const Tensor& t) { return static_cast<const T*>(t.raw_data()); }
template <class T> T* at(Tensor& t) { return static_cast<T*>(t.raw_data()); }
#endif

}  // namespace

SAMPAN_OP(deepmd, bias_tanh)
    .doc("y = tanh(u + b) with b [cols] added to every row of u [rows, cols]: the activation of an "
         "se_e2_a embedding or fitting layer (u = x W), in one pass. Differentiable to any order "
         "(vjp: tanh_backward).")
    .args("u", "b")
    .outputs("y")
    .shape([](const TensorSpec& u, const TensorSpec& b) {
      const char* op = "deepmd::bias_tanh";
      check_float(u, op, "u");
      SAMPAN_CHECK(u.dim() == 2, ValueError, op, ": argument 'u' must have shape [rows, cols], got ", shape_str(u.shape));
      SAMPAN_CHECK(b.dtype == u.dtype, TypeError, op, ": argument 'b' must have dtype ", dtype_name(u.dtype), ", got ",
                   dtype_name(b.dtype));
      SAMPAN_CHECK(b.shape == Shape{u.shape[1]}, ValueError, op, ": argument 'b' must have shape [cols] = [", u.shape[1],
                   "], got ", shape_str(b.shape));
      return TensorSpec{u.shape, u.dtype, u.device};
    })
    .cpu([](const Tensor& u_in, const Tensor& b_in, Tensor& y) {
      Tensor u = c(u_in), b = c(b_in);
      visit_floating(u.dtype(), "deepmd::bias_tanh", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::bias_tanh_cpu<T>(u.data<T>(), b.data<T>(), u.size(0), u.size(1), y.data<T>());
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& u_in, const Tensor& b_in, Tensor& y) {
      Tensor u = c(u_in), b = c(b_in);
      on_cuda(u, "deepmd::bias_tanh", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::bias_tanh_cuda<T>(in<T>(u), in<T>(b), u.size(0), u.size(1), at<T>(y));
      });
    })
    .cuda_rounds_differently()  // CUDA's tanh; the CPU's float64 one is glibc's vector tanh
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      Tensor du = tanh_backward_op()(ctx.take_grad_output(0), ctx.output(0))[0];  // may write over g
      return {du, ctx.needs_grad(1) ? sum(du, {0}) : Tensor()};
    })
    .dtypes(kFloatTypes)
    .sample([] { return Values{sample_args::uniform({5, 3}, -2.5, 2.5, 21), sample_args::uniform({3}, -0.5, 0.5, 22)}; })  // pre-activations spanning the saturated and the linear range
    .saves_for_vjp({"y"})
    .output_may_reuse({"u"});  // row loops that read each element before writing it

SAMPAN_OP(deepmd, tanh_backward)
    .doc("g * (1 - y^2): the vjp of tanh from its output y (g and y of one shape), in one pass. "
         "Differentiable to any order (vjp: tanh_backward in g, tanh_curvature in y).")
    .args("g", "y")
    .outputs("out")
    .shape([](const TensorSpec& g, const TensorSpec& y) {
      const char* op = "deepmd::tanh_backward";
      check_float(g, op, "g");
      check_like(y, g, op, "y", "g");
      return TensorSpec{g.shape, g.dtype, g.device};
    })
    .cpu([](const Tensor& g_in, const Tensor& y_in, Tensor& out) {
      Tensor g = c(g_in), y = c(y_in);
      visit_floating(g.dtype(), "deepmd::tanh_backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::tanh_backward_cpu<T>(g.data<T>(), y.data<T>(), g.numel(), out.data<T>());
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& g_in, const Tensor& y_in, Tensor& out) {
      Tensor g = c(g_in), y = c(y_in);
      on_cuda(g, "deepmd::tanh_backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::tanh_backward_cuda<T>(in<T>(g), in<T>(y), g.numel(), at<T>(out));
      });
    })
#endif
    .output_may_reuse({"g"})  // one elementwise loop
    .vjp([](const VjpContext& ctx) -> Grads {
      Tensor h = ctx.grad_output(0), g = ctx.input(0), y = ctx.input(1);
      // force training's second backward needs both: one pass over g, h, y instead of two
      if (ctx.needs_grad(0) && ctx.needs_grad(1)) {
        auto both = tanh_backward_vjp_op()(g, h, y);
        return {both[0], both[1]};
      }
      return {ctx.needs_grad(0) ? tanh_backward_op()(h, y)[0] : Tensor(),
              ctx.needs_grad(1) ? tanh_curvature_op()(g, h, y)[0] : Tensor()};
    })
    .dtypes(kFloatTypes)
    .sample([] { return Values{sample_args::uniform({4, 3}, -1, 1, 23), sample_args::uniform({4, 3}, -0.95, 0.95, 24)}; });

SAMPAN_OP(deepmd, tanh_backward_vjp)
    .doc("dg = h * (1 - y^2) and dy = -2 g h y (g, h, y of one shape): the vjp of tanh_backward(g, y) for "
         "the cotangent h, i.e. tanh_backward(h, y) and tanh_curvature(g, h, y) in one pass. "
         "Differentiable to any order (vjp: tanh_backward and tanh_curvature).")
    .args("g", "h", "y")
    .outputs("dg", "dy")
    .shape([](const TensorSpec& g, const TensorSpec& h, const TensorSpec& y) {
      const char* op = "deepmd::tanh_backward_vjp";
      check_float(g, op, "g");
      check_like(h, g, op, "h", "g");
      check_like(y, g, op, "y", "g");
      TensorSpec out{g.shape, g.dtype, g.device};
      return std::vector<TensorSpec>{out, out};
    })
    .cpu([](const Tensor& g_in, const Tensor& h_in, const Tensor& y_in, Tensor& dg, Tensor& dy) {
      Tensor g = c(g_in), h = c(h_in), y = c(y_in);
      visit_floating(g.dtype(), "deepmd::tanh_backward_vjp", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::tanh_backward_vjp_cpu<T>(g.data<T>(), h.data<T>(), y.data<T>(), g.numel(), dg.data<T>(), dy.data<T>());
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& g_in, const Tensor& h_in, const Tensor& y_in, Tensor& dg, Tensor& dy) {
      Tensor g = c(g_in), h = c(h_in), y = c(y_in);
      on_cuda(g, "deepmd::tanh_backward_vjp", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::tanh_backward_vjp_cuda<T>(in<T>(g), in<T>(h), in<T>(y), g.numel(), at<T>(dg), at<T>(dy));
      });
    })
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      // dg = h (1 - y^2) and dy = -2 g h y with cotangents a and b:
      //   d g = -2 b h y, d h = a (1 - y^2) - 2 g b y, d y = -2 a h y - 2 g h b
      Tensor a = ctx.grad_output(0), b = ctx.grad_output(1), g = ctx.input(0), h = ctx.input(1), y = ctx.input(2);
      const OpHandle& curv = tanh_curvature_op();
      return {ctx.needs_grad(0) ? curv(b, h, y)[0] : Tensor(),
              ctx.needs_grad(1) ? add(tanh_backward_op()(a, y)[0], curv(g, b, y)[0]) : Tensor(),
              ctx.needs_grad(2) ? add(curv(a, h, y)[0], curv(g, h, b)[0]) : Tensor()};
    })
    .dtypes(kFloatTypes)
    .sample([] { return Values{sample_args::uniform({4, 3}, -1, 1, 38), sample_args::uniform({4, 3}, -1, 1, 39), sample_args::uniform({4, 3}, -0.95, 0.95, 40)}; });

SAMPAN_OP(deepmd, tanh_curvature)
    .doc("-2 g h y (three tensors of one shape): the derivative of sum(h * tanh_backward(g, y)) in y, "
         "in one pass. Trilinear and symmetric, so its vjp is itself; differentiable to any order.")
    .args("g", "h", "y")
    .outputs("out")
    .shape([](const TensorSpec& g, const TensorSpec& h, const TensorSpec& y) {
      const char* op = "deepmd::tanh_curvature";
      check_float(g, op, "g");
      check_like(h, g, op, "h", "g");
      check_like(y, g, op, "y", "g");
      return TensorSpec{g.shape, g.dtype, g.device};
    })
    .cpu([](const Tensor& g_in, const Tensor& h_in, const Tensor& y_in, Tensor& out) {
      Tensor g = c(g_in), h = c(h_in), y = c(y_in);
      visit_floating(g.dtype(), "deepmd::tanh_curvature", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::tanh_curvature_cpu<T>(g.data<T>(), h.data<T>(), y.data<T>(), g.numel(), out.data<T>());
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& g_in, const Tensor& h_in, const Tensor& y_in, Tensor& out) {
      Tensor g = c(g_in), h = c(h_in), y = c(y_in);
      on_cuda(g, "deepmd::tanh_curvature", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::tanh_curvature_cuda<T>(in<T>(g), in<T>(h), in<T>(y), g.numel(), at<T>(out));
      });
    })
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      Tensor w = ctx.grad_output(0), g = ctx.input(0), h = ctx.input(1), y = ctx.input(2);
      const OpHandle& curv = tanh_curvature_op();
      return {ctx.needs_grad(0) ? curv(w, h, y)[0] : Tensor(), ctx.needs_grad(1) ? curv(g, w, y)[0] : Tensor(),
              ctx.needs_grad(2) ? curv(g, h, w)[0] : Tensor()};
    })
    .dtypes(kFloatTypes)
    .sample([] { return Values{sample_args::uniform({4, 3}, -1, 1, 25), sample_args::uniform({4, 3}, -1, 1, 26), sample_args::uniform({4, 3}, -0.95, 0.95, 27)}; });

SAMPAN_OP(deepmd, add_tiled)
    .doc("z = y + [x, x, ...]: y [rows, k*width] plus x [rows, width] repeated k times along columns, the "
         "ResNet shortcut of a layer that doubles its width (k = 2). One pass. Differentiable to any order "
         "(vjp in x: fold_columns).")
    .args("y", "x")
    .outputs("z")
    .shape([](const TensorSpec& y, const TensorSpec& x) {
      const char* op = "deepmd::add_tiled";
      check_matrix(y, op, "y");
      check_matrix(x, op, "x");
      SAMPAN_CHECK(x.dtype == y.dtype, TypeError, op, ": argument 'x' must have dtype ", dtype_name(y.dtype), ", got ",
                   dtype_name(x.dtype));
      SAMPAN_CHECK(x.shape[0] == y.shape[0] && x.shape[1] > 0 && y.shape[1] % x.shape[1] == 0, ValueError, op,
                   ": x ", shape_str(x.shape), " must have the rows of y ", shape_str(y.shape),
                   " and a width that divides y's");
      return TensorSpec{y.shape, y.dtype, y.device};
    })
    .cpu([](const Tensor& y_in, const Tensor& x_in, Tensor& z) {
      Tensor y = c(y_in), x = c(x_in);
      visit_floating(y.dtype(), "deepmd::add_tiled", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::add_tiled_cpu<T>(y.data<T>(), x.data<T>(), x.size(0), x.size(1), y.size(1) / x.size(1), z.data<T>());
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& y_in, const Tensor& x_in, Tensor& z) {
      Tensor y = c(y_in), x = c(x_in);
      on_cuda(y, "deepmd::add_tiled", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::add_tiled_cuda<T>(in<T>(y), in<T>(x), x.size(0), x.size(1), y.size(1) / x.size(1), at<T>(z));
      });
    })
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      Tensor g = ctx.grad_output(0);
      return {ctx.needs_grad(0) ? g : Tensor(),
              ctx.needs_grad(1) ? fold_columns_op()(g, ctx.input(1).size(1))[0] : Tensor()};
    })
    .dtypes(kFloatTypes)
    .sample([] { return Values{sample_args::uniform({3, 4}, -1, 1, 28), sample_args::uniform({3, 2}, -1, 1, 29)}; })
    .saves_for_vjp({});

SAMPAN_OP(deepmd, fold_columns)
    .doc("out[r, c] = sum_j g[r, j*width + c]: g [rows, k*width] folded to [rows, width] (the transpose of "
         "tile_columns; its vjp is tile_columns).")
    .args("g", "width")
    .outputs("out")
    .shape([](const TensorSpec& g, int64_t width) {
      const char* op = "deepmd::fold_columns";
      check_matrix(g, op, "g");
      SAMPAN_CHECK(width > 0 && g.shape[1] % width == 0, ValueError, op, ": width = ", width,
                   " must be positive and divide the columns of g ", shape_str(g.shape));
      return TensorSpec{{g.shape[0], width}, g.dtype, g.device};
    })
    .cpu([](const Tensor& g_in, int64_t width, Tensor& out) {
      Tensor g = c(g_in);
      visit_floating(g.dtype(), "deepmd::fold_columns", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::fold_columns_cpu<T>(g.data<T>(), g.size(0), width, g.size(1) / width, out.data<T>());
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& g_in, int64_t width, Tensor& out) {
      Tensor g = c(g_in);
      on_cuda(g, "deepmd::fold_columns", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::fold_columns_cuda<T>(in<T>(g), g.size(0), width, g.size(1) / width, at<T>(out));
      });
    })
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      return {tile_columns_op()(ctx.grad_output(0), ctx.input(0).size(1) / ctx.attr<int64_t>(1))[0]};
    })
    .dtypes(kFloatTypes)
    .sample([] { return Values{sample_args::uniform({3, 6}, -1, 1, 30), int64_t{2}}; })
    .saves_for_vjp({});

SAMPAN_OP(deepmd, tile_columns)
    .doc("out[r, j*width + c] = x[r, c]: x [rows, width] repeated `times` times along columns (the transpose of "
         "fold_columns; its vjp is fold_columns).")
    .args("x", "times")
    .outputs("out")
    .shape([](const TensorSpec& x, int64_t times) {
      const char* op = "deepmd::tile_columns";
      check_matrix(x, op, "x");
      SAMPAN_CHECK(times > 0, ValueError, op, ": times must be positive, got ", times);
      return TensorSpec{{x.shape[0], x.shape[1] * times}, x.dtype, x.device};
    })
    .cpu([](const Tensor& x_in, int64_t times, Tensor& out) {
      Tensor x = c(x_in);
      visit_floating(x.dtype(), "deepmd::tile_columns", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::tile_columns_cpu<T>(x.data<T>(), x.size(0), x.size(1), times, out.data<T>());
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x_in, int64_t times, Tensor& out) {
      Tensor x = c(x_in);
      on_cuda(x, "deepmd::tile_columns", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::tile_columns_cuda<T>(in<T>(x), x.size(0), x.size(1), times, at<T>(out));
      });
    })
#endif
    .vjp([](const VjpContext& ctx) -> Grads { return {fold_columns_op()(ctx.grad_output(0), ctx.input(0).size(1))[0]}; })
    .dtypes(kFloatTypes)
    .sample([] { return Values{sample_args::uniform({3, 2}, -1, 1, 31), int64_t{3}}; })
    .saves_for_vjp({});

}  // namespace sampan::deepmd
