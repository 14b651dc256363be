// sampan quantum: StateVector, the memory check and the qubit checks.
#include "sampan/quantum/state_vector.h"

#include <unistd.h>

#include <algorithm>
#include <string>

#include "kernels/gates.h"
#include "sampan/error.h"
#include "sampan/ops.h"

namespace sampan::quantum {

uint64_t check_state_fits(int64_t n, DType dtype, const char* who) {
  SAMPAN_CHECK(dtype == DType::Complex128 || dtype == DType::Complex64, TypeError, who,
               ": a state vector is complex64 or complex128, got ", dtype_name(dtype));
  SAMPAN_CHECK(n >= 1 && n <= 60, ValueError, who, ": the number of qubits must be in [1, 60], got ", n);
  const uint64_t bytes = (uint64_t(1) << n) * static_cast<uint64_t>(itemsize(dtype));
  // Physical pages available now; what an allocation that is touched can actually use.
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) {
    const uint64_t avail = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
    SAMPAN_CHECK(bytes <= avail, ValueError, who, ": a state of ", n, " qubits (", dtype_name(dtype),
                 ") needs ", bytes, " bytes but only ", avail, " bytes of memory are available");
  }
  return bytes;
}

void check_qubits(const std::vector<int64_t>& qubits, int64_t n, const char* who, bool distinct) {
  for (size_t i = 0; i < qubits.size(); ++i) {
    SAMPAN_CHECK(qubits[i] >= 0 && qubits[i] < n, IndexError, who, ": qubit ", qubits[i],
                 " is out of range for ", n, " qubits (valid: 0 to ", n - 1, ")");
    if (!distinct) continue;
    for (size_t j = 0; j < i; ++j) {
      if (qubits[j] != qubits[i]) continue;
      std::string list;
      for (size_t k = 0; k < qubits.size(); ++k) list += (k ? ", " : "") + std::to_string(qubits[k]);
      SAMPAN_THROW(ValueError, who, ": qubits [", list, "] repeat a qubit: qubit ", qubits[i],
                   " appears twice in one gate (n = ", n, ")");
    }
  }
}

StateVector::StateVector(int64_t n, DType dtype) : n_(n) {
  check_state_fits(n, dtype, "StateVector");
  tensor_ = zeros({int64_t(1) << n}, dtype);
  if (dtype == DType::Complex128) tensor_.data<complex128>()[0] = 1.0;
  else tensor_.data<complex64>()[0] = 1.0f;
}

void StateVector::apply_matrix(const std::vector<int64_t>& qubits, const std::vector<complex128>& m,
                               const std::vector<int64_t>& controls) {
  std::vector<int64_t> all = qubits;
  all.insert(all.end(), controls.begin(), controls.end());
  SAMPAN_CHECK(!qubits.empty() && qubits.size() <= 10, ValueError,
               "StateVector.apply_matrix: 1 to 10 target qubits, got ", qubits.size());
  check_qubits(all, n_, "StateVector.apply_matrix");
  const size_t dim = size_t(1) << qubits.size();
  SAMPAN_CHECK(m.size() == dim * dim, ValueError, "StateVector.apply_matrix: a gate on ", qubits.size(),
               " qubits needs ", dim * dim, " matrix entries, got ", m.size());
  uint64_t cmask = 0;
  for (auto c : controls) cmask |= uint64_t(1) << c;
  std::vector<int> q(qubits.begin(), qubits.end());
  const int n = static_cast<int>(n_);
  auto run = [&](auto* a, auto tag) {
    using C = decltype(tag);
    std::vector<C> mm(m.begin(), m.end());
    if (q.size() == 1) kernels::apply_1q(a, n, q[0], mm.data(), cmask);
    else if (q.size() == 2) kernels::apply_2q(a, n, q[0], q[1], mm.data(), cmask);
    else kernels::apply_kq(a, n, q, mm.data(), cmask);
  };
  if (dtype() == DType::Complex128) run(tensor_.data<complex128>(), complex128());
  else run(tensor_.data<complex64>(), complex64());
}

double StateVector::norm2() const {
  double s = 0;
  const int64_t N = tensor_.numel();
  if (dtype() == DType::Complex128) {
    const complex128* a = tensor_.data<complex128>();
    for (int64_t i = 0; i < N; ++i) s += std::norm(a[i]);
  } else {
    const complex64* a = tensor_.data<complex64>();
    for (int64_t i = 0; i < N; ++i) s += std::norm(std::complex<double>(a[i]));
  }
  return s;
}

}  // namespace sampan::quantum
