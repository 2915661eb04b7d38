"""The orders PyTorch's CPU kernels leave behind, replayed: libstdc++'s ``std::sort``,
``std::nth_element`` and ``std::partial_sort``, and PyTorch's own quickselect.

Neither is stable, so where equal elements can be told apart by their positions (the index
``mode`` reports, the inverse indices of the nans ``unique`` finds, the index ``nanmedian``
reports for a row of nans), PyTorch's answer is the one these algorithms give. The steps are
libstdc++'s (introsort: median-of-three quicksort down to runs of 16, then one insertion
sort; heapsort past the depth limit; a heap for ``partial_sort``), on Python lists of
``(key, position)`` pairs and a ``less(a, b)`` comparison, so the same comparisons happen in
the same order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["std_sort", "nth_element", "partial_sort", "quick_select"]

_RUN = 16  # libstdc++'s _S_threshold: shorter runs are left to the insertion sort
Less = Callable[[Any, Any], bool]


def std_sort(items: list, less: Less) -> list:
    """``items`` sorted in place as ``std::sort(begin, end, less)`` leaves them.

    Examples
    --------
    >>> row = [0, 0, 2, 3, 3, 2, 1, 1, 3, 1, 2, 1, 0, 0, 3, 3, 1]
    >>> pairs = std_sort([(v, i) for i, v in enumerate(row)], lambda a, b: a[0] < b[0])
    >>> [i for v, i in pairs if v == 1]  # past 16 elements, not stable
    [16, 11, 9, 7, 6]
    """
    n = len(items)
    if n > 1:
        _introsort(items, 0, n, 2 * (n.bit_length() - 1), less)
        _final_insertion_sort(items, 0, n, less)
    return items


def nth_element(items: list, nth: int, less: Less) -> list:
    """``items`` as ``std::nth_element(begin, begin + nth, end, less)`` leaves them.

    Examples
    --------
    >>> nth_element(list(range(6)), 0, lambda a, b: False)  # all equal: still moved about
    [3, 5, 4, 0, 2, 1]
    """
    n = len(items)
    if n == 0 or nth == n:
        return items
    first, last, depth = 0, n, 2 * (n.bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(items, first, nth + 1, last, less)
            items[first], items[nth] = items[nth], items[first]
            return items
        depth -= 1
        cut = _partition_pivot(items, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(items, first, last, less)
    return items


def partial_sort(items: list, middle: int, less: Less) -> list:
    """``items`` as ``std::partial_sort(begin, begin + middle, end, less)`` leaves them: the
    ``middle`` smallest first, in order, equal ones in the heap's order (PyTorch's ``topk`` of
    few elements of a long row).

    Examples
    --------
    >>> partial_sort([(1, 0), (0, 1), (1, 2), (0, 3), (1, 4)], 3, lambda a, b: a[0] < b[0])[:3]
    [(0, 3), (0, 1), (1, 0)]
    """
    _heap_select(items, 0, middle, len(items), less)
    _sort_heap(items, 0, middle, less)
    return items


def quick_select(items: list, k: int, greater: Less) -> list:
    """``items`` as PyTorch's ``quick_select_template`` leaves them, with element ``k`` in its
    sorted place (``kthvalue``): median-of-three quickselect with ``greater`` as the order.

    Examples
    --------
    >>> row = [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]
    >>> quick_select(row, 1, lambda a, b: a[0] > b[0])[1]
    (0, 2)
    """
    a, low, high = items, 0, len(items) - 1
    while high > low + 1:
        mid = low + (high - low) // 2
        a[mid], a[low + 1] = a[low + 1], a[mid]
        for x, y in ((low + 1, high), (low, high), (low + 1, low)):
            if greater(a[x], a[y]):
                a[x], a[y] = a[y], a[x]
        i, j, pivot = low + 1, high, a[low]
        while True:
            i += 1
            while greater(pivot, a[i]):
                i += 1
            j -= 1
            while greater(a[j], pivot):
                j -= 1
            if j < i:
                break
            a[i], a[j] = a[j], a[i]
        a[low], a[j] = a[j], a[low]
        if j <= k:
            low = i
        if j >= k:
            high = j - 1
    if high == low + 1 and greater(a[low], a[high]):
        a[low], a[high] = a[high], a[low]
    return items


def _introsort(a: list, first: int, last: int, depth: int, less: Less) -> None:
    while last - first > _RUN:
        if depth == 0:
            _heap_sort(a, first, last, less)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        _introsort(a, cut, last, depth, less)
        last = cut


def _partition_pivot(a: list, first: int, last: int, less: Less) -> int:
    mid = first + (last - first) // 2
    _median_to_first(a, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(a, first + 1, last, first, less)


def _median_to_first(a: list, result: int, x: int, y: int, z: int, less: Less) -> None:
    if less(a[x], a[y]):
        if less(a[y], a[z]):
            pick = y
        elif less(a[x], a[z]):
            pick = z
        else:
            pick = x
    elif less(a[x], a[z]):
        pick = x
    elif less(a[y], a[z]):
        pick = z
    else:
        pick = y
    a[result], a[pick] = a[pick], a[result]


def _unguarded_partition(a: list, first: int, last: int, pivot: int, less: Less) -> int:
    while True:
        while less(a[first], a[pivot]):
            first += 1
        last -= 1
        while less(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _final_insertion_sort(a: list, first: int, last: int, less: Less) -> None:
    if last - first > _RUN:
        _insertion_sort(a, first, first + _RUN, less)
        for i in range(first + _RUN, last):
            _linear_insert(a, i, less)
    else:
        _insertion_sort(a, first, last, less)


def _insertion_sort(a: list, first: int, last: int, less: Less) -> None:
    for i in range(first + 1, last):
        if less(a[i], a[first]):
            value = a[i]
            a[first + 1 : i + 1] = a[first:i]
            a[first] = value
        else:
            _linear_insert(a, i, less)


def _linear_insert(a: list, last: int, less: Less) -> None:
    value = a[last]
    before = last - 1
    while less(value, a[before]):
        a[last] = a[before]
        last = before
        before -= 1
    a[last] = value


def _make_heap(a: list, first: int, n: int, less: Less) -> None:
    if n < 2:
        return
    parent = (n - 2) // 2
    while True:
        _adjust_heap(a, first, parent, n, a[first + parent], less)
        if parent == 0:
            return
        parent -= 1


def _heap_sort(a: list, first: int, last: int, less: Less) -> None:
    _make_heap(a, first, last - first, less)
    _sort_heap(a, first, last, less)


def _sort_heap(a: list, first: int, last: int, less: Less) -> None:
    while last - first > 1:
        last -= 1
        value = a[last]
        a[last] = a[first]
        _adjust_heap(a, first, 0, last - first, value, less)


def _heap_select(a: list, first: int, middle: int, last: int, less: Less) -> None:
    n = middle - first
    _make_heap(a, first, n, less)
    for i in range(middle, last):
        if less(a[i], a[first]):
            value = a[i]
            a[i] = a[first]
            _adjust_heap(a, first, 0, n, value, less)


def _adjust_heap(a: list, first: int, hole: int, n: int, value: Any, less: Less) -> None:
    top = child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value
