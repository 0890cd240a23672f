"""Arrow fixtures shared by several test modules (imports pyarrow: only for modules that need it)."""

from __future__ import annotations

import pyarrow as pa

# Every variable-length binary and string layout: offsets (32- and 64-bit) and views.
VARIABLE_TYPES = [
    pa.binary(),
    pa.large_binary(),
    pa.string(),
    pa.large_string(),
    pa.binary_view(),
    pa.string_view(),
]
