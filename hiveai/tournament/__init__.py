"""``hiveai tournament``: matches between UHP engines, refereed by hiveai's rules.

Modules: :mod:`.schedule` (engines, pairings, openings, game ids),
:mod:`.referee` (one game between two engine processes), :mod:`.stats`
(Elo, intervals, LOS, pentanomial, SPRT), :mod:`.results` (how a game can
end), :mod:`.standings` (records to tables), :mod:`.limits` (time limits and
adjudication defaults), :mod:`.runner` (the match loop and its files). Games
run on :mod:`hiveai.backend` (local threads or Ray); the command line is in
:mod:`hiveai.cli`.

Importing this package is cheap (no numba): the CLI imports it at start-up.
"""
