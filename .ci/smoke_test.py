"""Smoke test of an installed wheel, run from outside the checkout by .ci/run.

Checks that the package imported is the installed one, that `import batchkeccak` loads no
engine, and that a few digests of every input form equal hashlib's.
"""

import hashlib
import sys
from pathlib import Path

import batchkeccak as bk

installed = Path(bk.__file__).resolve()
assert "site-packages" in installed.parts, f"imported from {installed}, not the installed wheel"
engines = {"duckdb", "polars", "pandas", "dask", "pyspark", "ray"} & set(sys.modules)
assert not engines, f"import batchkeccak imported {engines}"

import numpy as np
import pyarrow as pa

from batchkeccak.arrow import hash_array

messages = [b"", b"abc", b"x" * 135, b"y" * 136, bytes(range(256)) * 40]
for name in ("sha3_256", "sha3_512", "keccak_256"):
    got = bk.hash_many(messages, name)
    if name == "keccak_256":
        from Crypto.Hash import keccak

        want = [keccak.new(digest_bits=256, data=m).digest() for m in messages]
    else:
        want = [hashlib.new(name, m).digest() for m in messages]
    assert [bytes(row) for row in got] == want, name
shake = bk.hash_many(messages, "shake_128", length=50)
assert [bytes(row) for row in shake] == [hashlib.shake_128(m).digest(50) for m in messages]
rows = np.frombuffer(b"".join(m[:3].ljust(3, b"-") for m in messages), np.uint8).reshape(-1, 3)
want = [hashlib.sha3_256(row.tobytes()).digest() for row in rows]
assert [bytes(d) for d in bk.hash_many(rows)] == want
column = hash_array(pa.array(messages + [None]))
assert column.to_pylist() == [hashlib.sha3_256(m).digest() for m in messages] + [None]
print(f"smoke test passed: batchkeccak {bk.__version__} from {installed.parent}")
