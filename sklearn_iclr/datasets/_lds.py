"""Random linear dynamical systems with disturbances and noisy observations."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import Bunch, check_random_state

from ..utils._compat import Interval, StrOptions, validate_params


@validate_params(
    {
        "n_steps": [Interval(Integral, 1, None, closed="left")],
        "state_dim": [Interval(Integral, 1, None, closed="left")],
        "input_dim": [Interval(Integral, 1, None, closed="left")],
        "spectral_radius": [Interval(Real, 0, None, closed="left")],
        "disturbance": [StrOptions({"gaussian", "rademacher", "sinusoidal"})],
        "noise": [Interval(Real, 0, None, closed="left")],
        "observation_noise": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_lds(
    n_steps=1000,
    state_dim=10,
    *,
    input_dim=1,
    spectral_radius=0.95,
    disturbance="gaussian",
    noise=1.0,
    observation_noise=0.0,
    random_state=None,
):
    """A random symmetric linear dynamical system and one trajectory of it.

    The system of the experiments of Brahmbhatt, Buzaglo, Druchyna and Hazan
    (ICLR 2026, arXiv:2504.03952)::

        x_{t+1} = A x_t + B u_t + w_t,        x_0 = 0,
        y_t     = x_{t+1} + v_t,

    with ``A`` diagonal (symmetric), one eigenvalue equal to
    ``spectral_radius`` and the others uniform in
    ``[spectral_radius / 2, spectral_radius]`` (the paper: ``[0.5, 0.95]``),
    ``B`` standard normal, Gaussian inputs ``u_t ~ N(0, I)`` and Gaussian
    observation noise ``v_t``. ``y_t`` is the noisy state after step ``t``, so
    it depends on the inputs up to row ``t``.

    Parameters
    ----------
    n_steps : int, default=1000
        ``T``, the length of the trajectory.
    state_dim : int, default=10
        ``d``.
    input_dim : int, default=1
        ``n``.
    spectral_radius : float, default=0.95
        Largest eigenvalue of ``A``. Above 1 the system is unstable (for
        controllers; the trajectory then grows).
    disturbance : {"gaussian", "rademacher", "sinusoidal"}, default="gaussian"
        ``w_t``: i.i.d. ``N(0, noise^2)`` entries; i.i.d. ``+-noise``
        entries; or ``noise * sin(2 pi f_i t + phase_i)`` per coordinate with
        frequencies ``f_i`` uniform in ``[1/200, 1/20]`` and uniform phases
        (predictable, the kind on which learning controllers beat LQR).
    noise : float, default=1.0
        Scale of the disturbances; 0 gives a noise-free state. The default
        is the controllers' setting: the disturbances drive the state as
        much as the inputs, so the outputs are barely predictable from the
        inputs; pass ``noise=0`` to predict them from the inputs
        (:class:`~sklearn_iclr.dynamical.SpectralFilterFeatures`).
    observation_noise : float, default=0.0
        Standard deviation of ``v_t``.
    random_state : int, RandomState instance or None, default=None
        Seeds the system and the trajectory.

    Returns
    -------
    lds : :class:`~sklearn.utils.Bunch`
        ``A`` (d, d), ``B`` (d, n), ``disturbances`` (T, d) ``w_t``,
        ``inputs`` (T, n) ``u_t``, ``states`` (T, d) ``x_{t+1}`` and
        ``outputs`` (T, d) ``y_t``.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_lds
    >>> lds = make_lds(500, 4, input_dim=2, spectral_radius=0.99,
    ...                observation_noise=0.1, random_state=0)
    >>> lds.A.shape, lds.B.shape, lds.inputs.shape, lds.outputs.shape
    ((4, 4), (4, 2), (500, 2), (500, 4))
    >>> float(abs(lds.A).max())
    0.99
    """
    rng = check_random_state(random_state)
    eigenvalues = rng.uniform(spectral_radius / 2, spectral_radius, size=state_dim)
    eigenvalues[0] = spectral_radius
    A = np.diag(eigenvalues)
    B = rng.normal(size=(state_dim, input_dim))
    if disturbance == "gaussian":
        W = noise * rng.normal(size=(n_steps, state_dim))
    elif disturbance == "rademacher":
        W = noise * rng.choice([-1.0, 1.0], size=(n_steps, state_dim))
    else:
        frequency = rng.uniform(1 / 200, 1 / 20, size=state_dim)
        phase = rng.uniform(0, 2 * np.pi, size=state_dim)
        t = np.arange(n_steps)[:, None]
        W = noise * np.sin(2 * np.pi * frequency * t + phase)
    U = rng.normal(size=(n_steps, input_dim))
    drive = U @ B.T + W
    states = np.empty((n_steps, state_dim))
    x = np.zeros(state_dim)
    for t in range(n_steps):
        x = eigenvalues * x + drive[t]
        states[t] = x
    outputs = states + observation_noise * rng.normal(size=states.shape)
    return Bunch(A=A, B=B, disturbances=W, inputs=U, states=states, outputs=outputs)
