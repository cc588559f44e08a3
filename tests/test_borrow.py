"""hiveai.rules.borrow: a view of an array without reference counting."""

import numpy as np
import pytest
from numba import njit
from numba.core import types
from numba.core.errors import NumbaError
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

from hiveai.rules.borrow import borrow, counts_free


@intrinsic
def _meminfo_address(typingctx, arr):
    """The array's owner pointer, the one NRT_incref / NRT_decref update."""

    def codegen(context, builder, sig, args):
        ary = make_array(sig.args[0])(context, builder, value=args[0])
        return builder.ptrtoint(ary.meminfo, context.get_value_type(types.intp))

    return types.intp(arr), codegen


@njit
def _owners(a):
    return _meminfo_address(a), _meminfo_address(borrow(a))


@njit(cache=True)
def _fill_through_borrowed(a, value):
    v = borrow(a)
    for i in range(v.shape[0]):
        v[i] = value + i
    return v.shape[0], v.strides[0]


@njit(cache=True)
def _same_data(a):
    return borrow(a).ctypes.data == a.ctypes.data


def test_borrowed_view_shares_memory_shape_and_strides():
    a = np.zeros(7, dtype=np.int64)
    n, stride = _fill_through_borrowed(a, 10)
    assert (n, stride) == (7, 8)
    assert a.tolist() == [10, 11, 12, 13, 14, 15, 16]


def test_borrowed_view_of_int32_array():
    a = np.zeros(3, dtype=np.int32)
    _fill_through_borrowed(a, -5)
    assert a.tolist() == [-5, -4, -3]


def test_borrowed_view_points_at_the_same_data():
    assert _same_data(np.arange(4))


def test_borrowed_view_has_no_owner_so_no_reference_counting():
    own, borrowed = _owners(np.arange(4))
    assert own != 0
    assert borrowed == 0


@counts_free
def _bump(a, k):
    for i in range(a.shape[0]):
        a[i] += k
    return a.shape[0]


@counts_free(inline="always")
def _first(a):
    return a[0]


@counts_free
def _first_through_inlined(a):
    return _first(a)


def test_counts_free_kernel_reads_and_writes_its_arguments():
    a = np.arange(5, dtype=np.int64)
    assert _bump(a, 10) == 5
    assert a.tolist() == [10, 11, 12, 13, 14]
    assert _first_through_inlined(np.array([7, 8], dtype=np.int32)) == 7


def test_counts_free_kernel_cannot_allocate():
    # Compiled without numba's runtime: an array it made could never be freed,
    # so numba refuses to compile it rather than leak or crash.
    def allocates(n):
        return np.zeros(n).sum()

    assert njit(allocates)(3) == 0.0  # fine with the runtime
    with pytest.raises(NumbaError):
        counts_free(allocates)(3)


def test_move_generation_and_make_unmake_are_counts_free():
    from hiveai.rules import movegen, position

    for kernel in (movegen.generate_moves, movegen.find_pinned, position.do_move, position.undo_move):
        assert kernel.targetoptions["_nrt"] is False, kernel
