"""Borrowed array views: the search's arrays without reference counting.

Numba counts references to every array it passes around (``NRT_incref`` /
``NRT_decref`` on the array's *meminfo*), and the counts are atomic
(``lock inc``/``lock dec``, some 20 cycles each). LLVM removes most pairs,
but not across the search's many small calls and branchy helpers: sampled
with gdb on the bench, about 40 % of the search's time goes to those two
functions without borrowing (docs/measurements/2026-11-29-speed.md). Both return at once when the meminfo pointer is NULL, which is
what :func:`borrow` gives: a view of the same memory, same type, no owner.

It is safe only while someone else keeps the array alive, so a kernel
borrows its *arguments* at entry (the caller holds them for the whole call)
and never returns or stores a borrowed view.

The kernels below the search and perft (make/unmake, move generation) go one
step further: :func:`counts_free` compiles them without numba's runtime, so
they contain no reference-count calls at all. Even with borrowed views each
of those was a call that returned at once, and the calls cost more than
their few instructions: they split the rules' small loops, so LLVM kept
values in memory across them. Such a kernel cannot allocate (numba refuses
to compile one that tries), and it only reads and writes the arrays its
caller passes and keeps alive, so it never needs a count.
"""

from functools import partial

from numba import njit
from numba.core import types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array


@intrinsic
def borrow(typingctx, arr):
    """A view of ``arr`` (same type, same data) whose meminfo is NULL."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, sig, args):
        aryty = sig.args[0]
        src = make_array(aryty)(context, builder, value=args[0])
        out = make_array(sig.return_type)(context, builder)
        populate_array(out, data=src.data, shape=src.shape, strides=src.strides,
                       itemsize=src.itemsize, meminfo=None, parent=None)
        return out._getvalue()

    return arr(arr), codegen


#: ``@counts_free`` or ``@counts_free(inline="always")``: ``njit(cache=True)``
#: without numba's runtime (its ``_nrt`` option), for kernels that allocate
#: nothing and only use the arrays they are given.
counts_free = partial(njit, cache=True, _nrt=False)
