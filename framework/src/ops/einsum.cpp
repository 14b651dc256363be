// sampan: einsum, a composition of views (permute, reshape, diagonal, broadcast_to), sum and
// matmul. It is not an op of its own: every step is, so autograd (to any order) comes from them.
//
// Plan: parse the subscripts into integer labels (letters in ASCII order, then the dimensions
// covered by "..." right-aligned across operands); take diagonals for labels repeated inside
// one operand; sum labels that occur nowhere else; then contract operands left to right, each
// pair as one batched matmul [batch, M, K] x [batch, K, N]; finally sum what the output does
// not keep and permute into the output's order.
#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "sampan/ops.h"
#include "linalg_support.h"

namespace sampan {

namespace {

constexpr int kLetters = 52;  // 'A'..'Z' -> 0..25, 'a'..'z' -> 26..51; ellipsis dims from 52

int label_of(char ch, const std::string& eq) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return 26 + (ch - 'a');
  SAMPAN_THROW(ValueError, "einsum '", eq, "': invalid subscript character '", ch,
               "' (subscripts are letters, ',', '->' and '...')");
}

std::string label_name(int l) {
  if (l < 26) return std::string(1, static_cast<char>('A' + l));
  if (l < kLetters) return std::string(1, static_cast<char>('a' + l - 26));
  return "... dimension " + std::to_string(l - kLetters);
}

// One term of the equation: its letter labels with the ellipsis position (-1 when absent).
struct Subscripts {
  std::vector<int> letters;
  int ellipsis_at = -1;
};

Subscripts parse_term(const std::string& term, const std::string& eq) {
  Subscripts s;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term[i] == '.') {
      if (term.compare(i, 3, "...") != 0 || s.ellipsis_at >= 0)
        SAMPAN_THROW(ValueError, "einsum '", eq, "': '.' must come as one '...' per operand");
      s.ellipsis_at = static_cast<int>(s.letters.size());
      i += 2;
    } else {
      s.letters.push_back(label_of(term[i], eq));
    }
  }
  return s;
}

// A tensor with one label per dimension.
struct Labeled {
  Tensor t;
  std::vector<int> labels;
};

// Sums the dimensions whose labels are not in `keep`.
Labeled sum_out(Labeled x, const std::set<int>& keep) {
  std::vector<int64_t> axes;
  std::vector<int> rest;
  for (size_t d = 0; d < x.labels.size(); ++d) {
    if (keep.count(x.labels[d])) rest.push_back(x.labels[d]);
    else axes.push_back(static_cast<int64_t>(d));
  }
  if (axes.empty()) return x;
  return {sum(x.t, axes), rest};
}

// Replaces each label repeated within the operand by its diagonal (one dimension, moved last).
Labeled take_diagonals(Labeled x, const std::string& eq) {
  for (;;) {
    int p = -1, q = -1;
    for (size_t i = 0; i < x.labels.size() && p < 0; ++i)
      for (size_t j = i + 1; j < x.labels.size(); ++j)
        if (x.labels[i] == x.labels[j]) {
          p = static_cast<int>(i);
          q = static_cast<int>(j);
          break;
        }
    if (p < 0) return x;
    SAMPAN_CHECK(x.t.shape()[p] == x.t.shape()[q], ValueError, "einsum '", eq, "': label '", label_name(x.labels[p]),
                 "' is repeated in one operand over dimensions of sizes ", x.t.shape()[p],
                 " and ", x.t.shape()[q]);
    int l = x.labels[p];
    x.t = diagonal(x.t, 0, p, q);
    x.labels.erase(x.labels.begin() + q);
    x.labels.erase(x.labels.begin() + p);
    x.labels.push_back(l);
  }
}

// Permutes x so that its labels come in `order`, then broadcasts dimensions to `sizes`.
Tensor arrange(const Labeled& x, const std::vector<int>& order, const std::map<int, int64_t>& sizes) {
  std::vector<int64_t> perm;
  Shape target;
  for (int l : order) {
    perm.push_back(std::find(x.labels.begin(), x.labels.end(), l) - x.labels.begin());
    target.push_back(sizes.at(l));
  }
  Tensor t = permute(x.t, perm);
  return t.shape() == target ? t : broadcast_to(t, target);
}

int64_t product_of(const std::vector<int>& labels, const std::map<int, int64_t>& sizes) {
  int64_t n = 1;
  for (int l : labels) n *= sizes.at(l);
  return n;
}

// Contracts a and b over their shared labels not in `keep`; shared labels in `keep` are batch.
Labeled contract(Labeled a, Labeled b, const std::set<int>& keep, const std::map<int, int64_t>& sizes) {
  std::set<int> in_b(b.labels.begin(), b.labels.end()), in_a(a.labels.begin(), a.labels.end());
  // Labels only in one operand and not kept can be summed before the product.
  std::set<int> keep_a = keep, keep_b = keep;
  keep_a.insert(in_b.begin(), in_b.end());
  keep_b.insert(in_a.begin(), in_a.end());
  a = sum_out(a, keep_a);
  b = sum_out(b, keep_b);
  std::vector<int> batch, only_a, only_b, summed;
  for (int l : a.labels) {
    if (!in_b.count(l)) only_a.push_back(l);
    else if (keep.count(l)) batch.push_back(l);
    else summed.push_back(l);
  }
  for (int l : b.labels)
    if (!in_a.count(l)) only_b.push_back(l);
  // Batch and summed dimensions are brought to their full (broadcast) size.
  std::map<int, int64_t> full = sizes;
  auto order_a = batch, order_b = batch;
  order_a.insert(order_a.end(), only_a.begin(), only_a.end());
  order_a.insert(order_a.end(), summed.begin(), summed.end());
  order_b.insert(order_b.end(), summed.begin(), summed.end());
  order_b.insert(order_b.end(), only_b.begin(), only_b.end());
  Shape batch_shape;
  for (int l : batch) batch_shape.push_back(full.at(l));
  Shape sa = batch_shape, sb = batch_shape;
  sa.push_back(product_of(only_a, full));
  sa.push_back(product_of(summed, full));
  sb.push_back(product_of(summed, full));
  sb.push_back(product_of(only_b, full));
  Tensor r = matmul(reshape(arrange(a, order_a, full), sa), reshape(arrange(b, order_b, full), sb));
  Shape rs = batch_shape;
  std::vector<int> labels = batch;
  for (int l : only_a) { rs.push_back(full.at(l)); labels.push_back(l); }
  for (int l : only_b) { rs.push_back(full.at(l)); labels.push_back(l); }
  return {reshape(r, rs), labels};
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  std::string eq;
  for (char ch : equation)
    if (ch != ' ') eq += ch;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (operands.empty() || terms.size() != operands.size())
    SAMPAN_THROW(ValueError, "einsum '", equation, "' names ", terms.size(), " operand(s) but ",
                 operands.size(), " were given");

  // Labels of every operand, with "..." expanded right-aligned over the broadcast dimensions.
  std::vector<Subscripts> subs;
  int64_t ellipsis_dims = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    subs.push_back(parse_term(terms[i], equation));
    const int64_t named = static_cast<int64_t>(subs[i].letters.size()), nd = operands[i].dim();
    const bool has_dots = subs[i].ellipsis_at >= 0;
    if (has_dots ? nd < named : nd != named)
      SAMPAN_THROW(ValueError, "einsum '", equation, "': operand ", i, " has shape ",
                   shape_str(operands[i].shape()), " but its subscripts '", terms[i], "' name ",
                   named, " dimension(s)");
    if (has_dots) ellipsis_dims = std::max(ellipsis_dims, nd - named);
  }
  std::vector<Labeled> xs;
  std::map<int, int64_t> sizes;
  std::map<int, int> count;
  for (size_t i = 0; i < subs.size(); ++i) {
    Labeled x{operands[i], {}};
    const auto& s = subs[i];
    const int64_t dots = operands[i].dim() - static_cast<int64_t>(s.letters.size());
    for (size_t j = 0; j <= s.letters.size(); ++j) {
      if (static_cast<int>(j) == s.ellipsis_at)
        for (int64_t e = 0; e < dots; ++e) x.labels.push_back(kLetters + static_cast<int>(ellipsis_dims - dots + e));
      if (j < s.letters.size()) x.labels.push_back(s.letters[j]);
    }
    for (size_t d = 0; d < x.labels.size(); ++d) {
      int l = x.labels[d];
      int64_t n = x.t.shape()[d];
      auto it = sizes.find(l);
      if (it == sizes.end() || it->second == 1) sizes[l] = n;
      else if (n != 1 && n != it->second)
        SAMPAN_THROW(ValueError, "einsum '", equation, "': label '", label_name(l), "' has size ",
                     it->second, " in one operand and ", n, " in operand ", i);
      ++count[l];
    }
    xs.push_back(x);
  }

  // The output labels: explicit after "->", else the ellipsis then the letters used once.
  std::vector<int> out;
  if (arrow != std::string::npos) {
    Subscripts o = parse_term(eq.substr(arrow + 2), equation);
    for (size_t j = 0; j <= o.letters.size(); ++j) {
      if (static_cast<int>(j) == o.ellipsis_at)
        for (int64_t e = 0; e < ellipsis_dims; ++e) out.push_back(kLetters + static_cast<int>(e));
      if (j < o.letters.size()) out.push_back(o.letters[j]);
    }
    std::set<int> seen;
    for (int l : out) {
      if (!seen.insert(l).second)
        SAMPAN_THROW(ValueError, "einsum '", equation, "': output label '", label_name(l), "' appears twice");
      if (!sizes.count(l))
        SAMPAN_THROW(ValueError, "einsum '", equation, "': output label '", label_name(l),
                     "' does not appear in any operand");
    }
  } else {
    for (int64_t e = 0; e < ellipsis_dims; ++e) out.push_back(kLetters + static_cast<int>(e));
    for (auto& [l, n] : count)
      if (l < kLetters && n == 1) out.push_back(l);
  }
  const std::set<int> out_set(out.begin(), out.end());

  for (auto& x : xs) x = take_diagonals(x, equation);
  // Labels needed after operand i: the output's and those of later operands.
  std::vector<std::set<int>> needed(xs.size(), out_set);
  for (size_t i = xs.size() - 1; i-- > 0;) {
    needed[i] = needed[i + 1];
    needed[i].insert(xs[i + 1].labels.begin(), xs[i + 1].labels.end());
  }
  Labeled acc = sum_out(xs[0], needed[0]);
  for (size_t i = 1; i < xs.size(); ++i) acc = contract(acc, xs[i], needed[i], sizes);
  acc = sum_out(acc, out_set);

  // Output order; a label whose operands all had size 1 keeps size 1, others are full size.
  std::vector<int64_t> perm;
  Shape target;
  for (int l : out) {
    perm.push_back(std::find(acc.labels.begin(), acc.labels.end(), l) - acc.labels.begin());
    target.push_back(sizes.at(l));
  }
  Tensor r = permute(acc.t, perm);
  return r.shape() == target ? r : broadcast_to(r, target);
}

}  // namespace sampan
