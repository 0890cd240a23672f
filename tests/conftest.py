import os
import sys
from pathlib import Path

import pytest

# The plain-Python reference model lives beside the tests and is imported by name.
sys.path.insert(0, str(Path(__file__).parent))

# Keep hypothesis runs bounded: the suite must stay quick on a 2-core machine.
from hypothesis import HealthCheck, settings

settings.register_profile(
    "batchkeccak",
    max_examples=int(os.environ.get("BATCHKECCAK_HYPOTHESIS_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("batchkeccak")


@pytest.fixture(scope="session")
def pattern_bytes():
    """``i % 251`` filler, so no two blocks line up by accident (as BLAKE3's tests do)."""

    def make(length: int, seed: int = 0) -> bytes:
        return bytes((seed + i) % 251 for i in range(length))

    return make
