"""Fit a network on a ``hiveai train`` folder's labels in a chosen feature set
(prints the held-out fits; writes the network if asked):

    python tools/fit_feature_set.py DIR [--feature-set 2] [--hidden 14,6] [--seed 1] [--out net.hnn]

DIR holds ``games.jsonl`` and ``labels.jsonl`` (a ``hiveai train`` run). The
split, the targets and the fit are ``hiveai train``'s (every 10th game held
out; hiveai.training.train.fit: a ridge regression of the same features as
the linear yardstick, a network on what it leaves); only the features differ.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from hiveai.evaluation.network import write_network
from hiveai.training.train import LABELS_FILE, dataset, fit, load_labels
from hiveai.training.tune import GAMES_FILE, HOLDOUT_EVERY, load_games, split_holdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--feature-set", type=int, default=2)
    parser.add_argument("--hidden", default="16,8", help="hidden widths, comma separated")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="write the network here")
    args = parser.parse_args()
    hidden = tuple(int(h) for h in args.hidden.split(","))
    records = load_games(args.folder / GAMES_FILE)
    labels = load_labels(args.folder / LABELS_FILE)
    train_games, held_games = split_holdout(records, max(2, min(HOLDOUT_EVERY, len(records) // 2)))
    train_set = dataset(train_games, labels, args.feature_set)
    held_set = dataset(held_games, labels, args.feature_set)
    game_types = sorted({r["game_type"] for r in records})
    meta = {"game_types": game_types, "games": len(records), "positions": len(train_set) + len(held_set),
            "seed": args.seed, "data": args.folder.name}
    net, report = fit(train_set, held_set, hidden=hidden, seed=args.seed, meta=meta, feature_set=args.feature_set)
    print(json.dumps(dict(report.as_dict(), feature_set=args.feature_set, hidden=list(hidden)), indent=1))
    if args.out:
        write_network(args.out, net)
        print(f"written {args.out} ({net.shapes})")


if __name__ == "__main__":
    main()
