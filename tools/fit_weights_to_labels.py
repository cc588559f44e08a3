"""Fit one game type's linear weights to search scores instead of game results.

``hiveai tune`` fits the weights to the results of self-play games (Texel's
method). This fits them to the labels of a ``hiveai train`` folder: each
labelled position's target is its search score turned into an expected result,
``1 / (1 + exp(-K * score))``, with ``K`` the Texel constant of the starting
weights on the same games' results, held fixed during the fit, so the static
score moves towards the deeper search's score on the same scale.

    python tools/fit_weights_to_labels.py TRAIN_DIR --game-type Base --out weights.ini

The games and labels come from, for example,
``hiveai train --game-type Base --games 1200 --selfplay-depth 3 --label-depth 5 -j 2 --out TRAIN_DIR``
(its network fit is not used here). Every 10th game is held out, as ``tune`` does,
and the held-out error before and after is printed. ``tempo`` is not fitted by
default (``--freeze``): a label searched to an odd depth gives the side to move
the last move, which would inflate it. The weights file holds the
shipped weights with the fitted section over them; load it with EvalFile.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np

from hiveai.rules.board import Board
from hiveai.evaluation.linear import WEIGHT_NAMES, builtin_weights, weights_for, write_weights_file
from hiveai.rules.notation import FINISHED
from hiveai.training.train import LABELS_FILE, load_labels
from hiveai.training.tune import GAMES_FILE, TrainingSet, fit, fit_k, load_games, split_holdout, training_set, white_scores


def labelled_set(records: list[dict], labels: dict[str, dict], game_type: str, k: float | None) -> TrainingSet:
    """``training_set`` of ``records`` narrowed to the labelled positions; with ``k``,
    each position's target is its squashed label (White's view), else the game result."""
    data = training_set(records, game_type)
    sample = data.sample.copy()
    targets = []
    for g, r in enumerate(records):
        at = {int(p): int(s) for p, s in labels.get(r["id"], {}).get("labels", [])}
        for i in range(int(data.offsets[g]), int(data.offsets[g + 1])):
            ply = i - int(data.offsets[g]) + 1  # the position after move i
            if not sample[i]:
                continue
            if ply not in at:
                sample[i] = 0
                continue
            white = at[ply] if ply % 2 == 0 else -at[ply]
            targets.append(1.0 / (1.0 + math.exp(-k * white)) if k is not None else 0.0)
    return TrainingSet(data.game_type, data.template, data.moves, data.offsets, sample,
                       np.array(targets, dtype=np.float64))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="a hiveai train folder (games.jsonl, labels.jsonl)")
    ap.add_argument("--game-type", default="Base")
    ap.add_argument("--out", type=Path, required=True, help="weights file to write")
    ap.add_argument("--freeze", default="tempo", help="weights not fitted, comma separated (default: tempo)")
    args = ap.parse_args()

    game_type = Board(args.game_type).game_type_string
    labels = load_labels(args.folder / LABELS_FILE)
    records = [r for r in load_games(args.folder / GAMES_FILE)
               if r["game_type"] == game_type and r["result"] in FINISHED and r["id"] in labels]
    train, held = split_holdout(records)
    start = weights_for(builtin_weights(), game_type)
    # Texel's K of the starting weights on these games' results (all their positions).
    by_result = training_set(train, game_type)
    k = fit_k(white_scores(by_result, start), by_result.results)
    data = labelled_set(train, labels, game_type, k)
    holdout = labelled_set(held, labels, game_type, k)
    print(f"{game_type}: {len(records)} games ({len(held)} held out), {data.positions} labelled training positions, "
          f"{holdout.positions} held out, K = {k:.5f} (fitted to the results with the starting weights)")
    began = time.monotonic()
    frozen = {n.strip() for n in args.freeze.split(",") if n.strip()}
    unknown = frozen - set(WEIGHT_NAMES)
    if unknown:
        ap.error(f"--freeze: unknown weight {', '.join(sorted(unknown))}")
    result = fit(data, start, holdout=holdout, names=[n for n in WEIGHT_NAMES if n not in frozen], k=k)
    print(f"error {result.error_before:.5f} -> {result.error_after:.5f}, held out "
          f"{result.holdout_before:.5f} -> {result.holdout_after:.5f}, {result.evaluations} evaluations in "
          f"{time.monotonic() - began:.0f} s")
    for name, (a, b) in result.changed.items():
        print(f"    {name}: {a} -> {b}")
    sets = builtin_weights()
    sets[game_type] = result.weights
    write_weights_file(args.out, sets, header=(
        f"[{game_type}] fitted to the search scores of {args.folder} (tools/fit_weights_to_labels.py, K = {k:.5f})"))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
