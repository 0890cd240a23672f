"""hash_many in its three input forms, checked against hashlib and pycryptodome.

Run: python examples/hash_many_basics.py
"""

import hashlib

import numpy as np

import batchkeccak as bk

# 1. A list of bytes-like objects.
messages = [b"abc", b"", b"x" * 10_000]
digests = bk.hash_many(messages, "sha3_256")  # (3, 32) uint8
assert [d.tobytes() for d in digests] == [hashlib.sha3_256(m).digest() for m in messages]

# Ethereum's Keccak-256 (original Keccak padding), as lowercase hex.
print(bk.hexdigest_many([b""], "keccak_256")[0])
# c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470

# SHAKE is an extendable-output function: choose the length.
assert bk.hash_many([b"abc"], "shake_128", length=64)[0].tobytes() == hashlib.shake_128(
    b"abc"
).digest(64)

# 2. A 2-D uint8 array: one message per row, hashed without copying.
rows = np.random.default_rng(0).integers(0, 256, size=(100_000, 32), dtype=np.uint8)
row_digests = bk.hash_many(rows, "sha3_256")
assert row_digests[7].tobytes() == hashlib.sha3_256(rows[7].tobytes()).digest()

# 3. A flat buffer and N + 1 offsets (Arrow's layout): message i is data[offsets[i]:offsets[i+1]].
data = np.frombuffer(b"helloworld!", dtype=np.uint8)
offsets = np.array([0, 5, 10, 11], dtype=np.int64)
flat_digests = bk.hash_many(bk.FlatMessages(data, offsets), "sha3_512")
assert flat_digests[1].tobytes() == hashlib.sha3_512(b"world").digest()

# Threads: every core by default; threads=1 stays on the calling thread.
assert np.array_equal(bk.hash_many(rows, "sha3_256", threads=1), row_digests)

for name, spec in bk.algorithms.items():
    size = "any" if spec.xof else spec.digest_size
    print(f"{name:14} rate {spec.rate:3} bytes, output {size}")
print("all digests equal hashlib's")
