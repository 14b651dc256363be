// Two quantum and two classical registers: qubits a[0], a[1], b[0] are circuit qubits 0, 1, 2;
// bits c0[0], c0[1], c1[0], c1[1] are classical bits 0..3.
OPENQASM 2.0;
include "qelib1.inc";
qreg a[2];
qreg b[1];
creg c0[2];
creg c1[2];
x a[0];
x b[0];
barrier a, b;
measure a -> c0;          // c0 = a[1] a[0] = "01"
measure b[0] -> c1[1];    // c1 = "10"
