// sampan: saving and loading trees of values (checkpoints, state dicts) in HDF5.
//
// An IoValue is what a checkpoint holds: None, bool, int64, double, string, Tensor, and the
// containers list, tuple and ordered dict (string keys). `save` writes one to an HDF5 file
// atomically; `load` reads it back with the same kinds, dtypes, shapes and key order.
//
// File layout (readable with h5py or h5dump, no sampan needed):
//   /                   group, attributes sampan_format = "sampan-io", sampan_format_version = 1
//                       and `kind`: the top-level value when it is a dict, list or tuple; any
//                       other top-level value is the child "value" of a root of kind "value".
//   dict                group, attributes kind = "dict" and keys = [key, ...] (the order); the
//                       child of a key is named by the key, with '%' and '/' percent-encoded.
//   list, tuple         group, attributes kind = "list" | "tuple" and length; children "0", "1" ...
//   tensor              dataset, attributes kind = "tensor" and dtype = "float32" ...; bool is
//                       h5py's enum {FALSE, TRUE}, float16 an IEEE half (h5py reads both),
//                       complex a compound {r, i} (as h5py), bfloat16 its bits as uint16.
//   int, float, bool    scalar datasets (int64, float64, h5py's bool enum), kind = "int" ...
//   str                 scalar variable-length UTF-8 string dataset, kind = "str"
//   None                dataset with an empty (null) dataspace, kind = "none"
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sampan/tensor.h"

namespace sampan {

/// A node of a saved tree: a leaf (None, bool, int, float, str, Tensor) or a container.
class IoValue {
 public:
  enum class Kind : uint8_t { None, Bool, Int, Double, String, Tensor, List, Tuple, Dict };
  using List = std::vector<IoValue>;
  using Item = std::pair<std::string, IoValue>;
  /// An ordered dict: insertion order is kept through save and load.
  using Dict = std::vector<Item>;

  /// None.
  IoValue() = default;
  IoValue(bool v) : kind_(Kind::Bool), int_(v) {}  // NOLINT: implicit, like a Python value
  template <class I, std::enable_if_t<std::is_integral<I>::value && !std::is_same<I, bool>::value, int> = 0>
  IoValue(I v) : kind_(Kind::Int), int_(static_cast<int64_t>(v)) {}  // NOLINT
  IoValue(double v) : kind_(Kind::Double), double_(v) {}             // NOLINT
  IoValue(std::string v) : kind_(Kind::String), string_(std::move(v)) {}  // NOLINT
  IoValue(const char* v) : kind_(Kind::String), string_(v) {}            // NOLINT
  IoValue(Tensor v);                                                      // NOLINT

  static IoValue list(List items = {});
  static IoValue tuple(List items = {});
  static IoValue dict(Dict items = {});

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_tensor() const { return kind_ == Kind::Tensor; }
  /// List or tuple.
  bool is_sequence() const { return kind_ == Kind::List || kind_ == Kind::Tuple; }
  bool is_dict() const { return kind_ == Kind::Dict; }

  // Accessors throw TypeError naming the kind that was there instead.
  bool as_bool() const;
  int64_t as_int() const;
  /// A float, or an int converted to double.
  double as_double() const;
  const std::string& as_string() const;
  const Tensor& as_tensor() const;
  /// The items of a list or tuple.
  const List& as_list() const;
  List& as_list();
  const Dict& as_dict() const;
  Dict& as_dict();

  /// Number of items of a container (0 for leaves).
  size_t size() const;
  /// Appends to a list or tuple.
  void push_back(IoValue v);
  /// The value of `key` in a dict, or nullptr.
  const IoValue* find(const std::string& key) const;
  /// The value of `key` in a dict; ValueError listing the keys when it is missing.
  const IoValue& at(const std::string& key) const;
  /// Sets `key` in a dict: replaces the value in place, or appends a new key at the end.
  void set(const std::string& key, IoValue v);

  /// Structural equality; tensors compare dtype, shape and the bits of every element (so a
  /// NaN equals the same NaN), which is what a save/load round trip must preserve.
  bool equals(const IoValue& other) const;

 private:
  void expect(Kind k, const char* what) const;
  Kind kind_ = Kind::None;
  int64_t int_ = 0;  // Bool and Int
  double double_ = 0.0;
  std::string string_;
  Tensor tensor_;
  List list_;
  Dict dict_;
};

/// "none", "bool", "int", "float", "str", "tensor", "list", "tuple", "dict" (as in the file).
const char* io_kind_name(IoValue::Kind kind);

/// Writes `obj` to the HDF5 file `path` atomically: the tree goes to "<path>.tmp.<pid>", which is
/// flushed to disk and then renamed over `path`, so a crash leaves the previous file intact.
/// Tensors are written from the CPU (detached); errors are IOError (path not writable) or
/// ValueError/TypeError (a value that cannot be stored, e.g. a string with a NUL byte).
void save(const IoValue& obj, const std::string& path);

/// Reads a file written by `save`. IOError naming the path when the file is missing, is not
/// HDF5, is truncated, or is an HDF5 file that sampan did not write.
IoValue load(const std::string& path);

}  // namespace sampan
