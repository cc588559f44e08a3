"""Where work runs: a local thread pool, or tasks on a Ray cluster.

Generic on purpose: tournaments send it games, the opening-book builder
sends it searches. The whole interface::

    backend = make_backend(concurrency=4)            # or cluster="ray" / "ray:ADDRESS"
    for result in backend.imap_unordered(fn, items):  # results as they finish
        ...
    backend.close()

``fn`` must be a picklable top-level function (Ray ships it to workers by
reference). ``items`` is pulled lazily, a few at a time, so the caller can
stop early by ending its iterator (a finished SPRT stops feeding games) and
the work already started still comes back.

* Local: a pool of ``concurrency`` threads. Games spend their time waiting
  on engine subprocesses and numba kernels release the GIL, so threads suffice.
* Ray: each item is a ``ray.remote`` task needing one CPU; ``ray.wait``
  streams the results. ``cluster="ray"`` starts a local Ray instance,
  ``"ray:ADDRESS"`` joins a running cluster (``ray:auto`` finds the one that
  ``ray start --head`` started on this machine). At most ``concurrency``
  tasks are in flight when it is above 1; otherwise one per cluster CPU.
  Ray is an optional extra: ``pip install 'hiveai[cluster]'``.
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, Callable, Iterable, Iterator

RAY_MISSING = "--cluster ray needs Ray, an optional extra: pip install 'hiveai[cluster]' (or pip install ray)"


class Backend:
    """Runs ``fn(item)`` for many items and yields the results as they finish."""

    def imap_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        raise NotImplementedError

    def close(self) -> None:
        """Release the workers (waits for work already started)."""

    @property
    def slots(self) -> int:
        """How many items run at once."""
        raise NotImplementedError

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def make_backend(concurrency: int = 1, cluster: str | None = None) -> Backend:
    """A local thread pool, or Ray for ``cluster`` = ``"ray"`` or ``"ray:ADDRESS"``."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, not {concurrency}")
    if cluster is None:
        return LocalBackend(concurrency)
    kind, _, address = cluster.partition(":")
    if kind.lower() != "ray":
        raise ValueError(f'unknown cluster "{cluster}": expected "ray" or "ray:ADDRESS"')
    return RayBackend(address.strip() or None, concurrency)


def _stream(submit: Callable[[Any], Any], wait_one: Callable[[set], tuple[list, set]],
            result: Callable[[Any], Any], items: Iterable[Any], slots: int) -> Iterator[Any]:
    """Keep up to ``slots`` items in flight; yield each result as it is done."""
    it = iter(items)
    pending: set = set()
    exhausted = False
    while True:
        while not exhausted and len(pending) < slots:
            try:
                pending.add(submit(next(it)))
            except StopIteration:
                exhausted = True
        if not pending:
            return
        done, pending = wait_one(pending)
        for handle in done:
            yield result(handle)


class LocalBackend(Backend):
    """``concurrency`` worker threads on this machine."""

    def __init__(self, concurrency: int = 1) -> None:
        self._slots = concurrency
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="hiveai-worker")

    @property
    def slots(self) -> int:
        return self._slots

    def imap_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        def wait_one(pending: set[Future]) -> tuple[set[Future], set[Future]]:
            done, rest = wait(pending, return_when=FIRST_COMPLETED)
            return done, rest

        return _stream(lambda item: self._pool.submit(fn, item), wait_one, Future.result, items, self._slots)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _apply(fn: Callable[[Any], Any], item: Any) -> Any:
    """The one Ray task: ``fn(item)`` on a worker."""
    return fn(item)


class RayBackend(Backend):
    """Ray tasks on a local instance (``address`` None) or a running cluster."""

    def __init__(self, address: str | None = None, concurrency: int = 1) -> None:
        try:
            import ray
        except ImportError:
            raise RuntimeError(RAY_MISSING) from None
        self._ray = ray
        self._owns = not ray.is_initialized()
        if self._owns:
            if address is None:
                # "local": always a fresh instance of our own, even if another runs here.
                ray.init(address="local", include_dashboard=False)
            else:
                ray.init(address=address)
        self._task = ray.remote(num_cpus=1)(_apply)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self._slots = concurrency if concurrency > 1 else max(1, cpus)

    @property
    def slots(self) -> int:
        return self._slots

    def imap_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        ray = self._ray

        def wait_one(pending: set) -> tuple[list, set]:
            done, rest = ray.wait(list(pending), num_returns=1)
            return done, set(rest)

        return _stream(lambda item: self._task.remote(fn, item), wait_one, ray.get, items, self._slots)

    def close(self) -> None:
        if self._owns and self._ray.is_initialized():
            self._ray.shutdown()
