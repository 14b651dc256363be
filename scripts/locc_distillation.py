"""LOCCNet-style entanglement distillation trainings (the long runs behind the README numbers).

  .venv/bin/python scripts/locc_distillation.py            # full: 9 S-state p values, 4-to-1
  .venv/bin/python scripts/locc_distillation.py --quick    # 3 p values, fewer steps
  .venv/bin/python scripts/locc_distillation.py --only4 --ansatz4 cycle --depth4 1 --accept agree
                                     # the LOCCNet tutorial's 4 -> 1 protocol (F 0.9369, P 0.3865)

1. 2-to-1 on S-states p |Phi+><Phi+| + (1-p)|00><00|: each party applies a trained universal
   two-qubit circuit (15 angles) and measures its second qubit; the '00' branch is kept. Compared
   with DEJMPS (F' = (1+p)^2 / (2(1+p^2))) and BBPSSW.
2. 4-to-1 on four copies of the isotropic state p = 0.7: each party applies a trained
   complex_block_layer(depth 2) on its 4 qubits and measures 3; the all-zeros branch is kept.
   Compared with nested DEJMPS (0.9248).
Flags change the trained protocols: --accept ('zeros', 'agree', 'all' or comma-separated outcome
strings, see distillation.outcome_patterns), --ansatz4/--depth4 (the 4 -> 1 circuits),
--min-success (train max F subject to P >= target, after the unconstrained steps: as many steps
again under the augmented Lagrangian) and --yield-weight (adds -w log P to the loss).
Prints one table row per case and a final RESULT line; exits 1 if a required result fails
(trained >= DEJMPS on every S-state p, 4-to-1 > nested DEJMPS).
"""
import argparse
import sys
import time

import sampan as sp
from sampan.quantum import distillation as qd
from sampan.quantum import states as qs


def best_of(make, rho, seeds, steps, lr, min_success=None, yield_weight=0.0):
    best = None
    for seed in seeds:
        proto = make(seed)
        history = proto.train(rho, steps=steps, lr=lr, yield_weight=yield_weight)
        if min_success is not None:
            history += proto.train(rho, steps=steps, lr=lr / 2, min_success=min_success,
                                   yield_weight=yield_weight)
        res = proto.run_fast(rho)
        cand = (res.fidelity.item(), res.success_probability.item(), history)
        if best is None or cand[0] > best[0]:
            best = cand
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="3 S-state p values, 150/200 steps, one seed")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--accept", default="zeros",
                    help="accepted outcomes: zeros, agree, all, or comma-separated bit strings")
    ap.add_argument("--ansatz4", default="block", choices=["block", "cycle"], help="4 -> 1 circuits")
    ap.add_argument("--depth4", type=int, default=2)
    ap.add_argument("--min-success", type=float, default=None, help="train max F s.t. P >= this")
    ap.add_argument("--yield-weight", type=float, default=0.0, help="adds -w log P to the loss")
    ap.add_argument("--only4", action="store_true", help="the 4 -> 1 case only")
    args = ap.parse_args(argv)
    accept = args.accept if args.accept in qd.ACCEPT_RULES else args.accept.split(",")
    acc2 = accept if isinstance(accept, str) else None   # explicit strings are for 4 copies
    obj = dict(min_success=args.min_success, yield_weight=args.yield_weight)
    # Issue 4's required results (trained >= DEJMPS, 4 -> 1 > nested DEJMPS) are checked for the
    # max-F objective only: a yield constraint trades fidelity away by design.
    required = args.min_success is None and not args.yield_weight
    ps = [] if args.only4 else [0.2, 0.5, 0.8] if args.quick else [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    seeds = [0] if args.quick else [0, 10]
    steps2, steps4 = (150, 200) if args.quick else (300, 400)
    t0 = time.time()
    ok = True
    print(f"{'p':>5} {'F_in':>7} {'BBPSSW':>8} {'DEJMPS':>8} {'p_DEJMPS':>8} {'trained':>8} {'p_trained':>9}")
    worst_margin = 1.0
    for p in ps:
        rho = qs.s_state(p)
        bb = qd.bbpssw(rho)
        dj = qd.dejmps(rho)
        f, prob, _ = best_of(lambda s: qd.LearnedDistillation(2, accept=acc2, seed=s), rho, seeds, steps2,
                             args.lr, **obj)
        margin = f - dj.fidelity.item()
        worst_margin = min(worst_margin, margin)
        ok &= margin >= -1e-6 or not required
        print(f"{p:5.2f} {(1 + p) / 2:7.4f} {bb.fidelity.item():8.5f} {dj.fidelity.item():8.5f} "
              f"{dj.success_probability.item():8.4f} {f:8.5f} {prob:9.4f}", flush=True)
    iso = qs.isotropic_state(0.7)
    nested = qd.dejmps(iso, rounds=2)
    f4, p4, hist4 = best_of(lambda s: qd.LearnedDistillation(4, ansatz=args.ansatz4, depth=args.depth4,
                                                             accept=accept, seed=s),
                            iso, seeds[:1], steps4, args.lr, **obj)
    ok &= f4 > nested.fidelity.item() or not required
    print(f"4-to-1 isotropic p=0.7: nested DEJMPS F = {nested.fidelity.item():.4f} "
          f"(p_succ {nested.success_probability.item():.4f}); trained F = {f4:.4f} (p_succ {p4:.4f}, "
          f"{len(hist4)} steps, start {hist4[0]:.4f}; {args.ansatz4} depth {args.depth4}, accept {args.accept})")
    if not ps:
        worst_margin = float("nan")
    print(f"RESULT: S-states trained - DEJMPS >= {worst_margin:+.2e} over {len(ps)} p values; 4-to-1 trained "
          f"F = {f4:.4f} vs nested DEJMPS {nested.fidelity.item():.4f}; {time.time() - t0:.0f} s "
          f"({'ok' if ok else 'FAILED'})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
