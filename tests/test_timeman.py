"""TimeSpan parsing and formatting, the stop handle and the time budget rule (hiveai.search.timeman), in-process."""

from __future__ import annotations

import time

import pytest

from hiveai.search.timeman import (
    REPLY_MARGIN,
    TICKS_PER_SECOND,
    TIME_USAGE,
    Budget,
    Limit,
    StopHandle,
    format_timespan,
    parse_timespan,
)


def time_limits(seconds, stop, start=None, **kw):
    return Budget.of(Limit(time=seconds), stop, start, **kw)


@pytest.mark.parametrize("text, seconds", [
    ("00:00:05", 5.0), ("00:00:02.5000000", 2.5), ("00:00:02.5", 2.5), ("00:00:00", 0.0),
    ("00:01:30", 90.0), ("1.00:00:00", 86400.0), ("00:00", 0.0), ("01:02", 3720.0),
    ("00:00:00.0000001", 1e-7), ("-00:00:01", -1.0), (" 00:00:01 ", 1.0), ("00:00:00,25", 0.25),
    ("23:59:59.9999999", 86399.9999999),
])
def test_parse_timespan(text, seconds):
    assert parse_timespan(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "5", "1.5", "abc", "00:00:60", "00:60:00", "24:00:00",
                                  "00:00:01.12345678", "00:00:01.", "::", "00:00:01:00", "1.2.00:00:00"])
def test_parse_timespan_rejects(text):
    with pytest.raises(ValueError):
        parse_timespan(text)


@pytest.mark.parametrize("seconds, text", [
    (0, "00:00:00"), (5, "00:00:05"), (90, "00:01:30"), (2.5, "00:00:02.5000000"), (0.3, "00:00:00.3000000"),
    (1e-7, "00:00:00.0000001"), (3723.25, "01:02:03.2500000"),
])
def test_format_timespan_writes_what_parse_timespan_reads(seconds, text):
    assert format_timespan(seconds) == text
    assert parse_timespan(text) == pytest.approx(seconds, abs=1 / TICKS_PER_SECOND)


def test_time_limits_rule():
    stop = StopHandle()
    lim = time_limits(10.0, stop, start=100.0)
    assert lim.soft == pytest.approx(100.0 + TIME_USAGE * 10.0)  # no new iteration after TIME_USAGE * T
    assert lim.hard == pytest.approx(100.0 + 10.0 - REPLY_MARGIN)  # hard stop at T less the reply margin
    assert lim.soft < lim.hard
    tiny = time_limits(0.1, stop, start=0.0)
    assert tiny.soft <= tiny.hard <= 0.1 - REPLY_MARGIN
    # TimeUsage 1.0 must not make the hard deadline T itself: the reply margin always applies.
    full = time_limits(1.0, stop, start=0.0, usage=1.0, margin=0.05)
    assert full.hard == pytest.approx(0.95) and full.soft == pytest.approx(0.95)
    assert time_limits(0.01, stop, start=0.0, margin=0.05).hard == 0.0


def test_zero_budget_is_already_out_of_time():
    lim = time_limits(0.0, StopHandle())
    assert lim.out_of_time() and lim.stopped()


def test_stop_handle_and_untimed_limits():
    stop = StopHandle()
    for lim in (Budget.of(Limit(depth=3), stop), Budget.of(Limit(), stop)):
        assert not lim.out_of_time()
    assert Budget.of(Limit(), stop).infinite and not Budget.of(Limit(nodes=5), stop).infinite
    stop.stop()
    assert Budget.of(Limit(depth=3), stop).stopped() and Budget.of(Limit(), stop).out_of_time()
    stop.clear()
    lim = time_limits(60.0, stop)
    assert not lim.out_of_time()
    assert time_limits(0.5, stop, start=time.monotonic() - 1).stopped()


def test_a_ponder_hit_takes_over_the_deadlines_and_the_stop():
    pondering, bestmove = Budget.of(Limit(), StopHandle()), time_limits(5.0, StopHandle(), start=10.0)
    pondering.take_over(bestmove)
    assert not pondering.infinite and (pondering.soft, pondering.hard) == (bestmove.soft, bestmove.hard)
    assert pondering.stop is bestmove.stop
