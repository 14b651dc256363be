"""NVE with an se_e2_a model conserves energy as velocity Verlet must (fast; no shared data).

Velocity Verlet is symplectic and second order: it conserves a shadow Hamiltonian
H~ = H + dt^2 H2 + O(dt^4) exactly (Hairer, Lubich & Wanner, Geometric Numerical Integration,
ch. IX), so along a trajectory E(t) - E(0) = dt^2 [H2(0) - H2(t)] + O(dt^4): the fluctuation of
the total energy shrinks by 4 when dt halves, and it does not grow secularly. A model whose
forces were not exactly -dE/dx (a sign, a missing term, a neighbour list that drops or adds
pairs between steps, a switching function that is not smooth at the cutoff, float32 somewhere)
breaks this scaling: the error then has a dt-independent part and the ratio falls towards 1.
"""
import numpy as np
import pytest

import sampan as sp  # noqa: F401
from sampan.deepmd import md
from sampan.deepmd.model import DeepPot

# A small se_e2_a model (seeded weights, the dpmodel initialisation), rcut 4 Å, so that neighbours
# cross the switching region and the cutoff during the run.
CONFIG = {"type_map": ["O", "H"], "rcut": 4.0, "rcut_smth": 1.0, "sel": [12, 24], "neuron": [4, 8],
          "axis_neuron": 4, "type_one_side": True, "resnet_dt": False, "fitting_neuron": [16, 16],
          "fitting_resnet_dt": True}


def water_box(seed=0):
    """8 water-like molecules (O at a jittered simple-cubic site, two H at 1 Å) in a periodic 6.2 Å cube."""
    rng = np.random.default_rng(seed)
    L, x, types = 6.2, [], []
    for i in range(2):
        for j in range(2):
            for k in range(2):
                o = (np.array([i, j, k]) + 0.5) * L / 2 + rng.uniform(-0.2, 0.2, 3)
                u = rng.normal(size=3)
                u /= np.linalg.norm(u)
                v = np.cross(u, rng.normal(size=3))
                v /= np.linalg.norm(v)
                # H-O-H angle 104.5 degrees
                a = np.deg2rad(104.5) / 2
                x += [o, o + np.cos(a) * u + np.sin(a) * v, o + np.cos(a) * u - np.sin(a) * v]
                types += [0, 1, 1]
    return np.array(x), np.array(types), md.box([L] * 3)


def energy_error(model, dt_fs, time_fs):
    """Total energy minus its initial value (eV/atom) every 10 fs of an NVE run of time_fs."""
    x, types, box = water_box()
    s = md.State(x, types, masses=[15.999, 1.008], box=box)
    s.initialize_velocities(300.0, seed=4)
    steps = int(round(time_fs / dt_fs))
    th = md.run(s, model, md.VelocityVerlet(dt_fs), steps, thermo_every=int(round(10 / dt_fs)))
    return (th["etotal"] - th["etotal"][0]) / len(types), th


@pytest.fixture(scope="module", params=["net", "compressed"])
def model(request):
    m = DeepPot(CONFIG, 11)
    # statistics of the order of real ones (s~ = (s - davg) / dstd spans the embedding input)
    nd = 4 * sum(CONFIG["sel"])
    m.dstd = sp.tensor(np.full((2, nd), 0.3))
    m.validate()
    if request.param == "compressed":
        # the tables (C^2 quintic pieces) in place of the nets: the dynamics must conserve energy as
        # well (a table that is not C^2 at its interval ends, or whose slope is not the derivative
        # of its values, breaks the dt^2 scaling); no pair comes closer than 0.7 A here
        m.compress(0.7)
    return m


def test_nve_energy_error_of_an_se_e2_a_model_scales_as_dt_squared(model):
    time_fs = 60.0
    dts = [1.0, 0.5, 0.25]
    runs = [energy_error(model, dt, time_fs) for dt in dts]
    ke = runs[-1][1]["ke"] / 24
    assert np.ptp(ke) > 5e-3, "the atoms must exchange energy with the model for the test to mean something"
    fluct = [np.abs(err).max() for err, _ in runs]
    # same trajectory at every dt (to O(dt^2)): the error curves are one curve scaled by dt^2
    for (coarse, _), (fine, _) in zip(runs, runs[1:]):
        ratio = np.abs(coarse).max() / np.abs(fine).max()
        assert 3.3 < ratio < 4.8, f"energy error ratio on halving dt: {ratio:.2f} (dt^2 scaling: 4); {fluct}"
        # pointwise too: E_dt(t) - E0 ~ 4 (E_dt/2(t) - E0)
        np.testing.assert_allclose(coarse, 4 * fine, atol=0.25 * np.abs(coarse).max())
    # and far below the kinetic-energy fluctuation the model drives (here (omega dt)^2 ~ 1e-2)
    assert fluct[0] < 0.05 * np.ptp(ke), f"{fluct[0]:.2e} eV/atom vs KE range {np.ptp(ke):.2e}"


def test_nve_has_no_secular_drift_beyond_the_bounded_shadow_error(model):
    # 0.4 ps at 0.5 fs: a symplectic integrator's error stays bounded; a linear fit of E(t) moves
    # by less than the bounded fluctuation over the run (a drift of the force/energy mismatch
    # kind grows linearly and fails this).
    err, th = energy_error(model, 0.5, 400.0)
    t = th["time"]
    slope = np.polyfit(t, err, 1)[0]
    # (measured: slope * T is 5 % of the fluctuation; a linear drift gives 100 %)
    assert abs(slope) * t[-1] < 0.3 * np.abs(err).max(), \
        f"drift {slope:.2e} eV/atom/ps vs fluctuation {np.abs(err).max():.2e} eV/atom"
    # the bounded error is (omega dt)^2-small against the energy the atoms exchange with the model
    assert np.abs(err).max() < 1e-3 * np.ptp(th["ke"] / 24)


def test_sel_overflow_during_md_is_counted_and_reported(capfd):
    # Neighbours beyond sel are dropped (DeePMD-kit does the same): the energy then jumps when a
    # neighbour crosses rank sel. MD must not do that silently.
    x, types, box = water_box()
    small = DeepPot(dict(CONFIG, sel=[2, 4]), 1)
    s = md.State(x, types, masses=[15.999, 1.008], box=box)
    s.initialize_velocities(300.0, seed=4)
    md.run(s, small, md.VelocityVerlet(0.5), 3)
    assert small.sel_overflow_evaluations == 4  # the initial forces and 3 steps
    err = capfd.readouterr().err
    assert err.count("sampan DeepPot warning") == 1 and "more than sel[0] = 2" in err
    model = DeepPot(CONFIG, 11)
    md.evaluate(model, x, types, box)
    assert model.sel_overflow_evaluations == 0
