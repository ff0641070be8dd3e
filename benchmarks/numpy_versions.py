"""The artificial benchmarks of the thesis (Part IV, P0-P2) in idiomatic NumPy.

Each function takes the arguments of the L0 program's `main` as numpy arrays and returns
its result. They are written the way a NumPy programmer would write them, whole-array
operations with no Python loop over elements, not as transliterations of the L0 code:

* `blackscholes`: element-wise ufuncs and `np.where` for the two branches; the formulas and
  the order of their operations are the L0 program's, so results agree to the last bits.
* `matmul`: `x @ y`. For int64 NumPy does not call BLAS (BLAS has no integer product) but
  its own generic matmul loop; it is still the one obvious way to write this in NumPy.
* `shortest_paths`: one vectorised step per intermediate node k: an n x n broadcast sum
  and `np.minimum` into the result. The one-liner `(D[:, :, None] + D[None]).min(axis=1)`
  would build an n^3 temporary (8 GB at n = 1000), which no one would do; the loop over k
  is the standard NumPy formulation of a min-plus product.

* `locvolcalib` (finpar's LocVolCalib, the thesis's R1): whole-array stencils for the
  explicit steps, and the tridiagonal solves of the implicit steps batched over all strikes
  and grid rows at once, with a Python loop only along each system (NumPy has no batched
  tridiagonal solver). The strikes share one grid, so they are solved together.

* `optionpricing` (finpar's OptionPricing, the thesis's R0): the paths in batches of 2^14,
  each batch a few whole-array steps: the Sobol numbers by the independent formula (one
  xor per bit of the Gray codes), the inverse Gaussian with `np.where` for its three
  regions, the Brownian bridge as a Python loop over the dates (each date of every path
  at once), the correlation as a matrix product, the trajectory as a `cumprod`.

All are single-threaded, like the C versions and the compiled L0 programs.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

# The constants of cnd's polynomial (horner in the L0 program).
_C1, _C2, _C3, _C4, _C5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
_RSQRT2PI = 0.39894228040143267793994605993438
INFINITY = 1200  # P2's stand-in for an absent path: the neutral element of its reduction


def _cnd(d: np.ndarray) -> np.ndarray:
    """The cumulative normal distribution, approximated as in the L0 program."""
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    p = k * (_C1 + k * (_C2 + k * (_C3 + k * (_C4 + k * _C5))))
    c = _RSQRT2PI * np.exp(-0.5 * d * d) * p
    return np.where(0.0 < d, 1.0 - c, c)


def blackscholes(
    calls: np.ndarray, prices: np.ndarray, strikes: np.ndarray, years: np.ndarray
) -> np.ndarray:
    """P0: the price of each call (True) or put option."""
    r, v = 0.08, 0.30
    v_sqrt_t = v * np.sqrt(years)
    d1 = (np.log(prices / strikes) + (r + 0.5 * v * v) * years) / v_sqrt_t
    d2 = d1 - v_sqrt_t
    cnd_d1, cnd_d2 = _cnd(d1), _cnd(d2)
    x_exp_rt = strikes * np.exp(-r * years)
    return np.where(
        calls,
        prices * cnd_d1 - x_exp_rt * cnd_d2,
        x_exp_rt * (1.0 - cnd_d2) - prices * (1.0 - cnd_d1),
    )


def matmul(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """P1: the matrix product of two int matrices."""
    return x @ y


def shortest_paths(d: np.ndarray) -> np.ndarray:
    """P2: min(D[i][j], INFINITY, min over k of D[i][k] + D[k][j]) for every i, j."""
    out = np.minimum(d, INFINITY)
    for k in range(d.shape[0]):
        np.minimum(out, d[:, k, None] + d[None, k, :], out=out)
    return out


def _tridag(a: np.ndarray, b: np.ndarray, c: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Solve tridiagonal systems along axis 0 of r; a, b, c (sub-, main, super-diagonal)
    broadcast against r."""
    n = r.shape[0]
    u = np.empty(r.shape)
    uu = np.empty(np.broadcast_shapes(b.shape, r.shape))
    u[0], uu[0] = r[0], b[0]
    for i in range(1, n):
        beta = a[i] / uu[i - 1]
        uu[i] = b[i] - beta * c[i - 1]
        u[i] = r[i] - beta * u[i - 1]
    u[n - 1] = u[n - 1] / uu[n - 1]
    for i in range(n - 2, -1, -1):
        u[i] = (u[i] - c[i] * u[i + 1]) / uu[i]
    return u


def _init_operator(x: np.ndarray) -> np.ndarray:
    """The second-derivative stencil at each point of x: [n][3], zero at the boundaries."""
    d = np.zeros((x.size, 3))
    dxl, dxu = x[1:-1] - x[:-2], x[2:] - x[1:-1]
    d[1:-1, 0] = 2.0 / dxl / (dxl + dxu)
    d[1:-1, 1] = -2.0 * (1.0 / dxl + 1.0 / dxu) / (dxl + dxu)
    d[1:-1, 2] = 2.0 / dxu / (dxl + dxu)
    return d


def _shifted(w: np.ndarray, res: np.ndarray, axis: int, step: int) -> np.ndarray:
    """w times res's neighbour `step` (-1 or 1) along `axis` (of res), 0 past the boundary."""
    out = np.zeros(np.broadcast_shapes(w.shape, res.shape))
    inner = [slice(None)] * res.ndim
    here, there = list(inner), list(inner)
    here[axis] = slice(1, None) if step < 0 else slice(None, -1)
    there[axis] = slice(None, -1) if step < 0 else slice(1, None)
    out[tuple(here)] = (np.broadcast_to(w, out.shape)[tuple(here)]) * res[tuple(there)]
    return out


def locvolcalib(
    outer: np.ndarray, num_x: np.ndarray, num_y: np.ndarray, num_t: np.ndarray,
    s0: np.ndarray, t: np.ndarray, alpha: np.ndarray, nu: np.ndarray, beta: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """R1: the calibrated price for the strikes 0.000, 0.001, ..., all solved at once."""
    n_out, nx, ny, nt = int(outer), int(num_x), int(num_y), int(num_t)
    s0_, t_, alpha_, nu_, beta_ = float(s0), float(t), float(alpha), float(nu), float(beta)
    timeline = t_ * np.arange(nt) / (nt - 1)
    dx = 20.0 * alpha_ * s0_ * np.sqrt(t_) / nx
    x_index = int(s0_ / dx) % nx
    x = np.arange(nx) * dx - x_index * dx + s0_
    dy = 10.0 * nu_ * np.sqrt(t_) / ny
    y_index = ny // 2
    y = np.arange(ny) * dy - y_index * dy + np.log(alpha_)
    dxx, dyy = _init_operator(x), _init_operator(y)
    strikes = 0.001 * np.arange(n_out)
    # res[s, i, j]: strike s, point (x[i], y[j])
    res = np.repeat(np.maximum(x[None, :] - strikes[:, None], 0.0)[:, :, None], ny, axis=2)
    var_y = nu_ * nu_
    cy = 0.5 * var_y * dyy  # explicit y weights, [ny][3]
    ay, by_, cy_ = (-0.5 * (0.5 * var_y * dyy[:, k]) for k in range(3))
    for g in range(nt - 2, -1, -1):
        tnow = timeline[g]
        var_x = np.exp(2.0 * (beta_ * np.log(x)[:, None] + y[None, :] - 0.5 * nu_ * nu_ * tnow))
        dt_inv = 1.0 / (timeline[g + 1] - timeline[g])
        v = _shifted(cy[:, 0], res, 2, -1) + cy[:, 1] * res + _shifted(cy[:, 2], res, 2, 1)
        cx = [0.5 * (0.5 * var_x * dxx[:, None, k]) for k in range(3)]  # [nx][ny] each
        u = (dt_inv * res + _shifted(cx[0], res, 1, -1) + cx[1] * res
             + _shifted(cx[2], res, 1, 1) + v)  # fmt: skip
        ax, bx, cxx = (-0.5 * (0.5 * var_x * dxx[:, None, k]) for k in range(3))
        bx = dt_inv + bx
        row = (slice(None), None, slice(None))  # [nx][ny] against u moved to [nx][strike][ny]
        u = np.moveaxis(_tridag(ax[row], bx[row], cxx[row], np.moveaxis(u, 1, 0)), 0, 1)
        rhs = np.moveaxis(dt_inv * u - 0.5 * v, 2, 0)
        col = (slice(None), None, None)
        res = np.moveaxis(_tridag(ay[col], (dt_inv + by_)[col], cy_[col], rhs), 0, 2)
    return res[:, x_index, y_index]


# The rational approximations of the inverse normal distribution (Wichura's AS241):
# numerator and denominator coefficients from the constant term up.
_SMALL = ([3.387132872796366608, 133.14166789178437745, 1971.5909503065514427,
           13731.693765509461125, 45921.953931549871457, 67265.770927008700853,
           33430.575583588128105, 2509.0809287301226727],
          [1.0, 42.313330701600911252, 687.1870074920579083, 5394.1960214247511077,
           21213.794301586595867, 39307.89580009271061, 28729.085735721942674,
           5226.495278852854561])
_INTERMEDIATE = ([1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055,
                  3.64784832476320460504, 1.27045825245236838258, 0.24178072517745061177,
                  0.0227238449892691845833, 7.7454501427834140764e-4],
                 [1.0, 2.05319162663775882187, 1.6763848301838038494, 0.68976733498510000455,
                  0.14810397642748007459, 0.0151986665636164571966, 5.475938084995344946e-4,
                  1.05075007164441684324e-9])
_TAIL = ([6.6579046435011037772, 5.4637849111641143699, 1.7848265399172913358,
          0.29656057182850489123, 0.026532189526576123093, 0.0012426609473880784386,
          2.71155556874348757815e-5, 2.01033439929228813265e-7],
         [1.0, 0.59983220655588793769, 0.13692988092273580531, 0.0148753612908506148525,
          7.868691311456132591e-4, 1.8463183175100546818e-5, 1.4215117583164458887e-7,
          2.04426310338993978564e-15])  # fmt: skip
_PATH_BATCH = 1 << 14


def _rational(x: np.ndarray, coefs: tuple[list[float], list[float]]) -> np.ndarray:
    num, den = (np.full_like(x, c[7]) for c in coefs)
    for k in range(6, -1, -1):
        num, den = x * num + coefs[0][k], x * den + coefs[1][k]
    return num / den


def _ugaussian(p: np.ndarray) -> np.ndarray:
    dp = p - 0.5
    small = dp * _rational(0.180625 - dp * dp, _SMALL)
    with np.errstate(divide="ignore", invalid="ignore"):  # the unused branch's log(0)
        r = np.sqrt(-np.log(np.where(dp < 0.0, 0.5 + dp, 0.5 - dp)))
        x = np.where(r <= 5.0, _rational(r - 1.6, _INTERMEDIATE), _rational(r - 5.0, _TAIL))
    return np.where(np.abs(dp) <= 0.425, small, np.where(dp < 0.0, -x, x))


def _payoffs(contract: int, discts: np.ndarray, detvals: np.ndarray,
             traj: np.ndarray) -> np.ndarray:  # fmt: skip
    """The discounted payoff of each path; traj is [path][date][underlying]."""
    if contract == 2:
        mins = np.minimum(traj[:, :, 1] / 11840.0,
                          np.minimum(traj[:, :, 2] / 1200.0, traj[:, :, 0] / 3758.05))
        hits = 1.0 <= mins[:, :4]
        first = np.where(hits.any(axis=1), hits.argmax(axis=1), 4)
        m4 = mins[:, 4]
        last = np.where(1.0 <= m4, 1750.0, np.where(0.75 < m4, 1000.0, m4 * 1000.0))
        amount = np.where(first < 4, np.array([1150.0, 1300.0, 1450.0, 1600.0, 0.0])[first], last)
        return amount * discts[first]
    if contract == 3:
        hit = ((traj[:, :, 0] <= 2630.6349999999998) | (traj[:, :, 1] <= 8288.0)
               | (traj[:, :, 2] <= 840.0)).any(axis=1)
        end = traj[:, -1]
        below = (end[:, 0] < 3758.05) | (end[:, 1] < 11840.0) | (end[:, 2] < 1200.0)
        mins = np.minimum(end[:, 1] / 11840.0 - 1.0,
                          np.minimum(end[:, 2] / 1200.0 - 1.0, end[:, 0] / 3758.05 - 1.0))
        amount = 1000.0 * (1.0 + np.where(hit & below, 1.0, 0.0) * mins)
        return 100.0 * discts[0] + amount * discts[1]
    return np.maximum(0.0, (traj[:, 0, 0] - 4000.0) * detvals[0]) * discts[0]


def optionpricing(
    contract: np.ndarray, num_mc_its: np.ndarray, num_dates: np.ndarray, num_under: np.ndarray,
    num_models: np.ndarray, num_bits: np.ndarray, dir_vs: np.ndarray, md_cs: np.ndarray,
    md_vols: np.ndarray, md_drifts: np.ndarray, md_starts: np.ndarray, md_detvals: np.ndarray,
    md_discts: np.ndarray, bb_inds: np.ndarray, bb_data: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """R0: the price under each model, averaged over paths 1 .. num_mc_its."""
    n, nd, nu, bits = int(num_mc_its), int(num_dates), int(num_under), int(num_bits)
    bi, li, ri = (bb_inds[k] - 1 for k in range(3))
    sd, lw, rw = bb_data
    sums = np.zeros(int(num_models))
    for lb in range(1, n + 1, _PATH_BATCH):
        paths = np.arange(lb, min(lb + _PATH_BATCH, n + 1), dtype=np.int64)
        gray = paths ^ (paths >> 1)
        sobol = np.zeros((paths.size, dir_vs.shape[0]), dtype=np.int64)
        for k in range(bits):
            sobol ^= ((gray >> k) & 1)[:, None] * dir_vs[None, :, k]
        gauss = _ugaussian(sobol * (1.0 / (1 << bits))).reshape(-1, nd, nu)
        w = np.zeros_like(gauss)
        w[:, bi[0]] = sd[0] * gauss[:, 0]
        for i in range(1, nd):
            v = rw[i] * w[:, ri[i]] + sd[i] * gauss[:, i]
            w[:, bi[i]] = v if li[i] < 0 else v + lw[i] * w[:, li[i]]
        w[:, 1:] -= w[:, :-1].copy()
        for m in range(int(num_models)):
            corr = w @ np.tril(md_cs[m]).T
            traj = md_starts[m] * np.cumprod(np.exp(corr * md_vols[m] + md_drifts[m]), axis=1)
            sums[m] += _payoffs(int(contract), md_discts[m], md_detvals[m], traj).sum()
    return sums / n


def nbody(steps: np.ndarray, dt: np.ndarray, ms: np.ndarray, *state: np.ndarray) -> np.ndarray:
    """N-body: each step all n x n pulls at once as broadcast arrays (the softening 0.01
    keeps a body's pull on itself zero), summed per body, then a leapfrog step."""
    x, y, z, vx, vy, vz = (a.copy() for a in state)
    for _ in range(int(steps)):
        dx, dy, dz = (c[None, :] - c[:, None] for c in (x, y, z))
        inv = 1.0 / np.sqrt(0.01 + (dx * dx + dy * dy + dz * dz))
        s = ms[None, :] * inv * inv * inv
        vx, vy, vz = (v + dt * (dc * s).sum(axis=1) for v, dc in ((vx, dx), (vy, dy), (vz, dz)))
        x, y, z = x + dt * vx, y + dt * vy, z + dt * vz
    return np.concatenate([x, y, z, vx, vy, vz])


def kmeans(k: np.ndarray, iterations: np.ndarray, points: np.ndarray) -> np.ndarray:
    """K-means: the n x k squared distances at once, `argmin` (the first centre on a tie),
    the new centres by `np.add.at` per cluster; a centre with no points stays put."""
    k = int(k)
    centres = points[:k].copy()
    for _ in range(int(iterations)):
        diff = points[:, None, :] - centres[None, :, :]
        membership = (diff * diff).sum(axis=2).argmin(axis=1)
        sums = np.zeros_like(centres)
        np.add.at(sums, membership, points)
        counts = np.bincount(membership, minlength=k)
        moved = counts != 0
        centres[moved] = sums[moved] / counts[moved, None]
    return centres


def hotspot(steps: np.ndarray, temp: np.ndarray, power: np.ndarray) -> np.ndarray:
    """Hotspot: each step the whole grid at once, the neighbours from an edge-padded copy
    (a cell on the edge is its own missing neighbour)."""
    k, ry, rx, rz, amb = 0.5, 0.1, 0.1, 0.0125, 80.0
    t = temp
    for _ in range(int(steps)):
        g = np.pad(t, 1, mode="edge")
        n, s, w, e = g[:-2, 1:-1], g[2:, 1:-1], g[1:-1, :-2], g[1:-1, 2:]
        t = t + k * (power + (s + n - 2.0 * t) * ry + (e + w - 2.0 * t) * rx + (amb - t) * rz)
    return t


def radix_sort(bits: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Radix sort: per bit, the keys whose bit is 0 then those whose bit is 1 (boolean
    masks keep each class in order)."""
    for b in range(int(bits)):
        ones = ((keys >> b) & 1).astype(bool)
        keys = np.concatenate([keys[~ones], keys[ones]])
    return keys


def histogram(k: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Histogram: the points in [0, k) counted per bucket."""
    inside = points[(points >= 0) & (points < k)]
    return np.bincount(inside, minlength=int(k)).astype(np.int64)


VERSIONS: dict[str, Callable[..., np.ndarray]] = {
    "blackscholes": blackscholes,
    "matmul": matmul,
    "shortest_paths": shortest_paths,
    "locvolcalib": locvolcalib,
    "optionpricing": optionpricing,
    "nbody": nbody,
    "kmeans": kmeans,
    "hotspot": hotspot,
    "radix_sort": radix_sort,
    "histogram": histogram,
}
