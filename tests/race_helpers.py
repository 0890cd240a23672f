"""Shared skeleton of the tests that hash a list while another thread changes it.

Each test writes a child script's setup (``count``, ``threads``, ``seconds``, ``items`` and a
``mutate`` function that runs until ``stop`` is set, counting in the global ``mutations``) and
the call and checks of one round; :func:`race_script` defines ``stop`` and ``mutations`` and
wraps them in the same thread and deadline loop, and :func:`run_race` runs
the script in a fresh interpreter and returns its ``ok calls=… changed=… mutations=…`` line.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

RACE_LOOP = """\
stop = threading.Event()
mutations = 0
mutator = threading.Thread(target=mutate)
mutator.start()
calls = changed = 0
deadline = time.monotonic() + seconds
try:
    while time.monotonic() < deadline:
        try:
            {call}
        except RuntimeError as exc:
            assert "changed while being hashed" in str(exc), exc
            changed += 1
            continue
{check}
finally:
    stop.set()
    mutator.join()
print(f"ok calls={{calls}} changed={{changed}} mutations={{mutations}}")
"""


def race_script(setup: str, call: str, check: str) -> str:
    """The child script: ``setup``, then rounds of ``call`` (one line; a RuntimeError saying the
    list changed counts a refusal and starts the next round) and ``check`` (its lines, which
    exit the child with status 3 on a wrong result) until ``seconds`` have passed."""
    body = textwrap.indent(textwrap.dedent(check).strip("\n"), " " * 8)
    return textwrap.dedent(setup) + RACE_LOOP.format(call=call, check=body)


def run_race(script: str, argv: list[str], timeout: float = 240) -> str:
    """Run ``script`` with ``sys.argv[1:] = argv`` in a fresh interpreter; assert that it
    exited 0 and finished with its ``ok`` line, and return that line."""
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.argv[1:] = {argv!r}\n" + script],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=REPO,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr  # a crash fails here too
    summary = result.stdout.strip().splitlines()[-1]
    assert summary.startswith("ok"), summary
    return summary
