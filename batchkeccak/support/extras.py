"""The optional extras: how an integration imports the engine it adapts to.

``import batchkeccak`` never imports an engine; each integration module imports its own when
it is imported or first used, inside :func:`engine_import`, so that a missing engine is one
ImportError naming the extra to install.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def engine_import(integration: str, needs: str, note: str = "") -> Iterator[None]:
    """An ImportError inside becomes ``batchkeccak.<integration> needs <needs>: pip install
    'batchkeccak[<integration>]' <note>`` (the extra is named as the module is)."""
    try:
        yield
    except ImportError as error:
        hint = f"pip install 'batchkeccak[{integration}]'" + (f" {note}" if note else "")
        raise ImportError(f"batchkeccak.{integration} needs {needs}: {hint}") from error
