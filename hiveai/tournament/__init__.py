"""``hiveai tournament``: matches between UHP engines, refereed by hiveai's rules.

Modules: :mod:`.schedule` (engines, pairings, openings, game ids),
:mod:`.referee` (one game between two engine processes), :mod:`.stats`
(Elo, intervals, LOS, pentanomial, SPRT), :mod:`.standings` (records to
tables), :mod:`.backend` (local threads or Ray), :mod:`.runner` (the match
loop and its files), :mod:`.cli_args` (command-line helpers).

Importing this package is cheap (no numba): the CLI imports it at start-up.
"""
