"""How a refereed game can end: the ``reason`` field of ``games.jsonl``.

Plain constants, so that the standings (which count them) load without the
referee and its rules engine (numba).
"""

# The rules or the referee's adjudication ended the game.
QUEEN_SURROUNDED = "queen surrounded"
BOTH_SURROUNDED = "both queens surrounded"
REPETITION = "threefold repetition"
MAX_PLIES_REACHED = "max plies"
# An engine declared a draw that the referee's own repetition count confirms.
ENGINE_DRAW = "draw declared by engine"

# Forfeits: the engine named in the record's "forfeit" field loses.
CRASH = "crash"
HANG = "hang"
TIME_FORFEIT = "time forfeit"
ILLEGAL_MOVE = "illegal move"
GARBAGE = "unparseable output"
ENGINE_ERROR = "engine error"
FORFEITS = (CRASH, HANG, TIME_FORFEIT, ILLEGAL_MOVE, GARBAGE, ENGINE_ERROR)
