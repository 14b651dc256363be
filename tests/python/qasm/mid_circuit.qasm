// A measurement followed by a gate on the measured qubit (mid-circuit), then reset and reuse.
OPENQASM 2.0;
include "qelib1.inc";
qreg q[3];
creg m[1];
creg c[2];
reset q;                  // nothing touched q yet: already |000>
h q[0];
measure q[0] -> m[0];     // mid-circuit: q[0] is used again below
cx q[0], q[1];            // copies the outcome to q[1]
x q[2];
reset q[2];               // back to |0>
measure q[1] -> c[0];
measure q[2] -> c[1];
