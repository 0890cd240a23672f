"""NIST SP 800-185 over the sponge: cSHAKE, KMAC, TupleHash and ParallelHash.

Every construction here is cSHAKE: the sponge from the state that
``bytepad(encode_string(N) || encode_string(S), rate)`` leaves, with domain byte 0x04. That
prefix (and KMAC's padded key after it) is absorbed once; every message of a batch starts
from the state it leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from batchkeccak.core import parallel
from batchkeccak.core.hashers import Hasher
from batchkeccak.core.oneshot import tuplehash_oneshot
from batchkeccak.core.parameters import Algorithm, canonical_name, get_algorithm
from batchkeccak.core.stored_states import IncrementalSponge, as_array
from batchkeccak.derived import params as checks
from batchkeccak.derived.encoding import bytepad, encode_string, left_encode, right_encode
from batchkeccak.derived.mode_hashers import (
    FramedHasher,
    LazyState,
    ModeHasher,
    TreeHasher,
)
from batchkeccak.derived.one_message import PIECE_BYTES, message_pieces
from batchkeccak.derived.table import Mode, modes
from batchkeccak.inputs import readonly, sequence_to_flat

CSHAKE_DOMAIN = 0x04
"""cSHAKE's domain bits 00, as the byte that starts the padding."""
SHAKE_DOMAIN = 0x1F


def cshake_prefix(spec: Algorithm, function_name: bytes, customization: bytes) -> bytes:
    """``bytepad(encode_string(N) || encode_string(S), rate)``: what cSHAKE absorbs first."""
    return bytepad(encode_string(function_name) + encode_string(customization), spec.rate)


def _cshake_hasher(
    cls,
    mode: Mode,
    spec: Algorithm,
    length: int,
    threads: int,
    function_name: bytes,
    customization: bytes,
    extra: list[bytes] | bytes = b"",
    **fields: object,
) -> ModeHasher:
    """A ``cls`` hasher starting from cSHAKE's prefix, then ``extra``: one whole-block string
    for the batch, or a list of them, one per message."""
    if not function_name and not customization and not extra:
        # SP 800-185: cSHAKE with empty N and S is SHAKE.
        return cls(mode, spec, length, threads, None, SHAKE_DOMAIN, **fields)
    head = cshake_prefix(spec, function_name, customization)
    # Computed with the kernels on first use: small work of a mode with a one-shot form never
    # needs it.
    if isinstance(extra, list):
        state = LazyState(spec, extra, LazyState(spec, [head]), threads)
    else:
        state = LazyState(spec, [head + extra])
    return cls(mode, spec, length, threads, state, CSHAKE_DOMAIN, **fields)


def _bits(mode: Mode) -> int:
    """128 or 256: the security strength of the mode's sponge (``shake_128``...)."""
    return 128 if mode.sponge.endswith("128") else 256


def _length_trailer(mode: Mode, length: int) -> bytes:
    """``right_encode(L)`` (L in bits), or ``right_encode(0)`` for the XOF forms."""
    return right_encode(0 if mode.xof else 8 * length)


def build_cshake(
    mode: Mode,
    length: object,
    threads: int,
    *,
    customization: object = b"",
    function_name: object = b"",
) -> Hasher:
    spec = get_algorithm(mode.sponge)
    name = checks.as_bytes(function_name, "function_name")
    custom = checks.as_bytes(customization, "customization")
    # pycryptodome's cSHAKE takes S alone (N empty); with both empty it is SHAKE (hashlib).
    form = ("cshake", _bits(mode), custom) if custom and not name else None
    return _cshake_hasher(
        ModeHasher,
        mode,
        spec,
        checks.mode_length(mode, spec, length),
        threads,
        name,
        custom,
        oneshot_form=form,
    )


def build_kmac(
    mode: Mode, length: object, threads: int, *, key: object = None, customization: object = b""
) -> Hasher:
    spec = get_algorithm(mode.sponge)
    out_len = checks.mode_length(mode, spec, length)
    resolved = checks.keys(key, mode)
    if isinstance(resolved, list):
        padded: list[bytes] | bytes = [bytepad(encode_string(k), spec.rate) for k in resolved]
    else:
        padded = bytepad(encode_string(resolved), spec.rate)
    custom = checks.as_bytes(customization, "customization")
    bits = _bits(mode)
    # pycryptodome's KMAC: not the XOF forms, a key of at least bits / 8 bytes, 8+ bytes out.
    oneshot = (
        not mode.xof and isinstance(resolved, bytes) and len(resolved) >= bits // 8 and out_len >= 8
    )
    return _cshake_hasher(
        FramedHasher,
        mode,
        spec,
        out_len,
        threads,
        b"KMAC",
        custom,
        padded,
        trailer=_length_trailer(mode, out_len),
        length_prefix=False,
        key_count=len(padded) if isinstance(padded, list) else None,
        oneshot_form=("kmac", bits, resolved, custom) if oneshot else None,
    )


def _exports_buffer(value: object) -> bool:
    if isinstance(value, (bytes, bytearray, memoryview, np.ndarray)):
        return True
    try:
        memoryview(value).release()  # type: ignore[arg-type]  # probing the buffer protocol: TypeError is caught below
    except TypeError:
        return False
    return True


def _check_row_container(value: object, argument: str, expected: str, wrap: str) -> None:
    """TypeError naming ``argument`` unless ``value`` can be iterated as ``expected``.

    Refused, though Python could iterate them: strings and bytes-like objects (their items
    are characters or integers, not strings), numpy arrays (``[array]`` is a row holding the
    array's bytes as one string; iterating the array would split it into one string per
    element), sets (no defined order, so the digest would change from run to run) and
    mappings (their keys alone).
    """
    if isinstance(value, str) or _exports_buffer(value):
        kind = "numpy array" if isinstance(value, np.ndarray) else type(value).__name__
        raise TypeError(
            f"{argument} must be {expected}, got a single {kind}; a bytes-like object is "
            f"one string: wrap it: {wrap}"
        )
    if isinstance(value, (set, frozenset, Mapping)):
        raise TypeError(
            f"{argument} must be {expected}, got a {type(value).__name__}, whose order is "
            "not the caller's: pass a list or tuple"
        )
    if not isinstance(value, Iterable):
        raise TypeError(f"{argument} must be {expected}, got {type(value).__name__}")


class TupleHasher(FramedHasher):
    """TupleHash: ``hash_flat`` hashes each message as a tuple of one string;
    :meth:`hash_tuples` hashes tuples of any number of strings."""

    __slots__ = ()

    def hash_tuples(self, rows: Iterable[Sequence[object]]) -> np.ndarray:
        """TupleHash of every row, a sequence of bytes-like strings: ``(N, output_length)``.

        A row is never a bytes-like object or a numpy array: iterated, those give integers
        (or a string per array element), which are not the strings of a tuple.
        """
        _check_row_container(
            rows,
            "rows",
            "an iterable of rows, each a sequence of byte strings",
            "[[value, ...], ...]",
        )
        checked: list[list[bytes]] = []
        total = 0
        for i, row in enumerate(rows):
            _check_row_container(row, f"rows[{i}]", "a sequence of byte strings", "[value]")
            values = [checks.as_bytes(item, f"rows[{i}][{j}]") for j, item in enumerate(row)]
            total += sum(map(len, values))
            checked.append(values)
        if self.oneshot_form is not None and self.small_work(len(checked), total):
            hash_tuple = tuplehash_oneshot(self.oneshot_form, self.output_length)
            joined = b"".join(map(hash_tuple, checked))
            return np.frombuffer(joined, dtype=np.uint8).reshape(len(checked), -1).copy()
        encoded = []
        for values in checked:
            parts = []
            for value in values:
                parts.append(left_encode(8 * len(value)))
                parts.append(value)
            parts.append(self.trailer)
            encoded.append(b"".join(parts))
        data, offsets = sequence_to_flat(encoded, argument="rows")
        return self.sponge_hasher().hash_flat(data, offsets)

    def hash_columns(self, fields: list[tuple[np.ndarray, np.ndarray]], count: int) -> np.ndarray:
        """TupleHash of ``count`` rows whose k-th string is row i of column k, each column
        given flat as ``(data, offsets)`` (Arrow's layout): ``(count, output_length)``."""
        from batchkeccak.derived._layout import encode_string_rows  # compiled: loaded on use

        data, offsets = encode_string_rows(fields, count, self.trailer)
        return self.sponge_hasher().hash_flat(data, offsets)


def build_tuplehash(
    mode: Mode, length: object, threads: int, *, customization: object = b""
) -> Hasher:
    spec = get_algorithm(mode.sponge)
    out_len = checks.mode_length(mode, spec, length)
    custom = checks.as_bytes(customization, "customization")
    # pycryptodome's TupleHash: not the XOF forms, 8 bytes out or more.
    oneshot = not mode.xof and out_len >= 8
    return _cshake_hasher(
        TupleHasher,
        mode,
        spec,
        out_len,
        threads,
        b"TupleHash",
        custom,
        trailer=_length_trailer(mode, out_len),
        length_prefix=True,
        oneshot_form=("tuplehash", _bits(mode), custom) if oneshot else None,
    )


def tuplehash_many(
    rows: Iterable[Sequence[object]],
    algorithm: str | Hasher = "tuplehash_128",
    *,
    length: int | None = None,
    customization: bytes = b"",
    threads: int | None = None,
) -> np.ndarray:
    """TupleHash (NIST SP 800-185) of many tuples of byte strings.

    Parameters
    ----------
    rows
        An iterable of rows, each a sequence of bytes-like strings (any number, zero too).
        A row itself is never bytes-like or a numpy array: the row ``[b"abc"]`` is the tuple
        of one string, while ``b"abc"`` or ``numpy.frombuffer(b"abc", numpy.uint8)`` as a row
        is a TypeError rather than the tuple ``(b"a", b"b", b"c")``. Sets and mappings are
        refused too (their order is not the caller's).
    algorithm
        ``tuplehash_128``, ``tuplehash_256``, ``tuplehash_xof_128``, ``tuplehash_xof_256``,
        or a hasher built for one of them.
    length
        Output bytes (required).
    customization
        SP 800-185's customization string S.
    threads
        Threads to use; None uses every core.

    Returns
    -------
    numpy.ndarray
        ``(N, length)`` uint8.

    Raises
    ------
    TypeError
        ``rows``, or one of its rows, is not as described above (the message names which);
        a string of a row is not bytes-like.

    Examples
    --------
    >>> import batchkeccak as bk
    >>> bk.tuplehash_many([[b"ab", b"c"], [b"a", b"bc"]], length=8).shape
    (2, 8)
    """
    if isinstance(algorithm, Hasher):
        resolved = algorithm if threads is None else algorithm.with_threads(threads)
    else:
        name = canonical_name(algorithm, modes) if isinstance(algorithm, str) else None
        mode = None if name is None else modes.get(name)
        if mode is None or mode.family != "tuplehash":
            raise ValueError(
                f"tuplehash_many needs a tuplehash_* algorithm, got {algorithm!r}; valid: "
                f"{', '.join(n for n, m in modes.items() if m.family == 'tuplehash')}"
            )
        resolved = build_tuplehash(
            mode, length, parallel.resolve_threads(threads), customization=customization
        )
    if not isinstance(resolved, TupleHasher):
        raise TypeError(f"tuplehash_many needs a tuplehash_* hasher, got {resolved.name}")
    return resolved.hash_tuples(rows)


# -- ParallelHash ---------------------------------------------------------------------------


GATHER_BYTES = 1 << 20
"""Chunks of at most :data:`GATHER_BLOCK_MAX` bytes that come in short pieces are gathered
until this many bytes of them (and at least 8 chunks, a tile) can be hashed in one call of
the kernels, as KT128's leaves are (``kangarootwelve.GATHER_BYTES``)."""

IN_PLACE_PIECE_BYTES = 3 << 16
"""Pieces this long (and at least 8 chunks) are read where they lie, their whole chunks one
batch; shorter ones are gathered. With 8 KiB blocks, 64 MiB in 64 KiB pieces cost 4.8x
``bk.parallelhash_128``'s CPU time read in place (8 chunks a call), 1.5x gathered; 1 MiB
pieces 1.07x."""

GATHER_BLOCK_MAX = 1 << 16
"""Larger chunks are never gathered: a chunk that crosses pieces is absorbed by an
incremental sponge instead, so memory does not grow with the block size."""


class _Chunks:
    """ParallelHash's chunks of one message fed in pieces: the chunks that lie whole in a
    long piece are hashed as one batch where they lie. Short pieces of small chunks are
    gathered (copied) into batches of :data:`GATHER_BYTES`; with larger chunks, a chunk
    that crosses into the next piece is absorbed by an incremental sponge until it is
    complete."""

    def __init__(self, spec: Algorithm, block: int, chunk_output: int, threads: int) -> None:
        self._spec = spec
        self._block = block
        self._chunk_output = chunk_output
        self._leaf = Hasher(spec, chunk_output, threads, domain=SHAKE_DOMAIN)
        self._open: IncrementalSponge | None = None  # the chunk begun in an earlier piece
        self._open_size = 0
        self._chaining: list[bytes] = []
        self._count = 0
        self._gathering = block <= GATHER_BLOCK_MAX
        self._gather_bytes = max(GATHER_BYTES, 8 * block)
        self._in_place_bytes = max(IN_PLACE_PIECE_BYTES, 8 * block)
        self._pending = np.empty(0, dtype=np.uint8)  # gathered bytes: _pending[:_filled]
        self._filled = 0

    def _append(self, part: np.ndarray) -> None:
        need = self._filled + part.shape[0]
        if need > self._pending.shape[0]:
            most = self._gather_bytes + self._in_place_bytes
            grown = np.empty(max(need, min(2 * need, most)), dtype=np.uint8)
            grown[: self._filled] = self._pending[: self._filled]
            self._pending = grown
        self._pending[self._filled : need] = part
        self._filled = need

    def _hash_pending(self, last: bool = False) -> None:
        """Hash the gathered whole chunks as one batch (the partial one too if ``last``)."""
        block = self._block
        whole = self._filled // block
        ends = [*range(block, whole * block + 1, block)]
        if last and self._filled > whole * block:
            ends.append(self._filled)
        if not ends:
            return
        offsets = readonly(np.array([0, *ends], dtype=np.int64))
        leaves = readonly(self._pending[: ends[-1]])
        self._chaining.append(self._leaf.hash_flat(leaves, offsets).tobytes())
        self._count += len(ends)
        left = self._filled - ends[-1]
        self._pending[:left] = self._pending[ends[-1] : self._filled].copy()
        self._filled = left

    def _absorb_gathering(self, piece: np.ndarray) -> None:
        block, size = self._block, piece.shape[0]
        if size < self._in_place_bytes:
            self._append(piece)
            if self._filled >= self._gather_bytes:
                self._hash_pending()
            return
        taken = 0
        if self._filled:
            # The gathered bytes, completed to whole chunks from the piece: one batch.
            taken = min(-self._filled % block, size)
            self._append(piece[:taken])
            self._hash_pending()
        whole = (size - taken) // block
        offsets = taken + np.arange(whole + 1, dtype=np.int64) * block
        self._chaining.append(self._leaf.hash_flat(piece, readonly(offsets)).tobytes())
        self._count += whole
        self._append(piece[taken + whole * block :])

    def _close(self) -> None:
        self._chaining.append(self._open.finish(self._chunk_output))  # type: ignore[union-attr]  # called only while a chunk is open
        self._count += 1
        self._open, self._open_size = None, 0

    def absorb(self, piece: np.ndarray) -> None:
        if self._gathering:
            self._absorb_gathering(piece)
            return
        block, size = self._block, piece.shape[0]
        taken = 0
        if self._open is not None:
            taken = min(block - self._open_size, size)
            self._open.absorb(piece[:taken].data)
            self._open_size += taken
            if self._open_size < block:
                return
            self._close()
        whole = (size - taken) // block
        if whole:
            offsets = taken + np.arange(whole + 1, dtype=np.int64) * block
            self._chaining.append(self._leaf.hash_flat(piece, readonly(offsets)).tobytes())
            self._count += whole
            taken += whole * block
        if taken < size:
            self._open = IncrementalSponge(self._spec)
            self._open.absorb(piece[taken:].data)
            self._open_size = size - taken

    def finish(self) -> tuple[bytes, int]:
        """The chaining values joined, and how many chunks they are."""
        if self._open is not None:
            self._close()
        if self._filled:
            self._hash_pending(last=True)
        return b"".join(self._chaining), self._count

    def copy(self) -> _Chunks:
        clone = _Chunks.__new__(_Chunks)
        clone.__dict__.update(self.__dict__)
        clone._open = self._open.copy() if self._open is not None else None
        clone._chaining = list(self._chaining)
        clone._pending = self._pending[: self._filled].copy()
        return clone


class ParallelHashStream:
    """One ParallelHash message fed in pieces of any length."""

    def __init__(self, hasher: ParallelHasher, chunks: _Chunks) -> None:
        self._hasher, self._chunks = hasher, chunks

    def absorb(self, view: memoryview) -> None:
        self._chunks.absorb(as_array(view))

    def finish(self, out_len: int) -> bytes:
        chaining, count = self._chunks.copy().finish()
        return self._hasher.final_node(chaining, count, out_len)

    def copy(self) -> ParallelHashStream:
        return ParallelHashStream(self._hasher, self._chunks.copy())


class ParallelHasher(TreeHasher):
    """ParallelHash: cut each message into ``block_size``-byte chunks, hash the chunks as one
    batch (SHAKE of each chunk, ``chunk_output`` bytes), then cSHAKE their concatenation."""

    __slots__ = ("block_size", "trailer")

    block_size: int
    trailer: bytes

    def hash_message(
        self, data: object, argument: str = "data", piece_bytes: int = PIECE_BYTES
    ) -> bytes:
        """The digest of one message, its chunks hashed on every thread: bytes-like or a
        numpy array (read where it lies), a path or a binary file object (read in pieces of
        whole chunks, the next one while the chunks of the last are hashed; a chunk larger
        than a piece is absorbed piece by piece, so memory never grows with the block size).
        """
        block = self.block_size
        spec = get_algorithm(self.mode.sponge)
        # Whole chunks per piece where they fit; otherwise pieces of whole sponge blocks.
        unit = block if block <= piece_bytes else spec.rate
        chunks = _Chunks(spec, block, self.mode.chunk_output, self.threads)
        with message_pieces(data, unit, argument, piece_bytes) as pieces:
            for piece in pieces:
                chunks.absorb(piece)
        chaining, count = chunks.finish()
        return self.final_node(chaining, count, self.output_length)

    def final_node(self, chaining: bytes, count: int, out_len: int) -> bytes:
        """cSHAKE of ``left_encode(B) || z || right_encode(n) || right_encode(L)``."""
        trailer = (
            self.trailer if out_len == self.output_length else (_length_trailer(self.mode, out_len))
        )
        node = b"".join([left_encode(self.block_size), chaining, right_encode(count), trailer])
        return self.sponge_hasher(threads=1, output_length=out_len).hash_one(node)

    def incremental(self) -> ParallelHashStream:
        spec = get_algorithm(self.mode.sponge)
        chunks = _Chunks(spec, self.block_size, self.mode.chunk_output, self.threads)
        return ParallelHashStream(self, chunks)

    def hash_flat(self, data, offsets, *, out=None, equal_lengths=False):
        """Every chunk of every message in one batch, read where it lies (the chunks of
        several messages share the tiles), then the final nodes in one batch."""
        count = offsets.shape[0] - 1
        if out is None:
            out = np.empty((count, self.output_length), dtype=np.uint8)
        if count == 0:
            return out
        block = self.block_size
        first, last = int(offsets[0]), int(offsets[-1])
        lengths = np.diff(offsets)
        # Each message's chunks start at its offset and every block_size bytes after it: the
        # chunk boundaries of all messages, back to back, cut the data with no gap.
        per_message = (lengths + block - 1) // block
        total = int(per_message.sum())
        message_of = np.repeat(np.arange(count, dtype=np.int64), per_message)
        first_chunk = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(per_message, out=first_chunk[1:])
        bounds = np.empty(total + 1, dtype=np.int64)
        bounds[:total] = offsets[:-1][message_of] + block * (
            np.arange(total, dtype=np.int64) - first_chunk[:-1][message_of]
        )
        bounds[total] = last
        spec = get_algorithm(self.mode.sponge)
        leaf = Hasher(spec, self.mode.chunk_output, self.threads, domain=SHAKE_DOMAIN)
        if total:
            chaining = leaf.hash_flat(data[first:last] if first else data, readonly(bounds - first))
        else:
            chaining = np.empty((0, self.mode.chunk_output), dtype=np.uint8)
        head = left_encode(block)
        nodes = [
            b"".join(
                [
                    head,
                    chaining[a:b].tobytes(),
                    right_encode(b - a),
                    self.trailer,
                ]
            )
            for a, b in zip(first_chunk[:-1].tolist(), first_chunk[1:].tolist(), strict=True)
        ]
        node_data, node_offsets = sequence_to_flat(nodes)
        return self.sponge_hasher().hash_flat(node_data, node_offsets, out=out)

    def hash_one(self, message: object) -> bytes:
        return self.hash_message(message, "message")


def build_parallelhash(
    mode: Mode,
    length: object,
    threads: int,
    *,
    block_size: object = 8192,
    customization: object = b"",
) -> ParallelHasher:
    spec = get_algorithm(mode.sponge)
    out_len = checks.mode_length(mode, spec, length)
    head = cshake_prefix(spec, b"ParallelHash", checks.as_bytes(customization, "customization"))
    return ParallelHasher(
        mode,
        spec,
        out_len,
        threads,
        LazyState(spec, [head]),
        CSHAKE_DOMAIN,
        block_size=checks.block_size(block_size),
        trailer=_length_trailer(mode, out_len),
    )


def _parallelhash(name: str) -> Callable[..., bytes]:
    def parallelhash(
        data: object,
        block_size: int = 8192,
        length: int = 32,
        customization: bytes = b"",
        threads: int | None = None,
    ) -> bytes:
        resolved = build_parallelhash(
            modes[name],
            length,
            parallel.resolve_threads(threads),
            block_size=block_size,
            customization=customization,
        )
        return resolved.hash_message(data)

    parallelhash.__name__ = parallelhash.__qualname__ = name
    parallelhash.__doc__ = f"""{name.replace("_", " ").replace("xof ", "XOF ")} (NIST SP 800-185)
    of one message, its chunks hashed on every core.

    Parameters
    ----------
    data
        bytes-like or a numpy array (its raw bytes), read where it lies; or a path (``str`` or
        ``os.PathLike``) or a binary file object opened for reading, read to its end in
        pieces of whole chunks (about 4 MiB), one read while the chunks of the last are
        hashed.
    block_size
        The chunk size B in bytes. Memory does not grow with it: a chunk larger than a piece
        is absorbed piece by piece, and a small file is read into buffers of its own size.
    length
        Output bytes.
    customization
        The customization string S.
    threads
        Threads to use; None uses every core. The GIL is released while hashing.

    Returns
    -------
    bytes
    """
    return parallelhash


parallelhash_128 = _parallelhash("parallelhash_128")
parallelhash_256 = _parallelhash("parallelhash_256")
parallelhash_xof_128 = _parallelhash("parallelhash_xof_128")
parallelhash_xof_256 = _parallelhash("parallelhash_xof_256")

__all__ = [
    "build_cshake",
    "build_kmac",
    "build_parallelhash",
    "build_tuplehash",
    "parallelhash_128",
    "parallelhash_256",
    "parallelhash_xof_128",
    "parallelhash_xof_256",
    "tuplehash_many",
]
