"""Layouts through the C algebra, against docs/layouts.md and the C."""

import ctypes
import gc
import pickle

import numpy as np
import pytest

import tilus
from tilus import _lib

from conftest import requires_compiler

pytestmark = requires_compiler


def reference(layout_factors, t, i):
    """f(t, i) of a chain of primitives computed by hand from docs/layouts.md:
    h(t, i) = A(t / TB, i / mB) * SB + B(t % TB, i % mB), primitives
    row-major (column_* first dimension fastest), all of one rank."""
    def prim(kind, shape, t, i):
        x = t if kind in ("spatial", "column_spatial") else i
        dims = list(shape)
        order = range(len(dims) - 1, -1, -1) if not kind.startswith("column") else range(len(dims))
        out = [0] * len(dims)
        for d in order:
            out[d] = x % dims[d]
            x //= dims[d]
        return out
    result = [0] * len(layout_factors[0][1])
    for kind, shape in layout_factors:
        T = 1
        m = 1
        for n in shape:
            if "spatial" in kind:
                T *= n
            else:
                m *= n
        # Fold left to right: result = result . prim
    # Evaluate recursively from the right.
    def h(factors, t, i):
        if len(factors) == 1:
            return prim(factors[0][0], factors[0][1], t, i)
        kind, shape = factors[-1]
        size = 1
        for n in shape:
            size *= n
        TB = size if "spatial" in kind else 1
        mB = size if "spatial" not in kind else 1
        outer = h(factors[:-1], t // TB, i // mB)
        inner = prim(kind, shape, t % TB, i % mB)
        return [o * s + b for o, s, b in zip(outer, shape, inner)]
    return tuple(h(layout_factors, t, i))


CHAINS = [
    [("local", (2, 1)), ("spatial", (8, 4)), ("local", (1, 2))],    # mma accumulator
    [("column_local", (2, 2)), ("spatial", (8, 4)), ("local", (1, 2))],
    [("local", (2, 1)), ("column_spatial", (4, 8)), ("local", (2, 1))],
    [("spatial", (4, 2)), ("local", (3, 5)), ("spatial", (2, 2))],
    [("spatial", (128,)), ("local", (4,))],
]


def build(chain):
    result = None
    for kind, shape in chain:
        result = getattr(tilus, kind)(*shape) if result is None else getattr(result, kind)(*shape)
    return result


@pytest.mark.parametrize("chain", CHAINS, ids=lambda c: ".".join(k for k, _ in c))
def test_evaluate_every_thread_and_slot(chain):
    layout = build(chain)
    T, m = layout.num_threads, layout.local_size
    shape = tuple(np.prod([s[d] for _, s in chain]) for d in range(len(chain[0][1])))
    assert layout.shape == shape
    assert T == np.prod([np.prod(s) for k, s in chain if "spatial" in k])
    assert m == np.prod([np.prod(s) for k, s in chain if "spatial" not in k])
    seen = set()
    table = layout.table()
    for t in range(T):
        for i in range(m):
            expected = reference(chain, t, i)
            assert layout(t, i) == expected
            assert tuple(table[t, i]) == expected
            seen.add(expected)
            # locate gives back the lowest (t, i) holding the index: here the
            # only one, since nothing is replicated.
            assert layout.locate(expected) == (t, i)
    assert len(seen) == layout.num_elements == T * m
    assert layout.locate(tuple(s for s in shape)) is None


def test_figure_mma_accumulator():
    # docs/layouts.md / the paper: lane l, slot j of the m16n8 f32 accumulator
    # is row l/4 + 8*(j/2), column 2*(l%4) + j%2.
    layout = tilus.local(2, 1).spatial(8, 4).local(1, 2)
    assert (layout.shape, layout.num_threads, layout.local_size) == ((16, 8), 32, 4)
    for lane in range(32):
        for j in range(4):
            assert layout(lane, j) == (lane // 4 + 8 * (j // 2), 2 * (lane % 4) + j % 2)
    assert str(layout) == "local(2,1).spatial(8,4).local(1,2)"
    assert layout.contiguity == 2


def test_text_round_trip_and_canonical_form():
    for text in ["local(2,1).spatial(8,4).local(1,2)",
                 "column_local(2,2).spatial(8,4).local(1,2)",
                 "reduce(spatial(2,16,8),dims=[0])",
                 "swizzle(local(8,64),dim=1,log_step=1)",
                 "local(3).spatial(32)"]:
        layout = tilus.Layout.parse(text)
        assert tilus.Layout.parse(str(layout)) == layout
        assert str(tilus.Layout.parse(str(layout))) == str(layout)
    assert str(tilus.Layout.parse("local(2,1).local(1,2)")) == "local(2,2)"
    assert str(tilus.Layout.parse("column_local(1,4)")) == "local(1,4)"
    assert str(tilus.Layout.parse(" repeat( 2 , 2 ) ")) == "local(2,2)"
    assert tilus.Layout.parse("swizzle(local(8,64), dim=1)") == \
        tilus.Layout.parse("swizzle(local(8,64),dim=1,log_step=0)")
    layout = tilus.local(2, 1).spatial(8, 4)
    assert pickle.loads(pickle.dumps(layout)) == layout
    assert eval(repr(layout), {"tilus": tilus}) == layout


def test_equality_is_functional():
    assert tilus.local(2, 1).local(1, 2) == tilus.local(2, 2)
    assert tilus.local(2, 2) != tilus.column_local(2, 2)
    assert tilus.column_local(1, 4) == tilus.local(1, 4)
    assert hash(tilus.local(2, 1).local(1, 2)) == hash(tilus.local(2, 2))
    assert tilus.spatial(4) != tilus.local(4)
    assert (tilus.local(2) == "local(2)") is False


def test_composition_division_broadcast():
    a = tilus.local(2, 1).spatial(8, 4)
    b = tilus.local(1, 2)
    h = a * b
    assert h == tilus.compose(a, b) == a.compose(b)
    assert h == tilus.local(2, 1).spatial(8, 4).local(1, 2)
    assert h / b == a
    assert b.divides(h)
    # Composition is associative, identity local(1).
    c = tilus.spatial(2, 2)
    assert (a * b) * c == a * (b * c)
    assert tilus.local(1) * a == a == a * tilus.local(1)
    # The lower-rank operand is broadcast.
    assert (tilus.local(2) * tilus.spatial(1, 4)).shape == (1, 8)
    assert tilus.local(4).broadcast(3).shape == (1, 1, 4)
    with pytest.raises(tilus.LayoutError):
        tilus.spatial(3) / tilus.spatial(2)
    assert not tilus.spatial(2).divides(tilus.spatial(3))


def test_reduce_and_swizzle():
    r = tilus.spatial(2, 16, 8).reduce([0])
    assert r.shape == (16, 8) and r.num_threads == 256 and r.local_size == 1
    # Threads t and t + 128 hold the same element.
    assert r(5) == r(5 + 128)
    assert str(r) == "reduce(spatial(2,16,8),dims=[0])"
    s = tilus.local(8, 64).swizzle(dim=1, log_step=0)
    assert s.num_threads == 1 and s.local_size == 512
    for i in range(512):
        row, col = divmod(i, 64)
        assert s(0, i) == (row, col ^ (row % 64))
    with pytest.raises(tilus.LayoutError, match="power of two|power of 2"):
        tilus.local(8, 48).swizzle(1)
    with pytest.raises(tilus.LayoutError):
        tilus.spatial(8, 64).swizzle(1)


def test_errors_carry_the_c_message():
    with pytest.raises(tilus.LayoutError, match="shape entry 0 is 0, must be >= 1"):
        tilus.local(0)
    with pytest.raises(tilus.LayoutError, match="unknown layout 'loca'"):
        tilus.Layout.parse("loca(2)")
    with pytest.raises(tilus.LayoutError):
        tilus.local(2).reduce([3])
    with pytest.raises(IndexError):
        tilus.local(2)(1, 0)
    with pytest.raises(TypeError):
        tilus.Layout()


def test_parse_matches_c_print_directly():
    lib = _lib.compiler_lib()
    text = b"local(2,1).column_spatial(4,8).local(2,1)"
    err = _lib.TilusLayoutError()
    ptr = lib.tilusLayoutParse(text, len(text), ctypes.byref(err))
    printed = lib.tilusLayoutPrint(ptr)
    expected = ctypes.string_at(printed).decode()
    _lib.libc_free(printed)
    lib.tilusLayoutDestroy(ptr)
    assert str(tilus.Layout.parse(text.decode())) == expected


def test_layouts_are_freed():
    import weakref
    layout = tilus.local(4).spatial(32)
    ref = weakref.ref(layout)
    del layout
    gc.collect()
    assert ref() is None
    for _ in range(2000):
        tilus.local(2, 2).spatial(4, 8) * tilus.local(1, 2)
