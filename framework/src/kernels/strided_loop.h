// sampan kernels: the elementwise loop over strided, broadcast operands. Plain functions over
// pointers, sizes and element strides; no Tensor. OpenMP above a size threshold.
#pragma once

#include <array>
#include <tuple>
#include <type_traits>
#include <utility>
#include <cstdint>
#include <vector>

namespace sampan::kernels {

/// Elements below which a loop stays on one thread (thread start-up costs ~microseconds).
constexpr int64_t kParallelGrain = 32768;

/// One operand of an elementwise loop: base pointer and an element stride per dimension
/// (0 along broadcast dimensions).
template <class T> struct Strided {
  T* ptr;
  const int64_t* strides;
};

namespace detail {

inline bool is_dense(int64_t ndim, const int64_t* shape, const int64_t* strides) {
  int64_t expect = 1;
  for (int64_t d = ndim; d-- > 0;) {
    if (shape[d] == 1) continue;
    if (strides[d] != expect) return false;
    expect *= shape[d];
  }
  return true;
}

// Merges adjacent dimensions that every operand traverses as one, so the inner loop is long.
template <size_t N>
void coalesce(int64_t ndim, const int64_t* shape, const std::array<const int64_t*, N>& strides,
              std::vector<int64_t>& cshape, std::array<std::vector<int64_t>, N>& cstrides) {
  cshape.clear();
  for (auto& s : cstrides) s.clear();
  for (int64_t d = 0; d < ndim; ++d) {
    if (shape[d] == 1) continue;
    bool merge = !cshape.empty();
    for (size_t k = 0; merge && k < N; ++k)
      merge = cstrides[k].back() == strides[k][d] * shape[d];
    if (merge) {
      cshape.back() *= shape[d];
      for (size_t k = 0; k < N; ++k) cstrides[k].back() = strides[k][d];
    } else {
      cshape.push_back(shape[d]);
      for (size_t k = 0; k < N; ++k) cstrides[k].push_back(strides[k][d]);
    }
  }
  if (cshape.empty()) {
    cshape.push_back(1);
    for (size_t k = 0; k < N; ++k) cstrides[k].push_back(0);
  }
}

template <class Out, class F, size_t N, size_t... K, class... In>
inline void run_row(Out* o, int64_t so, int64_t inner, F& f, const std::array<int64_t, N>& off,
                    const std::array<int64_t, N - 1>& sin, std::index_sequence<K...>, In*... base) {
  std::tuple<In*...> p{(base + off[K + 1])...};
  for (int64_t i = 0; i < inner; ++i) o[i * so] = f(std::get<K>(p)[i * sin[K]]...);
}

// A broadcast value: every stride 0 (a Python scalar next to a tensor, a 0-d tensor).
inline bool is_broadcast_value(int64_t ndim, const int64_t* strides) {
  for (int64_t d = 0; d < ndim; ++d)
    if (strides[d] != 0) return false;
  return true;
}

template <class T> struct DenseAt {
  T* p;
  T operator[](int64_t i) const { return p[i]; }
};
template <class T> struct ValueAt {
  std::remove_const_t<T> v;
  std::remove_const_t<T> operator[](int64_t) const { return v; }
};

template <class Out, class F, class... Access>
void flat_loop(int64_t n, Out* o, F& f, Access... a) {
  if (n > kParallelGrain) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]...);
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]...);
  }
}

// Turns each input into a DenseAt or a ValueAt (read once) by a runtime choice, so the loop
// body is compiled once per combination and stays flat and vectorizable.
// One contiguous output row whose inputs each walk their row contiguously (stride 1) or repeat one
// value (stride 0): the row of a [rows, inner] op [inner] bias add, or of [rows, inner] op
// [rows, 1]. Same DenseAt/ValueAt choice as dense_or_value_loop, serial (the caller splits rows).
template <class Out, class F, class... Done>
void contiguous_row(int64_t n, Out* o, F& f, std::tuple<Done...> done) {
  std::apply([&](auto... a) { for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]...); }, done);
}
template <class Out, class F, class... Done, class T, class... Rest>
void contiguous_row(int64_t n, Out* o, F& f, std::tuple<Done...> done, std::pair<T*, bool> first, Rest... rest) {
  if (first.second)
    contiguous_row(n, o, f, std::tuple_cat(done, std::make_tuple(ValueAt<T>{*first.first})), rest...);
  else
    contiguous_row(n, o, f, std::tuple_cat(done, std::make_tuple(DenseAt<T>{first.first})), rest...);
}

template <class Out, class F, size_t N, size_t... K, class... In>
inline void run_contiguous_row(Out* o, int64_t inner, F& f, const std::array<int64_t, N>& off,
                               const std::array<int64_t, N - 1>& sin, std::index_sequence<K...>, In*... base) {
  contiguous_row(inner, o, f, std::tuple<>{}, std::make_pair(base + off[K + 1], sin[K] == 0)...);
}

template <class Out, class F, class... Done>
void dense_or_value_loop(int64_t n, Out* o, F& f, std::tuple<Done...> done) {
  std::apply([&](auto... a) { flat_loop(n, o, f, a...); }, done);
}
template <class Out, class F, class... Done, class T, class... Rest>
void dense_or_value_loop(int64_t n, Out* o, F& f, std::tuple<Done...> done, std::pair<T*, bool> first,
                         Rest... rest) {
  if (first.second)
    dense_or_value_loop(n, o, f, std::tuple_cat(done, std::make_tuple(ValueAt<T>{*first.first})), rest...);
  else
    dense_or_value_loop(n, o, f, std::tuple_cat(done, std::make_tuple(DenseAt<T>{first.first})), rest...);
}

}  // namespace detail

/// out[i] = f(in[i]...) over the iteration shape; every operand has `ndim` strides.
template <class F, class Out, class... In>
void map_strided(int64_t ndim, const int64_t* shape, Strided<Out> out, F f, Strided<In>... in) {
  int64_t n = 1;
  for (int64_t d = 0; d < ndim; ++d) n *= shape[d];
  if (n == 0) return;
  if (detail::is_dense(ndim, shape, out.strides) && (detail::is_dense(ndim, shape, in.strides) && ...)) {
    Out* o = out.ptr;
    if (n > kParallelGrain) {
#pragma omp parallel for schedule(static)
      for (int64_t i = 0; i < n; ++i) o[i] = f(in.ptr[i]...);
    } else {  // no OpenMP region at all: entering one costs more than a small loop
      for (int64_t i = 0; i < n; ++i) o[i] = f(in.ptr[i]...);
    }
    return;
  }
  if constexpr (sizeof...(In) >= 2) {
    // Dense output, each input dense or one broadcast value (x * 0.9, x.mul_(s), where(c, x, 0)):
    // the value is read once and the loop stays flat (the strided path below multiplies every
    // index by a runtime stride of 0 and does not vectorize: 3-5x slower).
    if (detail::is_dense(ndim, shape, out.strides) &&
        ((detail::is_dense(ndim, shape, in.strides) || detail::is_broadcast_value(ndim, in.strides)) && ...)) {
      detail::dense_or_value_loop(n, out.ptr, f, std::tuple<>{},
                                  std::make_pair(in.ptr, detail::is_broadcast_value(ndim, in.strides) &&
                                                             !detail::is_dense(ndim, shape, in.strides))...);
      return;
    }
  }
  constexpr size_t N = 1 + sizeof...(In);
  std::vector<int64_t> cs;
  std::array<std::vector<int64_t>, N> cst;
  detail::coalesce<N>(ndim, shape, {out.strides, in.strides...}, cs, cst);
  const int64_t cd = static_cast<int64_t>(cs.size());
  const int64_t inner = cs[cd - 1];
  const int64_t rows = n / inner;
  const int64_t so = cst[0][cd - 1];
  std::array<int64_t, N - 1> sin{};
  for (size_t k = 1; k < N; ++k) sin[k - 1] = cst[k][cd - 1];
  // Rows that are contiguous in the output and in every input (or constant along the row) run a
  // flat, vectorizable loop: a bias add [750, 600] + [600] 4x faster than the strided row.
  bool contiguous_rows = so == 1;
  for (size_t k = 0; k + 1 < N; ++k) contiguous_rows = contiguous_rows && (sin[k] == 0 || sin[k] == 1);
#pragma omp parallel for if (n > kParallelGrain) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    // offsets of row r from its multi-index over the outer dimensions
    std::array<int64_t, N> off{};
    int64_t rem = r;
    for (int64_t d = cd - 2; d >= 0; --d) {
      int64_t idx = rem % cs[d];
      rem /= cs[d];
      for (size_t k = 0; k < N; ++k) off[k] += idx * cst[k][d];
    }
    if (contiguous_rows)
      detail::run_contiguous_row(out.ptr + off[0], inner, f, off, sin, std::index_sequence_for<In...>{},
                                 in.ptr...);
    else
      detail::run_row(out.ptr + off[0], so, inner, f, off, sin, std::index_sequence_for<In...>{},
                      in.ptr...);
  }
}

}  // namespace sampan::kernels
