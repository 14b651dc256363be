// sampan quantum: AVX2+FMA gate kernels (see gates_avx2.h).
//
// One formulation covers every target position. A 256-bit register holds L = 2^W consecutive
// amplitudes (W = 1 for complex128, 2 for complex64); a target qubit q < W lies inside a
// register ("in-lane"), q >= W selects between registers ("out-lane"). For a k-qubit dense gate
// the kernel loads the 2^(k_out) registers that share the other index bits, forms the in-lane
// partner vectors by lane permutations (x -> lane l ^ s), and writes
//     out[o] = sum_{o', s} C[o][o'][s] * perm_s(in[o'])
// with per-lane complex coefficients C precomputed from the matrix. Controls below bit W are
// folded into C (lanes whose control bits are 0 get the identity), controls at or above W and the
// out-lane targets are handled by the run enumeration of index_runs.h, which streams memory
// sequentially for every target. Complex products use the (re, im)-duplicated coefficient form:
// sum_j c_j d_j = addsub(sum_j re(c_j) d_j, sum_j im(c_j) swap(d_j)).
#include "kernels/gates_avx2.h"

#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SAMPAN_QUANTUM_X86 1
#endif

namespace sampan::quantum::kernels::avx2 {

namespace {
bool cpu_has_avx2_fma() {
#ifdef SAMPAN_QUANTUM_X86
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}
bool initial_enabled() {
  const char* env = std::getenv("SAMPAN_QUANTUM_SIMD");
  return cpu_has_avx2_fma() && !(env && std::strcmp(env, "0") == 0);
}
bool& enabled_flag() {
  static bool flag = initial_enabled();
  return flag;
}
}  // namespace

bool available() { return enabled_flag(); }

bool set_enabled(bool enabled) {
  const bool previous = enabled_flag();
  enabled_flag() = enabled && cpu_has_avx2_fma();
  return previous;
}

}  // namespace sampan::quantum::kernels::avx2

#ifdef SAMPAN_QUANTUM_X86

// Everything below is compiled for AVX2+FMA; it runs only after available() said yes. The run
// enumeration header is included here so that its templates inline into these kernels.
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#include "kernels/index_runs.h"

namespace sampan::quantum::kernels::avx2 {

namespace {

// Per-precision vector operations. A "lane" is one complex amplitude (two reals).
struct VecD {
  using T = double;
  using V = __m256d;
  static constexpr int kLaneBits = 1;
  static V load(const T* p) { return _mm256_loadu_pd(p); }
  static void store(T* p, V v) { _mm256_storeu_pd(p, v); }
  static V zero() { return _mm256_setzero_pd(); }
  static V fmadd(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V addsub(V a, V b) { return _mm256_addsub_pd(a, b); }
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static V sub(V a, V b) { return _mm256_sub_pd(a, b); }
  static V set1(T x) { return _mm256_set1_pd(x); }
  static V swap_re_im(V v) { return _mm256_permute_pd(v, 0x5); }
  // Lane l of the result is lane l ^ s of v.
  template <int S> static V lane_xor(V v) {
    if constexpr (S == 0) return v;
    else return _mm256_permute2f128_pd(v, v, 0x01);
  }
  // (re, re) and (im, im) of one complex per lane.
  static void set_dup(const std::complex<double>* c, V& re, V& im) {
    re = _mm256_setr_pd(c[0].real(), c[0].real(), c[1].real(), c[1].real());
    im = _mm256_setr_pd(c[0].imag(), c[0].imag(), c[1].imag(), c[1].imag());
  }
};

struct VecF {
  using T = float;
  using V = __m256;
  static constexpr int kLaneBits = 2;
  static V load(const T* p) { return _mm256_loadu_ps(p); }
  static void store(T* p, V v) { _mm256_storeu_ps(p, v); }
  static V zero() { return _mm256_setzero_ps(); }
  static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V addsub(V a, V b) { return _mm256_addsub_ps(a, b); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V set1(T x) { return _mm256_set1_ps(x); }
  static V swap_re_im(V v) { return _mm256_permute_ps(v, 0xB1); }
  template <int S> static V lane_xor(V v) {
    if constexpr (S == 0) return v;
    else if constexpr (S == 1) return _mm256_permute_ps(v, 0x4E);  // swap complex 0<->1, 2<->3
    else if constexpr (S == 2) return _mm256_permute2f128_ps(v, v, 0x01);
    else return _mm256_permute_ps(_mm256_permute2f128_ps(v, v, 0x01), 0x4E);
  }
  static void set_dup(const std::complex<float>* c, V& re, V& im) {
    re = _mm256_setr_ps(c[0].real(), c[0].real(), c[1].real(), c[1].real(), c[2].real(), c[2].real(), c[3].real(),
                        c[3].real());
    im = _mm256_setr_ps(c[0].imag(), c[0].imag(), c[1].imag(), c[1].imag(), c[2].imag(), c[2].imag(), c[3].imag(),
                        c[3].imag());
  }
};

constexpr int kMaxTargets = 2;

// Software prefetch this many bytes ahead of every stream a kernel walks. The hardware
// prefetchers follow one ascending stream per page well, but a gate on target 2..7 (pairs 64 B to
// 2 KiB apart) reads each page in an order like lines 0, 2, 1, 3, 4, 6, ..., which they follow
// late. Measured at n = 22, one thread (ratio to a plain in-place pass without prefetch, mean
// over targets [worst]): none 0.97 [0.66 at t = 6], 512 B 1.15 [0.86], 2 KiB 1.27 [1.03], 4 KiB
// 1.23; sparse walks (CNOT touching every other line) gain up to 4 KiB. Prefetching past the end
// of the state is harmless (never faults).
constexpr int kPrefetchBytes = 2048;

// The prefetch offset, in amplitudes, for a walk whose fixed (target / control) bits are `fixed`:
// 2^q with q >= log2(kPrefetchBytes / amp_bytes) the first position with bits q, q + 1, q + 2
// all free. Adding 2^q keeps every fixed bit below q, and a carry reaches a fixed bit above with
// probability <= 1/8, so the prefetched address is one the walk will visit. A plain 2 KiB (2^7
// amplitudes) fetched, for a gate on target 7 or CNOT(c = 7, t = 6), the partner half that was
// being read already or a half the walk skips (those targets then ran at full-pass cost).
inline uint64_t prefetch_offset_amps(uint64_t fixed, int amp_bytes) {
  int q = __builtin_ctz(static_cast<unsigned>(kPrefetchBytes / amp_bytes));
  while (q < 40 && ((fixed >> q) & 7) != 0) ++q;
  return uint64_t(1) << q;
}

// Prefetches the cache lines that R 32-byte registers starting at p cover.
template <int R, class T>
inline void prefetch_lines(const T* p) {
  for (int l = 0; l < (R + 1) / 2; ++l) _mm_prefetch(reinterpret_cast<const char*>(p) + 64 * l, _MM_HINT_T0);
}

// Registers per stream that one body call processes: two (a whole 64-byte line of complex128,
// so both streams advance by full lines) when the runs of untouched-bit indices are at least two
// registers long, else one. (Four, i.e. a gate on target 3 reading its 256-byte block in
// ascending order within one call, measured slower: 0.87 against 0.67 ns/amp at n = 20.)
inline int registers_per_step(uint64_t fixed_mask, int n, int lane_bits) {
  int low_fixed = fixed_mask ? __builtin_ctzll(fixed_mask) : n;
  if (low_fixed > n) low_fixed = n;
  return low_fixed >= lane_bits + 1 ? 2 : 1;
}

// Calls walk(integral_constant<int, R>) with R = registers_per_step(...).
template <class Walk>
inline void with_registers_per_step(uint64_t fixed_mask, int n, int lane_bits, Walk&& walk) {
  const int r = registers_per_step(fixed_mask, n, lane_bits);
  if (r == 2) walk(std::integral_constant<int, 2>());
  else walk(std::integral_constant<int, 1>());
}

// Which target is where: out-lane targets select registers (bit k of the register number o is
// out_qubits[k]), in-lane targets are lane bits.
struct Layout {
  int k = 0;
  int qubits[kMaxTargets] = {0, 0};
  int n_out = 0;
  int out_qubits[kMaxTargets] = {0, 0};
  uint64_t offsets[1 << kMaxTargets] = {0, 0, 0, 0};  // index offset of register o
  uint64_t zero_mask = 0;                              // out-lane target bits (0 in the base index)
  int in_mask = 0;                                     // lane bits that are targets
};

Layout make_layout(const int* qubits, int k, int lane_bits) {
  Layout s;
  s.k = k;
  for (int j = 0; j < k; ++j) {
    s.qubits[j] = qubits[j];
    if (qubits[j] >= lane_bits) {
      s.out_qubits[s.n_out++] = qubits[j];
      s.zero_mask |= uint64_t(1) << qubits[j];
    } else {
      s.in_mask |= 1 << qubits[j];
    }
  }
  for (int o = 0; o < (1 << s.n_out); ++o)
    for (int b = 0; b < s.n_out; ++b)
      if (o >> b & 1) s.offsets[o] |= uint64_t(1) << s.out_qubits[b];
  return s;
}

// Local (matrix) index of amplitude (register o, lane l) under layout s.
int local_index(const Layout& s, int o, int l) {
  int r = 0, out_bit = 0;
  for (int j = 0; j < s.k; ++j) {
    const int bit = s.qubits[j] >= 0 && (s.zero_mask >> s.qubits[j] & 1) ? (o >> out_bit++ & 1) : (l >> s.qubits[j] & 1);
    r |= bit << j;
  }
  return r;
}

// out[o] = sum_{o', s} C[o][o'][s] perm_s(in[o']) over the runs of the layout. NO = 2^n_out,
// IN_MASK = lane bits that are targets (compile-time, so the permutations are fixed).
template <class VT, int NO, int IN_MASK>
void dense_lanes(std::complex<typename VT::T>* a, int n, const Layout& s, const std::complex<typename VT::T>* m,
                 uint64_t cmask) {
  using T = typename VT::T;
  using V = typename VT::V;
  using Cx = std::complex<T>;
  constexpr int L = 1 << VT::kLaneBits;
  const int dim = 1 << s.k;
  const int low_controls = static_cast<int>(cmask & (L - 1));
  V cre[NO][NO][L], cim[NO][NO][L];
  for (int o = 0; o < NO; ++o)
    for (int o2 = 0; o2 < NO; ++o2)
      for (int x = 0; x < L; ++x) {
        Cx lane[L];
        for (int l = 0; l < L; ++l) {
          const bool active = (l & low_controls) == low_controls;
          if ((x & ~IN_MASK) != 0) lane[l] = 0;
          else if (active) lane[l] = m[local_index(s, o, l) * dim + local_index(s, o2, l ^ x)];
          else lane[l] = (o == o2 && x == 0) ? Cx(1) : Cx(0);
        }
        // Stored at lane l ^ x: the kernel multiplies the unpermuted input and permutes the
        // product, perm_x(C' in)[l] = C'[l ^ x] in[l ^ x] = C[l] in[l ^ x] (one shuffle per
        // output and x instead of two per input and x).
        if (x != 0) {
          Cx shifted[L];
          for (int l = 0; l < L; ++l) shifted[l ^ x] = lane[l];
          for (int l = 0; l < L; ++l) lane[l] = shifted[l];
        }
        VT::set_dup(lane, cre[o][o2][x], cim[o][o2][x]);
      }
  uint64_t off[NO];
  for (int o = 0; o < NO; ++o) off[o] = s.offsets[o];
  const uint64_t high_controls = cmask & ~uint64_t(L - 1);
  T* base = reinterpret_cast<T*>(a);
  struct Coefficients {
    V re[NO][NO][L], im[NO][NO][L];
    uint64_t off[NO];
    uint64_t pf;  // prefetch offset in amplitudes
  } k;
  k.pf = prefetch_offset_amps(s.zero_mask | high_controls, 2 * static_cast<int>(sizeof(T)));
  for (int o = 0; o < NO; ++o) {
    k.off[o] = off[o];
    for (int o2 = 0; o2 < NO; ++o2)
      for (int x = 0; x < L; ++x) k.re[o][o2][x] = cre[o][o2][x], k.im[o][o2][x] = cim[o][o2][x];
  }
  auto walk = [&](auto r_const) {
    constexpr int R = decltype(r_const)::value;
    for_each_register(n, s.zero_mask, high_controls, VT::kLaneBits + (R - 1), [k, base](uint64_t i0) __attribute__((always_inline)) {
    for (int o = 0; o < NO; ++o) prefetch_lines<R>(base + 2 * (i0 + k.off[o] + k.pf));
    for (int r = 0; r < R; ++r) {
      const uint64_t i = i0 + static_cast<uint64_t>(r * L);
      const auto& cre = k.re;
      const auto& cim = k.im;
      const auto& off = k.off;
      V in[NO], sw[NO];
      for (int o = 0; o < NO; ++o) {
        in[o] = VT::load(base + 2 * (i + off[o]));
        sw[o] = VT::swap_re_im(in[o]);
      }
      V out[NO];
      for (int o = 0; o < NO; ++o) {
        V re = VT::mul(cre[o][0][0], in[0]), im = VT::mul(cim[o][0][0], sw[0]);
        for (int o2 = 1; o2 < NO; ++o2) {
          re = VT::fmadd(cre[o][o2][0], in[o2], re);
          im = VT::fmadd(cim[o][o2][0], sw[o2], im);
        }
        V acc = VT::addsub(re, im);
        // The in-lane partners: products with the lane-shifted coefficients, then one shuffle.
        auto partner = [&](auto x_const) {
          constexpr int X = decltype(x_const)::value;
          V pre = VT::mul(cre[o][0][X % L], in[0]), pim = VT::mul(cim[o][0][X % L], sw[0]);
          for (int o2 = 1; o2 < NO; ++o2) {
            pre = VT::fmadd(cre[o][o2][X % L], in[o2], pre);
            pim = VT::fmadd(cim[o][o2][X % L], sw[o2], pim);
          }
          acc = VT::add(acc, VT::template lane_xor<X>(VT::addsub(pre, pim)));
        };
        if constexpr ((IN_MASK & 1) != 0) partner(std::integral_constant<int, 1>());
        if constexpr ((IN_MASK & 2) != 0) partner(std::integral_constant<int, 2>());
        if constexpr (IN_MASK == 3) partner(std::integral_constant<int, 3>());
        out[o] = acc;
      }
      for (int o = 0; o < NO; ++o) VT::store(base + 2 * (i + off[o]), out[o]);
    }
    });
  };
  with_registers_per_step(s.zero_mask | high_controls, n, VT::kLaneBits, walk);
}

// Diagonal gate: out[o] = D[o] * in[o] per lane (o: the out-lane target bit, if any). SKIP0:
// register 0 is untouched (diag(1, p) without low controls, e.g. a phase gate or CZ).
template <class VT, int NO, bool SKIP0>
void diag_lanes(std::complex<typename VT::T>* a, int n, const Layout& s, const std::complex<typename VT::T>* d,
                uint64_t cmask) {
  using T = typename VT::T;
  using V = typename VT::V;
  using Cx = std::complex<T>;
  constexpr int L = 1 << VT::kLaneBits;
  const int low_controls = static_cast<int>(cmask & (L - 1));
  V dre[NO], dim_[NO];
  for (int o = 0; o < NO; ++o) {
    Cx lane[L];
    for (int l = 0; l < L; ++l)
      lane[l] = (l & low_controls) == low_controls ? d[local_index(s, o, l)] : Cx(1);
    VT::set_dup(lane, dre[o], dim_[o]);
  }
  const uint64_t off1 = NO > 1 ? s.offsets[1] : 0;
  const uint64_t high_controls = cmask & ~uint64_t(L - 1);
  T* base = reinterpret_cast<T*>(a);
  struct Diagonal {
    V re[NO], im[NO];
    uint64_t off1;
    uint64_t pf;
  } k;
  for (int o = 0; o < NO; ++o) k.re[o] = dre[o], k.im[o] = dim_[o];
  k.off1 = off1;
  k.pf = prefetch_offset_amps(s.zero_mask | high_controls, 2 * static_cast<int>(sizeof(T)));
  auto walk = [&](auto r_const) {
    constexpr int R = decltype(r_const)::value;
    for_each_register(n, s.zero_mask, high_controls, VT::kLaneBits + (R - 1), [k, base](uint64_t i0) __attribute__((always_inline)) {
      const auto& dre = k.re;
      const auto& dim_ = k.im;
      const uint64_t off1 = k.off1;
      for (int o = SKIP0 ? 1 : 0; o < NO; ++o) prefetch_lines<R>(base + 2 * (i0 + (o ? off1 : 0) + k.pf));
      for (int r = 0; r < R; ++r) {
        const uint64_t i = i0 + static_cast<uint64_t>(r * L);
        for (int o = SKIP0 ? 1 : 0; o < NO; ++o) {
          T* p = base + 2 * (i + (o ? off1 : 0));
          const V x = VT::load(p);
          VT::store(p, VT::addsub(VT::mul(dre[o], x), VT::mul(dim_[o], VT::swap_re_im(x))));
        }
      }
    });
  };
  with_registers_per_step(s.zero_mask | high_controls, n, VT::kLaneBits, walk);
}

// Named 1-qubit gates without a matrix: X swaps the pair, H forms (x + y, x - y) / sqrt 2. They
// stream memory exactly like dense_lanes but with 0 (X) or 3 (H) arithmetic instructions per
// register instead of 10, which matters when the state sits in cache (n <= 22 on this box).
// Out-lane target (pairs of registers i, i + 2^t); the caller guarantees no control below the
// vector width.
struct SwapPair {
  template <class V> static void apply(V& x, V& y, V) { std::swap(x, y); }
};
struct HadamardPair {
  template <class VT, class V> static void apply_vt(V& x, V& y, V r) {
    const V s = VT::add(x, y), d = VT::sub(x, y);
    x = VT::mul(r, s), y = VT::mul(r, d);
  }
};


template <class VT, bool HADAMARD>
void named_pair_out_lane(std::complex<typename VT::T>* a, int n, int t, uint64_t cmask) {
  using T = typename VT::T;
  using V = typename VT::V;
  constexpr int L = 1 << VT::kLaneBits;
  const uint64_t zero_mask = uint64_t(1) << t;
  struct Constants {
    V r;
    uint64_t d;
    uint64_t pf;
  } k{VT::set1(static_cast<T>(0.70710678118654752440)), uint64_t(1) << t,
      prefetch_offset_amps(zero_mask | cmask, 2 * static_cast<int>(sizeof(T)))};
  T* base = reinterpret_cast<T*>(a);
  auto walk = [&](auto r_const) {
    constexpr int R = decltype(r_const)::value;
    for_each_register(n, zero_mask, cmask, VT::kLaneBits + (R - 1), [k, base](uint64_t i0) __attribute__((always_inline)) {
      T* p0 = base + 2 * i0;
      T* p1 = base + 2 * (i0 + k.d);
      prefetch_lines<R>(p0 + 2 * k.pf);
      prefetch_lines<R>(p1 + 2 * k.pf);
      for (int r = 0; r < R; ++r) {
        V x = VT::load(p0 + 2 * L * r), y = VT::load(p1 + 2 * L * r);
        if constexpr (HADAMARD) HadamardPair::apply_vt<VT>(x, y, k.r);
        else SwapPair::apply(x, y, k.r);
        VT::store(p0 + 2 * L * r, x), VT::store(p1 + 2 * L * r, y);
      }
    });
  };
  with_registers_per_step(zero_mask | cmask, n, VT::kLaneBits, walk);
}

template <class VT>
void named_1q_impl(std::complex<typename VT::T>* a, int n, int t, uint64_t cmask, bool hadamard) {
  using T = typename VT::T;
  using Cx = std::complex<T>;
  constexpr int L = 1 << VT::kLaneBits;
  if (t >= VT::kLaneBits && (cmask & uint64_t(L - 1)) == 0) {
    if (hadamard) named_pair_out_lane<VT, true>(a, n, t, cmask);
    else named_pair_out_lane<VT, false>(a, n, t, cmask);
    return;
  }
  // In-lane target or a control inside the register: the general lane kernel.
  const T r = static_cast<T>(0.70710678118654752440);
  const Cx hm[4] = {r, r, r, -r}, xm[4] = {T(0), T(1), T(1), T(0)};
  const Layout s = make_layout(&t, 1, VT::kLaneBits);
  const Cx* m = hadamard ? hm : xm;
  if (s.n_out == 1) dense_lanes<VT, 2, 0>(a, n, s, m, cmask);
  else if (s.in_mask == 1) dense_lanes<VT, 1, 1>(a, n, s, m, cmask);
  else dense_lanes<VT, 1, 2>(a, n, s, m, cmask);
}

template <class VT>
void dense_1q_impl(std::complex<typename VT::T>* a, int n, int t, const std::complex<typename VT::T>* m,
                   uint64_t cmask) {
  const Layout s = make_layout(&t, 1, VT::kLaneBits);
  if (s.n_out == 1) dense_lanes<VT, 2, 0>(a, n, s, m, cmask);
  else if (s.in_mask == 1) dense_lanes<VT, 1, 1>(a, n, s, m, cmask);
  else dense_lanes<VT, 1, 2>(a, n, s, m, cmask);
}

template <class VT>
void diag_1q_impl(std::complex<typename VT::T>* a, int n, int t, std::complex<typename VT::T> d0,
                  std::complex<typename VT::T> d1, uint64_t cmask) {
  using Cx = std::complex<typename VT::T>;
  const Layout s = make_layout(&t, 1, VT::kLaneBits);
  const Cx d[2] = {d0, d1};
  const int L = 1 << VT::kLaneBits;
  if (s.n_out == 0) diag_lanes<VT, 1, false>(a, n, s, d, cmask);
  // diag(1, p) touches only the registers with the target bit set; on targets whose runs are
  // under 16 amplitudes (every other line or pair of lines) the hardware prefetchers fetch the
  // skipped lines anyway and a full pass was as fast or faster (n = 20: t = 2, 3 took 0.6-0.75
  // ns/amp skipping, 0.57 for a full pass).
  else if (d0 == Cx(1) && (cmask & uint64_t(L - 1)) == 0 && t >= 4) diag_lanes<VT, 2, true>(a, n, s, d, cmask);
  else diag_lanes<VT, 2, false>(a, n, s, d, cmask);
}

template <class VT>
void dense_2q_impl(std::complex<typename VT::T>* a, int n, int q0, int q1, const std::complex<typename VT::T>* m,
                   uint64_t cmask) {
  const int q[2] = {q0, q1};
  const Layout s = make_layout(q, 2, VT::kLaneBits);
  if (s.n_out == 2) dense_lanes<VT, 4, 0>(a, n, s, m, cmask);
  else if (s.n_out == 1 && s.in_mask == 1) dense_lanes<VT, 2, 1>(a, n, s, m, cmask);
  else if (s.n_out == 1) dense_lanes<VT, 2, 2>(a, n, s, m, cmask);
  else dense_lanes<VT, 1, 3>(a, n, s, m, cmask);
}

}  // namespace

void dense_1q(std::complex<double>* a, int n, int t, const std::complex<double>* m, uint64_t cmask) {
  dense_1q_impl<VecD>(a, n, t, m, cmask);
}
void dense_1q(std::complex<float>* a, int n, int t, const std::complex<float>* m, uint64_t cmask) {
  dense_1q_impl<VecF>(a, n, t, m, cmask);
}
void x_1q(std::complex<double>* a, int n, int t, uint64_t cmask) { named_1q_impl<VecD>(a, n, t, cmask, false); }
void x_1q(std::complex<float>* a, int n, int t, uint64_t cmask) { named_1q_impl<VecF>(a, n, t, cmask, false); }
void h_1q(std::complex<double>* a, int n, int t, uint64_t cmask) { named_1q_impl<VecD>(a, n, t, cmask, true); }
void h_1q(std::complex<float>* a, int n, int t, uint64_t cmask) { named_1q_impl<VecF>(a, n, t, cmask, true); }
void diag_1q(std::complex<double>* a, int n, int t, std::complex<double> d0, std::complex<double> d1, uint64_t cmask) {
  diag_1q_impl<VecD>(a, n, t, d0, d1, cmask);
}
void diag_1q(std::complex<float>* a, int n, int t, std::complex<float> d0, std::complex<float> d1, uint64_t cmask) {
  diag_1q_impl<VecF>(a, n, t, d0, d1, cmask);
}
void dense_2q(std::complex<double>* a, int n, int q0, int q1, const std::complex<double>* m, uint64_t cmask) {
  dense_2q_impl<VecD>(a, n, q0, q1, m, cmask);
}
void dense_2q(std::complex<float>* a, int n, int q0, int q1, const std::complex<float>* m, uint64_t cmask) {
  dense_2q_impl<VecF>(a, n, q0, q1, m, cmask);
}

}  // namespace sampan::quantum::kernels::avx2

#pragma GCC pop_options

#else  // not x86: available() is false and these are never called.

#include <stdexcept>

namespace sampan::quantum::kernels::avx2 {
[[noreturn]] static void no_avx2() { throw std::logic_error("quantum: AVX2 kernels called on a non-x86 build"); }
void dense_1q(std::complex<double>*, int, int, const std::complex<double>*, uint64_t) { no_avx2(); }
void x_1q(std::complex<double>*, int, int, uint64_t) { no_avx2(); }
void x_1q(std::complex<float>*, int, int, uint64_t) { no_avx2(); }
void h_1q(std::complex<double>*, int, int, uint64_t) { no_avx2(); }
void h_1q(std::complex<float>*, int, int, uint64_t) { no_avx2(); }
void dense_1q(std::complex<float>*, int, int, const std::complex<float>*, uint64_t) { no_avx2(); }
void diag_1q(std::complex<double>*, int, int, std::complex<double>, std::complex<double>, uint64_t) { no_avx2(); }
void diag_1q(std::complex<float>*, int, int, std::complex<float>, std::complex<float>, uint64_t) { no_avx2(); }
void dense_2q(std::complex<double>*, int, int, int, const std::complex<double>*, uint64_t) { no_avx2(); }
void dense_2q(std::complex<float>*, int, int, int, const std::complex<float>*, uint64_t) { no_avx2(); }
}  // namespace sampan::quantum::kernels::avx2

#endif
