"""A generated kernel collected by the garbage collector while Python walks its line cache.

SymPy files each lambdified function's source in :mod:`linecache` and removes it when the
function is collected. ``linecache.checkcache()`` (run by every doctest, through ``bdb``)
lists the cache's names and then reads each; a collection in between removed a listed name,
and the walk raised KeyError inside the user's doctest.
"""

import gc
import linecache

import sympy as sp

from symgrad.prim import kernels


class _CollectsOnStat:
    """A line-cache entry's file name whose ``os.stat`` runs the garbage collector."""

    def __fspath__(self) -> str:
        gc.collect()
        return "/nonexistent/symgrad-probe"


def _dead_kernel_in_a_cycle(make) -> str:
    fn = make()
    name = fn.__code__.co_filename
    cycle = [fn]
    cycle.append(cycle)
    return name


def _walk_while_collecting(make) -> str:
    probe = "<symgrad-linecache-probe>"
    linecache.cache[probe] = (1, 1.0, ["x\n"], _CollectsOnStat())
    try:
        name = _dead_kernel_in_a_cycle(make)
        assert name in linecache.cache
        linecache.checkcache()  # raised KeyError
    finally:
        linecache.cache.pop(probe, None)
    return name


def test_array_kernel_collected_during_checkcache():
    x = sp.Symbol("x")
    _walk_while_collecting(lambda: kernels.lambdify([x], sp.sin(x) * x))


def test_scalar_kernel_collected_during_checkcache():
    x = sp.Symbol("x")
    _walk_while_collecting(lambda: kernels.scalar_lambdify([x], sp.cos(x) + x))


def test_source_of_a_live_kernel_is_in_the_cache():
    x = sp.Symbol("x")
    fn = kernels.lambdify([x], sp.exp(x))
    lines = linecache.getlines(fn.__code__.co_filename)
    assert any("exp(x)" in line for line in lines)


def test_source_of_a_collected_kernel_leaves_the_cache():
    x = sp.Symbol("x")
    name = _dead_kernel_in_a_cycle(lambda: kernels.lambdify([x], sp.tanh(x)))
    gc.collect()
    kernels.lambdify([x], x + 1)  # the next kernel made clears what collected ones left
    assert name not in linecache.cache
