"""How long a search may think: the :class:`Limit` value (python-chess's ``chess.engine.Limit``).

One value serves hiveai's own search (:func:`hiveai.think`) and any UHP engine
(:mod:`hiveai.engine`). Set any mix of the three fields; the search stops at
the first one reached. A limit with no field set means "the default depth"
for :func:`hiveai.think` and is refused by an engine (UHP has no bare search
that ends by itself).

>>> Limit(depth=4)
Limit(depth=4)
>>> Limit(time=0.5, nodes=10_000)
Limit(time=0.5, nodes=10000)
>>> Limit(time=-1)
Traceback (most recent call last):
...
ValueError: Limit time must be a number of seconds >= 0, not -1

Plain Python (no numba): importing it is cheap.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limit"]


@dataclass(frozen=True)
class Limit:
    """A search limit: ``time`` in seconds, ``depth`` in plies, ``nodes`` searched.

    Fields left at None do not limit. Immutable and hashable.

    >>> limit = Limit(time=1)
    >>> limit.time, limit.depth, limit.nodes, limit.is_empty()
    (1, None, None, False)
    """

    time: float | None = None
    depth: int | None = None
    nodes: int | None = None

    def __post_init__(self) -> None:
        if self.time is not None and (isinstance(self.time, bool) or not isinstance(self.time, (int, float))
                                      or not self.time >= 0):
            raise ValueError(f"Limit time must be a number of seconds >= 0, not {self.time!r}")
        for name in ("depth", "nodes"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"Limit {name} must be an int >= 0, not {value!r}")

    def is_empty(self) -> bool:
        """Whether no field is set.

        >>> Limit().is_empty(), Limit(depth=0).is_empty()
        (True, False)
        """
        return self.time is None and self.depth is None and self.nodes is None

    def __repr__(self) -> str:
        fields = [f"{name}={getattr(self, name)!r}" for name in ("time", "depth", "nodes")
                  if getattr(self, name) is not None]
        return f"Limit({', '.join(fields)})"

