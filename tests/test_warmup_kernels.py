"""``batchkeccak warmup`` compiles the table diff's kernels too, so that an image built with
it does not compile them on its first ``diff``."""

from __future__ import annotations

import textwrap

import pytest
from process_helpers import run_code

CHECK = textwrap.dedent(
    """
    from numba.core.registry import CPUDispatcher
    from batchkeccak.cli.warmup import warm_every_kernel
    from batchkeccak.tables import _kernels

    warm_every_kernel()
    kernels = {
        name: value for name, value in vars(_kernels).items() if isinstance(value, CPUDispatcher)
    }
    assert kernels, "no kernels found in batchkeccak.tables._kernels"
    inner = {"digests_differ"}  # called only by walk, compiled into it
    unused = [name for name, kernel in kernels.items() if not kernel.signatures]
    print(sorted(set(unused) - inner))
    """
)


@pytest.mark.slow
def test_warm_every_kernel_covers_the_table_kernels():
    # In a fresh interpreter: here earlier tests may have called every kernel already.
    done = run_code(CHECK, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"
