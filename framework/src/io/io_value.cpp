// IoValue: the tree of values that save/load move to and from files.
#include <cstring>
#include <unordered_set>

#include "sampan/io.h"
#include "sampan/ops/copy.h"

namespace sampan {

const char* io_kind_name(IoValue::Kind kind) {
  switch (kind) {
    case IoValue::Kind::None: return "none";
    case IoValue::Kind::Bool: return "bool";
    case IoValue::Kind::Int: return "int";
    case IoValue::Kind::Double: return "float";
    case IoValue::Kind::String: return "str";
    case IoValue::Kind::Tensor: return "tensor";
    case IoValue::Kind::List: return "list";
    case IoValue::Kind::Tuple: return "tuple";
    case IoValue::Kind::Dict: return "dict";
  }
  return "?";
}

IoValue::IoValue(Tensor v) : kind_(Kind::Tensor), tensor_(std::move(v)) {
  SAMPAN_CHECK(tensor_.defined(), ValueError, "IoValue: cannot hold an undefined tensor");
}

IoValue IoValue::list(List items) {
  IoValue v;
  v.kind_ = Kind::List;
  v.list_ = std::move(items);
  return v;
}

IoValue IoValue::tuple(List items) {
  IoValue v = list(std::move(items));
  v.kind_ = Kind::Tuple;
  return v;
}

IoValue IoValue::dict(Dict items) {
  std::unordered_set<std::string> seen;
  for (const auto& item : items)
    SAMPAN_CHECK(seen.insert(item.first).second, ValueError, "IoValue::dict: duplicate key '", item.first, "'");
  IoValue v;
  v.kind_ = Kind::Dict;
  v.dict_ = std::move(items);
  return v;
}

void IoValue::expect(Kind k, const char* what) const {
  SAMPAN_CHECK(kind_ == k, TypeError, "IoValue: expected ", what, ", got ", io_kind_name(kind_));
}

bool IoValue::as_bool() const {
  expect(Kind::Bool, "bool");
  return int_ != 0;
}

int64_t IoValue::as_int() const {
  expect(Kind::Int, "int");
  return int_;
}

double IoValue::as_double() const {
  if (kind_ == Kind::Int) return static_cast<double>(int_);
  expect(Kind::Double, "float");
  return double_;
}

const std::string& IoValue::as_string() const {
  expect(Kind::String, "str");
  return string_;
}

const Tensor& IoValue::as_tensor() const {
  expect(Kind::Tensor, "tensor");
  return tensor_;
}

const IoValue::List& IoValue::as_list() const {
  SAMPAN_CHECK(is_sequence(), TypeError, "IoValue: expected list or tuple, got ", io_kind_name(kind_));
  return list_;
}

IoValue::List& IoValue::as_list() {
  SAMPAN_CHECK(is_sequence(), TypeError, "IoValue: expected list or tuple, got ", io_kind_name(kind_));
  return list_;
}

const IoValue::Dict& IoValue::as_dict() const {
  expect(Kind::Dict, "dict");
  return dict_;
}

IoValue::Dict& IoValue::as_dict() {
  expect(Kind::Dict, "dict");
  return dict_;
}

size_t IoValue::size() const {
  if (is_sequence()) return list_.size();
  if (is_dict()) return dict_.size();
  return 0;
}

void IoValue::push_back(IoValue v) { as_list().push_back(std::move(v)); }

const IoValue* IoValue::find(const std::string& key) const {
  for (const auto& item : as_dict())
    if (item.first == key) return &item.second;
  return nullptr;
}

const IoValue& IoValue::at(const std::string& key) const {
  if (const IoValue* v = find(key)) return *v;
  std::string keys;
  for (const auto& item : dict_) keys += (keys.empty() ? "'" : ", '") + item.first + "'";
  SAMPAN_THROW(ValueError, "IoValue: no key '", key, "' in dict (keys: ", (keys.empty() ? "none" : keys), ")");
}

void IoValue::set(const std::string& key, IoValue v) {
  for (auto& item : as_dict())
    if (item.first == key) {
      item.second = std::move(v);
      return;
    }
  dict_.emplace_back(key, std::move(v));
}

namespace {
bool tensors_bitwise_equal(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  NoGradGuard no_grad;
  Tensor ca = a.detach().contiguous(), cb = b.detach().contiguous();
  return a.numel() == 0 || std::memcmp(ca.raw_data(), cb.raw_data(), ca.nbytes()) == 0;
}
}  // namespace

bool IoValue::equals(const IoValue& o) const {
  if (kind_ != o.kind_) return false;
  switch (kind_) {
    case Kind::None: return true;
    case Kind::Bool:
    case Kind::Int: return int_ == o.int_;
    // Bitwise, like tensors: a round trip must keep NaN payloads and the sign of zero.
    case Kind::Double: return std::memcmp(&double_, &o.double_, sizeof(double)) == 0;
    case Kind::String: return string_ == o.string_;
    case Kind::Tensor: return tensors_bitwise_equal(tensor_, o.tensor_);
    case Kind::List:
    case Kind::Tuple:
      if (list_.size() != o.list_.size()) return false;
      for (size_t i = 0; i < list_.size(); ++i)
        if (!list_[i].equals(o.list_[i])) return false;
      return true;
    case Kind::Dict:
      if (dict_.size() != o.dict_.size()) return false;
      for (size_t i = 0; i < dict_.size(); ++i)
        if (dict_[i].first != o.dict_[i].first || !dict_[i].second.equals(o.dict_[i].second)) return false;
      return true;
  }
  return false;
}

}  // namespace sampan
