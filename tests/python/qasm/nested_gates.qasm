// User gate definitions, nested, with parameter expressions; test_quantum_qasm.py compares the
// import with the same gates written out by hand.
OPENQASM 2.0;
include "qelib1.inc";

gate my_rot(a, b) x { rz(a) x; ry(-b/2 + a^2) x; }
gate ent(theta) x, y
{
  h x;
  cx x, y;
  my_rot(theta*2, sin(theta)) y;
}
gate layer(t) a, b, c {
  ent(t) a, b;
  ent(-t) b, c;
  barrier a, b, c;
  my_rot(ln(2), sqrt(t) - exp(-t) / cos(t) + tan(t)) c;
}
gate noparam a, b { cx b, a; }

qreg q[2];
qreg r[1];
layer(0.3) q[0], q[1], r[0];
layer(pi/7) r[0], q[0], q[1];
noparam q[0], r[0];
