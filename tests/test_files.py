"""hash_files and file_digest on a temporary tree, against hashlib and pycryptodome."""

from __future__ import annotations

import errno
import hashlib
import io
import os
import subprocess
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

import pytest

import batchkeccak as bk
from batchkeccak import files
from batchkeccak.io import chunks, pool, reads, small_files

from oracles import oracle

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy

SIZES = (0, 1, 135, 136, 137, 4096, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, (3 << 20) + 77)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tree")
    paths = []
    for i, size in enumerate(SIZES):
        path = folder / f"file{i}.bin"
        path.write_bytes(
            bytes((j * 7 + i) % 251 for j in range(size % 1000)) * (size // 1000)
            + bytes(size % 1000)
        )
        paths.append(path)
    return paths


@pytest.mark.parametrize(
    "name, length", [("sha3_256", None), ("keccak_512", None), ("turboshake128", 40)]
)
def test_hash_files_equals_the_oracle(tree, name, length):
    digests = bk.hash_files(tree, name, length=length)
    for path, row in zip(tree, digests):
        assert row.tobytes() == oracle(name, path.read_bytes(), length), path.name


@pytest.mark.parametrize("compiled", [True, False])
def test_small_chunks_streaming_and_both_readers(tree, monkeypatch, compiled):
    # Tiny limits: most files are streamed in many chunks, several side by side.
    monkeypatch.setattr(small_files, "COMPILED_READER", compiled)
    monkeypatch.setattr(small_files, "SMALL_FILE_BYTES", 200)
    monkeypatch.setattr(chunks, "CHUNK_BYTES", 1000)
    monkeypatch.setattr(chunks, "STREAM_BYTES", 5000)
    monkeypatch.setattr(small_files, "READER_BYTES", 300)
    paths = tree * 4
    digests = bk.hash_files(paths, "sha3_384", threads=2)
    for path, row in zip(paths, digests):
        assert row.tobytes() == hashlib.sha3_384(path.read_bytes()).digest()


class _NeverStarted(Future):
    def result(self, timeout=None):
        raise AssertionError("waited for a read that never started")


class _StarvedPool:
    """A reading pool whose thread never gets a core: no submitted read ever starts."""

    def submit(self, function, *args):
        return _NeverStarted()


@pytest.mark.kernels_only  # the kernels' streamed reads; the one-shot side waits for its pool
def test_chunks_are_read_inline_when_the_reading_thread_never_starts(tree, monkeypatch):
    monkeypatch.setattr(pool, "reader_pool", _StarvedPool)
    monkeypatch.setattr(chunks, "CHUNK_BYTES", 1000)
    monkeypatch.setattr(chunks, "STREAM_BYTES", 5000)
    digests = bk.hash_files(tree, "sha3_224")
    for path, row in zip(tree, digests):
        assert row.tobytes() == hashlib.sha3_224(path.read_bytes()).digest()


@pytest.mark.parametrize("compiled", [True, False])
def test_unreadable_files_raise_or_are_collected(tree, tmp_path, monkeypatch, compiled):
    monkeypatch.setattr(small_files, "COMPILED_READER", compiled)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    paths = [tree[1], tmp_path, dangling, tree[-1]]
    with pytest.raises(IsADirectoryError) as raised:
        bk.hash_files(paths, "sha3_256")
    assert str(tmp_path) in str(raised.value)
    with pytest.raises(FileNotFoundError, match="dangling"):
        bk.hash_files([tree[0], dangling], "sha3_256")
    results = bk.hash_files(paths, "sha3_256", errors="collect")
    assert results[0] == hashlib.sha3_256(tree[1].read_bytes()).digest()
    assert isinstance(results[1], IsADirectoryError) and results[1].filename == str(tmp_path)
    assert isinstance(results[2], FileNotFoundError) and results[2].filename == str(dangling)
    assert results[3] == hashlib.sha3_256(tree[-1].read_bytes()).digest()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_permission_denied_is_collected(tmp_path):
    path = tmp_path / "secret"
    path.write_bytes(b"x")
    path.chmod(0)
    assert isinstance(bk.hash_files([path], errors="collect")[0], PermissionError)


DEADLINE = 60
"""Seconds a pipe test waits for any one thing before it fails instead of hanging."""


def _unblock(fifo, flags):
    """Open ``fifo``'s other end without blocking and close it again, so a thread stuck
    opening (or reading) it wakes up; nothing happens if no one is waiting."""
    try:
        os.close(os.open(fifo, flags | os.O_NONBLOCK))
    except OSError:
        pass


def _run_in_time(function, fifos):
    """``function()`` on another thread, waited for at most DEADLINE seconds: a reader stuck
    on a pipe is woken (the pipe's write end opened and closed) and the test fails."""
    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(function)
    try:
        return future.result(timeout=DEADLINE)
    except FutureTimeout:
        for fifo in fifos:
            _unblock(fifo, os.O_WRONLY)
        future.exception(timeout=DEADLINE)
        pytest.fail("hashing the pipes did not finish: a pipe was opened twice or never fed")
    finally:
        pool.shutdown(wait=False)


def _feed(fifo, payload: bytes) -> tuple[threading.Thread, list]:
    """A thread that opens ``fifo`` for writing, writes ``payload`` and closes it; its list
    collects the error a reader that let go of the pipe early causes (BrokenPipeError)."""
    errors: list = []

    def write():
        try:
            with open(fifo, "wb") as handle:
                handle.write(payload)
        except OSError as exc:
            errors.append(exc)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread, errors


def _stop_feeding(fifo, thread: threading.Thread) -> None:
    thread.join(DEADLINE)
    if thread.is_alive():  # no reader ever opened the pipe: wake the writer up
        _unblock(fifo, os.O_RDONLY)
        thread.join(DEADLINE)
        pytest.fail(f"{fifo.name} was never read")


@pytest.mark.parametrize("compiled", [True, False])
def test_pipes_are_streamed_and_opened_once(tree, tmp_path, monkeypatch, compiled):
    # Pipes among regular files: each pipe is opened once, by the streaming path, and read
    # to its end. A reader that opened it to look at it first would take the writer's only
    # open (the writer then fails with BrokenPipeError) and wait forever on the second.
    monkeypatch.setattr(small_files, "COMPILED_READER", compiled)
    payloads = [os.urandom(300_000), b"", os.urandom(137)]
    fifos = []
    for i in range(len(payloads)):
        fifos.append(tmp_path / f"fifo{i}")
        os.mkfifo(fifos[-1])
    feeders = [_feed(fifo, payload) for fifo, payload in zip(fifos, payloads)]
    paths = [tree[0], fifos[0], tree[4], fifos[1], fifos[2], tree[-1]]
    try:
        digests = _run_in_time(lambda: bk.hash_files(paths, "shake_256", length=64), fifos)
    finally:
        for fifo, (thread, _) in zip(fifos, feeders):
            _stop_feeding(fifo, thread)
    assert [errors for _, errors in feeders] == [[], [], []]
    contents = [
        tree[0].read_bytes(),
        payloads[0],
        tree[4].read_bytes(),
        payloads[1],
        payloads[2],
        tree[-1].read_bytes(),
    ]
    for content, row in zip(contents, digests):
        assert row.tobytes() == hashlib.shake_256(content).digest(64)


def test_a_pipe_from_another_process(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    payload = os.urandom(300_000)
    source = tmp_path / "payload"
    source.write_bytes(payload)
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"open({str(fifo)!r}, 'wb').write(open({str(source)!r}, 'rb').read())",
        ],
        stdin=subprocess.DEVNULL,
    )
    try:
        digest = _run_in_time(lambda: bk.hash_files([fifo], "sha3_256")[0].tobytes(), [fifo])
    finally:
        try:
            writer.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            writer.kill()
            writer.wait(timeout=DEADLINE)
    assert writer.returncode == 0
    assert digest == hashlib.sha3_256(payload).digest()


def test_argument_errors():
    with pytest.raises(TypeError, match="single str"):
        bk.hash_files("file.txt")
    with pytest.raises(TypeError, match=r"paths\[1\]"):
        bk.hash_files(["a", 3])
    with pytest.raises(ValueError, match="errors must be"):
        bk.hash_files([], errors="ignore")
    assert bk.hash_files([], "sha3_224").shape == (0, 28)


def test_file_digest_like_hashlib(tree):
    with open(tree[-1], "rb") as handle:
        ours = bk.file_digest(handle, "sha3_256").digest()
    with open(tree[-1], "rb") as handle:
        assert ours == hashlib.file_digest(handle, "sha3_256").digest()
    assert bk.file_digest(io.BytesIO(b"abc"), "keccak_256").digest() == oracle("keccak_256", b"abc")
    with pytest.raises(ValueError, match="binary mode"):
        bk.file_digest(io.StringIO("abc"), "sha3_256")


# The child's own peak, in kB: VmHWM belongs to its address space. (Not ru_maxrss: Linux
# carries a parent's peak across fork and exec, so every child of this test process would
# report at least this process's size, and the bound below could never fail.)
_PEAK = """
import sys
from batchkeccak.cli import main

code = main(["hash", "-a", sys.argv[1], *sys.argv[2:]])
with open("/proc/self/status") as status:
    print(next(line.split()[1] for line in status if line.startswith("VmHWM:")), file=sys.stderr)
"""


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux's /proc")
@pytest.mark.parametrize(
    "algorithm, copies",
    [("sha3_256", 1), ("keccak256", 1), ("sha3_256", 2)],  # hashlib alone; the kernels twice
)
def test_peak_memory_does_not_grow_with_the_file(tmp_path, algorithm, copies, backend_policy):
    # A file 48 times the chunk size: the process's peak RSS stays within a few chunks
    # of what hashing a file of two chunks costs (memory that grew with the file would add
    # some 46 chunks, three times the bound).
    # The small file is read in pieces too (more than the one-shot backends read at once):
    # both runs take the same path, and only the file's size differs.
    if backend_policy == "default-warm":
        # The policy reaches the command's process as BATCHKECCAK_BACKEND alone, which
        # default-cold leaves unset too: that process starts cold either way.
        pytest.skip("the command's process starts cold: default-cold's run is this one")
    small, large = tmp_path / "small", tmp_path / "large"
    small.write_bytes(os.urandom(2 * chunks.CHUNK_BYTES))
    with open(large, "wb") as handle:
        handle.writelines(os.urandom(chunks.CHUNK_BYTES) for _ in range(48))
    peaks = {}
    for path in (small, large):
        done = subprocess.run(
            [sys.executable, "-c", _PEAK, algorithm, *[str(path)] * copies],
            capture_output=True,
            check=True,
            stdin=subprocess.DEVNULL,
            timeout=300,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        peaks[path.name] = int(done.stderr.split()[-1]) * 1024
        if path is large:
            name = "keccak_256" if algorithm == "keccak256" else algorithm
            want = oracle(name, large.read_bytes()).hex()
            assert done.stdout.split()[::2] == [want.encode()] * copies
    assert peaks["large"] - peaks["small"] < 16 * chunks.CHUNK_BYTES
    if algorithm == "sha3_256" and copies == 1:
        # One file alone goes through hashlib and never loads numba.
        assert peaks["large"] < 100 << 20, peaks


def test_paths_of_every_kind_and_a_nul_byte(tmp_path):
    odd = os.fsencode(str(tmp_path)) + b"/caf\xe9-\xff.bin"  # not UTF-8
    with open(odd, "wb") as handle:
        handle.write(b"odd")
    plain = tmp_path / "plain.txt"
    plain.write_bytes(b"plain")
    got = bk.hash_files([odd, str(plain), plain, os.fsdecode(odd)], "sha3_256")
    want = [hashlib.sha3_256(m).digest() for m in (b"odd", b"plain", b"plain", b"odd")]
    assert [row.tobytes() for row in got] == want
    for paths in ([str(plain), "a\0b"], [str(plain), b"a\0b"]):
        with pytest.raises(ValueError, match=r"paths\[1\] contains a NUL byte"):
            bk.hash_files(paths)


PROC_FILES = ["/proc/sys/kernel/ostype", "/proc/version"]


@pytest.mark.skipif(not os.path.exists("/proc/sys/kernel/ostype"), reason="needs Linux's /proc")
def test_files_that_refuse_large_reads_hash_like_cat_reads_them():
    # /proc/sys files refuse a read() of 4 MiB (ENOMEM) and report size 0; cat reads them.
    contents = []
    for path in PROC_FILES:
        with open(path, "rb", buffering=0) as handle:
            contents.append(handle.read(65536))
    for errors in ("raise", "collect"):
        got = bk.hash_files(PROC_FILES, errors=errors)
        assert [bytes(row) for row in got] == [hashlib.sha3_256(c).digest() for c in contents]
    with open(PROC_FILES[0], "rb") as handle:
        assert bk.file_digest(handle, "sha3_256").digest() == hashlib.sha3_256(contents[0]).digest()


class RefusesLargeReads(io.RawIOBase):
    """A file whose read() refuses counts over 8 KiB with ENOMEM, as /proc/sys files do
    for large counts."""

    def __init__(self, data: bytes, limit: int = 8192) -> None:
        self._data, self._limit, self.counts = data, limit, []

    def readable(self) -> bool:
        return True

    def readinto(self, view) -> int:
        self.counts.append(len(view))
        if len(view) > self._limit:
            raise OSError(errno.ENOMEM, "Cannot allocate memory")
        taken = self._data[: len(view)]
        self._data = self._data[len(taken) :]
        view[: len(taken)] = taken
        return len(taken)


def test_file_digest_retries_a_refused_count_smaller(pattern_bytes):
    data = pattern_bytes(100_000)
    source = RefusesLargeReads(data)
    assert bk.file_digest(source, "sha3_256").digest() == hashlib.sha3_256(data).digest()
    assert max(source.counts) > reads.SMALLEST_READ  # it did start with a large count
    assert source.counts[-1] <= 8192


def test_a_refusal_at_the_smallest_count_is_an_error():
    source = RefusesLargeReads(b"abc", limit=reads.SMALLEST_READ - 1)
    with pytest.raises(OSError) as caught:
        bk.file_digest(source, "sha3_256")
    assert caught.value.errno == errno.ENOMEM


@pytest.mark.parametrize(
    "name, length", [("sha3_256", None), ("keccak256", None), ("shake128", 40), ("256", None)]
)
def test_digest_files_small_work_first_then_the_rest(tmp_path, name, length):
    # The command line's call: files go to the one-shot backend while its budget lasts (a
    # 2 MiB file stops it), the rest to hash_files; errors take their file's place.
    sizes = [0, 5, 136, 70_000, 2 << 20, 3]
    paths = []
    for i, size in enumerate(sizes):
        paths.append(str(tmp_path / f"f{i}"))
        (tmp_path / f"f{i}").write_bytes(bytes([i]) * size)
    paths[2:2] = [str(tmp_path / "missing"), str(tmp_path)]
    row = {"keccak256": "keccak_256", "shake128": "shake_128", "256": "sha3_256"}.get(name, name)
    got = files.digest_files(paths, name, length=length)
    assert isinstance(got[2], FileNotFoundError) and got[2].filename == paths[2]
    assert isinstance(got[3], IsADirectoryError)
    for path, digest in zip(paths[:2] + paths[4:], got[:2] + got[4:]):
        with open(path, "rb") as handle:
            assert digest == oracle(row, handle.read(), length), path


def test_digest_files_and_digest_stream_of_a_mode_and_of_one_file(tmp_path):
    path = tmp_path / "one"
    path.write_bytes(b"abc" * 50_000)
    key = b"k" * 32
    want = bk.hash_one(b"abc" * 50_000, "kmac256", key=key, length=16)
    assert files.digest_files([path], "kmac256", length=16, key=key) == [want]
    with open(path, "rb") as handle:
        assert files.digest_stream(handle, "kmac256", length=16, key=key) == want
    assert files.digest_files([path], "sha3_512") == [hashlib.sha3_512(b"abc" * 50_000).digest()]
    assert files.digest_stream(io.BytesIO(b"abc"), "shake_256", length=7) == (
        hashlib.shake_256(b"abc").digest(7)
    )
    assert isinstance(files.digest_files([tmp_path / "none"], "sha3_256")[0], FileNotFoundError)


def test_sha3sums_bit_counts_are_names_of_sha3():
    from batchkeccak.core.parameters import algorithms, canonical_name

    assert [canonical_name(bits, algorithms) for bits in ("224", "256", " 384", "512")] == [
        "sha3_224",
        "sha3_256",
        "sha3_384",
        "sha3_512",
    ]
    assert canonical_name("128", algorithms) is None
    assert bk.hash_one(b"abc", "256") == hashlib.sha3_256(b"abc").digest()
