"""Hash a Polars column through Arrow.

``hash_array`` reads a Polars Series through the Arrow PyCapsule interface: Polars hands over
its own buffers, nothing is copied on the way out. (Polars keeps strings in the binary-view
layout; batchkeccak gathers those values once into the contiguous layout the sponge reads.)

Run: python examples/polars_column.py
"""

import hashlib

import polars as pl

from batchkeccak.arrow import hash_array


def main() -> None:
    frame = pl.DataFrame({"email": ["ada@example.org", None, "grace.hopper@example.org"]})

    # Series in, Arrow ChunkedArray out; pl.Series(...) takes the digests back.
    digests = hash_array(frame["email"], "sha3_256", hex=True)
    frame = frame.with_columns(pl.Series("email_sha3_256", digests))
    print(frame)
    assert frame["email_sha3_256"][0] == hashlib.sha3_256(b"ada@example.org").hexdigest()

    # Inside a lazy query: one call per batch of rows, not per value.
    keccak = pl.col("email").map_batches(
        lambda series: pl.Series(hash_array(series, "keccak_256")), return_dtype=pl.Binary
    )
    print(frame.lazy().with_columns(keccak.alias("email_keccak_256")).collect())


if __name__ == "__main__":
    main()
