"""Static graphs: ``sp.jit.trace`` records the ops one run of a function calls into a graph that
replays without Python, ``sp.jit.save`` / ``sp.jit.load`` keep it in one HDF5 file, and C++
(``sampan::jit::load(path).run(inputs)``, ``build/bin/sampan-run``) runs it with no Python.

    graph = sp.jit.trace(model, (x,), dynamic_dims={"x": {0: "batch"}})
    y = graph(x2)                      # any batch size; other sizes and dtypes are checked
    graph.save("model.h5")
    same = sp.jit.load("model.h5")

What is recorded: every op call (built-in, module and op-library ops; Python code in between is
not recorded, it only decides which ops are called). Tensors the run reads that no recorded op
made (parameters, buffers, tensors made in Python) become constants of the graph. Sizes and
other attributes are fixed at their traced values, except the input dimensions declared
dynamic. A value the traced code reads as data (``item()``, ``numpy()``, ``if x > 0``) becomes a
guard: a replay that reads another value is refused, since Python took one branch at trace time.
A replay records autograd when an input requires grad, so forces (gradients) and their
gradients come through a replayed graph as through the eager code.
"""
import inspect

from ._C import JitTracer, Tensor, jit_load, jit_save

__all__ = ["trace", "save", "load", "TracedGraph"]


class TracedGraph:
    """A traced graph: call it with tensors like the traced function. ``.inputs`` lists the
    input specs, ``str(graph)`` the nodes, ``.save(path)`` writes it."""

    def __init__(self, graph):
        self._graph = graph

    def __call__(self, *inputs):
        outs = self._graph.run(list(inputs))
        return outs[0] if len(outs) == 1 else tuple(outs)

    @property
    def inputs(self):
        return self._graph.inputs

    @property
    def ops(self):
        """The op of each node in order ("<guard>" for a guard)."""
        return self._graph.ops

    @property
    def num_nodes(self):
        return self._graph.num_nodes

    @property
    def libraries(self):
        """(name, content hash) of each op library the graph needs beyond sampan's own."""
        return self._graph.libraries

    def eliminate_dead_code(self):
        """Drops nodes whose outputs reach no output (in place); returns self."""
        self._graph.eliminate_dead_code()
        return self

    def fold_constants(self):
        """Evaluates once the nodes that read constants only (a transposed weight ...) and makes
        their results constants: the frozen parameters of an inference graph. Returns self."""
        self._graph.fold_constants()
        return self

    def plan_memory(self):
        """The buffer-reuse plan: each intermediate is released after its last use, and an
        elementwise op whose first argument dies there writes into it (when no gradient is
        recorded). Kept by save/load. Returns self."""
        self._graph.plan_memory()
        return self

    def optimize(self):
        """fold_constants, eliminate_dead_code and plan_memory: the graph for inference."""
        return self.fold_constants().eliminate_dead_code().plan_memory()

    @property
    def memory_planned(self):
        return self._graph.memory_planned

    def save(self, path, embed_libraries=False):
        save(self, path, embed_libraries)

    def __str__(self):
        return str(self._graph)

    def __repr__(self):
        return f"<sampan.jit.TracedGraph: {self.num_nodes} nodes, inputs {[i['name'] for i in self.inputs]}>"


def _input_names(fn, n):
    target = getattr(fn, "forward", fn)
    try:
        params = [p for p in inspect.signature(target).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params[:n]]
    return names if len(names) == n else [f"input{i}" for i in range(n)]


def _dynamic_dims(dynamic_dims, names):
    """{name or position: {dim: symbol} or [dims]} -> {name: {dim: symbol}}; a bare list of
    dimensions stands for the only input."""
    if isinstance(dynamic_dims, (list, tuple)):
        if len(names) != 1:
            raise TypeError("jit.trace: dynamic_dims as a list of dimensions needs exactly one input; "
                            f"there are {len(names)}: give a dict {{input: dims}}")
        dynamic_dims = {0: dynamic_dims}
    result = {}
    for key, dims in (dynamic_dims or {}).items():
        if isinstance(key, int):
            if not 0 <= key < len(names):
                raise ValueError(f"jit.trace: dynamic_dims names input {key}, but there are {len(names)} inputs")
            key = names[key]
        if key not in names:
            raise ValueError(f"jit.trace: dynamic_dims names '{key}', which is not an input ({', '.join(names)})")
        if isinstance(dims, dict):
            result[key] = {int(d): str(s) for d, s in dims.items()}
        else:
            result[key] = {int(d): "" for d in dims}  # a symbol of its own per dimension
    return result


def trace(fn, example_inputs, dynamic_dims=None, input_names=None):
    """Runs ``fn(*example_inputs)`` once and returns the graph of the ops it called.

    ``fn`` is a function or a Module (its parameters become constants: put it in eval() mode
    first for inference). ``example_inputs`` is a tensor or a tuple of tensors; the output a
    tensor or a tuple/list of tensors. ``dynamic_dims`` maps an input (by name, default the
    parameter names of ``fn``, or by position) to the dimensions that may vary on replay: a list
    of dimension indices, or ``{dim: "symbol"}`` where inputs sharing a symbol must share a size
    (``{"x": {0: "atoms"}, "types": {0: "atoms"}}``); for a single input a list of its
    dimensions will do (``dynamic_dims=[0]``).
    """
    inputs = (example_inputs,) if isinstance(example_inputs, Tensor) else tuple(example_inputs)
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"jit.trace: example input {i} is {type(t).__name__}, expected a Tensor")
    names = list(input_names) if input_names is not None else _input_names(fn, len(inputs))
    tracer = JitTracer(list(inputs), names, _dynamic_dims(dynamic_dims, names))
    try:
        out = fn(*inputs)
    except BaseException:
        tracer.finish([])  # stop recording before the error leaves
        raise
    outs = [out] if isinstance(out, Tensor) else list(out) if isinstance(out, (tuple, list)) else None
    if outs is None or not all(isinstance(o, Tensor) for o in outs):
        tracer.finish([])
        raise TypeError(f"jit.trace: the function must return a Tensor or a tuple of Tensors, got {type(out).__name__}")
    return TracedGraph(tracer.finish(outs))


def save(graph, path, embed_libraries=False):
    """Writes a traced graph to ``path`` (HDF5, atomically): its inputs, constants, nodes and the
    op libraries it needs (name and content hash; their files too with embed_libraries)."""
    if not isinstance(graph, TracedGraph):
        raise TypeError(f"jit.save expects a TracedGraph (from sp.jit.trace), got {type(graph).__name__}")
    jit_save(graph._graph, str(path), embed_libraries)


def load(path):
    """Reads a graph written by ``save``; refuses a missing, truncated or newer-format file and a
    graph whose op library is missing or has another content hash, naming it."""
    return TracedGraph(jit_load(str(path)))
