// quantum::expectation / expectation_grad / statevector against a dense reference (the full
// unitary built from per-gate matrices written here independently), parameter shift and
// finite differences; and the errors of the encodings.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "quantum/quantum_test_util.h"
#include "sampan/autograd.h"
#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "sampan/quantum/circuit.h"

using namespace sampan;
using namespace sampan::quantum;
using namespace sampan::quantum::test;
using IntList = std::vector<int64_t>;
using FloatList = std::vector<double>;

namespace {

const C I(0, 1);

// ---- independent reference: gate matrices (controls first, target last) ----
Mat rot(const Mat& p, double th) {  // exp(-i th/2 P)
  const int d = p.size() == 4 ? 2 : 4;
  Mat r = identity(d);
  for (size_t i = 0; i < r.size(); ++i) r[i] = std::cos(th / 2) * r[i] - I * std::sin(th / 2) * p[i];
  return r;
}
const Mat PX = {0, 1, 1, 0}, PY = {0, -I, I, 0}, PZ = {1, 0, 0, -1};

Mat gate_full(int64_t op, const std::vector<int>& q, const std::vector<double>& a, int n) {
  const double h = M_SQRT1_2;
  switch (op) {
    case kH: return embed({h, h, h, -h}, n, {q[0]});
    case kX: return embed(PX, n, {q[0]});
    case kY: return embed(PY, n, {q[0]});
    case kZ: return embed(PZ, n, {q[0]});
    case kS: return embed({1, 0, 0, I}, n, {q[0]});
    case kSdg: return embed({1, 0, 0, -I}, n, {q[0]});
    case kT: return embed({1, 0, 0, std::exp(I * M_PI / 4.0)}, n, {q[0]});
    case kTdg: return embed({1, 0, 0, std::exp(-I * M_PI / 4.0)}, n, {q[0]});
    case kP: return embed({1, 0, 0, std::exp(I * a[0])}, n, {q[0]});
    case kRX: return embed(rot(PX, a[0]), n, {q[0]});
    case kRY: return embed(rot(PY, a[0]), n, {q[0]});
    case kRZ: return embed(rot(PZ, a[0]), n, {q[0]});
    case kU3: {
      const double c = std::cos(a[0] / 2), s = std::sin(a[0] / 2);
      return embed({c, -std::exp(I * a[2]) * s, std::exp(I * a[1]) * s, std::exp(I * (a[1] + a[2])) * c}, n, {q[0]});
    }
    case kCNOT: return embed(PX, n, {q[1]}, {q[0]});
    case kCY: return embed(PY, n, {q[1]}, {q[0]});
    case kCZ: return embed(PZ, n, {q[1]}, {q[0]});
    case kSWAP: return embed({1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1}, n, {q[0], q[1]});
    case kCP: return embed({1, 0, 0, std::exp(I * a[0])}, n, {q[1]}, {q[0]});
    case kCRX: return embed(rot(PX, a[0]), n, {q[1]}, {q[0]});
    case kCRY: return embed(rot(PY, a[0]), n, {q[1]}, {q[0]});
    case kCRZ: return embed(rot(PZ, a[0]), n, {q[1]}, {q[0]});
    case kRXX: return embed(rot(kron(PX, 2, PX, 2), a[0]), n, {q[0], q[1]});
    case kRYY: return embed(rot(kron(PY, 2, PY, 2), a[0]), n, {q[0], q[1]});
    case kRZZ: return embed(rot(kron(PZ, 2, PZ, 2), a[0]), n, {q[0], q[1]});
    case kCCX: return embed(PX, n, {q[2]}, {q[0], q[1]});
    case kCU: {
      const double c = std::cos(a[0] / 2), s = std::sin(a[0] / 2);
      return embed({c, -std::exp(I * a[2]) * s, std::exp(I * a[1]) * s, std::exp(I * (a[1] + a[2])) * c}, n, {q[1]},
                   {q[0]});
    }
    case kMS: {  // (I + i XX) / sqrt(2), written out
      return embed({h, 0, 0, I * h, 0, h, I * h, 0, 0, I * h, h, 0, I * h, 0, 0, h}, n, {q[0], q[1]});
    }
    case kCSWAP: return embed({1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1}, n, {q[1], q[2]}, {q[0]});
  }
  ADD_FAILURE() << "no reference for opcode " << op;
  return identity(1 << n);
}

struct Problem {
  int n;
  IntList circuit;
  FloatList constants;
  Tensor params;
  IntList paulis;
  FloatList coeffs;
};

// A random circuit using every opcode (distinct random qubits), half the angles as parameters
// (some shared), half as constants; and a random Hamiltonian of 5 Pauli strings.
Problem random_problem(int n, uint64_t seed, const std::vector<int64_t>& ops_in = {}) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  Problem p{n, {}, {}, Tensor(), {}, {}};
  std::vector<int64_t> ops = ops_in;
  if (ops.empty())
    for (int64_t o = 0; o < kNumOpcodes; ++o)
      if (o != kUnitary) ops.push_back(o);  // matrix gates: see the UnitaryGate tests
  std::vector<double> pv;
  for (int64_t op : ops) {
    const GateInfo& gi = gate_info(op);
    std::vector<int> qs(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) qs[i] = i;
    std::shuffle(qs.begin(), qs.end(), rng);
    p.circuit.push_back(op);
    for (int i = 0; i < gi.n_qubits; ++i) p.circuit.push_back(qs[i]);
    for (int j = 0; j < gi.n_params; ++j) {
      if (rng() % 3 == 0) {
        p.constants.push_back(u(rng));
        p.circuit.push_back(-static_cast<int64_t>(p.constants.size()));
      } else {
        pv.push_back(u(rng));
        p.circuit.push_back(static_cast<int64_t>(pv.size()) - 1);
      }
    }
  }
  if (pv.empty()) pv.push_back(0.0);
  p.params = from_vector(pv, {static_cast<int64_t>(pv.size())});
  for (int t = 0; t < 5; ++t) {
    for (int q = 0; q < n; ++q) p.paulis.push_back(static_cast<int64_t>(rng() % 4));
    p.coeffs.push_back(u(rng));
  }
  return p;
}

std::vector<C> reference_state(const Problem& p) {
  const size_t N = size_t(1) << p.n;
  std::vector<C> psi(N);
  psi[0] = 1;
  const double* pv = p.params.data<double>();
  size_t i = 0;
  while (i < p.circuit.size()) {
    const int64_t op = p.circuit[i];
    const GateInfo& gi = gate_info(op);
    std::vector<int> q;
    std::vector<double> a;
    for (int j = 0; j < gi.n_qubits; ++j) q.push_back(static_cast<int>(p.circuit[i + 1 + j]));
    for (int j = 0; j < gi.n_params; ++j) {
      const int64_t s = p.circuit[i + 1 + gi.n_qubits + j];
      a.push_back(s >= 0 ? pv[s] : p.constants[static_cast<size_t>(-s - 1)]);
    }
    psi = matvec(gate_full(op, q, a, p.n), psi);
    i += 1 + gi.n_qubits + gi.n_params;
  }
  return psi;
}

double reference_energy(const Problem& p, const std::vector<C>& psi) {
  const int d = 1 << p.n;
  Mat h(static_cast<size_t>(d) * d);
  const Mat paulis[4] = {identity(2), PX, PY, PZ};
  for (size_t t = 0; t < p.coeffs.size(); ++t) {
    Mat term = {1};
    int dd = 1;
    for (int q = p.n - 1; q >= 0; --q) {  // qubit n-1 leftmost
      term = kron(term, dd, paulis[p.paulis[t * p.n + q]], 2);
      dd *= 2;
    }
    for (size_t i = 0; i < h.size(); ++i) h[i] += p.coeffs[t] * term[i];
  }
  auto hpsi = matvec(h, psi);
  C e = 0;
  for (size_t i = 0; i < psi.size(); ++i) e += std::conj(psi[i]) * hpsi[i];
  return e.real();
}

double energy(const Problem& p, const Tensor& params) {
  return call_op("quantum::expectation", {params, p.circuit, p.constants, int64_t(p.n), p.paulis, p.coeffs})[0].item();
}
std::vector<double> adjoint(const Problem& p) {
  Tensor g = call_op("quantum::expectation_grad", {p.params, p.circuit, p.constants, int64_t(p.n), p.paulis, p.coeffs})[0];
  return std::vector<double>(g.data<double>(), g.data<double>() + g.numel());
}
Tensor shifted(const Tensor& params, int64_t i, double delta) {
  std::vector<double> v(params.data<double>(), params.data<double>() + params.numel());
  v[static_cast<size_t>(i)] += delta;
  return from_vector(v, params.shape());
}

}  // namespace

TEST(QuantumExpectation, StateAndEnergyMatchDenseReferenceEveryGate) {
  for (int n : {3, 4})
    for (uint64_t seed : {1, 2, 3}) {
      Problem p = random_problem(n, seed);
      auto ref = reference_state(p);
      Tensor st = call_op("quantum::statevector", {p.params, p.circuit, p.constants, int64_t(n)})[0];
      ASSERT_EQ(st.dtype(), DType::Complex128);
      std::vector<C> got(st.data<C>(), st.data<C>() + st.numel());
      EXPECT_LT(max_diff(got, ref), 1e-12) << "n=" << n << " seed=" << seed;
      EXPECT_NEAR(energy(p, p.params), reference_energy(p, ref), 1e-12);
    }
}

TEST(QuantumExpectation, AdjointMatchesParameterShiftForPauliRotations) {
  // Gates exp(-i theta/2 P) with P^2 = 1: dE/dtheta = [E(theta + pi/2) - E(theta - pi/2)] / 2.
  // P(theta) = e^{i theta/2} RZ(theta) obeys the same rule (the global phase cancels).
  for (int64_t op : {kRX, kRY, kRZ, kRXX, kRYY, kRZZ, kP}) {
    Problem p = random_problem(4, 40 + op, {kH, kCNOT, op, kRY, kCZ, op, kH, kRXX});
    auto g = adjoint(p);
    for (int64_t i = 0; i < p.params.numel(); ++i) {
      const double ps = (energy(p, shifted(p.params, i, M_PI / 2)) - energy(p, shifted(p.params, i, -M_PI / 2))) / 2;
      EXPECT_NEAR(g[i], ps, 1e-10) << gate_info(op).name << " param " << i;
    }
  }
}

TEST(QuantumExpectation, AdjointMatchesFourTermShiftForControlledRotations) {
  // Controlled rotations have eigenvalues {0, +-1/2}: the four-term rule of Anselmetti et al.
  const double cp = (std::sqrt(2.0) + 1) / (4 * std::sqrt(2.0)), cm = (std::sqrt(2.0) - 1) / (4 * std::sqrt(2.0));
  for (int64_t op : {kCRX, kCRY, kCRZ}) {
    Problem p = random_problem(3, 60 + op, {kH, kRY, op, kCNOT, op, kH});
    auto g = adjoint(p);
    for (int64_t i = 0; i < p.params.numel(); ++i) {
      auto e = [&](double d) { return energy(p, shifted(p.params, i, d)); };
      const double ps = cp * (e(M_PI / 2) - e(-M_PI / 2)) - cm * (e(3 * M_PI / 2) - e(-3 * M_PI / 2));
      EXPECT_NEAR(g[i], ps, 1e-10) << gate_info(op).name << " param " << i;
    }
  }
}

TEST(QuantumExpectation, AdjointMatchesCentralDifferencesEveryGate) {
  Problem p = random_problem(4, 7);
  auto g = adjoint(p);
  for (int64_t i = 0; i < p.params.numel(); ++i) {
    const double h = 1e-5;
    const double fd = (energy(p, shifted(p.params, i, h)) - energy(p, shifted(p.params, i, -h))) / (2 * h);
    EXPECT_NEAR(g[i], fd, 1e-7) << "param " << i;
  }
}

TEST(QuantumExpectation, BackwardGivesAdjointGradientAndSecondOrderRaises) {
  Problem p = random_problem(3, 9);
  Tensor params = p.params.detach();
  params.requires_grad_(true);
  Tensor e = call_op("quantum::expectation", {params, p.circuit, p.constants, int64_t(3), p.paulis, p.coeffs})[0];
  auto g = grad({e}, {params}, {}, /*create_graph=*/true)[0];
  auto ref = adjoint(p);
  for (int64_t i = 0; i < g.numel(); ++i) EXPECT_NEAR(g.data<double>()[i], ref[i], 1e-12);
  EXPECT_ANY_THROW(grad({sum(g)}, {params}));
}

TEST(QuantumExpectation, Errors) {
  Problem p = random_problem(3, 2);
  auto call = [&](IntList circuit, int64_t n = 3, IntList paulis = {}, FloatList coeffs = {}) {
    call_op("quantum::expectation", {p.params, std::move(circuit), p.constants, n, std::move(paulis), std::move(coeffs)});
  };
  auto message = [](const std::function<void()>& f) -> std::string {
    try { f(); } catch (const std::exception& e) { return e.what(); }
    return "no error";
  };
  EXPECT_THROW(call({kCNOT, 0, 3}), IndexError);
  EXPECT_NE(message([&] { call({kCNOT, 0, 3}); }).find("qubit 3 is out of range for 3 qubits"), std::string::npos);
  EXPECT_THROW(call({kCNOT, 1, 1}), ValueError);
  EXPECT_NE(message([&] { call({kH, 0, kCZ, 2, 2}); }).find("gate 1"), std::string::npos);
  EXPECT_THROW(call({99, 0}), ValueError);
  EXPECT_THROW(call({kRX, 0}), ValueError);                 // missing parameter slot
  EXPECT_THROW(call({kRX, 0, 1000}), IndexError);           // params index out of range
  EXPECT_THROW(call({kRX, 0, -1000}), IndexError);          // constants index out of range
  EXPECT_THROW(call({kH, 0}, 3, {1, 2}, {1.0}), ValueError); // 2 Pauli codes for 3 qubits
  EXPECT_THROW(call({kH, 0}, 3, {1, 2, 7}, {1.0}), ValueError);
  EXPECT_THROW(call({}, 61), ValueError);
  EXPECT_THROW(call_op("quantum::expectation", {p.params.to(DType::Float32), IntList{}, FloatList{}, int64_t(2), IntList{}, FloatList{}}), TypeError);
  EXPECT_THROW(call_op("quantum::statevector", {reshape(p.params, {1, -1}), IntList{}, FloatList{}, int64_t(2)}), ValueError);
}

namespace {
// A Haar-ish random unitary: Gram-Schmidt on the columns of a complex Gaussian matrix.
Mat random_unitary(int dim, uint64_t seed) {
  Mat m = random_matrix(dim, seed);
  for (int c = 0; c < dim; ++c) {
    for (int p = 0; p < c; ++p) {
      C dot = 0;
      for (int r = 0; r < dim; ++r) dot += std::conj(m[r * dim + p]) * m[r * dim + c];
      for (int r = 0; r < dim; ++r) m[r * dim + c] -= dot * m[r * dim + p];
    }
    double nrm = 0;
    for (int r = 0; r < dim; ++r) nrm += std::norm(m[r * dim + c]);
    for (int r = 0; r < dim; ++r) m[r * dim + c] /= std::sqrt(nrm);
  }
  return m;
}
void append_matrix(FloatList& constants, const Mat& m) {
  for (const C& z : m) { constants.push_back(z.real()); constants.push_back(z.imag()); }
}
}  // namespace

TEST(QuantumUnitaryGate, ControlledAndPlainMatchDenseReference) {
  const int n = 5;
  for (int k : {1, 2, 3})
    for (int nc : {0, 1, 2}) {
      std::vector<int> qs = {3, 0, 4, 1, 2};  // controls first, then targets
      // Prepare a generic state: RY on every qubit, then CNOT chain, all with constants.
      Problem p{n, {}, {}, from_vector(std::vector<double>{0.0}, {1}), {}, {}};
      std::vector<C> ref(size_t(1) << n);
      ref[0] = 1;
      for (int q = 0; q < n; ++q) {
        p.constants.push_back(0.3 + 0.4 * q);
        p.circuit.insert(p.circuit.end(), {kRY, q, -static_cast<int64_t>(p.constants.size())});
        ref = matvec(gate_full(kRY, {q}, {p.constants.back()}, n), ref);
      }
      for (int q = 0; q + 1 < n; ++q) {
        p.circuit.insert(p.circuit.end(), {kCNOT, q, q + 1});
        ref = matvec(gate_full(kCNOT, {q, q + 1}, {}, n), ref);
      }
      const Mat u = random_unitary(1 << k, 10 * k + nc);
      const int64_t off = static_cast<int64_t>(p.constants.size());
      append_matrix(p.constants, u);
      p.circuit.insert(p.circuit.end(), {kUnitary, nc, k});
      for (int i = 0; i < nc + k; ++i) p.circuit.push_back(qs[i]);
      p.circuit.push_back(off);
      std::vector<int> controls(qs.begin(), qs.begin() + nc), targets(qs.begin() + nc, qs.begin() + nc + k);
      ref = matvec(embed(u, n, targets, controls), ref);
      Tensor st = call_op("quantum::statevector", {p.params, p.circuit, p.constants, int64_t(n)})[0];
      std::vector<C> got(st.data<C>(), st.data<C>() + st.numel());
      EXPECT_LT(max_diff(got, ref), 1e-12) << "k=" << k << " controls=" << nc;
    }
}

TEST(QuantumUnitaryGate, AdjointGradientThroughMatrixGatesMatchesFiniteDifferences) {
  Problem p = random_problem(4, 21, {kH, kRY, kCNOT, kRX, kCRZ, kU3, kRZZ});
  const int64_t off = static_cast<int64_t>(p.constants.size());
  append_matrix(p.constants, random_unitary(8, 5));
  const int64_t off2 = static_cast<int64_t>(p.constants.size());
  append_matrix(p.constants, random_unitary(2, 6));
  // Matrix gates between the parameterised ones, so the backward sweep must un-apply them.
  IntList mid = {kUnitary, 0, 3, 2, 0, 3, off, kUnitary, 2, 1, 0, 3, 1, off2};
  p.circuit.insert(p.circuit.begin() + 5, mid.begin(), mid.end());  // after H (2 entries) and RY (3)
  p.circuit.insert(p.circuit.end(), mid.begin(), mid.end());
  auto g = adjoint(p);
  EXPECT_NEAR(energy(p, p.params), reference_energy(p, [&] {
    Tensor st = call_op("quantum::statevector", {p.params, p.circuit, p.constants, int64_t(4)})[0];
    return std::vector<C>(st.data<C>(), st.data<C>() + st.numel());
  }()), 1e-12);
  for (int64_t i = 0; i < p.params.numel(); ++i) {
    const double h = 1e-5;
    const double fd = (energy(p, shifted(p.params, i, h)) - energy(p, shifted(p.params, i, -h))) / (2 * h);
    EXPECT_NEAR(g[i], fd, 1e-7) << "param " << i;
  }
}

TEST(QuantumUnitaryGate, Errors) {
  auto message = [](const IntList& circuit, const FloatList& constants) -> std::string {
    try {
      call_op("quantum::statevector", {from_vector(std::vector<double>{0.0}, {1}), circuit, constants, int64_t(3)});
    } catch (const std::exception& e) { return e.what(); }
    return "no error";
  };
  FloatList m = {1, 0, 0, 0, 0, 0, 1.01, 0};  // diag(1, 1.01)
  EXPECT_NE(message({kUnitary, 0, 1, 0, 0}, m).find("not unitary: max |U^+ U - I| = 0.0201"), std::string::npos)
      << message({kUnitary, 0, 1, 0, 0}, m);
  FloatList id = {1, 0, 0, 0, 0, 0, 1, 0};
  EXPECT_EQ(message({kUnitary, 0, 1, 0, 0}, id), "no error");
  EXPECT_THROW(call_op("quantum::statevector", {from_vector(std::vector<double>{0.0}, {1}), IntList{kUnitary, 0, 1, 0, 2},
                                                id, int64_t(3)}), IndexError);   // matrix past the end
  EXPECT_NE(message({kUnitary, 0, 2, 0, 1, 0}, id).find("constants has 8 entries"), std::string::npos);
  EXPECT_NE(message({kUnitary, 0, 0, 0}, id).find("k (target qubits) must be in [1, 10]"), std::string::npos);
  EXPECT_NE(message({kUnitary, 1, 1, 0, 0, 0}, id).find("qubit 0 appears"), std::string::npos)
      << message({kUnitary, 1, 1, 0, 0, 0}, id);
  EXPECT_NE(message({kUnitary, 0, 1, 5, 0}, id).find("qubit 5 is out of range"), std::string::npos);
  EXPECT_NE(message({kUnitary, 0, 1}, id).find("needs 5 circuit entries"), std::string::npos);
}
