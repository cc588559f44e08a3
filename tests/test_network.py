"""The network evaluation (hiveai.evaluation.network): the numba forward pass against a
plain numpy one of the same file, and the file format's checks."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from game_types import game

from hiveai.rules.board import Board
from hiveai.evaluation.features import FEATURE_SET, FEATURE_SETS, N_FEATURES, features_of_set_into, new_scratch

UNKNOWN_SET = max(FEATURE_SETS) + 1  # a feature set this hiveai does not compute
from hiveai.evaluation.network import (
    FORMAT_VERSION,
    MAGIC,
    Network,
    forward,
    is_network_file,
    network_from_bytes,
    kernel_net,
    network_score,
    new_activations,
    read_network,
    write_network,
)
from hiveai.evaluation.linear import weights_from_env
from hiveai.rules.movegen import new_workspace
from hiveai.evaluation.network import NETWORK_GAME_TYPES, default_network


def random_network(rng, hidden=(24, 12), scale=2000.0) -> Network:
    widths = (N_FEATURES, *hidden, 1)
    weights = [rng.normal(0, 1 / np.sqrt(i), size=(o, i)) for i, o in zip(widths, widths[1:])]
    biases = [rng.normal(0, 0.1, size=o) for o in widths[1:]]
    return Network(weights, biases, scale, meta={"test": True})


@pytest.mark.parametrize("hidden", [(24, 12), (7,), (16, 8, 4)])
def test_numba_forward_equals_numpy_on_a_file(tmp_path, hidden):
    rng = np.random.default_rng(len(hidden))
    path = tmp_path / "net.hnn"
    write_network(path, random_network(rng, hidden))
    net = read_network(path)  # what the engine would load
    scratch = new_activations()
    for _ in range(200):
        x = rng.normal(0, 3, size=N_FEATURES).astype(np.float32)
        expected = net.forward_numpy(x)
        assert forward(net.flat, net.layout, x, scratch) == pytest.approx(expected, rel=1e-5, abs=1e-5)


@pytest.mark.parametrize("hidden", [(18, 10), (7,), (33, 8, 4)])
def test_numba_forward_adds_in_input_order_bit_for_bit(hidden):
    """Each output is its bias plus its nonzero inputs' products, added in input
    order in float32: what the search scored before the pass was vectorised, so
    the same file gives the same scores (and the bench the same signature)."""
    rng = np.random.default_rng(10 + len(hidden))
    net = random_network(rng, hidden)
    scratch = new_activations()
    for _ in range(100):
        x = rng.integers(0, 4, size=N_FEATURES).astype(np.float32) * (rng.random(N_FEATURES) < 0.3)
        h = x.astype(np.float32)
        for k, (w, b) in enumerate(zip(net.weights, net.biases)):
            out = b.copy()
            for i in np.flatnonzero(h):
                out = out + h[i] * w[:, i]  # float32 throughout: one rounding per multiply and per add
            h = np.maximum(out, np.float32(0)) if k < len(net.weights) - 1 else out
        assert forward(net.flat, net.layout, x.astype(np.float32), scratch) == h[0]


def test_round_trip_keeps_every_weight(tmp_path):
    net = random_network(np.random.default_rng(1))
    path = tmp_path / "net.hnn"
    write_network(path, net)
    assert is_network_file(path) and not is_network_file(tmp_path / "missing")
    again = read_network(path)
    assert again.shapes == net.shapes and again.scale == net.scale and again.meta == {"test": True}
    for a, b in zip(again.weights + again.biases, net.weights + net.biases):
        assert np.array_equal(a, b)


def test_score_of_a_position_is_the_clipped_output_times_the_scale():
    net = random_network(np.random.default_rng(2), scale=1000.0)
    board = Board("Base+MLP")
    for m in ("wP", "bM wP-", "wQ \\wP", "bQ bM-"):
        board.play(m)
    b = board.position_array
    score = network_score(b, kernel_net(net), -1)
    expected = min(max(net.forward_numpy(features(b, 1)), -1.0), 1.0) * 1000.0
    assert abs(score - expected) <= 0.5 + 1e-3
    assert np.array_equal(b, board.position_array)


def features(b: np.ndarray, feature_set: int) -> np.ndarray:
    """The kernel's feature vector of position array ``b`` in ``feature_set``."""
    x, (ws, moves) = np.zeros(N_FEATURES, dtype=np.float32), new_scratch()
    features_of_set_into(b, ws, moves, x, -1, feature_set)
    return x


def test_a_feature_set_2_network_reads_feature_set_2(tmp_path):
    """A file made for feature set 2 round-trips with its set, and the kernel
    scores a position from that set's features (which differ from set 1's
    here: the ants' moves are estimated)."""
    rng = np.random.default_rng(4)
    net = random_network(rng, (8,), scale=1000.0)
    two = Network(net.weights, net.biases, net.scale, feature_set=2)
    write_network(tmp_path / "two.hnn", two)
    two = read_network(tmp_path / "two.hnn")
    assert two.feature_set == 2
    board = Board.parse("Base;InProgress;White[8];wB1;bS1 wB1-;wA1 -wB1;bG1 bS1/;wQ -wA1;bA1 bS1\\;wQ \\wA1;"
                        "bQ /bA1;wS1 /wA1;bA2 -bQ;wA2 \\wQ;bG2 bG1/;wA2 bA1-;bG3 -bG2")
    b = board.position_array
    assert not np.array_equal(features(b, 1), features(b, 2))
    for which, kernel in ((1, net), (2, two)):
        expected = min(max(kernel.forward_numpy(features(b, which)), -1.0), 1.0) * 1000.0
        assert abs(network_score(b, kernel_net(kernel), -1) - expected) <= 0.5 + 1e-3


def _header(version=FORMAT_VERSION, feature_set=FEATURE_SET, shapes=((1, N_FEATURES),), scale=1.0, meta=b""):
    head = MAGIC + struct.pack("<III", version, feature_set, len(shapes))
    head += b"".join(struct.pack("<II", o, i) for o, i in shapes)
    return head + struct.pack("<fI", scale, len(meta)) + meta


GOOD = _header() + np.zeros(N_FEATURES + 1, dtype="<f4").tobytes()


@pytest.mark.parametrize("data, problem", [
    (b"[*]\ntempo = 3\n", "not a hiveai network file"),
    (GOOD[:len(MAGIC) + 6], "cut short in its header"),
    (_header(version=FORMAT_VERSION + 1) + GOOD[len(_header()):], f"format version {FORMAT_VERSION + 1}"),
    (_header(feature_set=UNKNOWN_SET) + GOOD[len(_header()):], f"made for feature set {UNKNOWN_SET}"),
    (_header(shapes=((1, N_FEATURES - 1),)), f"takes {N_FEATURES - 1} inputs"),
    (_header(shapes=((4, N_FEATURES), (1, 3))), "layer 2 takes 3 inputs, layer 1 gives 4"),
    (_header(shapes=((2, N_FEATURES),)), "gives 2 outputs"),
    (GOOD[:-4], "bytes of weights"),
    (GOOD + b"\0\0\0\0", "bytes of weights"),
    (_header(scale=0.0) + GOOD[len(_header()):], "scale"),
    (_header(meta=b"{nope") + GOOD[len(_header()):], "metadata is not JSON"),
    (GOOD[:-4] + np.array([np.nan], dtype="<f4").tobytes(), "not a finite number"),
])
def test_a_bad_file_is_refused_naming_the_problem(data, problem):
    network_from_bytes(GOOD, "good.hnn")  # the well-formed one loads
    with pytest.raises(ValueError) as e:
        network_from_bytes(data, "bad.hnn")
    assert "bad.hnn" in str(e.value) and problem in str(e.value)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(ValueError, match="cannot read network file .*nothing.hnn"):
        read_network(tmp_path / "nothing.hnn")


# Five moves legal in every game type, ending with a mid-game position to evaluate.
OPENING = ("wS1", "bS1 wS1-", "wQ \\wS1", "bQ bS1-", "wA1 wQ/")


def _depth1_score(searcher, board, **kw) -> int:
    from hiveai.search.score import int_score
    from hiveai.search.timeman import Limit

    return int_score(searcher.search(board, Limit(depth=1), **kw).score)


def _children_scores(board, net) -> list[int]:
    """Each legal move's score from the mover's side: the network's, or (net None) the linear evaluation's."""
    from hiveai.evaluation.linear import evaluate, weights_for

    kernel = kernel_net(net)
    w = weights_for(weights_from_env(), board.game_type_string)
    scores = []
    for move in board.legal_moves:
        board.push(move)
        b = board.position_array
        scores.append(-(network_score(b, kernel, -1) if net is not None else int(evaluate(b, new_workspace(), w))))
        board.pop()
    return scores


def test_the_search_evaluates_with_the_network():
    """A depth-1 search with a network scores the best child by the network (negamax)."""
    from hiveai.search.score import is_win_score
    from hiveai.search.searcher import Searcher

    net = random_network(np.random.default_rng(5), scale=1500.0)
    board = game("Base+MLP", "wP", "bM wP-", "wQ \\wP", "bQ bM-", "wA1 wQ/")
    score = _depth1_score(Searcher(tt_mb=1, network=net), board)
    assert not is_win_score(score) and score == max(_children_scores(board, net))
    assert _depth1_score(Searcher(tt_mb=1, weights=weights_from_env()), board) != score


@pytest.mark.integration
def test_eval_file_loads_a_network_and_a_bad_one_changes_nothing(engine, tmp_path):
    net_path = tmp_path / "net.hnn"
    write_network(net_path, random_network(np.random.default_rng(6)))
    assert engine.cmd1(f"options set EvalFile {net_path}") == f"EvalFile;string;{net_path};<built-in>"
    engine.cmd1("newgame Base+MLP;InProgress;White[3];wP;bM wP-;wQ \\wP;bQ bM-")
    assert engine.cmd("bestmove depth 2")[-1]  # searches with the network
    other = tmp_path / "other.hnn"
    other.write_bytes(_header(feature_set=UNKNOWN_SET) + GOOD[len(_header()):])
    reply = engine.cmd1(f"options set EvalFile {other}")
    assert reply.startswith("err EvalFile: network file") and "other.hnn" in reply and "feature set" in reply
    cut = tmp_path / "cut.hnn"
    cut.write_bytes(net_path.read_bytes()[:-3])
    reply = engine.cmd1(f"options set EvalFile {cut}")
    assert reply.startswith("err EvalFile: network file") and "cut.hnn" in reply and "bytes of weights" in reply
    assert engine.cmd1("options get EvalFile") == f"EvalFile;string;{net_path};<built-in>"  # kept
    assert engine.cmd("bestmove depth 1")[-1]
    assert engine.cmd1("options set EvalFile <built-in>") == "EvalFile;string;<built-in>;<built-in>"


def test_the_shipped_network_loads():
    from hiveai.evaluation.network import shipped_network

    net = shipped_network()
    assert net is not None and net.shapes[0][1] == N_FEATURES
    assert net.meta["game_types"] == ["Base+MLP"]


def test_hiveai_train_makes_the_shipped_networks_shape_and_features_by_default(monkeypatch, tmp_path):
    """The shipped network's shape (its linear units aside), feature set and result weight are the
    pipeline's and the command's defaults, so the next generation starts from what a match kept."""
    import importlib

    from click.testing import CliRunner

    from hiveai.cli import main
    from hiveai.evaluation.network import shipped_network

    train = importlib.import_module("hiveai.training.train")
    net = shipped_network()
    assert (tuple(net.meta["hidden"]), net.feature_set) == (train.HIDDEN, train.NETWORK_FEATURE_SET)
    assert [w.shape[0] - 2 for w in net.weights[:-1]] == list(train.HIDDEN)  # two linear units per layer
    assert net.meta["result_weight"] == train.RESULT_WEIGHT
    option = {p.name: p for p in main.commands["train"].params}
    assert f"[default: {train.NETWORK_FEATURE_SET}; network only]" in option["feature_set"].help
    # `hiveai train` without --hidden or --result-weight passes the pipeline's own constants.
    seen = {}

    def capture(out, game_types, games, **kwargs):
        seen.update(kwargs)
        raise ValueError("captured")

    monkeypatch.setattr(train, "train", capture)
    result = CliRunner().invoke(main, ["train", "--games", "0", "--out", str(tmp_path / "out")])
    assert "captured" in result.output, result.output
    assert (seen["hidden"], seen["result_weight"]) == (train.HIDDEN, train.RESULT_WEIGHT)
    CliRunner().invoke(main, ["train", "--games", "0", "--hidden", "8,4", "--result-weight", "0.5",
                              "--out", str(tmp_path / "out")])
    assert (seen["hidden"], seen["result_weight"]) == ((8, 4), 0.5)


def test_the_default_evaluation_is_the_shipped_network_where_a_match_made_it_so(monkeypatch):
    from hiveai.search.searcher import Searcher

    shipped = default_network("Base+MLP")
    assert shipped is not None and NETWORK_GAME_TYPES <= set(shipped.meta["game_types"])
    default = Searcher(tt_mb=1)
    assert default.network is None and default.network_for("Base+MLP") is shipped
    for game_type in ("Base", "Base+M", "Base+P", "Base+ML", "Base+MP", "Base+LP"):
        assert default.network_for(game_type) is None, game_type
    # Asked-for weights, or $HIVEAI_WEIGHTS, choose the linear evaluation everywhere;
    # an asked-for network evaluates every game type; None goes back to the default.
    assert Searcher(tt_mb=1, weights=weights_from_env()).network_for("Base+MLP") is None
    net = random_network(np.random.default_rng(8))
    assert Searcher(tt_mb=1, network=net).network_for("Base") is net
    default.weights = weights_from_env()
    assert default.network_for("Base+MLP") is None
    default.weights = None
    assert default.network_for("Base+MLP") is shipped
    monkeypatch.setenv("HIVEAI_WEIGHTS", "queen_enemy=-300")
    assert Searcher(tt_mb=1).network_for("Base+MLP") is None


def test_a_default_search_scores_with_the_network_in_base_mlp_and_linearly_elsewhere():
    from hiveai.search.searcher import Searcher

    searcher = Searcher(tt_mb=1)  # one searcher, so switching evaluations must clear what it learnt
    for game_type, net in (("Base+MLP", default_network("Base+MLP")), ("Base", None), ("Base+MLP", None)):
        board = game(game_type, *OPENING)
        linear = net is None and game_type == "Base+MLP"
        assert _depth1_score(searcher, board, linear=linear) == max(_children_scores(board, net)), game_type


def test_the_levels_evaluate_linearly_as_they_were_calibrated():
    from hiveai.player import Engine
    from hiveai.search.searcher import Searcher
    from hiveai.search.timeman import Limit

    board = game("Base+MLP", *OPENING)
    played = []
    for eval_file in ("<built-in>", "<linear>"):
        result = Engine(hash_mb=1, level=6, seed=3, eval_file=eval_file).play(board, Limit(depth=30))
        played.append((result.move, result.score, result.nodes))
    assert played[0] == played[1]
    full = Searcher(tt_mb=1).search(board, Limit(depth=2))
    linear = Searcher(tt_mb=1, weights=weights_from_env()).search(board, Limit(depth=2))
    assert full.score != linear.score  # so the equality above is not one the evaluations share


def test_eval_file_linear_and_built_in_choose_the_evaluation(tmp_path):
    import io

    from hiveai.uhp.server import UhpServer

    server = UhpServer(io.StringIO())
    engine = server.engine
    shipped = default_network("Base+MLP")
    assert engine.network_for("Base+MLP") is shipped
    server.execute("options set EvalFile <linear>")
    assert "EvalFile;string;<linear>;<built-in>" in server.out.getvalue().splitlines()
    assert engine.network_for("Base+MLP") is None
    net_path = tmp_path / "net.hnn"
    write_network(net_path, random_network(np.random.default_rng(9)))
    server.execute(f"options set EvalFile {net_path}")
    loaded = engine.network_for("Base")
    assert loaded is not None and engine.network_for("Base+MLP") is loaded is not shipped
    server.execute("options set EvalFile <built-in>")
    assert engine.network_for("Base+MLP") is shipped
    assert engine.network_for("Base") is None
