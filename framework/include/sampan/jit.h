// sampan: static graphs. `jit::Tracer` records the op calls of one run (every op goes through
// call_op, so built-in, module and user-library ops alike) into a `jit::Graph` of registered
// ops: replayed with no Python and no tape unless an input requires a gradient, saved to and
// loaded from one HDF5 file, run from C++ (`build/bin/sampan-run`).
//
//   jit::Tracer tracer({x}, {"x"}, {{"x", {{0, "batch"}}}});   // dimension 0 of x is symbolic
//   Tensor y = model_forward(x);                               // any code calling ops
//   jit::Graph g = tracer.finish({y});
//   jit::save(g, "model.h5");
//   std::vector<Tensor> out = jit::load("model.h5").run({x2});
//
// What a graph holds: its inputs (name, dtype, shape with symbolic dimensions), constants (the
// tensors the run read that no recorded op made: parameters, buffers, tensors made in Python),
// nodes (op name, the op's library, arguments as references to earlier values or as attribute
// values), guards (values the traced code read as data, e.g. a Python branch on x.item(): a
// replay that reads another value is refused), and its outputs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sampan/op.h"

namespace sampan::jit {

/// The version of the graph file format this sampan writes; files of a newer one are refused.
constexpr int64_t kFormatVersion = 1;

/// A graph input: its name, dtype and shape; dims[i] names a symbolic dimension ("" = fixed).
struct InputSpec {
  std::string name;
  DType dtype = DType::Float32;
  Shape shape;
  std::vector<std::string> dims;
  std::string str() const;  // "x: float64 [batch, 3]"
};

/// One argument of a node: a reference to a value, a list of references, or an attribute.
struct Arg {
  enum class Kind : uint8_t { Ref, RefList, Attr };
  Kind kind = Kind::Attr;
  int64_t ref = -1;
  std::vector<int64_t> refs;
  Value attr;  // Attr: the value (std::monostate for an absent optional tensor)
};

/// One recorded op call, or a guard (op_name empty: the value `guard_ref` must equal `expected`).
struct Node {
  std::string op_name;
  std::string library;
  std::vector<Arg> args;
  std::vector<int64_t> outputs;
  int64_t guard_ref = -1;
  Tensor expected;
  // Set by Graph::plan_memory: the values whose last use is this node (dropped after it), and
  // the in-place twin to run instead when argument 0 dies here and fits the output.
  std::vector<int64_t> release;
  std::string inplace_twin;
  // The registry's schemas of op_name and inplace_twin, resolved when the graph is made or
  // loaded (the registry never frees a schema), so a replay looks nothing up.
  const OpSchema* op = nullptr;
  const OpSchema* twin = nullptr;
  bool is_guard() const { return op_name.empty(); }
};

/// An op library a graph needs: the name it was loaded under, the file's content hash.
struct LibraryRef {
  std::string name;  // the path it was loaded from
  std::string hash;  // FNV-1a 64 of the file's bytes, hex
  Tensor embedded;   // the file's bytes (uint8) when saved with embed_libraries, else undefined
};

class Graph {
 public:
  /// Runs the graph. Inputs are checked against the specs (count, dtype, rank, fixed sizes, one
  /// size per symbolic dimension); a violated assumption is refused naming the input.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) const;

  const std::vector<InputSpec>& inputs() const { return inputs_; }
  size_t num_outputs() const { return outputs_.size(); }
  size_t num_nodes() const { return nodes_.size(); }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<LibraryRef>& libraries() const { return libraries_; }
  /// One line per node ("%3 = core::matmul(%0, %c1)"), for inspection and errors.
  std::string str() const;

  /// Removes nodes whose outputs reach no graph output (guards are kept).
  void eliminate_dead_code();
  /// Evaluates the nodes that depend on constants only (a transposed weight, a folded bias) once
  /// and makes their results constants: the frozen parameters of an inference graph.
  void fold_constants();
  /// The buffer-reuse plan from liveness: each intermediate is dropped after its last use, and an
  /// elementwise op whose first argument dies at it writes into that argument's buffer (its
  /// in-place twin, e.g. core::add_ for core::add) when no gradient is being recorded. What stays
  /// live at any point is what later nodes still read.
  void plan_memory();
  bool memory_planned() const { return planned_; }

 private:
  friend class Tracer;
  friend Graph load(const std::string& path);
  friend void save(const Graph& graph, const std::string& path, bool embed_libraries);
  std::vector<InputSpec> inputs_;
  std::vector<Tensor> constants_;  // value ids inputs_.size() ... + constants_.size() - 1
  std::vector<Node> nodes_;
  std::vector<int64_t> outputs_;
  std::vector<LibraryRef> libraries_;
  int64_t num_values_ = 0;
  bool planned_ = false;
};

/// Records the ops the current thread calls until finish(). `names` name the inputs (default
/// "input0" ...); `dynamic_dims` maps an input name to {dimension index: symbol}, inputs sharing a
/// symbol must have one size. Only the outermost calls are recorded (an op's kernel may call
/// ops), and tracers do not nest.
class Tracer {
 public:
  Tracer(const std::vector<Tensor>& inputs, std::vector<std::string> names = {},
         const std::map<std::string, std::map<int64_t, std::string>>& dynamic_dims = {});
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;
  /// Stops recording; the graph computing `outputs` from the inputs.
  Graph finish(const std::vector<Tensor>& outputs);

  // Called by call_op and by data reads (item(), numpy()): internal.
  void record(const OpSchema& op, const Values& args, const std::vector<Tensor>& outs);
  void record_data_read(const Tensor& t);
  /// `alias` is `t` under another handle (detach): the same value of the graph.
  void record_alias(const Tensor& t, const Tensor& alias);

 private:
  int64_t id_of(const Tensor& t);
  Graph graph_;
  std::map<const void*, int64_t> ids_;  // TensorImpl -> value id
  std::vector<int64_t> constant_ids_;   // the ids constants got while recording
  std::vector<Tensor> keep_alive_;      // so no address is reused while recording
  bool finished_ = false;
};

/// Saves a graph atomically (sampan::save's HDF5 tree). With embed_libraries the op libraries'
/// files are stored in it, so that load can use them where the files are missing.
void save(const Graph& graph, const std::string& path, bool embed_libraries = false);

/// Loads a graph. Refused, naming what is wrong: a file that is missing, truncated or not a
/// sampan graph; a format version newer than kFormatVersion; an op library that cannot be found
/// (and is not embedded) or whose content hash differs; an op the registry does not have.
Graph load(const std::string& path);

namespace detail {
/// The tracer recording this thread's outermost op calls, or nullptr (cheap when none runs).
Tracer* active_tracer();
/// Marks the current thread as inside an op's kernel (its calls are not the trace's).
struct KernelScope {
  KernelScope();
  ~KernelScope();
};
/// FNV-1a 64 of a file's bytes, as 16 hex digits; IOError naming the path when unreadable.
std::string file_hash(const std::string& path);
}  // namespace detail

}  // namespace sampan::jit
