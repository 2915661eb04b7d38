"""symgrad.cpu (torch.cpu's device module), its deprecated amp names, and torch.GradScaler."""

from __future__ import annotations

import pytest

import symgrad


def test_the_cpu_device_module() -> None:
    cpu = symgrad.cpu
    assert cpu.is_available() and cpu.is_initialized() and cpu.device_count() == 1
    assert cpu.current_device() == "cpu"
    assert cpu.synchronize() is None and cpu.set_device(0) is None
    # a program written for any device type
    assert getattr(symgrad, symgrad.device("cpu").type).device_count() == 1


def test_deprecated_cpu_amp_names_warn_and_work() -> None:
    with pytest.warns(FutureWarning, match=r"symgrad.amp.autocast\('cpu'"):
        ctx = symgrad.cpu.amp.autocast(enabled=False)
    with ctx:
        assert (symgrad.ones(2) * 2).dtype is symgrad.float32
    with pytest.warns(FutureWarning, match="GradScaler"):
        scaler = symgrad.cpu.amp.GradScaler()
    assert scaler.get_scale() == 65536.0
    with pytest.warns(FutureWarning), pytest.raises(NotImplementedError, match="autocast"):
        symgrad.cpu.amp.autocast()


def test_grad_scaler_at_the_top_level_is_amps() -> None:
    assert symgrad.GradScaler is symgrad.amp.GradScaler
