"""``hiveai tournament``: matches between UHP engines, refereed by hiveai's rules.

Modules: :mod:`.schedule` (engines, pairings, openings, game ids),
:mod:`.referee` (one game between two engine processes), :mod:`.preflight`
(the check of every engine before the games), :mod:`.stats` (Elo, intervals,
LOS, pentanomial, SPRT), :mod:`.standings` (records to tables),
:mod:`.timeouts` (timeouts, time limits and adjudication defaults),
:mod:`.layout` (the output folder's file names), :mod:`.report` (the HTML
report and replay pages), :mod:`.runner` (the match loop, writing the
folder). How a game ends is :class:`hiveai.rules.outcome.Termination`. Games run on :mod:`hiveai.backend` (local threads
or Ray); the command line is in :mod:`hiveai.cli`.

Importing this package is cheap (no numba): the CLI imports it at start-up.
"""
