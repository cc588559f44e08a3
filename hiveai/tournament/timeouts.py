"""The tournament's numbers: time limits, tolerances and adjudication defaults.

One place for them, and cheap to import (the CLI shows them as defaults
before anything heavy loads). How they are used: :mod:`.referee`.
"""

# Seconds, unless named otherwise. How long each answer is awaited: docs/tournament-timeouts.md.
# The start-up banner (``id ...`` and ``ok``), in the check before the games and in
# games (--banner-timeout). An engine prints it before any heavy loading: hiveai
# does before numba loads (0.13-0.17 s measured on a loaded 2-core machine), so
# ten seconds is generous, and an engine that is mute (not a UHP engine, or hung)
# costs ten seconds, not minutes.
BANNER_TIMEOUT = 10.0
# The check before the games waits this long for an engine's ``newgame`` and its
# first ``bestmove``, where a cold numba cache compiles every kernel (hiveai's
# newgame waits for it: 31 s measured on a loaded 2-core machine, minutes under
# heavier load; the test-suite allows the same 900 s for that, tests/uhp_client.py).
# Every other answer has --hang-timeout.
COMPILE_TIMEOUT = 900.0
# After this long without that answer, the check says on stderr what it waits for.
SLOW_NOTICE = 5.0
# Replies to play/pass: a rules update takes milliseconds (--hang-timeout, if
# shorter, applies instead).
COMMAND_TIMEOUT = 10.0
# Time mode: a bestmove with budget B hangs after B + max(HANG_MARGIN_MIN,
# HANG_MARGIN_FRACTION * B): well past any honest overrun, short enough that
# a hung engine costs one game, not the tournament.
HANG_MARGIN_MIN = 1.0
HANG_MARGIN_FRACTION = 0.5
# How long any other answer in a game may take (--hang-timeout): options,
# newgame, a bestmove with a limit other than time (depth).
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
