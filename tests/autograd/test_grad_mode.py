"""``no_grad``, ``enable_grad``, ``set_grad_enabled`` and ``is_grad_enabled``: context managers,
decorators (with and without parentheses, on generators too) and thread-local state."""

from __future__ import annotations

import threading

import pytest

import symgrad


@pytest.fixture
def x():
    return symgrad.ones(2, requires_grad=True)


def test_grad_is_enabled_by_default():
    assert symgrad.is_grad_enabled()


def test_no_grad_records_nothing(x):
    with symgrad.no_grad():
        assert not symgrad.is_grad_enabled()
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf
    assert symgrad.is_grad_enabled()


def test_enable_grad_inside_no_grad(x):
    with symgrad.no_grad():
        with symgrad.enable_grad():
            y = x * 2
        z = x * 2
    assert y.requires_grad and not z.requires_grad


def test_set_grad_enabled_as_context_manager(x):
    with symgrad.set_grad_enabled(False):
        assert not (x * 2).requires_grad
        with symgrad.set_grad_enabled(True):
            assert (x * 2).requires_grad
        assert not symgrad.is_grad_enabled()
    assert symgrad.is_grad_enabled()


def test_set_grad_enabled_as_a_function_switches_at_once():
    try:
        symgrad.set_grad_enabled(False)
        assert not symgrad.is_grad_enabled()
    finally:
        symgrad.set_grad_enabled(True)
    assert symgrad.is_grad_enabled()


def test_set_grad_enabled_needs_a_bool():
    with pytest.raises(TypeError, match="True or False"):
        symgrad.set_grad_enabled("no")


def test_mode_is_restored_after_an_exception():
    with pytest.raises(ValueError):
        with symgrad.no_grad():
            raise ValueError
    assert symgrad.is_grad_enabled()


def test_no_grad_decorator(x):
    @symgrad.no_grad()
    def double(t):
        return t * 2

    assert not double(x).requires_grad
    assert symgrad.is_grad_enabled()
    assert double.__name__ == "double"


def test_bare_no_grad_decorator(x):
    @symgrad.no_grad
    def double(t):
        return t * 2

    assert not double(x).requires_grad


def test_enable_grad_decorator_inside_no_grad(x):
    @symgrad.enable_grad()
    def double(t):
        return t * 2

    @symgrad.enable_grad
    def triple(t):
        return t * 3

    with symgrad.no_grad():
        assert double(x).requires_grad and triple(x).requires_grad
        assert not symgrad.is_grad_enabled()


def test_set_grad_enabled_decorator(x):
    @symgrad.set_grad_enabled(False)
    def double(t):
        return t * 2

    assert symgrad.is_grad_enabled()  # decorating does not switch the mode
    assert not double(x).requires_grad
    assert symgrad.is_grad_enabled()


def test_decorated_generator_runs_its_body_in_the_mode():
    @symgrad.no_grad()
    def modes():
        yield symgrad.is_grad_enabled()
        yield symgrad.is_grad_enabled()
        return "done"

    gen = modes()
    assert next(gen) is False
    assert symgrad.is_grad_enabled()  # the caller is unaffected between steps
    assert next(gen) is False
    with pytest.raises(StopIteration) as stop:
        next(gen)
    assert stop.value.value == "done"


def test_no_grad_takes_no_arguments():
    with pytest.raises(TypeError):
        symgrad.no_grad(3)


def test_grad_mode_is_thread_local():
    entered, release = threading.Event(), threading.Event()
    seen = {}

    def worker():
        with symgrad.no_grad():
            entered.set()
            release.wait(10)
            seen["worker"] = symgrad.is_grad_enabled()

    thread = threading.Thread(target=worker)
    thread.start()
    assert entered.wait(10)
    seen["main while worker is in no_grad"] = symgrad.is_grad_enabled()
    release.set()
    thread.join(10)
    assert seen == {"main while worker is in no_grad": True, "worker": False}


def test_new_thread_starts_with_grad_enabled():
    seen = []
    with symgrad.no_grad():
        thread = threading.Thread(target=lambda: seen.append(symgrad.is_grad_enabled()))
        thread.start()
        thread.join(10)
    assert seen == [True]


def test_no_grad_in_another_thread_does_not_stop_recording_here(x):
    entered, release = threading.Event(), threading.Event()

    def worker():
        with symgrad.no_grad():
            entered.set()
            release.wait(10)

    thread = threading.Thread(target=worker)
    thread.start()
    assert entered.wait(10)
    try:
        y = x * 2
    finally:
        release.set()
        thread.join(10)
    assert y.requires_grad and y.grad_fn is not None


def test_detach_cuts_the_graph(x):
    z = (x * 2).detach()
    assert not z.requires_grad and z.grad_fn is None and z.is_leaf
