"""Hash Polars columns with the ``bk`` namespace.

``import batchkeccak.polars`` registers ``.bk`` on expressions and Series. Each method is one
batch call per chunk Polars hands over, with its output type declared, so it works in eager,
lazy and streaming queries alike.

Run: python examples/polars_column.py
"""

import hashlib

import polars as pl

import batchkeccak.polars  # noqa: F401 - registers the bk namespace


def main() -> None:
    frame = pl.DataFrame({"email": ["ada@example.org", None, "grace.hopper@example.org"]})

    frame = frame.with_columns(pl.col("email").bk.sha3_256(hex=True).alias("email_sha3_256"))
    print(frame)
    assert frame["email_sha3_256"][0] == hashlib.sha3_256(b"ada@example.org").hexdigest()

    # A lazy query run by the streaming engine: one call per batch of rows, not per value.
    query = frame.lazy().with_columns(
        pl.col("email").bk.keccak_256().alias("email_keccak_256"),
        pl.col("email").bk.shake_128(length=16).alias("email_shake_128"),
    )
    print(query.collect(engine="streaming"))


if __name__ == "__main__":
    main()
