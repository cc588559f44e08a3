"""Wording helpers for the messages users read."""

from __future__ import annotations


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` with ``noun`` in the matching number (``nouns`` when adding "s" is wrong).

    >>> plural(1, "move"), plural(0, "move"), plural(2, "ply", "plies"), plural(12345, "node")
    ('1 move', '0 moves', '2 plies', '12,345 nodes')
    """
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"
