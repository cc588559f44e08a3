"""hiveai.borrow: a view of an array without reference counting."""

import numpy as np
from numba import njit
from numba.core import types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

from hiveai.borrow import borrow


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
