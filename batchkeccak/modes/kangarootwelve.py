"""KangarooTwelve (RFC 9861: KT128, KT256) and TurboSHAKE with a chosen domain byte.

KT hashes ``S = M || C || length_encode(|C|)``. Up to 8192 bytes, S is one TurboSHAKE
call with domain 0x07. Longer, S is cut into 8192-byte chunks: every chunk after the first
is a leaf, hashed with domain 0x0B to a chaining value; the leaves are independent messages
of one length, exactly a batch for the tile kernels, read in place from the message. The
final node is ``S_0 || 03 00 00 00 00 00 00 00 || CV_1 .. CV_n-1 || length_encode(n - 1) ||
FF FF`` with domain 0x06.
"""

from __future__ import annotations

import numpy as np

from batchkeccak import _parallel
from batchkeccak.algorithms import get_algorithm
from batchkeccak.hashers import Hasher, check_domain, output_length
from batchkeccak.inputs import readonly, sequence_to_flat
from batchkeccak.modes import params as checks
from batchkeccak.modes._layout import frame_messages
from batchkeccak.modes.encoding import length_encode
from batchkeccak.modes.hashers import ModeHasher, mode_hasher
from batchkeccak.modes.one_message import message_array
from batchkeccak.modes.table import Mode, modes

CHUNK_SIZE = 8192
SINGLE_NODE_DOMAIN = 0x07
LEAF_DOMAIN = 0x0B
FINAL_NODE_DOMAIN = 0x06
_FINAL_NODE_MARK = b"\x03" + b"\0" * 7
_FINAL_NODE_END = b"\xff\xff"


class KangarooTwelveHasher(ModeHasher):
    """KT128 / KT256 of many messages: short ones (S of at most 8192 bytes) in one batch,
    longer ones each as a tree whose leaves are one batch."""

    __slots__ = ("trailer",)

    trailer: bytes
    """``C || length_encode(len(C))``, appended to every message."""

    def hash_tree(self, message: np.ndarray, trailer: bytes) -> bytes:
        """KT of ``S = message || trailer`` (``message`` a read-only uint8 array)."""
        size = message.shape[0]
        if size + len(trailer) <= CHUNK_SIZE:
            return self.sponge_hasher(threads=1).hash_one(message.tobytes() + trailer)
        spec = self.algorithm
        chunk_output = self.mode.chunk_output
        leaf = Hasher(spec, chunk_output, self.threads, domain=LEAF_DOMAIN)
        whole_in_message = size // CHUNK_SIZE
        if whole_in_message >= 1:
            # S_0 and the leaves that lie inside the message are read in place.
            first = message[:CHUNK_SIZE].tobytes()
            offsets = np.arange(1, whole_in_message + 1, dtype=np.int64) * CHUNK_SIZE
            inner = leaf.hash_flat(message, readonly(offsets)).tobytes()
            rest = message[whole_in_message * CHUNK_SIZE :].tobytes() + trailer
        else:
            joined = message.tobytes() + trailer
            first, inner, rest = joined[:CHUNK_SIZE], b"", joined[CHUNK_SIZE:]
        # What is left (the message's last partial chunk and the trailer) is copied.
        tail = [rest[i : i + CHUNK_SIZE] for i in range(0, len(rest), CHUNK_SIZE)]
        data, offsets = sequence_to_flat(tail)
        chaining = inner + leaf.with_threads(1).hash_flat(data, offsets).tobytes()
        leaves = len(chaining) // chunk_output
        node = b"".join(
            [first, _FINAL_NODE_MARK, chaining, length_encode(leaves), _FINAL_NODE_END]
        )
        return self.sponge_hasher(domain=FINAL_NODE_DOMAIN, threads=1).hash_one(node)

    def hash_flat(self, data, offsets, *, out=None, equal_lengths=False):
        count = offsets.shape[0] - 1
        if out is None:
            out = np.empty((count, self.output_length), dtype=np.uint8)
        framed, framed_offsets = frame_messages(data, offsets, self.trailer)
        lengths = np.diff(framed_offsets)
        long = lengths > CHUNK_SIZE
        if not long.any():
            return Hasher.hash_flat(
                self, framed, framed_offsets, out=out, equal_lengths=equal_lengths
            )
        short = np.flatnonzero(~long)
        if short.size:
            pieces = [framed[framed_offsets[i] : framed_offsets[i + 1]] for i in short]
            short_data, short_offsets = sequence_to_flat(pieces)
            out[short] = Hasher.hash_flat(self, short_data, short_offsets)
        for i in np.flatnonzero(long):
            digest = self.hash_tree(framed[framed_offsets[i] : framed_offsets[i + 1]], b"")
            out[i] = np.frombuffer(digest, dtype=np.uint8)
        return out

    def hash_one(self, message: object) -> bytes:
        with message_array(message, "message") as array:
            return self.hash_tree(array, self.trailer)


def build_kangarootwelve(mode: Mode, length: object, threads: int, *,
                         customization: object = b"") -> Hasher:
    spec = get_algorithm(mode.sponge)
    custom = checks.as_bytes(customization, "customization")
    return mode_hasher(
        KangarooTwelveHasher, mode, spec, checks.mode_length(mode, spec, length), threads,
        None, SINGLE_NODE_DOMAIN, trailer=custom + length_encode(len(custom)),
    )


def build_turboshake(mode: Mode, length: object, threads: int, *,
                     domain: object = None) -> Hasher:
    spec = get_algorithm(mode.sponge)
    # The plain row's own length checks and messages: TurboSHAKE is a row of the table.
    out_len = output_length(spec, length)
    return Hasher(spec, out_len, threads, domain=None if domain is None else check_domain(domain))


def _kangarootwelve(name: str):
    def kangarootwelve(data: object, customization: bytes = b"", length: int = 32,
                       threads: int | None = None) -> bytes:
        resolved = build_kangarootwelve(
            modes[name], length, _parallel.resolve_threads(threads), customization=customization
        )
        with message_array(data) as array:
            return resolved.hash_tree(array, resolved.trailer)  # type: ignore[attr-defined]

    kangarootwelve.__name__ = kangarootwelve.__qualname__ = name
    kangarootwelve.__doc__ = f"""{name.upper()} (RFC 9861) of one message, its 8192-byte leaves
    hashed in tiles on every core.

    Parameters
    ----------
    data
        bytes-like, a numpy array (its raw bytes), or a path (``str`` or ``os.PathLike``:
        the file is memory-mapped, not read into memory).
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
    '{'1ac2d450fc3b4205' if name == 'kt128' else 'b23d2e9cea9f4904'}'
    """
    return kangarootwelve


kt128 = _kangarootwelve("kt128")
kt256 = _kangarootwelve("kt256")
