"""Argument checks shared by ``vmap`` and the differentiating transforms."""

from __future__ import annotations

from typing import Any

__all__ = ["check_chunk_size", "check_randomness"]


def check_chunk_size(chunk_size: Any, what: str = "vmap") -> None:
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        if what == "jacrev":  # PyTorch's own words for jacrev
            raise ValueError("jacrev: `chunk_size` should be greater than 0.")
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")


def check_randomness(randomness: str) -> None:
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )
