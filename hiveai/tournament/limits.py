"""The tournament's numbers: time limits, tolerances and adjudication defaults.

One place for them, and cheap to import (the CLI shows them as defaults
before anything heavy loads). How they are used: :mod:`.referee`.
"""

# Seconds, unless named otherwise.
# Start-up banner, options and newgame of a started engine. Covers a Python
# engine's imports plus loading a warm numba cache (hiveai: about 0.6 s);
# the check before the games (PROBE_TIMEOUT, hiveai.tournament.preflight) warms a cold cache.
SETUP_TIMEOUT = 60.0
# The check before a tournament: a cold numba cache compiles every kernel
# (the test-suite allows the same 900 s for that, tests/uhp_client.py).
PROBE_TIMEOUT = 900.0
# Replies to play/pass: a rules update takes milliseconds.
COMMAND_TIMEOUT = 10.0
# Time mode: a bestmove with budget B hangs after B + max(HANG_MARGIN_MIN,
# HANG_MARGIN_FRACTION * B): well past any honest overrun, short enough that
# a hung engine costs one game, not the tournament.
HANG_MARGIN_MIN = 1.0
HANG_MARGIN_FRACTION = 0.5
# Other limits (depth): how long one bestmove may take (--hang-timeout).
DEPTH_HANG_TIMEOUT = 60.0
# Clock overstep: a move answered after B * (1 + TIME_TOLERANCE) +
# TIME_TOLERANCE_MS loses; the slack absorbs pipe and scheduler latency.
TIME_TOLERANCE = 0.10
TIME_TOLERANCE_MS = 100.0
# After "exit" (or end of input) an engine gets this long before it is killed.
EXIT_GRACE = 2.0
# Draw adjudication after this many plies (opening included): 150 moves each,
# far beyond decisive games between engines, short enough to end shuffling.
MAX_PLIES = 300
# Random plies before each game pair when no openings file is given: enough to
# make the pairs differ (Base has 4 x 24 x ... choices), few enough that the
# engines, not the dice, decide the game.
DEFAULT_RANDOM_PLIES = 4
