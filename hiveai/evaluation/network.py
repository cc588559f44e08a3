"""A small neural network over hiveai.evaluation.features: the learned evaluation.

**Architecture: a plain MLP.** ``N_FEATURES -> h1 -> h2 -> 1``, ReLU between
layers, float32, the output a score in ``[-1, 1]`` (clipped), times the file's
``scale`` in the evaluation's units (hundredths of one enemy piece next to a
queen). bee-search (github.com/adario7/bee-search, ``src/eval_mlp.rs``) uses a
tower per side and a head; a plain MLP over the same two side blocks can
learn that structure and more, the trainer that fits it (scikit-learn's
MLPRegressor, see hiveai.training.train) has no towers, and at these widths the
network costs a fraction of the features' two move generations. Any number
of layers is read, so a deeper or wider file needs no code change.

**File format** (little-endian, version ``FORMAT_VERSION``)::

    magic    8 bytes  b"HIVEAINN"
    version  u32
    features u32      the feature-set id (hiveai.evaluation.features.FEATURE_SET) it was trained on
    layers   u32      L
    shapes   L x (u32 outputs, u32 inputs)
    scale    f32      engine units per output unit
    meta     u32 length, then that many bytes of UTF-8 JSON (how it was trained)
    weights  per layer: outputs x inputs f32 (row-major), then outputs f32 biases

and nothing after. :func:`read_network` refuses a file that is not one, of
another version or feature set, or whose shapes do not chain, naming the file
and the problem. The network hiveai ships is a data file of the package
(:data:`SHIPPED_NETWORK`), read with importlib.resources.
"""

from __future__ import annotations

import functools
import json
import os
import struct
from dataclasses import dataclass, field

import numpy as np

from llvmlite import ir
from numba import types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

from hiveai.rules.borrow import counts_free
from hiveai.evaluation.linear import evaluate_pinned
from hiveai.evaluation.features import FEATURE_SET, FEATURE_SETS, N_FEATURES, features_of_set_into

MAGIC = b"HIVEAINN"
FORMAT_VERSION = 1
SHIPPED_NETWORK = "network.hnn"  # beside this module in the package
# The game types the shipped network evaluates by default (default_network): those where
# it beat the linear evaluation at 1 s/move (docs/measurements/2026-12-02-network-default.md).
# Each is among the game types the file was trained on (its metadata's "game_types").
NETWORK_GAME_TYPES = frozenset({"Base+MLP"})
MAX_LAYERS = 8
MAX_WIDTH = 1024
# The forward pass adds weights LANES at a time (one AVX vector of float32).
LANES = 8
assert MAX_WIDTH % LANES == 0


@dataclass
class Network:
    """A network's layers (``weights[i]`` is outputs x inputs, ``biases[i]`` outputs), as float32.

    >>> rng = np.random.default_rng(0)
    >>> net = Network([rng.normal(size=(4, N_FEATURES)), rng.normal(size=(1, 4))],
    ...               [np.zeros(4), np.zeros(1)], scale=1000.0)
    >>> net.shapes
    [(4, 151), (1, 4)]
    >>> x = rng.normal(size=N_FEATURES).astype(np.float32)
    >>> bool(abs(net.forward_numpy(x) - forward(net.flat, net.layout, x, new_activations())) < 1e-5)
    True
    """

    weights: list[np.ndarray]
    biases: list[np.ndarray]
    scale: float
    feature_set: int = FEATURE_SET
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.weights = [np.ascontiguousarray(w, dtype=np.float32) for w in self.weights]
        self.biases = [np.ascontiguousarray(b, dtype=np.float32).reshape(-1) for b in self.biases]
        problem = _shape_problem([w.shape for w in self.weights], [b.shape[0] for b in self.biases])
        if problem:
            raise ValueError(problem)
        if self.feature_set not in FEATURE_SETS:
            raise ValueError(f"feature set {self.feature_set}: this hiveai computes "
                             f"{', '.join(map(str, FEATURE_SETS))}")
        # The kernel's view: the scale, then every layer's weights and biases in
        # one flat array; per layer (padded outputs, inputs, offset of its
        # weights, the feature set the first layer reads). Weights are stored transposed (inputs x outputs) for the
        # kernel's column-at-a-time product (see forward), each layer's outputs
        # padded with zero weights and biases to a multiple of LANES, so a column
        # is whole vectors; a padded output is 0 and the next layer skips it.
        parts, layout, offset = [np.array([self.scale], dtype=np.float32)], [], 1
        n_in = N_FEATURES
        for w, b in zip(self.weights, self.biases):
            n_out = -(-w.shape[0] // LANES) * LANES
            columns = np.zeros((n_in, n_out), dtype=np.float32)
            columns[: w.shape[1], : w.shape[0]] = w.T
            bias = np.zeros(n_out, dtype=np.float32)
            bias[: w.shape[0]] = b
            layout.append((n_out, n_in, offset, self.feature_set))
            parts += [columns.reshape(-1), bias]
            offset += columns.size + bias.size
            n_in = n_out
        self.flat = np.concatenate(parts).astype(np.float32)
        self.layout = np.array(layout, dtype=np.int64)

    @property
    def shapes(self) -> list[tuple[int, int]]:
        """(outputs, inputs) of each layer."""
        return [(int(w.shape[0]), int(w.shape[1])) for w in self.weights]

    def forward_numpy(self, x: np.ndarray) -> float:
        """The network's output for feature vector ``x``, in plain numpy (the reference)."""
        h = np.asarray(x, dtype=np.float32)
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            h = w @ h + b
            if i < len(self.weights) - 1:
                h = np.maximum(h, np.float32(0))
        return float(h[0])

    def to_bytes(self) -> bytes:
        """The file's bytes (see the module docstring)."""
        meta = json.dumps(self.meta, sort_keys=True).encode("utf-8")
        head = [MAGIC, struct.pack("<III", FORMAT_VERSION, self.feature_set, len(self.weights))]
        head += [struct.pack("<II", o, i) for o, i in self.shapes]
        head += [struct.pack("<fI", self.scale, len(meta)), meta]
        body = [a.astype("<f4").tobytes() for w, b in zip(self.weights, self.biases) for a in (w, b)]
        return b"".join(head + body)


def _shape_problem(shapes: list[tuple[int, ...]], bias_sizes: list[int]) -> str | None:
    """Why these layer shapes cannot be a network over hiveai.evaluation.features, or None."""
    if not 1 <= len(shapes) <= MAX_LAYERS:
        return f"{len(shapes)} layers (1 to {MAX_LAYERS} expected)"
    if any(len(s) != 2 or not 1 <= s[0] <= MAX_WIDTH or not 1 <= s[1] <= MAX_WIDTH for s in shapes):
        return f"layer shapes {shapes} out of range (1 to {MAX_WIDTH})"
    if shapes[0][1] != N_FEATURES:
        return f"the first layer takes {shapes[0][1]} inputs, the features are {N_FEATURES}"
    for i in range(1, len(shapes)):
        if shapes[i][1] != shapes[i - 1][0]:
            return f"layer {i + 1} takes {shapes[i][1]} inputs, layer {i} gives {shapes[i - 1][0]}"
    if shapes[-1][0] != 1:
        return f"the last layer gives {shapes[-1][0]} outputs, not one score"
    if list(bias_sizes) != [s[0] for s in shapes]:
        return "bias sizes do not match the layers"
    return None


def network_from_bytes(data: bytes, name: str = "<bytes>") -> Network:
    """The network a file's bytes hold; ValueError naming ``name`` and the problem."""
    def bad(problem: str) -> ValueError:
        return ValueError(f"network file '{name}': {problem}")

    if not data.startswith(MAGIC):
        raise bad(f"not a hiveai network file (it does not start with {MAGIC.decode()})")
    at = len(MAGIC)
    try:
        version, feature_set, n = struct.unpack_from("<III", data, at)
        at += 12
        if version != FORMAT_VERSION:
            raise bad(f"format version {version}, this hiveai reads version {FORMAT_VERSION}")
        if feature_set not in FEATURE_SETS:
            raise bad(f"made for feature set {feature_set}, this hiveai computes feature sets "
                      f"{', '.join(map(str, FEATURE_SETS))}: "
                      "train a network for it (hiveai train)")
        if not 1 <= n <= MAX_LAYERS:
            raise bad(f"{n} layers (1 to {MAX_LAYERS} expected)")
        shapes = [struct.unpack_from("<II", data, at + 8 * i) for i in range(n)]
        at += 8 * n
        scale, meta_len = struct.unpack_from("<fI", data, at)
        at += 8
        meta = json.loads(data[at:at + meta_len].decode("utf-8")) if meta_len else {}
        at += meta_len
    except struct.error:
        raise bad("cut short in its header") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise bad("its metadata is not JSON") from None
    problem = _shape_problem(shapes, [o for o, _ in shapes])
    if problem:
        raise bad(problem)
    if not (np.isfinite(scale) and scale > 0):
        raise bad(f"scale {scale} is not a positive number")
    size = sum(4 * (o * i + o) for o, i in shapes)
    if len(data) - at != size:
        raise bad(f"{len(data) - at} bytes of weights, its layer shapes {shapes} need {size}")
    values = np.frombuffer(data, dtype="<f4", offset=at).astype(np.float32)
    if not np.all(np.isfinite(values)):
        raise bad("a weight is not a finite number")
    weights, biases, k = [], [], 0
    for o, i in shapes:
        weights.append(values[k:k + o * i].reshape(o, i))
        biases.append(values[k + o * i:k + o * i + o])
        k += o * i + o
    return Network(weights, biases, float(scale), feature_set, meta if isinstance(meta, dict) else {})


def is_network_file(path: str | os.PathLike) -> bool:
    """Whether the file starts with the network magic word (False if unreadable)."""
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def read_network(path: str | os.PathLike) -> Network:
    """The network in a file; ValueError naming the file and the problem."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ValueError(f"cannot read network file '{path}': {e.strerror or e}") from None
    return network_from_bytes(data, str(path))


def write_network(path: str | os.PathLike, net: Network) -> None:
    """Write ``net`` to ``path`` atomically (a kill leaves the old file or the new one)."""
    from hiveai.durable import replace_atomically_bytes

    replace_atomically_bytes(path, net.to_bytes())


def shipped_network() -> Network | None:
    """The network shipped in the package (:data:`SHIPPED_NETWORK`), None if there is none."""
    from importlib.resources import files

    resource = files("hiveai.evaluation").joinpath(SHIPPED_NETWORK)
    if not resource.is_file():
        return None
    return network_from_bytes(resource.read_bytes(), f"hiveai/evaluation/{SHIPPED_NETWORK}")


@functools.cache
def _shipped_once() -> Network | None:
    return shipped_network()


def default_network(game_type: str) -> Network | None:
    """The network that evaluates ``game_type`` when no evaluation is asked for:
    the shipped one in the game types of :data:`NETWORK_GAME_TYPES`, None (the
    linear evaluation) in the others. The file is read once and kept.

    >>> default_network("Base+MLP") is default_network("Base+MLP") is not None
    True
    >>> default_network("Base") is None
    True
    """
    return _shipped_once() if game_type in NETWORK_GAME_TYPES else None


# --- The kernels ------------------------------------------------------------------------
# A search thread hands the kernels its network as one tuple (kernel_net):
# (flat, layout, features workspace, features move buffer, feature vector,
# activations): the weights shared by every thread, the rest its own. No
# network is an empty ``flat``: the linear evaluation then.

NO_FLAT = np.zeros(0, dtype=np.float32)
NO_LAYOUT = np.zeros((0, 4), dtype=np.int64)


def new_activations() -> np.ndarray:
    """Room for two layers' activations (the widest a file may have)."""
    return np.zeros(2 * MAX_WIDTH, dtype=np.float32)


def kernel_net(net: Network | None) -> tuple:
    """The tuple a search thread passes the kernels for ``net`` (None: the linear
    evaluation), with fresh scratch of its own."""
    from hiveai.evaluation.features import new_scratch

    ws, moves = new_scratch()
    flat, layout = (NO_FLAT, NO_LAYOUT) if net is None else (net.flat, net.layout)
    return flat, layout, ws, moves, np.zeros(N_FEATURES, dtype=np.float32), new_activations()


_VEC = ir.VectorType(ir.FloatType(), LANES)


def _lanes_at(context, builder, array_type, array, at):
    """A pointer to ``array[at:at + LANES]`` as one vector of float32 (no bounds check)."""
    data = make_array(array_type)(context, builder, value=array).data
    return builder.bitcast(builder.gep(data, [at]), _VEC.as_pointer())


@intrinsic
def _add_scaled_lanes(typingctx, acc, at, w, wat, v):
    """``acc[at:at + LANES] += v * w[wat:wat + LANES]`` (float32 arrays, float32
    ``v``) as one vector load, multiply, add and store, without bounds checks:
    the caller keeps both ranges inside their arrays. Each lane is the scalar
    ``acc[o] + v * w[o]``, a multiply then an add (not fused), so the sums are
    the ones a loop over the outputs gives, bit for bit. numba would vectorise
    that loop too, but at a hidden width of 16 or 24 its run-time alias and
    remainder checks cost more than the arithmetic (docs/network.md)."""
    if not (isinstance(acc, types.Array) and isinstance(w, types.Array) and acc.dtype == w.dtype == types.float32):
        return None
    sig = types.void(acc, at, w, wat, v)

    def codegen(context, builder, sig, args):
        acc_v, at_v, w_v, wat_v, v_v = args
        pa = _lanes_at(context, builder, sig.args[0], acc_v, at_v)
        pw = _lanes_at(context, builder, sig.args[2], w_v, wat_v)
        v32 = context.cast(builder, v_v, sig.args[4], types.float32)
        lane0 = builder.insert_element(ir.Constant(_VEC, ir.Undefined), v32, ir.Constant(ir.IntType(32), 0))
        splat = builder.shuffle_vector(lane0, ir.Constant(_VEC, ir.Undefined),
                                       ir.Constant(ir.VectorType(ir.IntType(32), LANES), [0] * LANES))
        total = builder.fadd(builder.load(pa, align=4), builder.fmul(splat, builder.load(pw, align=4)))
        builder.store(total, pa, align=4)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _nonzero_lanes(typingctx, x, at):
    """Bit set of the nonzero entries among ``x[at:at + LANES]`` (a float32
    array; bit j for ``x[at + j]``), from one vector load and compare, without
    bounds checks: the caller keeps the range inside the array. "Nonzero" is
    ``!=`` as Python means it (a NaN counts, -0.0 does not)."""
    if not (isinstance(x, types.Array) and x.dtype == types.float32):
        return None
    sig = types.int64(x, at)

    def codegen(context, builder, sig, args):
        p = _lanes_at(context, builder, sig.args[0], *args)
        ne = builder.fcmp_unordered("!=", builder.load(p, align=4), ir.Constant(_VEC, None))
        return builder.zext(builder.bitcast(ne, ir.IntType(LANES)), ir.IntType(64))

    return sig, codegen


@intrinsic
def _copy_lanes(typingctx, dst, at, src, sat):
    """``dst[at:at + LANES] = src[sat:sat + LANES]`` (float32 arrays) as one
    vector load and store, without bounds checks (the caller's ranges)."""
    if not (isinstance(dst, types.Array) and isinstance(src, types.Array)
            and dst.dtype == src.dtype == types.float32):
        return None
    sig = types.void(dst, at, src, sat)

    def codegen(context, builder, sig, args):
        dst_v, at_v, src_v, sat_v = args
        ps = _lanes_at(context, builder, sig.args[2], src_v, sat_v)
        builder.store(builder.load(ps, align=4), _lanes_at(context, builder, sig.args[0], dst_v, at_v), align=4)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _relu_lanes(typingctx, x, at):
    """``x[at:at + LANES]``: each entry below zero set to zero (as ``if v <
    0.0: v = 0.0`` would, so -0.0 and NaN stay), one vector compare and
    select, without bounds checks (the caller's range)."""
    if not (isinstance(x, types.Array) and x.dtype == types.float32):
        return None
    sig = types.void(x, at)

    def codegen(context, builder, sig, args):
        p = _lanes_at(context, builder, sig.args[0], *args)
        zero = ir.Constant(_VEC, None)
        v = builder.load(p, align=4)
        builder.store(builder.select(builder.fcmp_ordered("<", v, zero), zero, v), p, align=4)
        return context.get_dummy_value()

    return sig, codegen


@counts_free
def _add_columns(act, dst, flat, w0, n_out, vals, at, n_in):
    """One layer's products: for each nonzero input ``vals[at + i]`` (``i <
    n_in``, in input order), ``act[dst:dst + n_out] += vals[at + i]`` times
    column i of the weights stored transposed at ``flat[w0:]``. The inputs
    are read LANES at a time, one compare finding a block's nonzero entries
    (visited lowest bit first, so in input order); a last partial block
    entry by entry."""
    i0 = 0
    while i0 < n_in:
        if i0 + LANES <= n_in:
            nonzero = _nonzero_lanes(vals, at + i0)
        else:
            nonzero = 0
            for j in range(n_in - i0):
                if vals[at + i0 + j] != 0.0:
                    nonzero |= 1 << j
        while nonzero != 0:
            i = i0 + trailing_zeros(nonzero)
            nonzero &= nonzero - 1
            v = vals[at + i]
            col = w0 + i * n_out
            for c in range(0, n_out, LANES):
                _add_scaled_lanes(act, dst + c, flat, col + c, v)
        i0 += LANES


@counts_free(nogil=True)
def forward(flat, layout, x, act):
    """The network's output for features ``x``: layers from ``flat`` as ``layout``
    describes them (Network.flat, Network.layout), ReLU between them; ``act``
    holds two layers' activations (new_activations).

    Column at a time: each layer starts from its biases and adds input i's
    column of weights (stored transposed) times input i, skipping inputs that
    are zero. Most are: the features are counts of things a position mostly
    lacks (other game types, bugs not in play, empty queen rings) and ReLU
    zeroes about half of each hidden layer. Each output's sum is its bias plus
    its nonzero inputs' products in input order, as a dot product would add
    them (the instruction counts of both orders:
    docs/measurements/2026-12-02-network-cost.md). Everything is done LANES
    floats at a time (the widths are padded to whole vectors): the biases
    copied, ReLU applied, the zero inputs found (_add_columns) and each column
    added (_add_scaled_lanes; docs/measurements/2026-12-05-evalcost.md),
    with no per-entry bounds checks, which cost more than the arithmetic at
    these widths.
    """
    half = act.shape[0] // 2
    src = 0
    for layer in range(layout.shape[0]):
        n_out = layout[layer, 0]
        n_in = layout[layer, 1]
        w0 = layout[layer, 2]
        b0 = w0 + n_in * n_out
        dst = 0 if layer == 0 else half - src
        for c in range(0, n_out, LANES):
            _copy_lanes(act, dst + c, flat, b0 + c)
        if layer == 0:
            _add_columns(act, dst, flat, w0, n_out, x, 0, n_in)
        else:
            for c in range(0, n_in, LANES):
                _relu_lanes(act, src + c)
            _add_columns(act, dst, flat, w0, n_out, act, src, n_in)
        src = dst
    return act[src]


@counts_free(nogil=True)
def network_score(b, net, pinned):
    """The network's score of position ``b`` for the side to move: its output
    clipped to [-1, 1] times the file's scale, an int in the evaluation's units
    (never a won-game score). ``net``: kernel_net's tuple; ``pinned``: the
    pinned-piece mask if known, else -1."""
    flat, layout, ws, moves, feats, act = net
    features_of_set_into(b, ws, moves, feats, pinned, layout[0, 3])
    y = forward(flat, layout, feats, act)
    if y > 1.0:
        y = 1.0
    elif y < -1.0:
        y = -1.0
    return int(round(y * flat[0]))


@counts_free(nogil=True)
def static_score(b, ws, w, net, pinned):
    """The static evaluation the search uses: the network's if ``net`` holds
    one, else hiveai.evaluation.linear's linear one with weights ``w``."""
    if net[0].shape[0] == 0:
        return evaluate_pinned(b, ws, w, pinned)
    return network_score(b, net, pinned)
