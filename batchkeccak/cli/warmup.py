"""``batchkeccak warmup``: compile every kernel into numba's cache now, not on first use.

For images and cluster nodes that should start hashing at once: run it where the cache is
kept (the package's ``__pycache__`` folders, or ``NUMBA_CACHE_DIR``) when the image is built.
It then prints the platform report (:mod:`batchkeccak.platform`): what each chooser chose on
this machine, and from what.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

TROUBLE_STATUS = 1
"""Exit status on trouble: no writable cache folder, or a write error."""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "warmup",
        help="compile every kernel into numba's cache (for images and read-only installs)",
        description="Compile (or load) every kernel the package uses, so that later "
        "processes load them from numba's cache instead of compiling. The cache goes to "
        "NUMBA_CACHE_DIR when it is set, else next to the package's sources.",
    )
    parser.set_defaults(run=run)


def warm_every_kernel(steps: Sequence[Callable[[], None]] | None = None) -> None:
    """One small call through each compiled path (:data:`WARM_STEPS`, or ``steps`` of
    them): batches of every input form, streams, files, the modes and their one-call SQL
    batches, Arrow columns and rows, Merkle trees, table diffs, Ethereum's tries and address
    columns."""
    from batchkeccak.core.dispatch import kernels_on_this_thread

    with kernels_on_this_thread():  # small calls would otherwise go to hashlib
        for step in WARM_STEPS if steps is None else steps:
            step()


def batches() -> None:
    import numpy as np

    import batchkeccak as bk

    messages = [b"", b"x" * 200, b"abc" * 70]
    bk.hash_many(messages, "sha3_256", threads=1)
    bk.hash_many([b"m" * 32] * MANY, "sha3_256", threads=1)  # the compiled list reader
    bk.hash_many([b"L" * 100] * MANY, "sha3_256", threads=1)  # and its gather of long items
    bk.hash_many(np.zeros((40, 16), dtype=np.uint8), "sha3_256", threads=1)
    bk.hash_many(bk.FlatMessages(np.zeros(9, np.uint8), np.array([0, 4, 9])), threads=1)
    stream = bk.sha3_256(b"y" * 300)
    stream.copy().digest()
    streams = bk.StreamHasher("sha3_256", 2, threads=1)
    streams.update_many([0, 1, 0], [b"a" * 300, b"b", b"c" * 200])
    streams.digests()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "file"
        path.write_bytes(b"z" * 1000)
        bk.hash_files([path, path], threads=1)


def modes() -> None:
    import batchkeccak as bk

    messages = [b"", b"x" * 200, b"abc" * 70]
    bk.hash_many(messages, "kmac_256", key=b"k", length=32, threads=1)
    bk.hash_many([b"r" * 32] * 9, "tuplehash_128", length=32, threads=1)  # rows in place
    bk.tuplehash_many([[b"a", b"b"]] * MANY, length=32)
    bk.kt128(b"q" * 9000, length=32)
    bk.parallelhash_128(b"q" * 300, block_size=64)


def engine_vectors() -> None:
    # The one-call batches an engine hands over per vector (DuckDB's SQL functions, Spark's
    # Arrow batches), with Arrow's int32 offsets and large_binary's int64 ones, plain and
    # framed.
    import pyarrow as pa

    from batchkeccak import arrow
    from batchkeccak.api import hasher

    for resolved in (hasher("sha3_256", threads=1), hasher("kmac_256", key=b"k", length=32)):
        for kind in (pa.binary(), pa.large_binary()):
            column = pa.array([b"v" * 20] * 9 + [b"w"], kind)
            arrow.hash_chunk(column, resolved, hex=False, argument="value", binary=True)


def columns() -> None:
    import pyarrow as pa

    from batchkeccak import arrow

    column = pa.array(["a", None, "bc"])
    arrow.hash_array(column, "sha3_256", threads=1)
    arrow.hash_array(column, "sha3_256", hex=True, threads=1)
    arrow.hash_array(column.cast(pa.string_view()), "sha3_256", threads=1)  # the view kernels
    from batchkeccak.inputs.arrow_views import fixed_as_views  # Polars' digests as views

    fixed_as_views(pa.array([b"d" * 16], pa.binary(16)))
    arrow.hash_rows(pa.table({"a": [1, 2], "b": ["x", "y"]}), algorithm="sha3_256", threads=1)
    pairs = pa.table({"a": ["x", "yz"], "b": [b"1", b""]})
    arrow.hash_rows(pairs, algorithm="tuplehash_128", encoding="tuplehash", length=32, threads=1)
    nested = pa.table({"tags": [["a", None], None, []], "pair": [{"k": 1}, None, {"k": 2}]})
    arrow.hash_rows(nested, algorithm="sha3_256", threads=1)


def trees_and_diffs() -> None:
    import pyarrow as pa

    import batchkeccak as bk
    from batchkeccak import merkle

    for scheme in merkle.SCHEMES:
        merkle.merkle_root([b"a" * 32, b"b" * 32, b"c" * 32], scheme=scheme)
    # diff's walk of two sorted sides (an integer key) and its key escaping (string keys)
    before = pa.table({"i": [1, 2], "s": ["a", "b\x00"], "v": [1, 2]})
    after = pa.table({"i": [2, 3], "s": ["b\x00", "c"], "v": [3, 4]})
    bk.diff(before, after, key="i", threads=1)
    bk.diff(before, after, key=["s", "v"], threads=1)


def ethereum_columns_and_tries() -> None:
    from batchkeccak import ethereum

    keys = [i.to_bytes(4, "big") * (1 + i % 9) for i in range(MANY)]
    values = [b"v" * (1 + i % 50) for i in range(MANY)]
    for secure in (False, True):
        root = ethereum.trie_root(keys, values, secure=secure)
        proofs = ethereum.trie_proofs(keys, values, keys[:3], secure=secure)
        ethereum.verify_trie_proofs(root, keys[:3], proofs, secure=secure)
    ethereum.ordered_trie_root(values)
    address = "0x" + "ab" * 20
    ethereum.checksum_addresses([address, address.upper()[2:], None] * MANY)
    ethereum.contract_addresses(bytes(20), list(range(MANY)))
    ethereum.create2_addresses(bytes(20), [bytes(32)] * MANY, bytes(32))


MANY = 4096
"""Items in a warm-up call that must not be small work (small lists, tries and address
columns are read or built in Python)."""

WARM_STEPS = (batches, modes, engine_vectors, columns, trees_and_diffs, ethereum_columns_and_tries)
"""The warm-up's calls. tests/test_warmup_kernels.py checks that together they reach every
kernel the package calls from Python."""


def cache_folder() -> tuple[str | None, str]:
    """Where numba will write the package's kernels in this process: ``(folder, why not)``,
    the folder None (and the reason) where it will write nowhere, or not where
    ``NUMBA_CACHE_DIR`` asks. Decided when the kernel modules are imported (numba picks a
    cache locator as it decorates), so nothing is compiled to find out."""
    import warnings

    import numba

    from batchkeccak.native import jit

    with warnings.catch_warnings():  # the command says it in its own one line
        warnings.simplefilter("ignore", jit.UncachedKernelsWarning)
        from batchkeccak import sponge
    asked = numba.config.CACHE_DIR  # type: ignore[attr-defined]  # numba.config sets its options at run time
    if not jit.cache_available():
        where = f"NUMBA_CACHE_DIR ({asked})" if asked else "NUMBA_CACHE_DIR"
        return None, f"no writable cache folder: set {where} to a folder this user can write"
    # numba's record of the folder it chose for a kernel (a private attribute, read only to
    # report it; absent in another numba version, the folder is not named more exactly)
    used = getattr(getattr(sponge.run_jobs, "_cache", None), "_cache_path", None)
    if used is None:
        return asked or f"{jit.PACKAGE_DIR} (__pycache__ folders)", ""
    used_path = Path(used).resolve()
    if asked:
        if Path(asked).resolve() in used_path.parents:
            return asked, ""
        return None, (
            f"NUMBA_CACHE_DIR ({asked}) is not a folder numba can write; it would cache in "
            f"{used_path} instead: make it a writable folder, or unset it"
        )
    if jit.PACKAGE_DIR in used_path.parents:
        return f"{jit.PACKAGE_DIR} (__pycache__ folders)", ""
    source = Path(sponge.__file__).resolve().parent.as_posix()
    text = used_path.as_posix()
    if text.endswith(source):  # numba's user-wide cache mirrors the source's path
        return text[: -len(source)] or "/", ""
    return text, ""


def run(args) -> int:
    where, problem = cache_folder()
    if where is None:
        # Said before compiling anything: an image build fails here, in a second.
        print(f"batchkeccak: {problem}", file=sys.stderr)
        return TROUBLE_STATUS
    started = time.perf_counter()
    warm_every_kernel()
    seconds = time.perf_counter() - started
    print(f"kernels ready in {seconds:.1f} s; cache: {where}")
    from batchkeccak.platform import report

    for choice in report():  # what this machine made the package choose
        print(choice.line())
    return 0
