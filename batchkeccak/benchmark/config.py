"""What a benchmark run measures and at which sizes."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

WORKLOADS = (
    "permutation",
    "absorb",
    "small",
    "small_keccak",
    "large",
    "varied",
    "single",
    "forms",
    "sweep",
    "startup",
)
"""Every workload, in the order a run measures them."""


@dataclass(frozen=True)
class SuiteConfig:
    """Sizes and repeat counts for one run; see :data:`PRESETS`."""

    preset: str = "custom"
    algorithm: str = "sha3_256"
    repeats: int = 5
    seed: int = 2026
    small_count: int = 1 << 20
    small_size: int = 32
    competitor_messages: int = 1 << 17
    """Python loops over competitors time at most this many of the small messages."""
    large_count: int = 64
    large_size: int = 1 << 20
    varied_count: int = 1 << 18
    varied_max: int = 4096
    single_size: int = 64 << 20
    permutation_calls: int = 20_000
    absorb_size: int = 256 << 10
    sweep_sizes: tuple[int, ...] = tuple(8 << i for i in range(14))
    sweep_bytes: int = 16 << 20
    sweep_max_count: int = 1 << 18
    sweep_competitor_bytes: int = 4 << 20
    sweep_repeats: int = 3
    startup_repeats: int = 5
    startup_cold_repeats: int = 1
    sample: int = 64
    """Messages per workload whose digests are cross-checked."""

    def scaled(self, **changes: Any) -> SuiteConfig:
        """A copy with some fields changed."""
        return replace(self, **changes)


_SMALLER_SIZES: dict[str, tuple[Any, Any]] = {
    # field: (in "short", in "quick")
    "repeats": (3, 3),
    "small_count": (1 << 18, 1 << 15),
    "competitor_messages": (1 << 15, 1 << 13),
    "large_count": (16, 4),
    "varied_count": (1 << 16, 1 << 13),
    "single_size": (16 << 20, 4 << 20),
    "permutation_calls": (5_000, 1_000),
    "absorb_size": (64 << 10, 16 << 10),
    "sweep_sizes": (SuiteConfig.sweep_sizes, tuple(8 << (2 * i) for i in range(7))),
    "sweep_bytes": (4 << 20, 1 << 20),
    "sweep_max_count": (1 << 16, 1 << 14),
    "sweep_competitor_bytes": (1 << 20, 256 << 10),
    "sweep_repeats": (2, 2),
    "startup_repeats": (3, 2),
}

PRESETS: dict[str, SuiteConfig] = {
    "full": SuiteConfig(preset="full"),
    **{
        name: SuiteConfig(
            preset=name, **{field: sizes[which] for field, sizes in _SMALLER_SIZES.items()}
        )
        for which, name in enumerate(("short", "quick"))
    },
}
"""``full``: the sizes the project's targets name (a minute or two on two cores);
``short``: what ``batchkeccak bench`` runs by default; ``quick``: a few seconds."""
