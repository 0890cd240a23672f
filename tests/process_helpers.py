"""Running a snippet of Python in a fresh interpreter, for the tests that need one."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping


def run_code(
    code: str,
    *args: str,
    env: Mapping[str, str] | None = None,
    timeout: float = 300,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    """``python -c code *args`` with text output captured (``env``: the child's whole
    environment, this one's when None)."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        check=check,
        timeout=timeout,
    )
