"""KangarooTwelve (RFC 9861: KT128, KT256) and TurboSHAKE with a chosen domain byte.

KT hashes ``S = M || C || length_encode(|C|)``. Up to 8192 bytes, S is one TurboSHAKE
call with domain 0x07. Longer, S is cut into 8192-byte chunks: every chunk after the first
is a leaf, hashed with domain 0x0B to a chaining value; the leaves are independent messages
of one length, exactly a batch for the tile kernels, read in place from the message. The
final node is ``S_0 || 03 00 00 00 00 00 00 00 || CV_1 .. CV_n-1 || length_encode(n - 1) ||
FF FF`` with domain 0x06.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

from batchkeccak.core import parallel
from batchkeccak.core.dispatch import ONESHOT
from batchkeccak.core.dispatch import plan as plan_backend
from batchkeccak.core.hashers import Hasher, check_domain, output_length
from batchkeccak.core.parameters import get_algorithm
from batchkeccak.core.stored_states import as_array
from batchkeccak.derived import params as checks
from batchkeccak.derived.encoding import length_encode
from batchkeccak.derived.mode_hashers import TreeHasher, hash_leaves
from batchkeccak.derived.one_message import PIECE_BYTES, message_pieces
from batchkeccak.derived.table import Mode, modes
from batchkeccak.inputs import readonly, sequence_to_flat

CHUNK_SIZE = 8192

GATHER_BYTES = 1 << 20
"""A tree fed in pieces (``new()``, ``update``) gathers its short pieces until their leaves
fill a batch of this many bytes (128 leaves), hashed in one call of the kernels."""

IN_PLACE_PIECE_BYTES = 3 << 16
"""Pieces this long or longer (192 KiB, 24 leaves) are read where they lie, their whole
leaves one batch; shorter ones are gathered. KT128 of 64 MiB fed in pieces, CPU time
against ``bk.kt128`` (one thread, 2026-12-07): 4 KiB pieces 12.6x read in place, 3.5x
gathered; 64 KiB 4.7x, 1.9x; 100 KiB 4.7x, 2.0x; 128 KiB in place 2.3x; 200 and 300 KiB
in place 1.7x; 1 MiB 1.1x."""

SINGLE_NODE_DOMAIN = 0x07
LEAF_DOMAIN = 0x0B
FINAL_NODE_DOMAIN = 0x06
_FINAL_NODE_MARK = b"\x03" + b"\0" * 7
_FINAL_NODE_END = b"\xff\xff"


class KangarooTwelveHasher(TreeHasher):
    """KT128 / KT256 of many messages: short ones (S of at most 8192 bytes) in one batch,
    longer ones each as a tree whose leaves are one batch."""

    __slots__ = ("trailer",)

    trailer: bytes
    """``C || length_encode(len(C))``, appended to every message."""

    @property
    def small_work_oneshot(self) -> bool:
        """Whether small work goes to a one-shot backend (KT128: pycryptodome's
        KangarooTwelve) by the sponges' dispatch rule, without loading the kernels."""
        return self.mode.name == "kt128"

    def hash_tree(self, message: np.ndarray, trailer: bytes) -> bytes:
        """KT of ``S = message || trailer`` (``message`` a read-only uint8 array)."""
        tree = KangarooTwelveTree(self, trailer)
        tree.absorb(message)
        return tree.finish()

    def hash_message(
        self, data: object, argument: str = "data", piece_bytes: int = PIECE_BYTES
    ) -> bytes:
        """KT of one message: bytes-like or a numpy array (read where it lies), a path or a
        binary file object (read in pieces, the next one while the leaves of the last are
        hashed, so memory stays bounded and a pipe works)."""
        tree = KangarooTwelveTree(self, self.trailer)
        with message_pieces(data, CHUNK_SIZE, argument, piece_bytes) as pieces:
            for piece in pieces:
                tree.absorb(piece)
        return tree.finish()

    def incremental(self) -> KangarooTwelveTree:
        return KangarooTwelveTree(self, self.trailer)

    def hash_flat(self, data, offsets, *, out=None, equal_lengths=False):
        count = offsets.shape[0] - 1
        if out is None:
            out = np.empty((count, self.output_length), dtype=np.uint8)
        if self._hash_oneshot(data, offsets, out):
            return out
        lengths = np.diff(offsets)
        long = lengths + len(self.trailer) > CHUNK_SIZE
        if not long.any():
            from batchkeccak.derived._layout import frame_messages  # compiled: loaded on use

            framed, framed_offsets = frame_messages(data, offsets, self.trailer)
            return self.sponge_hasher().hash_flat(
                framed, framed_offsets, out=out, equal_lengths=equal_lengths
            )
        short = np.flatnonzero(~long)
        if short.size:
            pieces = [data[offsets[i] : offsets[i + 1]].tobytes() + self.trailer for i in short]
            short_data, short_offsets = sequence_to_flat(pieces)
            out[short] = self.sponge_hasher().hash_flat(short_data, short_offsets)
        rows = np.flatnonzero(long)
        out[rows] = self._hash_trees(data, offsets, rows)
        return out

    def _hash_oneshot(self, data: np.ndarray, offsets: np.ndarray, out: np.ndarray) -> bool:
        """Small work of KT128 through pycryptodome's one-shot KangarooTwelve, by the rule
        that sends a sponge's small work to its backend (:func:`batchkeccak.core.dispatch.plan`
        for TurboSHAKE128, KT's sponge); False, having done nothing, for the kernels (KT256,
        which pycryptodome lacks, always)."""
        count = offsets.shape[0] - 1
        if not self.small_work_oneshot or count == 0:
            return False
        total = int(offsets[-1]) - int(offsets[0])
        if plan_backend(self.algorithm, self.domain, count, total, self.threads) != ONESHOT:
            return False
        from Crypto.Hash import KangarooTwelve

        # The trailer is C || length_encode(|C|); length_encode's last byte counts the
        # bytes before it.
        custom = self.trailer[: len(self.trailer) - self.trailer[-1] - 1]
        view, size = data.data, self.output_length
        bounds = offsets.tolist()  # a copy: what is checked is what is read
        if bounds[0] < 0 or bounds[-1] > len(view) or any(map(int.__gt__, bounds, bounds[1:])):
            raise ValueError("hash_flat: a message's offsets leave the data buffer")
        digests = b"".join(
            KangarooTwelve.new(data=view[a:b], custom=custom).read(size) if size else b""
            for a, b in itertools.pairwise(bounds)
        )
        out[:] = np.frombuffer(digests, dtype=np.uint8).reshape(out.shape)
        return True

    def hash_places(
        self, data: np.ndarray, starts: np.ndarray, ends: np.ndarray
    ) -> np.ndarray | None:
        """KT of messages ``data[starts[i]:ends[i]]`` read where they lie (a list's ``bytes``
        objects: ``batchkeccak.inputs._pylist.bytes_places``), the leaves of all of them in
        one queue, as a flat batch's (:meth:`_hash_trees`); None, having done nothing,
        unless every message is longer than one chunk with the trailer."""
        count = starts.shape[0]
        if count == 0 or ends.shape != (count,):
            return None
        if int((ends - starts).min()) + len(self.trailer) <= CHUNK_SIZE or int(starts.min()) < 0:
            return None
        if int(ends.max()) > data.shape[0]:
            raise ValueError("hash_places: a message leaves the data buffer")
        # The leaves' items run through the buffer in order, the gaps between messages
        # (never read) included: the messages in the order they lie.
        order = np.argsort(starts, kind="stable")
        out = np.empty((count, self.output_length), dtype=np.uint8)
        out[order] = self._hash_trees_at(data, starts[order].tolist(), ends[order].tolist())
        return out

    def _hash_trees(self, data: np.ndarray, offsets: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """KT of the messages ``rows`` (each longer than one chunk with the trailer), in one
        batch (:meth:`_hash_trees_at`)."""
        return self._hash_trees_at(data, offsets[rows].tolist(), offsets[rows + 1].tolist())

    def _hash_trees_at(self, data: np.ndarray, starts: list[int], ends: list[int]) -> np.ndarray:
        """KT of the messages ``data[starts[i]:ends[i]]`` (each longer than one chunk with
        the trailer, in buffer order, none overlapping), in one batch: the whole chunks after
        S_0 that lie in the message are leaves read where they lie, the leaves of every
        message in one queue (they share the tiles); each message's last partial chunk with
        the trailer is copied (a few leaves), and the final nodes are one batch."""
        trailer = self.trailer
        # Items: for each message, its in-place leaves (whole chunks 1..q-1 of the message),
        # then the gap up to the next message's first leaf (never queued).
        bounds: list[np.ndarray] = []
        queued: list[np.ndarray] = []
        in_place: list[int] = []
        items = 0
        for start, end in zip(starts, ends, strict=True):
            whole = (end - start) // CHUNK_SIZE  # chunks of the message, S_0 included
            leaves = max(0, whole - 1)
            in_place.append(leaves)
            if leaves:
                bounds.append(start + CHUNK_SIZE * np.arange(1, whole + 1, dtype=np.int64))
                queued.append(np.arange(items, items + leaves, dtype=np.int64))
                items += leaves + 1
        tails: list[bytes] = []
        tail_counts: list[int] = []
        firsts: list[bytes] = []
        for start, end, leaves in zip(starts, ends, in_place, strict=True):
            length = end - start
            if length >= CHUNK_SIZE:
                firsts.append(data[start : start + CHUNK_SIZE].tobytes())
                rest = data[start + CHUNK_SIZE * (leaves + 1) : end].tobytes() + trailer
            else:  # the trailer completes S_0
                whole_s = data[start:end].tobytes() + trailer
                firsts.append(whole_s[:CHUNK_SIZE])
                rest = whole_s[CHUNK_SIZE:]
            cut = [rest[i : i + CHUNK_SIZE] for i in range(0, len(rest), CHUNK_SIZE)]
            tails.extend(cut)
            tail_counts.append(len(cut))
        leaf = Hasher(self.algorithm, self.mode.chunk_output, self.threads, domain=LEAF_DOMAIN)
        chaining = np.empty((0, leaf.output_length), dtype=np.uint8)
        if bounds:
            leaf_offsets = readonly(np.concatenate(bounds))
            chaining = hash_leaves(leaf, data, leaf_offsets, readonly(np.concatenate(queued)))
        # Every message has a tail: the trailer holds at least length_encode's one byte.
        tail_data, tail_offsets = sequence_to_flat(tails)
        tail_chaining = leaf.hash_flat(tail_data, tail_offsets)
        nodes = []
        item = tail = 0
        for first, leaves, tail_leaves in zip(firsts, in_place, tail_counts, strict=True):
            parts = [first, _FINAL_NODE_MARK]
            if leaves:
                parts.append(chaining[item : item + leaves].tobytes())
                item += leaves + 1
            parts.append(tail_chaining[tail : tail + tail_leaves].tobytes())
            tail += tail_leaves
            parts += [length_encode(leaves + tail_leaves), _FINAL_NODE_END]
            nodes.append(b"".join(parts))
        node_data, node_offsets = sequence_to_flat(nodes)
        return self.sponge_hasher(domain=FINAL_NODE_DOMAIN).hash_flat(node_data, node_offsets)

    def hash_one(self, message: object) -> bytes:
        return self.hash_message(message, "message")


class KangarooTwelveTree:
    """One KT tree fed in pieces: S_0, then each whole 8192-byte chunk after it as a leaf,
    hashed in batches as the pieces arrive; :meth:`finish` adds the trailer and the final
    node (or, when S fits in one chunk, hashes S as the single node)."""

    def __init__(self, hasher: KangarooTwelveHasher, trailer: bytes) -> None:
        self._hasher = hasher
        self._trailer = trailer
        self._leaf = Hasher(
            hasher.algorithm, hasher.mode.chunk_output, hasher.threads, domain=LEAF_DOMAIN
        )
        self._first = bytearray()  # S_0: the first 8192 bytes
        # The bytes after S_0 not hashed yet: pieces gathered into whole leaves, or the last
        # partial chunk; ``_pending[:_filled]``, a buffer that grows to at most
        # GATHER_BYTES + IN_PLACE_PIECE_BYTES and is filled in place, then reused.
        self._pending = np.empty(0, dtype=np.uint8)
        self._filled = 0
        self._chaining: list[bytes] = []

    def _append(self, part: np.ndarray) -> None:
        size = part.shape[0]
        if size == 0:
            return
        need = self._filled + size
        if need > self._pending.shape[0]:
            grown = np.empty(
                max(need, min(2 * need, GATHER_BYTES + IN_PLACE_PIECE_BYTES)), np.uint8
            )
            grown[: self._filled] = self._pending[: self._filled]
            self._pending = grown
        self._pending[self._filled : need] = part
        self._filled = need

    def _hash_pending(self) -> None:
        """Hash the whole leaves of the pending bytes as one batch; keep the rest."""
        gathered = self._filled // CHUNK_SIZE * CHUNK_SIZE
        if not gathered:
            return
        offsets = np.arange(gathered // CHUNK_SIZE + 1, dtype=np.int64) * CHUNK_SIZE
        leaves = readonly(self._pending[:gathered])
        self._chaining.append(self._leaf.hash_flat(leaves, readonly(offsets)).tobytes())
        left = self._filled - gathered
        self._pending[:left] = self._pending[gathered : self._filled].copy()
        self._filled = left

    def absorb(self, piece: np.ndarray | bytes | memoryview) -> None:
        """Append ``piece`` (a read-only uint8 array, bytes or a memoryview) to the message."""
        if not isinstance(piece, np.ndarray):
            piece = as_array(piece)
        taken = 0
        if len(self._first) < CHUNK_SIZE:
            taken = min(CHUNK_SIZE - len(self._first), piece.shape[0])
            self._first += piece[:taken].tobytes()
        rest = piece.shape[0] - taken
        if rest < IN_PLACE_PIECE_BYTES:
            # Short pieces are gathered (copied) until their leaves make a batch worth a
            # call of the kernels (IN_PLACE_PIECE_BYTES).
            self._append(piece[taken:])
            if self._filled >= GATHER_BYTES:
                self._hash_pending()
            return
        if self._filled:
            # The gathered bytes, completed to whole leaves from the piece: one batch.
            more = min(-self._filled % CHUNK_SIZE, rest)
            self._append(piece[taken : taken + more])
            taken += more
            self._hash_pending()
        whole = (piece.shape[0] - taken) // CHUNK_SIZE
        if whole:
            # The leaves that lie whole inside the piece are hashed where they lie.
            offsets = taken + np.arange(whole + 1, dtype=np.int64) * CHUNK_SIZE
            self._chaining.append(self._leaf.hash_flat(piece, readonly(offsets)).tobytes())
            taken += whole * CHUNK_SIZE
        self._append(piece[taken:])

    def copy(self) -> KangarooTwelveTree:
        """An independent copy, to be fed further or finished."""
        clone = KangarooTwelveTree(self._hasher, self._trailer)
        clone._first = bytearray(self._first)
        clone._pending = self._pending[: self._filled].copy()
        clone._filled = self._filled
        clone._chaining = list(self._chaining)
        return clone

    def finish(self, out_len: int | None = None) -> bytes:
        """The digest (``out_len`` bytes; the hasher's length by default) of what was absorbed;
        the tree stays as it was."""
        rest = self._pending[: self._filled].tobytes() + self._trailer
        first = bytes(self._first)
        if not self._chaining and len(first) + len(rest) <= CHUNK_SIZE:
            return self._hasher.sponge_hasher(threads=1, output_length=out_len).hash_one(
                first + rest
            )
        if len(first) < CHUNK_SIZE:
            # The trailer completes S_0 (the message was shorter than one chunk).
            cut = CHUNK_SIZE - len(first)
            first, rest = first + rest[:cut], rest[cut:]
        # What is left (the message's last partial chunk and the trailer) is copied.
        tail = [rest[i : i + CHUNK_SIZE] for i in range(0, len(rest), CHUNK_SIZE)]
        chaining_values = list(self._chaining)
        if tail:
            data, offsets = sequence_to_flat(tail)
            chaining_values.append(self._leaf.with_threads(1).hash_flat(data, offsets).tobytes())
        chaining = b"".join(chaining_values)
        leaves = len(chaining) // self._hasher.mode.chunk_output
        node = b"".join([first, _FINAL_NODE_MARK, chaining, length_encode(leaves), _FINAL_NODE_END])
        final = self._hasher.sponge_hasher(
            domain=FINAL_NODE_DOMAIN, threads=1, output_length=out_len
        )
        return final.hash_one(node)


def build_kangarootwelve(
    mode: Mode, length: object, threads: int, *, customization: object = b""
) -> KangarooTwelveHasher:
    spec = get_algorithm(mode.sponge)
    custom = checks.as_bytes(customization, "customization")
    return KangarooTwelveHasher(
        mode,
        spec,
        checks.mode_length(mode, spec, length),
        threads,
        None,
        SINGLE_NODE_DOMAIN,
        trailer=custom + length_encode(len(custom)),
    )


def build_turboshake(mode: Mode, length: object, threads: int, *, domain: object = None) -> Hasher:
    spec = get_algorithm(mode.sponge)
    # The plain row's own length checks and messages: TurboSHAKE is a row of the table.
    out_len = output_length(spec, length)
    return Hasher(spec, out_len, threads, domain=None if domain is None else check_domain(domain))


def _kangarootwelve(name: str) -> Callable[..., bytes]:
    def kangarootwelve(
        data: object, customization: bytes = b"", length: int = 32, threads: int | None = None
    ) -> bytes:
        resolved = build_kangarootwelve(
            modes[name], length, parallel.resolve_threads(threads), customization=customization
        )
        return resolved.hash_message(data)

    kangarootwelve.__name__ = kangarootwelve.__qualname__ = name
    kangarootwelve.__doc__ = f"""{name.upper()} (RFC 9861) of one message, its 8192-byte leaves
    hashed in tiles on every core.

    Parameters
    ----------
    data
        bytes-like or a numpy array (its raw bytes), read where it lies; or a path (``str`` or
        ``os.PathLike``) or a binary file object opened for reading (``open(path, "rb")``,
        ``sys.stdin.buffer``), read to its end in 4 MiB pieces, one read while the leaves of
        the last are hashed.
    customization
        The customization string C.
    length
        Output bytes.
    threads
        Threads to use; None uses every core. The GIL is released while hashing.

    Returns
    -------
    bytes

    Examples
    --------
    >>> import batchkeccak as bk
    >>> bk.{name}(b"", length=8).hex()  # RFC 9861's first {name.upper()} vector
    '{"1ac2d450fc3b4205" if name == "kt128" else "b23d2e9cea9f4904"}'
    """
    return kangarootwelve


kt128 = _kangarootwelve("kt128")
kt256 = _kangarootwelve("kt256")
