"""hash_files and file_digest on a temporary tree, against hashlib and pycryptodome."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys

import pytest

import batchkeccak as bk
from batchkeccak import files

from oracles import oracle

SIZES = (0, 1, 135, 136, 137, 4096, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, (3 << 20) + 77)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tree")
    paths = []
    for i, size in enumerate(SIZES):
        path = folder / f"file{i}.bin"
        path.write_bytes(bytes((j * 7 + i) % 251 for j in range(size % 1000)) * (size // 1000)
                         + bytes(size % 1000))
        paths.append(path)
    return paths


@pytest.mark.parametrize("name, length", [("sha3_256", None), ("keccak_512", None),
                                          ("turboshake128", 40)])
def test_hash_files_equals_the_oracle(tree, name, length):
    digests = bk.hash_files(tree, name, length=length)
    for path, row in zip(tree, digests):
        assert row.tobytes() == oracle(name, path.read_bytes(), length), path.name


@pytest.mark.parametrize("compiled", [True, False])
def test_small_chunks_streaming_and_both_readers(tree, monkeypatch, compiled):
    # Tiny limits: most files are streamed in many chunks, several side by side.
    monkeypatch.setattr(files, "_COMPILED_READER", compiled)
    monkeypatch.setattr(files, "SMALL_FILE_BYTES", 200)
    monkeypatch.setattr(files, "CHUNK_BYTES", 1000)
    monkeypatch.setattr(files, "STREAM_BYTES", 5000)
    monkeypatch.setattr(files, "READER_BYTES", 300)
    paths = tree * 4
    digests = bk.hash_files(paths, "sha3_384", threads=2)
    for path, row in zip(paths, digests):
        assert row.tobytes() == hashlib.sha3_384(path.read_bytes()).digest()


@pytest.mark.parametrize("compiled", [True, False])
def test_unreadable_files_raise_or_are_collected(tree, tmp_path, monkeypatch, compiled):
    monkeypatch.setattr(files, "_COMPILED_READER", compiled)
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


def test_pipes_are_streamed(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    payload = os.urandom(300_000)
    source = tmp_path / "payload"
    source.write_bytes(payload)
    writer = subprocess.Popen(
        [sys.executable, "-c", f"open({str(fifo)!r}, 'wb').write(open({str(source)!r}, 'rb').read())"]
    )
    try:
        digest = bk.hash_files([fifo], "shake_256", length=64)[0].tobytes()
    finally:
        writer.wait(timeout=60)
    assert digest == hashlib.shake_256(payload).digest(64)


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


_PEAK = """
import resource, sys
from batchkeccak.cli import main
code = main(["hash", sys.argv[1]])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


@pytest.mark.slow
def test_peak_memory_does_not_grow_with_the_file(tmp_path):
    # A file 96 times the chunk size: the process's peak RSS stays within a few chunks
    # of what hashing a tiny file costs.
    small, large = tmp_path / "small", tmp_path / "large"
    small.write_bytes(b"x")
    with open(large, "wb") as handle:
        handle.writelines(os.urandom(files.CHUNK_BYTES) for _ in range(96))
    peaks = {}
    for path in (small, large):
        done = subprocess.run(
            [sys.executable, "-c", _PEAK, str(path)], capture_output=True, check=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        peaks[path.name] = int(done.stderr.split()[-1]) * 1024
        if path is large:
            assert done.stdout.split()[0].decode() == hashlib.sha3_256(large.read_bytes()).hexdigest()
    assert peaks["large"] - peaks["small"] < 16 * files.CHUNK_BYTES
