"""Fit a network to labelled positions in a chosen feature set (prints the held-out
fits; writes the network if asked):

    python tools/fit_feature_set.py SOURCE [--feature-set 2] [--hidden 14,6] [--seed 1] [--out net.hnn]
        [--game-type Base+MLP] [--eval EVAL_ID] [--depth D]

SOURCE is a dataset (hiveai.training.dataset: a folder of shards; ``--game-type``,
``--eval`` and ``--depth`` pick its games, as ``hiveai train`` picks those one
evaluation labelled to one depth) or a folder ``hiveai train`` wrote before the
dataset existed (``games.jsonl`` and ``labels.jsonl``). The split, the targets
and the fit are ``hiveai train``'s (every 10th game of each run held out;
hiveai.training.train.fit: a ridge regression of the same features as the
linear yardstick, a network on what it leaves); only the features differ.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from hiveai.evaluation.network import write_network
from hiveai.training.dataset import import_train_folder, read_dataset, shard_paths, split_holdout
from hiveai.training.train import features, fit


def labelled_games(source: Path, game_type: str, eval_id: str | None, depth: int | None) -> list:
    """The labelled games of ``source`` (a dataset, or an old ``hiveai train`` folder) to fit."""
    if (source / "labels.jsonl").exists():
        games = import_train_folder(source, "unknown", lambda game_type: "unknown", lambda eval_id: source.name)
    else:
        games, _ = read_dataset(shard_paths(source))
    return [g for g in games if g.game_type == game_type and (eval_id is None or g.eval == eval_id)
            and (depth is None or g.depth == depth)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("--feature-set", type=int, default=2)
    parser.add_argument("--hidden", default="16,8", help="hidden widths, comma separated")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game-type", default="Base+MLP")
    parser.add_argument("--eval", help="only the games this evaluation labelled (its id, e.g. network:4d10239eabef)")
    parser.add_argument("--depth", type=int, help="only the games labelled to this depth")
    parser.add_argument("--out", type=Path, help="write the network here")
    args = parser.parse_args()
    hidden = tuple(int(h) for h in args.hidden.split(","))
    games = labelled_games(args.source, args.game_type, args.eval, args.depth)
    if not games:
        parser.error(f"no {args.game_type} games to fit in {args.source}")
    train_games, held_games = split_holdout(games)
    train_set, held_set = features(train_games, args.feature_set), features(held_games, args.feature_set)
    meta = {"game_types": [args.game_type], "games": len(games), "positions": len(train_set) + len(held_set),
            "seed": args.seed, "data": args.source.name}
    net, report = fit(train_set, held_set, hidden=hidden, seed=args.seed, meta=meta, feature_set=args.feature_set)
    print(json.dumps(dict(report.as_dict(), feature_set=args.feature_set, hidden=list(hidden)), indent=1))
    if args.out:
        write_network(args.out, net)
        print(f"written {args.out} ({net.shapes})")


if __name__ == "__main__":
    main()
