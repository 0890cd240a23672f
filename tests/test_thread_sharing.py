"""Objects that keep state, shared by threads: the digest is that of the complete updates in
some order, as hashlib's objects give, never a mixed state.

Every update carries the same non-periodic payload, so every order of whole updates gives one
digest (hashlib's of the payload repeated), while an update cut into another, a lost one or a
state mixed by two threads at once gives another.
"""

from __future__ import annotations

import hashlib
import pickle
import sys
import threading

import pytest
from Crypto.Hash import TurboSHAKE128, keccak

import batchkeccak as bk

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy

THREADS = 4
UPDATES = 120
PAYLOAD = bytes((7 * i + 3) % 251 for i in range(5043))  # not a multiple of any rate


def oracle(name: str):
    """A fresh oracle object for ``name``, and how to read ``length`` bytes from it."""
    if name.startswith("keccak_"):
        return keccak.new(digest_bits=int(name[7:])), lambda h, n: h.digest()
    if name == "turboshake128":
        return TurboSHAKE128.new(domain=0x1F), lambda h, n: h.read(n)
    if name.startswith("shake_"):
        return hashlib.new(name), lambda h, n: h.digest(n)
    return hashlib.new(name), lambda h, n: h.digest()


def run_threads(target, count: int = THREADS) -> None:
    barrier = threading.Barrier(count)

    def start() -> None:
        barrier.wait()
        target()

    threads = [threading.Thread(target=start) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


@pytest.mark.parametrize("name", ["sha3_256", "shake_128", "keccak_256", "turboshake128"])
def test_updates_from_many_threads_are_whole(name):
    h = bk.new(name)
    run_threads(lambda: [h.update(PAYLOAD) for _ in range(UPDATES)])
    reference, read = oracle(name)
    reference.update(PAYLOAD * (THREADS * UPDATES))
    length = 32 if h.digest_size == 0 else None
    assert h.digest(length) == read(reference, 32)


@pytest.mark.parametrize("name", ["sha3_256", "keccak_256"])
def test_small_and_large_updates_from_many_threads_are_whole(name):
    # Small updates are appended to the object's buffer without its lock, large ones absorb
    # the buffer and themselves under it: the two paths interleaved, the GIL switched often.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        h = bk.new(name)
        sizes = {0: 1, 1: 1, 2: 4, 3: 9}  # 1 payload (5043 B) or several (20 KB, 45 KB)
        forms = {0: bytes, 1: bytearray, 2: bytes, 3: memoryview}

        def updates() -> None:
            index = threading.current_thread().index
            piece = forms[index](PAYLOAD * sizes[index])
            for _ in range(UPDATES // sizes[index]):
                h.update(piece)

        barrier = threading.Barrier(THREADS)
        threads = []
        for index in range(THREADS):
            thread = threading.Thread(target=lambda: (barrier.wait(), updates()))
            thread.index = index
            threads.append(thread)
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    payloads = sum(UPDATES // size * size for size in sizes.values())
    reference, read = oracle(name)
    reference.update(PAYLOAD * payloads)
    assert h.digest() == read(reference, 32)


def test_digest_and_copy_see_whole_updates_while_others_update():
    h = bk.sha3_256()
    # hashlib's digest after every number of whole updates: what a reader may see.
    seen_ok = set()
    reference = hashlib.sha3_256()
    seen_ok.add(reference.digest())
    for _ in range(2 * UPDATES):
        reference.update(PAYLOAD)
        seen_ok.add(reference.digest())
    read: list[bytes] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            read.append(h.digest())
            read.append(h.copy().digest())
            read.append(pickle.loads(pickle.dumps(h)).digest())

    watcher = threading.Thread(target=reader)
    watcher.start()
    try:
        run_threads(lambda: [h.update(PAYLOAD) for _ in range(UPDATES)], count=2)
    finally:
        stop.set()
        watcher.join()
    assert read
    assert all(digest in seen_ok for digest in read)
    assert h.digest() == reference.digest()


def test_stream_hasher_shared_by_threads():
    first, second = PAYLOAD[:3001], PAYLOAD[3001:]
    streams = bk.StreamHasher("sha3_256", 3, threads=1)
    run_threads(
        lambda: [streams.update_many([0, 2, 0], [first, second, second]) for _ in range(UPDATES)]
    )
    total = THREADS * UPDATES
    digests = streams.digests()
    assert digests[0].tobytes() == hashlib.sha3_256((first + second) * total).digest()
    assert digests[1].tobytes() == hashlib.sha3_256(b"").digest()
    assert digests[2].tobytes() == hashlib.sha3_256(second * total).digest()


def test_stream_hasher_pickles_mid_stream():
    streams = bk.StreamHasher("shake_256", 2, length=20)
    streams.update_many([0, 1], [PAYLOAD, PAYLOAD[:5]])
    restored = pickle.loads(pickle.dumps(streams))
    restored.update(1, PAYLOAD)
    streams.update(1, b"other")  # the original goes on independently
    assert restored.digest(0) == hashlib.shake_256(PAYLOAD).digest(20)
    assert restored.digest(1) == hashlib.shake_256(PAYLOAD[:5] + PAYLOAD).digest(20)
    assert streams.digest(1) == hashlib.shake_256(PAYLOAD[:5] + b"other").digest(20)
