// sampan Python bindings: the Tensor class (layout, autograd state, element access) and memory
// shared with NumPy through the buffer protocol, in both directions:
//   - a Tensor exports its memory (format, shape, byte strides), so `np.asarray(memoryview(t))`
//     is a zero-copy view that keeps the tensor alive (sampan.Tensor.numpy builds on it);
//   - `_from_buffer(arr)` wraps an exporter's memory as Storage::borrow and releases the buffer
//     (dropping the reference to the array) when the last view of the storage is gone.
// The buffer protocol is used instead of pybind11/numpy.h so that NumPy 1 and 2 both work.
#include <pybind11/functional.h>

#include "bindings.h"
#include "sampan/autograd.h"
#include "sampan/ops.h"
#include "sampan/jit.h"

namespace sampan::python {

namespace {

// PEP 3118 format of each dtype; bfloat16 has none (NumPy has no bfloat16).
const char* buffer_format(DType d) {
  switch (d) {
    case DType::Bool: return "?";
    case DType::Int32: return "i";
    case DType::Int64: return "q";
    case DType::Float16: return "e";
    case DType::Float32: return "f";
    case DType::Float64: return "d";
    case DType::Complex64: return "Zf";
    case DType::Complex128: return "Zd";
    case DType::BFloat16: break;
  }
  SAMPAN_THROW(TypeError, "a ", dtype_name(d),
               " tensor has no buffer format (NumPy has no bfloat16): convert it first, "
               "e.g. x.to(sampan.float32)");
}

DType dtype_from_format(std::string fmt, py::ssize_t itemsize) {
  const std::string given = fmt;
  if (!fmt.empty() && (fmt[0] == '>' || fmt[0] == '!'))
    SAMPAN_THROW(TypeError, "buffer of big-endian format '", given, "': sampan needs native byte order");
  if (!fmt.empty() && (fmt[0] == '@' || fmt[0] == '=' || fmt[0] == '<')) fmt.erase(0, 1);
  if (fmt == "?") return DType::Bool;
  if (fmt == "e") return DType::Float16;
  if (fmt == "f") return DType::Float32;
  if (fmt == "d") return DType::Float64;
  if (fmt == "Zf") return DType::Complex64;
  if (fmt == "Zd") return DType::Complex128;
  if (fmt.size() == 1 && std::string("bhilq").find(fmt[0]) != std::string::npos) {
    if (itemsize == 4) return DType::Int32;
    if (itemsize == 8) return DType::Int64;
  }
  SAMPAN_THROW(TypeError, "buffer of format '", given, "' (", itemsize,
               " bytes per item) has no sampan dtype: sampan shares bool, int32, int64, float16, "
               "float32, float64, complex64 and complex128; convert other types with sampan.tensor");
}

py::tuple to_tuple(const Shape& s) {
  py::tuple t(s.size());
  for (size_t i = 0; i < s.size(); ++i) t[i] = py::int_(s[i]);
  return t;
}

// Wraps the memory of a Python buffer exporter (a NumPy array) without copying.
Tensor from_buffer(py::handle obj) {
  auto* view = new Py_buffer();
  // Ask for a writable buffer first; read-only arrays are shared too (as NumPy's own views are).
  if (PyObject_GetBuffer(obj.ptr(), view, PyBUF_RECORDS) != 0) {
    PyErr_Clear();
    if (PyObject_GetBuffer(obj.ptr(), view, PyBUF_RECORDS_RO) != 0) {
      delete view;
      throw py::error_already_set();
    }
  }
  // From here the view must be released on every path.
  auto release = [view](void*) {
    if (!Py_IsInitialized()) return;  // interpreter gone: nothing left to release
    py::gil_scoped_acquire gil;
    PyBuffer_Release(view);
    delete view;
  };
  try {
    DType dtype = dtype_from_format(view->format ? view->format : "B", view->itemsize);
    const py::ssize_t isz = view->itemsize;
    Shape shape(view->ndim), strides(view->ndim);
    // Negative strides are shared too: the storage starts at the lowest address and element 0
    // sits `offset` elements into it.
    int64_t low = 0, high = 0;  // element offsets of the first and last element in memory
    bool empty = false;
    for (int d = 0; d < view->ndim; ++d) shape[d] = view->shape[d];
    const Shape c_order = contiguous_strides(shape);
    for (int d = 0; d < view->ndim; ++d) {
      // PyBUF_RECORDS always gets strides; C order is the protocol's default without them.
      const py::ssize_t st = view->strides ? view->strides[d] : c_order[d] * isz;
      if (st % isz != 0)
        SAMPAN_THROW(ValueError, "from_numpy: stride ", st, " bytes of dimension ",
                     d, " is not a multiple of the item size ", isz,
                     ", so the memory cannot be shared; sp.tensor(array) copies it");
      strides[d] = st / isz;
      if (shape[d] == 0) empty = true;
      (strides[d] < 0 ? low : high) += (shape[d] - 1) * strides[d];
    }
    if (empty) low = high = 0;
    size_t nbytes = empty ? 0 : static_cast<size_t>((high - low + 1) * isz);
    void* base = static_cast<char*>(view->buf) + low * isz;
    auto storage = Storage::borrow(base, nbytes, Device{}, release);
    return Tensor(std::move(storage), shape, strides, -low, dtype);
  } catch (...) {
    PyBuffer_Release(view);
    delete view;
    throw;
  }
}

// The single element as the matching Python number (bool, int, float or complex).
py::object item(const Tensor& t) {
  if (jit::Tracer* tracer = jit::detail::active_tracer()) tracer->record_data_read(t);  // a guard
  SAMPAN_CHECK(t.numel() == 1, ValueError, "item() needs a tensor with exactly one element, got shape ", shape_str(t.shape()));
  Tensor c = t.detach().contiguous();
  if (!c.device().is_cpu()) c = to_device(c, cpu_device());  // one element copied back (loss.item() on a GPU)
  const void* p = c.raw_data();
  switch (c.dtype()) {
    case DType::Bool: return py::bool_(*static_cast<const bool*>(p));
    case DType::Int32: return py::int_(*static_cast<const int32_t*>(p));
    case DType::Int64: return py::int_(*static_cast<const int64_t*>(p));
    case DType::Float16: return py::float_(static_cast<float>(*static_cast<const Half*>(p)));
    case DType::BFloat16: return py::float_(static_cast<float>(*static_cast<const BFloat16*>(p)));
    case DType::Float32: return py::float_(*static_cast<const float*>(p));
    case DType::Float64: return py::float_(*static_cast<const double*>(p));
    case DType::Complex64: {
      auto v = *static_cast<const complex64*>(p);
      return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(v.real(), v.imag()));
    }
    case DType::Complex128: {
      auto v = *static_cast<const complex128*>(p);
      return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(v.real(), v.imag()));
    }
  }
  return py::none();
}

// A Python callable as a gradient hook. The callable is released with the GIL held, and the
// hook may return None (keep the gradient) or a replacement.
GradHook python_hook(py::function fn) {
  std::shared_ptr<py::object> held(new py::object(std::move(fn)), [](py::object* o) {
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    delete o;
  });
  return [held](const Tensor& g) -> Tensor {
    py::gil_scoped_acquire gil;
    py::object r = (*held)(g);
    if (r.is_none()) return Tensor();
    return to_tensor(r, g, "the value returned by a gradient hook");
  };
}

py::object node_or_none(const std::shared_ptr<Node>& n) {
  return n ? py::cast(n) : py::none();
}

}  // namespace

void init_tensor(py::module_& m) {
  py::class_<Node, std::shared_ptr<Node>>(m, "Node", "A step of the backward graph (Tensor.grad_fn).")
      .def("name", &Node::name)
      .def_property_readonly("next_functions", [](const Node& n) {
        py::list l;
        for (const Edge& e : n.next_edges) l.append(py::make_tuple(node_or_none(e.node), e.input_nr));
        return py::tuple(l);
      }, "(node, input_nr) for each input of the forward call (None where no gradient flows).")
      .def("__repr__", [](const Node& n) { return "<sampan.Node " + n.name() + ">"; });

  py::class_<Tensor> cls(m, "Tensor", py::buffer_protocol(),
                         "An n-dimensional array with autograd: a handle to shared storage with "
                         "shape, strides (in elements), dtype and device.");
  cls.def_buffer([](const Tensor& t) -> py::buffer_info {
    if (jit::Tracer* tracer = jit::detail::active_tracer()) tracer->record_data_read(t);  // numpy(): a guard
    SAMPAN_CHECK(!t.is_meta(), ValueError, "a meta tensor (shape only) has no data to share");
    if (!t.device().is_cpu())
      SAMPAN_THROW(NotImplementedError, "sharing memory of a tensor on ", t.device().str(), " with NumPy; copy it to the CPU first");
    const auto isz = static_cast<py::ssize_t>(t.itemsize());
    std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end()), strides;
    bool broadcast = false;
    for (size_t d = 0; d < shape.size(); ++d) {
      strides.push_back(t.strides()[d] * isz);
      broadcast = broadcast || (t.strides()[d] == 0 && shape[d] > 1);
    }
    // A broadcast view repeats elements: read-only, as NumPy's own broadcast_to.
    return py::buffer_info(t.raw_data(), isz, buffer_format(t.dtype()), t.dim(), shape, strides, broadcast);
  });

  cls.def_property_readonly("shape", [](const Tensor& t) { return to_tuple(t.shape()); })
      .def_property_readonly("dtype", [](const Tensor& t) { return dtype_object(t.dtype()); })
      .def_property_readonly("device", [](const Tensor& t) { return t.device().str(); },
                             "'cpu' or 'cuda:N'.")
      .def_property_readonly("ndim", &Tensor::dim)
      .def("dim", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("size", [](const Tensor& t, py::object dim) -> py::object {
        if (dim.is_none()) return to_tuple(t.shape());
        return py::int_(t.size(dim.cast<int64_t>()));
      }, py::arg("dim") = py::none(), "The shape, or the size of dimension `dim`.")
      .def_property_readonly("strides", [](const Tensor& t) { return to_tuple(t.strides()); },
                             "Strides in elements (NumPy's are in bytes).")
      .def_property_readonly("storage_offset", &Tensor::offset, "Offset of element 0 in its storage, in elements.")
      .def_property_readonly("itemsize", &Tensor::itemsize)
      .def_property_readonly("nbytes", &Tensor::nbytes)
      .def("is_contiguous", &Tensor::is_contiguous)
      .def_property_readonly("is_meta", &Tensor::is_meta)
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.raw_data()); })
      .def("shares_storage", &Tensor::shares_storage, py::arg("other"),
           "Whether both tensors view the same storage.")
      .def("_is_same", &Tensor::is_same, "Whether both handles are the same tensor.")
      .def_property_readonly("_version", &Tensor::version, "The storage's in-place version counter.")
      .def("__hash__", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.impl()); })

      // ---- autograd ----
      .def_property("requires_grad", &Tensor::requires_grad,
                    [](Tensor& t, bool flag) { t.requires_grad_(flag); })
      .def("requires_grad_", [](py::object self, bool flag) {
        self.cast<Tensor&>().requires_grad_(flag);
        return self;
      }, py::arg("requires_grad") = true, "Marks a leaf as requiring gradients; returns self.")
      .def_property("grad",
                    [](const Tensor& t) -> py::object {
                      Tensor g = t.grad();
                      return g.defined() ? py::cast(g) : py::none();
                    },
                    [](Tensor& t, py::object g) {
                      t.set_grad(g.is_none() ? Tensor() : to_tensor(g, t, "Tensor.grad"));
                    },
                    "The accumulated gradient (None until a backward pass reaches this tensor).")
      .def_property_readonly("grad_fn", [](const Tensor& t) { return node_or_none(t.grad_fn()); },
                             "The backward node that produced this tensor (None for leaves).")
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def_property_readonly("retains_grad", &Tensor::retains_grad)
      .def("retain_grad", &Tensor::retain_grad, "Keep .grad for this non-leaf tensor in backward.")
      .def("register_hook", [](Tensor& t, py::function fn) { t.register_hook(python_hook(std::move(fn))); },
           py::arg("hook"),
           "Calls hook(grad) when the gradient of this tensor is computed; a returned tensor "
           "replaces the gradient, None keeps it.")
      .def("backward", [](const Tensor& t, py::object gradient, bool retain_graph, bool create_graph) {
        Tensor g = gradient.is_none() ? Tensor() : to_tensor(gradient, t, "backward(gradient)");
        py::gil_scoped_release nogil;  // hooks take the GIL back when they run
        t.backward(g, retain_graph, create_graph);
      }, py::arg("gradient") = py::none(), py::arg("retain_graph") = false, py::arg("create_graph") = false,
         "Accumulates d(self)/d(leaf) into each leaf's .grad (gradient is needed unless self has "
         "one element).")
      .def("detach", &Tensor::detach, "A tensor sharing storage, cut from the graph.")

      // ---- values ----
      .def("item", &item, "The single element as a Python bool, int, float or complex.")
      .def("contiguous", &Tensor::contiguous)
      .def("clone", &Tensor::clone)
      .def("_to_dtype", [](const Tensor& t, py::handle dtype) { return t.to(to_dtype(dtype)); })
      .def("_repr_header", &Tensor::repr);

  m.def("_from_buffer", &from_buffer, py::arg("obj"),
        "A tensor sharing the memory of a buffer exporter (NumPy array); see sampan.from_numpy.");
}

}  // namespace sampan::python
