"""Small work goes to hashlib or pycryptodome, the rest to the kernels: the same digests on
both sides of the limits, for every entry point, and small work never loads numba."""

from __future__ import annotations

import hashlib
import itertools
import os
import sys
import textwrap

import numpy as np
import pyarrow as pa
import pytest
from Crypto.Hash import TurboSHAKE128, keccak
from process_helpers import run_code

import batchkeccak as bk
from batchkeccak import arrow
from batchkeccak.core import dispatch
from batchkeccak.core.dispatch import forced_backend

# (name, hasher parameters, oracle of one message)
FUNCTIONS = [
    ("sha3_256", {}, lambda m: hashlib.sha3_256(m).digest()),
    ("shake_128", {"length": 20}, lambda m: hashlib.shake_128(m).digest(20)),
    ("keccak_512", {}, lambda m: keccak.new(data=m, digest_bits=512).digest()),
    (
        "turboshake128",
        {"length": 16, "domain": 0x0B},
        lambda m: TurboSHAKE128.new(domain=0x0B, data=m).read(16),
    ),
]
MESSAGES = [b"", b"a", bytes(range(200)), b"x" * 5000] + [bytes([i]) * i for i in range(40)]


@pytest.fixture(params=["kernels", "oneshot", None])
def backend(request, monkeypatch):
    """Each side forced, and the measured limits (fresh accounting)."""
    monkeypatch.setattr(dispatch.ACCOUNT, "spent_us", 0.0)
    with forced_backend(request.param):
        yield request.param


@pytest.mark.parametrize(("name", "params", "oracle"), FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_every_entry_point_on_each_side(backend, name, params, oracle, tmp_path):
    expected = [oracle(m) for m in MESSAGES]
    resolved = bk.hasher(name, **params)
    assert [bytes(row) for row in bk.hash_many(MESSAGES, resolved)] == expected
    assert [bytes(row) for row in bk.hash_many(tuple(MESSAGES), resolved)] == expected
    flat = bk.FlatMessages(
        np.frombuffer(b"".join(MESSAGES), np.uint8),
        np.cumsum([0] + [len(m) for m in MESSAGES]),
    )
    assert [bytes(row) for row in bk.hash_many(flat, resolved)] == expected
    assert bk.hexdigest_many(MESSAGES, resolved) == [e.hex() for e in expected]
    assert [resolved.hash_one(m) for m in MESSAGES] == expected
    assert bk.hash_one(MESSAGES[2], resolved) == expected[2]
    column = pa.array(MESSAGES + [None], pa.binary())
    assert arrow.hash_array(column, resolved).to_pylist() == expected + [None]
    paths = []
    for i, message in enumerate(MESSAGES[:6]):
        paths.append(tmp_path / f"f{i}")
        paths[-1].write_bytes(message)
    got = bk.hash_files(paths + [tmp_path / "missing"], resolved, errors="collect")
    assert got[:-1] == expected[:6]
    assert isinstance(got[-1], FileNotFoundError) and got[-1].filename == str(
        paths[0].parent / "missing"
    )
    obj = bk.new(resolved)
    for message in MESSAGES:
        obj.update(message)
    assert obj.digest() == oracle(b"".join(MESSAGES))


@pytest.mark.parametrize(
    ("name", "params", "oracle"), FUNCTIONS[:3], ids=[f[0] for f in FUNCTIONS[:3]]
)
def test_the_command_line_on_each_side(backend, name, params, oracle, tmp_path, capsys):
    from batchkeccak.cli import main

    paths = []
    for i, message in enumerate(MESSAGES[:6]):
        paths.append(str(tmp_path / f"f{i}"))
        (tmp_path / f"f{i}").write_bytes(message)
    proc = [p for p in ("/proc/version", "/proc/sys/kernel/ostype") if os.path.exists(p)]
    length = ["--length", str(params["length"])] if "length" in params else []
    status = main(["hash", "-a", name, *length, *paths, str(tmp_path / "missing"), *proc])
    out, err = capsys.readouterr()
    assert status == 1 and "missing: No such file or directory" in err
    expected = [oracle(m).hex() for m in MESSAGES[:6]]
    for path in proc:  # what cat reads: /proc files say their size is 0
        with open(path, "rb") as handle:
            expected.append(oracle(handle.read()).hex())
    assert [line.split()[0] for line in out.splitlines()] == expected


def test_files_through_the_backend_stop_at_their_limits(tmp_path):
    from batchkeccak.io.backend_files import digest_paths

    spec = bk.algorithms["keccak_256"]
    sizes = [10, 20, 5000, 30, 0]
    paths = []
    for i, size in enumerate(sizes):
        paths.append(tmp_path / f"f{i}")
        paths[-1].write_bytes(bytes(range(256)) * (size // 256) + bytes(size % 256))
    expected = [keccak.new(data=p.read_bytes(), digest_bits=256).digest() for p in paths]
    assert digest_paths(paths, spec, spec.suffix, 32) == (expected, sum(sizes))
    assert digest_paths(paths, spec, spec.suffix, 32, byte_limit=29) == (expected[:1], 10)
    assert digest_paths(paths, spec, spec.suffix, 32, byte_limit=30) == (expected[:2], 30)
    assert digest_paths(paths, spec, spec.suffix, 32, file_limit=4999) == (expected[:2], 30)
    # A file that cannot be read takes its place in the list and counts no bytes.
    got, total = digest_paths([paths[0], tmp_path, paths[1]], spec, spec.suffix, 32)
    assert got[0] == expected[0] and got[2] == expected[1] and total == 30
    assert isinstance(got[1], IsADirectoryError) and got[1].filename == tmp_path


_FORKED = textwrap.dedent(
    """
    import hashlib, os, sys, pathlib
    from batchkeccak.io import backend_files
    from batchkeccak.core.parameters import get_algorithm

    folder = pathlib.Path(sys.argv[1])
    paths = [folder / f"f{i}" for i in range(2100)]
    for i, path in enumerate(paths):
        path.write_bytes(bytes([i % 251]) * (i % 300))
    paths[7] = folder / "missing"
    paths[1500] = folder  # a directory: its error takes its place
    spec = get_algorithm("sha3_256")
    expected = []
    for path in paths:
        try:
            expected.append(hashlib.sha3_256(path.read_bytes()).digest())
        except OSError as exc:
            expected.append((type(exc), exc.errno))
    sizes = [0 if isinstance(e, tuple) else p.stat().st_size for e, p in zip(expected, paths)]

    def same(found):
        assert len(found) <= len(paths)
        for got, want in zip(found, expected):
            if isinstance(want, tuple):
                assert (type(got), got.errno) == want, (got, want)
            else:
                assert got == want

    backend_files._fork_workers = lambda count: 3  # three processes on any machine

    def read(share, byte_limit):
        return backend_files.digest_paths(share, spec, spec.suffix, 32, byte_limit)

    found, total = backend_files.digest_paths_forked(paths, read)
    assert len(found) == len(paths) and total == sum(sizes)
    same(found)
    # A byte limit: each process takes a third of it; the list ends where a share stopped.
    found, total = backend_files.digest_paths_forked(paths, read, byte_limit=90_000)
    assert 0 < len(found) < len(paths) and total == sum(sizes[: len(found)])
    same(found)
    # A child that fails has its share hashed by the parent.
    backend_files._digest_in_child = lambda *args: os._exit(1)
    found, total = backend_files.digest_paths_forked(paths, read)
    assert len(found) == len(paths) and total == sum(sizes)
    same(found)
    print("ok")
    """
)


@pytest.mark.slow  # forked child processes
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="shares the files by fork")
def test_many_files_shared_with_child_processes_equal_one_process(tmp_path):
    # In a fresh interpreter: forking is safe only in a process with one thread.
    done = run_code(_FORKED, str(tmp_path))
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def _oneshot(*args, **options) -> bool:
    return dispatch.plan(*args, **options) == dispatch.ONESHOT


def test_the_byte_allowance_is_what_the_choice_allows(monkeypatch):
    spec = bk.algorithms["sha3_256"]
    data = {
        "limits": {"hashlib": {"warm": {"messages": 10, "bytes": 1000}}},
        "inputs": {
            "kernel_load_seconds": 0.001,
            "hashlib": {
                "backend_us": {"message": 2.0, "byte": 0.004},
                "kernels_us": {"message": 1.0, "byte": 0.002, "one_state_byte": 0.003},
            },
        },
    }
    monkeypatch.setattr(dispatch, "crossover", lambda: data)
    monkeypatch.setattr(dispatch, "kernels_loaded", lambda: False)
    with forced_backend(None):
        for spent, count in ((0.0, 1), (0.0, 100), (400.0, 100), (990.0, 10), (0.0, 1000)):
            monkeypatch.setattr(dispatch.ACCOUNT, "spent_us", spent)
            allowed = dispatch.oneshot_bytes(spec, spec.suffix, count)
            if allowed < 0:
                assert not _oneshot(spec, spec.suffix, count, 0)
                continue
            assert not _oneshot(spec, spec.suffix, count, allowed + 1)
            assert _oneshot(spec, spec.suffix, count, allowed)
        monkeypatch.setattr(dispatch, "kernels_loaded", lambda: True)
        assert dispatch.oneshot_bytes(spec, spec.suffix, 10) == 1000
        assert dispatch.oneshot_bytes(spec, spec.suffix, 11) == -1
    with forced_backend("kernels"):
        assert dispatch.oneshot_bytes(spec, spec.suffix, 1) == -1
    assert dispatch.oneshot_bytes(spec, 0x1F, 1) == -1  # no backend has that function


def test_hash_rows_on_each_side(backend):
    # The row encoding is checked against an independent model in tests/test_rows.py; here
    # each side must hash the encoded rows as hashlib does.
    table = pa.table({"a": [1, 2, None], "b": ["x", "yz", ""]})
    encoded = arrow.encode_rows(table.to_batches()[0])
    data, offsets = encoded.data.tobytes(), encoded.offsets.tolist()
    expected = [hashlib.sha3_256(data[a:b]).digest() for a, b in itertools.pairwise(offsets)]
    assert arrow.hash_rows(table, algorithm="sha3_256").to_pylist() == expected
    assert [bytes(r) for r in bk.hash_many(encoded, "sha3_256")] == expected


def test_the_choice_follows_the_measured_limits(monkeypatch):
    spec = bk.algorithms["sha3_256"]
    data = {
        "limits": {"hashlib": {"warm": {"messages": 10, "bytes": 1000}}},
        "inputs": {
            "kernel_load_seconds": 0.001,  # 1000 us of extra backend time in all
            "hashlib": {
                "backend_us": {"message": 2.0, "byte": 0.004},
                "kernels_us": {"message": 1.0, "byte": 0.002, "one_state_byte": 0.003},
            },
        },
    }
    monkeypatch.setattr(dispatch, "crossover", lambda: data)
    monkeypatch.setattr(dispatch.ACCOUNT, "spent_us", 0.0)
    with forced_backend(None):
        monkeypatch.setattr(dispatch, "kernels_loaded", lambda: True)
        assert _oneshot(spec, spec.suffix, 10, 1000)
        assert not _oneshot(spec, spec.suffix, 11, 1000)
        assert not _oneshot(spec, spec.suffix, 10, 1001)
        assert not _oneshot(spec, 0x1F, 1, 1)  # SHA-3 with SHAKE's domain byte
        monkeypatch.setattr(dispatch, "kernels_loaded", lambda: False)
        # Not loaded: calls go to the backend while their extra time adds up to the load.
        assert _oneshot(spec, spec.suffix, 600, 0)  # 600 us
        assert not _oneshot(spec, spec.suffix, 401, 0)  # would make 1001 us
        assert _oneshot(spec, spec.suffix, 400, 0)  # exactly 1000 us
        assert not _oneshot(spec, spec.suffix, 1, 0)
    with forced_backend("kernels"):
        assert not _oneshot(spec, spec.suffix, 1, 0)
    with pytest.raises(ValueError, match="backend must be"), forced_backend("gpu"):
        pass


def test_an_account_of_its_own_books_apart_from_the_process(monkeypatch):
    # The work given to the backend before the kernels load is booked in the account the
    # caller passes; the process's account stays as it was.
    spec = bk.algorithms["sha3_256"]
    # 1 us more per message on the backend, no cost per byte; 1000 us to load the kernels.
    costs = {
        "backend_us": {"message": 2.0, "byte": 0.0},
        "kernels_us": {"message": 1.0, "byte": 0.0, "one_state_byte": 0.0},
    }
    measured = {"inputs": {"kernel_load_seconds": 0.001, "hashlib": costs}}
    monkeypatch.setattr(dispatch, "crossover", lambda: measured)
    monkeypatch.setattr(dispatch, "kernels_loaded", lambda: False)
    monkeypatch.setattr(dispatch.ACCOUNT, "spent_us", 0.0)
    own = dispatch.LoadAccount()
    with forced_backend(None):
        assert _oneshot(spec, spec.suffix, 600, 0, account=own)  # 600 us booked in own
        assert own.spent_us == 600.0 and dispatch.ACCOUNT.spent_us == 0.0
        assert dispatch.oneshot_bytes(spec, spec.suffix, 401, account=own) == -1
        assert not _oneshot(spec, spec.suffix, 401, 0, account=own)
        assert _oneshot(spec, spec.suffix, 401, 0)  # the process's account still has room
        assert dispatch.ACCOUNT.spent_us == 401.0


def test_few_large_messages_are_priced_at_one_state_each(monkeypatch):
    # Fewer messages per thread than half a tile run one state at a time: the kernels' cost
    # per byte is then the single-state figure shared by the threads, not the tile's.
    spec = bk.algorithms["sha3_256"]
    data = {
        "inputs": {
            "kernel_load_seconds": 0.001,  # 1000 us
            "hashlib": {
                "backend_us": {"message": 1.0, "byte": 0.002},
                "kernels_us": {"message": 1.0, "byte": 0.0005, "one_state_byte": 0.002},
            },
        },
    }
    monkeypatch.setattr(dispatch, "crossover", lambda: data)
    monkeypatch.setattr(dispatch, "kernels_loaded", lambda: False)
    big = 10**9
    with forced_backend(None):
        monkeypatch.setattr(dispatch.ACCOUNT, "spent_us", 0.0)
        # 8 files on 2 threads each side: no gain for the kernels, however many bytes.
        assert _oneshot(spec, spec.suffix, 8, big, threads=2, backend_threads=2)
        assert dispatch.oneshot_bytes(spec, spec.suffix, 8, 2, 2) == sys.maxsize
        # The backend on one thread: the kernels' second thread earns back the load.
        assert not _oneshot(spec, spec.suffix, 8, big, threads=2)
        # Enough messages for full tiles on both threads: the tile's cost per byte.
        count = 2 * dispatch.MIN_TILE_LANES
        allowed = dispatch.oneshot_bytes(spec, spec.suffix, count, 2, 2)
        assert allowed == int(1000 / (0.001 - 0.0005))
        assert not _oneshot(spec, spec.suffix, count, allowed + 1, 2, 2)
        assert _oneshot(spec, spec.suffix, count, allowed, 2, 2)


def test_the_stored_limits_are_measured_figures():
    data = dispatch.crossover()
    assert data["measured_by"] == "python bench/crossover.py --write"
    for family in ("hashlib", "pycryptodome"):
        for side in ("cold", "warm"):
            limit = data["limits"][family][side]
            assert limit["messages"] >= 1 and limit["bytes"] >= 0
        assert data["inputs"][family]["backend_us"]["message"] > 0
        kernels = data["inputs"][family]["kernels_us"]
        # One state per long message costs more per byte than a full tile on every core.
        assert kernels["one_state_byte"] > kernels["byte"] > 0


_FRESH = textwrap.dedent(
    """
    import hashlib, sys, tempfile, pathlib
    import batchkeccak as bk
    messages = [b"x" * i for i in range(100)]
    assert [bytes(r) for r in bk.hash_many(messages, "sha3_256")] == [
        hashlib.sha3_256(m).digest() for m in messages]
    assert bk.hexdigest_many([b"abc"], "shake128", length=8) == [
        hashlib.shake_128(b"abc").hexdigest(8)]
    assert bk.hash_one(b"abc", "SHA3-512") == hashlib.sha3_512(b"abc").digest()
    h = bk.sha3_384(b"a")
    h.update(b"b" * 3000)
    assert h.digest() == hashlib.sha3_384(b"a" + b"b" * 3000).digest()
    folder = pathlib.Path(tempfile.mkdtemp())
    (folder / "f").write_bytes(b"file")
    assert bytes(bk.hash_files([folder / "f", folder / "f"])[1]) == hashlib.sha3_256(b"file").digest()
    print(sorted(m for m in ("numba", "llvmlite", "pyarrow") if m in sys.modules))
    """
)


def test_small_work_in_a_fresh_process_loads_no_compiler():
    env = {k: v for k, v in os.environ.items() if k != "BATCHKECCAK_BACKEND"}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    done = run_code(_FRESH, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_warmup_loads_the_kernels_even_though_its_call_is_small():
    # warmup() exists to pay the kernels' load up front: its own small call must not slip
    # to hashlib (the demo's "kernels ready" figure and services' start-up rely on it).
    env = {k: v for k, v in os.environ.items() if k != "BATCHKECCAK_BACKEND"}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    script = (
        "import sys, batchkeccak as bk\n"
        "from batchkeccak.core import dispatch\n"
        "before = dispatch.kernels_loaded()\n"
        "bk.warmup()\n"
        "print(before, dispatch.kernels_loaded(), 'numba' in sys.modules)\n"
    )
    done = run_code(script, env=env, check=True)
    assert done.stdout.split() == ["False", "True", "True"]


@pytest.mark.parametrize("offsets", [[0, 5, 20], [0, 9, 3], [-1, 2, 3]])
def test_offsets_outside_the_data_are_refused_on_both_sides(backend, offsets):
    resolved = bk.hasher("sha3_256")
    with pytest.raises(ValueError, match="offsets leave the data buffer"):
        resolved.hash_flat(np.zeros(10, np.uint8), np.array(offsets, np.int64))


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_a_hasher_that_hashes_otherwise_declares_it():
    # A mode with a hash_flat of its own (framing, HMAC's second hash, a tree) is no plain
    # sponge: the one-shot backends and the one-call kernel must never stand in for it (a
    # one-message KangarooTwelve list once got TurboSHAKE of the bare message).
    import batchkeccak.derived  # noqa: F401  (defines every mode's class)
    from batchkeccak.core.hashers import Hasher

    own = [cls for cls in _subclasses(Hasher) if cls.hash_flat is not Hasher.hash_flat]
    assert own  # the modes' classes are found
    assert [cls.__name__ for cls in own if cls.plain_sponge] == []


@pytest.mark.parametrize("name", sorted(bk.modes))
def test_no_fast_path_for_a_mode_that_is_no_plain_sponge(name, backend):
    mode = bk.modes[name]
    params = {"key": b"k" * 20} if "key" in mode.params else {}
    resolved = bk.hasher(name, length=None if mode.fixed_length else 16, **params)
    if resolved.plain_sponge:
        return  # cSHAKE and TurboSHAKE rows: their sponge is the whole function
    executor = resolved.executor
    assert not executor.oneshot_backend
    assert executor.hash_list([b"abc"]) is None
    assert executor.plan(1, 3) == "kernels"
    out = np.empty((1, resolved.output_length), np.uint8)
    data, offsets = np.frombuffer(b"abc", np.uint8), np.array([0, 3], np.int64)
    if resolved.one_call() is None:
        assert not executor.hash_in_one_call(resolved.one_call, data, offsets, out)
    else:
        # The mode's own batch function (KMAC, TupleHash frame in it): the mode's digests.
        assert executor.hash_in_one_call(resolved.one_call, data, offsets, out)
        assert out.tolist() == resolved.hash_flat(data, offsets).tolist()


def test_how_a_batch_runs_is_asked_of_the_executor_not_the_hasher():
    # The backend plan, byte budgets, small lists and the one-call path are the executor's
    # (core/executor.py); a Hasher has no methods that only pass those questions on.
    import batchkeccak.derived  # noqa: F401  (defines every mode's class)
    from batchkeccak.core.hashers import Hasher

    for name in ("plan", "oneshot_backend", "oneshot_byte_budget", "hash_in_one_call"):
        assert not any(name in vars(cls) for cls in (Hasher, *_subclasses(Hasher))), name
    assert "hash_list" not in vars(Hasher)  # a tree mode's own list path stays its own
    with forced_backend("oneshot"):
        small = bk.hasher("sha3_256", threads=1).executor.hash_list([b"abc"])
    assert small is not None and small.tobytes() == hashlib.sha3_256(b"abc").digest()


def test_a_mistyped_backend_variable_is_refused_by_name(tmp_path):
    # BATCHKECCAK_BACKEND=kernel (a typo) used to mean the measured limits, silently.
    (tmp_path / "m").write_bytes(b"abc")
    env = {**os.environ, "BATCHKECCAK_BACKEND": "kernel", "PYTHONPATH": os.pathsep.join(sys.path)}
    script = textwrap.dedent(
        f"""
        import batchkeccak as bk
        from batchkeccak.cli import main
        try:
            bk.hash_many([b"abc"])
        except ValueError as exc:
            print("refused:", exc)
        print("status", main(["hash", {str(tmp_path / "m")!r}]))
        """
    )
    done = run_code(script, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("refused: BATCHKECCAK_BACKEND must be one of kernels, oneshot")
    assert "'kernel'" in lines[0]
    assert lines[-1] == "status 1"
    message = (
        "batchkeccak: error: BATCHKECCAK_BACKEND must be one of kernels, oneshot (or unset "
        "for the measured limits), got 'kernel'"
    )
    assert done.stderr.splitlines() == [message]


def test_warmup_on_threads_beside_hashing_threads_leaves_the_policy_as_it_was():
    # warmup() forced the kernels by swapping the process's policy: two threads warming up
    # at once could restore each other's "kernels" and leave the process on it for good.
    import threading

    messages = [bytes([i]) * i for i in range(50)]
    expected = [hashlib.sha3_256(m).digest() for m in messages]
    wrong: list[object] = []

    def warm() -> None:
        for _ in range(200):
            bk.warmup()

    def hash_() -> None:
        for _ in range(100):
            got = [bytes(row) for row in bk.hash_many(messages, threads=1)]
            if got != expected:
                wrong.append(got)

    with forced_backend(None):
        workers = [threading.Thread(target=warm) for _ in range(3)]
        workers += [threading.Thread(target=hash_) for _ in range(2)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert dispatch._forced is None
        assert dispatch.policy() is None
    assert not wrong


def test_kernels_on_one_thread_leave_the_others_policy():
    import threading

    inside, done = threading.Event(), threading.Event()
    seen: list[object] = []

    def on_kernels() -> None:
        with dispatch.kernels_on_this_thread():
            seen.append(dispatch.policy())
            inside.set()
            done.wait(10)

    with forced_backend(None):
        worker = threading.Thread(target=on_kernels)
        worker.start()
        assert inside.wait(10)
        assert dispatch.policy() is None  # this thread keeps the measured limits
        done.set()
        worker.join()
    assert seen == ["kernels"]


@pytest.mark.parametrize("bits", [128, 256])
def test_a_few_long_items_of_a_mode_with_a_oneshot_form_on_each_side(bits, backend):
    # A short list of long bytes items is read where it lies; cSHAKE's small work goes to
    # the mode's own one-shot form (pycryptodome's cSHAKE), never the bare sponge's, which
    # no backend has (that path once called None).
    from Crypto.Hash import cSHAKE128, cSHAKE256

    oracle = {128: cSHAKE128, 256: cSHAKE256}[bits]
    messages = [b"a" * 300, bytes(range(256)) * 2, b"z" * 129]
    got = bk.hash_many(messages, f"cshake{bits}", length=24, customization=b"tree")
    want = [oracle.new(data=m, custom=b"tree").read(24) for m in messages]
    assert [row.tobytes() for row in got] == want


def test_how_a_batch_runs_is_the_executors_alone():
    # Modes describe their one-shot backend through make_executor; none overrides the
    # executor's decisions on the hasher, and the executor holds the hasher's fields only.
    import pickle

    import batchkeccak.derived  # noqa: F401  (defines every mode's class)
    from batchkeccak.core.executor import Executor
    from batchkeccak.core.hashers import Hasher

    delegated = ("plan", "oneshot_backend", "oneshot_byte_budget", "hash_in_one_call", "executor")
    overriding = [
        f"{cls.__name__}.{name}"
        for cls in _subclasses(Hasher)
        for name in delegated
        if name in cls.__dict__
    ]
    assert overriding == []
    resolved = bk.hasher("sha3_256", threads=3)
    assert isinstance(resolved.executor, Executor) and resolved.executor is resolved.executor
    assert "_executor" not in resolved.fields()
    assert resolved.with_threads(1).executor.threads == 1 and resolved.executor.threads == 3
    copied = pickle.loads(pickle.dumps(resolved))
    assert copied.executor.threads == 3 and copied.executor.family == "hashlib"
    keyed = bk.hasher("kmac128", length=32, key=b"k" * 32)
    assert keyed.executor.family == "pycryptodome" and not keyed.executor.oneshot_backend
