"""``batchkeccak hash``: files and lines, checked against hashlib / pycryptodome."""

from __future__ import annotations

import hashlib
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from batchkeccak.cli import main

from oracles import oracle

TIMEOUT = 120
"""Seconds any child process may take before the test fails instead of hanging."""


def test_files_like_sha3sum(tmp_path, capsys):
    paths = []
    for i, content in enumerate([b"", b"abc", bytes(range(256)) * 40]):
        path = tmp_path / f"f{i}.bin"
        path.write_bytes(content)
        paths.append(path)
    assert main(["hash", "-a", "sha3_512", *map(str, paths)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"{oracle('sha3_512', p.read_bytes()).hex()}  {p}" for p in paths]


def test_lines_mode_excludes_line_endings(tmp_path, capsys):
    path = tmp_path / "ids.txt"
    path.write_bytes(b"alice\r\nbob\n\n0xdeadbeef")
    assert main(["hash", "--lines", "-a", "keccak_256", str(path)]) == 0
    got = capsys.readouterr().out.splitlines()
    want = [oracle("keccak_256", m).hex() for m in (b"alice", b"bob", b"", b"0xdeadbeef")]
    assert got == want


def test_stdin_and_xof_length():
    done = subprocess.run(
        [sys.executable, "-m", "batchkeccak", "hash", "-a", "shake_256", "--length", "5"],
        input=b"stream",
        capture_output=True,
        check=True,
        timeout=TIMEOUT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.stdout.decode() == f"{oracle('shake_256', b'stream', 5).hex()}  -\n"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["hash", "--status", "x"], "the --status option is meaningful only when verifying"),
        (["hash", "-c", "--tag", "x"], "the --tag option is meaningless when verifying"),
        (["hash", "-a", "md5", "x"], "unknown algorithm 'md5'"),
        (["hash", "-a", "shake_128", "x"], "--length is required"),
        (["hash", "-a", "sha3_256", "--length", "8", "x"], "always returns 32 bytes"),
        (["hash", "-a", "kt128", "--length", "-1", "x"], "--length must be >= 0 for kt128"),
        (["hash", "-a", "tuplehash128", "x"], "cannot hash a file"),
        (
            ["hash", "-a", "shake_256", "--length", str(10**12), "x"],
            f"--length {10**12} is too large",
        ),
        (["hash", "-a", "kt128", "--length", str(10**12), "x"], f"--length {10**12} is too large"),
    ],
)
def test_usage_errors_are_reported_as_gnu_does_with_status_1(argv, message, capsys):
    # GNU's *sum: the complaint, then a pointer to --help; exit status 1.
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("batchkeccak: ") and message in err
    assert err.endswith("\nTry 'batchkeccak hash --help' for more information.\n")


def test_lines_of_a_missing_file_are_reported_like_a_missing_file(tmp_path, capsys):
    (tmp_path / "ids").write_bytes(b"a\n")
    assert main(["hash", "--lines", str(tmp_path / "missing"), str(tmp_path / "ids")]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"batchkeccak: {tmp_path / 'missing'}: No such file or directory\n"
    assert captured.out == hashlib.sha3_256(b"a").hexdigest() + "\n"


def test_lines_in_many_blocks_and_without_final_newline(tmp_path, capsys, monkeypatch):
    # Blocks much smaller than the input: lines cross block boundaries, and the last line has
    # no newline; CR LF endings lose the CR, a lone CR inside a line stays.
    from batchkeccak.io import lines as line_reading

    monkeypatch.setattr(line_reading, "BATCH_BYTES", 7)
    lines = [b"first", b"", b"a\rb", b"x" * 40, b"crlf", b"last"]
    path = tmp_path / "many.txt"
    path.write_bytes(b"first\n\na\rb\n" + b"x" * 40 + b"\ncrlf\r\nlast")
    assert main(["hash", "--lines", str(path)]) == 0
    got = capsys.readouterr().out.splitlines()
    assert got == [oracle("sha3_256", line).hex() for line in lines]


def run_cli(*argv, stdin=b"", cwd=None):
    """``batchkeccak hash ARGV`` in a child process, fed ``stdin`` (never the test run's own)."""
    return subprocess.run(
        [sys.executable, "-m", "batchkeccak", "hash", *argv],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        check=False,
        timeout=TIMEOUT,
    )


@pytest.fixture
def cli_in_process(monkeypatch, capsysbinary):
    """``run_cli`` in this process (``cli.main``): the same arguments, standard input,
    folder, output and status, without a child's start-up and kernel load."""

    def run(*argv, stdin=b"", cwd=None):
        with monkeypatch.context() as patch:
            if cwd is not None:
                patch.chdir(cwd)
            return _main_in_process(list(argv), patch, capsysbinary, stdin)

    return run


def run_tool(*argv, cwd):
    """Another command (the GNU tools, openssl), with no standard input."""
    return subprocess.run(
        argv, cwd=cwd, capture_output=True, stdin=subprocess.DEVNULL, check=False, timeout=TIMEOUT
    )


def gnu_line(digest: str, name: str, tag: str | None = None) -> bytes:
    """One line of GNU sha256sum's output layout, built here from its documented rules."""
    raw = os.fsencode(name)
    prefix = b""
    if b"\\" in raw or b"\n" in raw:
        prefix, raw = b"\\", raw.replace(b"\\", b"\\\\").replace(b"\n", b"\\n")
    if tag:
        return prefix + f"{tag} (".encode() + raw + f") = {digest}\n".encode()
    return prefix + digest.encode() + b"  " + raw + b"\n"


@pytest.fixture()
def folder(tmp_path):
    contents = {
        "plain.txt": b"abc",
        "back\\slash": b"",
        "new\nline": b"x" * 300,
        "sp ace": bytes(range(256)) * 20,
    }
    for name, data in contents.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path, contents


def test_output_layout_is_gnus(folder, cli_in_process):
    tmp_path, contents = folder
    names = list(contents)
    done = cli_in_process(*names, cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout == b"".join(
        gnu_line(hashlib.sha3_256(data).hexdigest(), name) for name, data in contents.items()
    )
    tagged = cli_in_process("--tag", "-a", "512", *names, cwd=tmp_path)
    assert tagged.stdout == b"".join(
        gnu_line(hashlib.sha3_512(data).hexdigest(), name, "SHA3-512")
        for name, data in contents.items()
    )
    zero = cli_in_process("-z", "-a", "keccak256", *names, cwd=tmp_path)
    assert zero.stdout == b"".join(
        oracle("keccak_256", data).hex().encode() + b"  " + name.encode() + b"\0"
        for name, data in contents.items()
    )


def test_one_file_alone_prints_what_it_prints_among_others(folder, cli_in_process):
    # One file (or stdin) with SHA3/SHAKE is hashed without the kernels: same lines, same
    # errors, same exit status as when it is one of several files.
    tmp_path, contents = folder
    names = list(contents)
    for options in ([], ["--tag", "-a", "384"], ["-z", "-a", "shake_256", "--length", "7"]):
        together = cli_in_process(*options, *names, cwd=tmp_path)
        alone = b"".join(cli_in_process(*options, name, cwd=tmp_path).stdout for name in names)
        assert alone == together.stdout, options
    for name, message in (("missing", b"No such file or directory"), (".", b"Is a directory")):
        done = cli_in_process(name, cwd=tmp_path)
        assert (done.returncode, done.stdout) == (1, b"")
        assert done.stderr == b"batchkeccak: " + name.encode() + b": " + message + b"\n"
    piped = cli_in_process("-a", "sha3_224", stdin=contents["sp ace"])
    assert piped.stdout == gnu_line(hashlib.sha3_224(contents["sp ace"]).hexdigest(), "-")


def test_layout_matches_sha256sum_escaping(folder):
    # The same names through the real GNU tool: only the digests differ.
    tmp_path, contents = folder
    names = list(contents)
    gnu = run_tool("sha256sum", *names, cwd=tmp_path)
    assert gnu.returncode == 0, gnu.stderr
    ours = run_cli(*names, cwd=tmp_path)
    swapped = gnu.stdout
    for data in contents.values():
        swapped = swapped.replace(
            hashlib.sha256(data).hexdigest().encode(), hashlib.sha3_256(data).hexdigest().encode()
        )
    assert ours.stdout == swapped


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_openssl_agrees(folder):
    tmp_path, _ = folder
    done = run_tool("openssl", "dgst", "-sha3-256", "-r", "sp ace", cwd=tmp_path)
    if done.returncode != 0:
        pytest.skip("this openssl has no sha3-256")
    assert run_cli("sp ace", cwd=tmp_path).stdout.split()[0] == done.stdout.split()[0]


def test_missing_and_directory_keep_going(folder):
    tmp_path, contents = folder
    done = run_cli("plain.txt", "missing", ".", "sp ace", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout == gnu_line(hashlib.sha3_256(b"abc").hexdigest(), "plain.txt") + gnu_line(
        hashlib.sha3_256(contents["sp ace"]).hexdigest(), "sp ace"
    )
    assert done.stderr.decode().splitlines() == [
        "batchkeccak: missing: No such file or directory",
        "batchkeccak: .: Is a directory",
    ]
    assert b"Traceback" not in done.stderr


@pytest.mark.parametrize("tag", [False, True])
def test_check_round_trip_and_corruption(folder, tag, cli_in_process):
    tmp_path, contents = folder
    names = list(contents)
    listing = cli_in_process(
        *(["--tag"] if tag else []), "-a", "shake_128", "--length", "20", *names, cwd=tmp_path
    ).stdout
    (tmp_path / "SUMS").write_bytes(listing)
    done = cli_in_process("-c", "-a", "shake_128", "SUMS", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"plain.txt: OK\nback\\slash: OK\n\\new\\nline: OK\nsp ace: OK\n"
    (tmp_path / "plain.txt").write_bytes(b"abd")
    done = cli_in_process("-c", "-a", "shake_128", "SUMS", cwd=tmp_path)
    assert done.returncode == 1
    assert b"plain.txt: FAILED\n" in done.stdout
    assert done.stderr == b"batchkeccak: WARNING: 1 computed checksum did NOT match\n"
    quiet = cli_in_process("-c", "--quiet", "-a", "shake_128", "SUMS", cwd=tmp_path)
    assert quiet.stdout == b"plain.txt: FAILED\n" and quiet.returncode == 1
    status = cli_in_process("-c", "--status", "-a", "shake_128", "SUMS", cwd=tmp_path)
    assert (status.stdout, status.stderr, status.returncode) == (b"", b"", 1)


CHECK_OPTIONS = [
    [],
    ["--warn"],
    ["--strict"],
    ["--ignore-missing"],
    ["--quiet"],
    ["--status"],
    ["--warn", "--strict", "--ignore-missing"],
]


@pytest.mark.parametrize("options", CHECK_OPTIONS)
def test_check_reports_like_sha256sum(folder, options, cli_in_process):
    # One listing per tool with the same lines: good, wrong, missing, malformed, comments.
    tmp_path, contents = folder

    def listing(digest, tag):
        good = b"".join(gnu_line(digest(data), name) for name, data in contents.items())
        return (
            good
            + b"# comment\n\n"
            + gnu_line("0" * 64, "plain.txt")
            + gnu_line(digest(b"abc"), "missing")
            + b"garbage\n"
            + f"{tag} (plain.txt) = {digest(b'abc')}\n".encode()
            + digest(b"abc").encode()
            + b" plain.txt\n"
        )

    (tmp_path / "gnu.sums").write_bytes(listing(lambda d: hashlib.sha256(d).hexdigest(), "SHA256"))
    (tmp_path / "ours.sums").write_bytes(
        listing(lambda d: hashlib.sha3_256(d).hexdigest(), "SHA3-256")
    )
    gnu = run_tool("sha256sum", "-c", *options, "gnu.sums", cwd=tmp_path)
    ours = cli_in_process("-c", *options, "ours.sums", cwd=tmp_path)
    expected_err = (
        gnu.stderr.replace(b"sha256sum:", b"batchkeccak:")
        .replace(b"gnu.sums", b"ours.sums")
        .replace(b"SHA256 checksum", b"SHA3-256 checksum")
    )
    assert (ours.stdout, ours.stderr, ours.returncode) == (gnu.stdout, expected_err, gnu.returncode)


@pytest.mark.parametrize("content", [b"garbage\n", b"", b"# only a comment\n"])
def test_check_without_proper_lines_like_sha256sum(tmp_path, content):
    (tmp_path / "sums").write_bytes(content)
    gnu = run_tool("sha256sum", "-c", "sums", cwd=tmp_path)
    ours = run_cli("-c", "sums", cwd=tmp_path)
    assert ours.returncode == gnu.returncode == 1
    assert ours.stderr == gnu.stderr.replace(b"sha256sum:", b"batchkeccak:")


def test_check_of_a_missing_listing_and_stdin(folder):
    tmp_path, _ = folder
    listing = run_cli("plain.txt", cwd=tmp_path).stdout
    done = run_cli("-c", "-", "nolisting", stdin=listing, cwd=tmp_path)
    assert done.stdout == b"plain.txt: OK\n"
    assert done.stderr == b"batchkeccak: nolisting: No such file or directory\n"
    assert done.returncode == 1


def test_sha3sum_algorithm_names(tmp_path, capsys):
    path = tmp_path / "f"
    path.write_bytes(b"data")
    for alias, name in [
        ("224", "sha3_224"),
        ("384", "sha3_384"),
        ("keccak256", "keccak_256"),
        ("SHA3-512", "sha3_512"),
    ]:
        assert main(["hash", "-a", alias, str(path)]) == 0
        assert capsys.readouterr().out.split()[0] == oracle(name, b"data").hex()


def test_many_small_files(tmp_path, capsys):
    paths = []
    for i in range(300):
        path = tmp_path / f"{i}.json"
        path.write_bytes(b"{}" * i)
        paths.append(str(path))
    assert main(["hash", *paths]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{hashlib.sha3_256(b'{}' * i).hexdigest()}  {p}" for i, p in enumerate(paths)
    ]


def test_bad_option_is_reported_as_gnu_does():
    done = run_cli("--bogus")
    assert done.returncode == 1
    assert done.stderr == (
        b"batchkeccak: unrecognized option '--bogus'\n"
        b"Try 'batchkeccak hash --help' for more information.\n"
    )


def test_tree_modes_hash_big_files_like_sha3sum(tmp_path, cli_in_process):
    from Crypto.Hash import KangarooTwelve
    from sp800_185_reference import kangarootwelve

    contents = {"empty": b"", "abc": b"abc", "big.bin": os.urandom(40 * 8192 + 3)}
    for name, data in contents.items():
        (tmp_path / name).write_bytes(data)
    names = list(contents)
    done = cli_in_process("-a", "kt128", *names, "missing", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout == b"".join(
        gnu_line(KangarooTwelve.new(data=contents[n]).read(32).hex(), n) for n in names
    )
    assert done.stderr == b"batchkeccak: missing: No such file or directory\n"
    done = cli_in_process("-a", "kt256", "--length", "64", "--tag", "big.bin", cwd=tmp_path)
    want = kangarootwelve(256, contents["big.bin"], b"", 64).hex()
    assert done.stdout == gnu_line(want, "big.bin", tag="KT256")
    piped = cli_in_process("-a", "kt128", stdin=contents["big.bin"])
    assert piped.stdout == gnu_line(
        KangarooTwelve.new(data=contents["big.bin"]).read(32).hex(), "-"
    )
    (tmp_path / "SUMS").write_bytes(cli_in_process("-a", "kt128", *names, cwd=tmp_path).stdout)
    assert cli_in_process("-a", "kt128", "-c", "SUMS", cwd=tmp_path).stdout == (
        b"empty: OK\nabc: OK\nbig.bin: OK\n"
    )
    (tmp_path / "abc").write_bytes(b"abd")
    checked = cli_in_process("-a", "kt128", "-c", "SUMS", cwd=tmp_path)
    assert checked.returncode == 1 and b"abc: FAILED\n" in checked.stdout


def test_carriage_return_in_a_name_round_trips(tmp_path):
    # GNU 9 writes \r escaped (a raw CR would be cut off as a CRLF ending) and reads it back.
    (tmp_path / "cr\r").write_bytes(b"q")
    listing = run_cli("cr\r", cwd=tmp_path).stdout
    assert listing == b"\\" + hashlib.sha3_256(b"q").hexdigest().encode() + b"  cr\\r\n"
    (tmp_path / "S").write_bytes(listing)
    checked = run_cli("-c", "S", cwd=tmp_path)
    assert (checked.stdout, checked.returncode) == (b"cr\r: OK\n", 0)


def test_tagged_listing_checks_without_a(tmp_path):
    (tmp_path / "f").write_bytes(b"data")
    listing = (
        f"SHA3-512 (f) = {hashlib.sha3_512(b'data').hexdigest()}\n"
        f"SHAKE128 (f) = {hashlib.shake_128(b'data').hexdigest(9)}\n"
        f"MD5 (f) = {hashlib.md5(b'data').hexdigest()}\n"
    ).encode()
    (tmp_path / "S").write_bytes(listing)
    done = run_cli("-c", "--warn", "S", cwd=tmp_path)
    assert done.stdout == b"f: OK\nf: OK\n"
    assert done.stderr == (
        b"batchkeccak: S: 3: improperly formatted SHA3-256 checksum line\n"
        b"batchkeccak: WARNING: 1 line is improperly formatted\n"
    )
    assert done.returncode == 0


@pytest.mark.parametrize("argv", [["hash", "f"], ["hash", "f", "f"]])
def test_full_disk_is_a_write_error(tmp_path, argv):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    (tmp_path / "f").write_bytes(b"x")
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "batchkeccak", *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
            timeout=TIMEOUT,
            check=False,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
    assert (done.stderr, done.returncode) == (
        b"batchkeccak: write error: No space left on device\n",
        1,
    )


def test_closed_stdin_is_a_bad_descriptor(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "batchkeccak", "hash", "-"],
        capture_output=True,
        stdin=None,
        cwd=tmp_path,
        timeout=TIMEOUT,
        check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        preexec_fn=lambda: os.close(0),
    )
    # GNU's two lines: the operand's error, then the one of closing stdin at exit.
    assert (done.stdout, done.stderr, done.returncode) == (
        b"",
        (
            b"batchkeccak: -: Bad file descriptor\n"
            b"batchkeccak: standard input: Bad file descriptor\n"
        ),
        1,
    )


def test_check_reports_while_the_listing_is_still_coming(tmp_path):
    # An endless listing: the first verdict comes before its end, memory stays bounded.
    (tmp_path / "f").write_bytes(b"x")
    line = f"{hashlib.sha3_256(b'x').hexdigest()}  f\n".encode()
    process = subprocess.Popen(
        [sys.executable, "-m", "batchkeccak", "hash", "-c"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    process.stdin.write(line)
    process.stdin.flush()
    assert process.stdout.readline() == b"f: OK\n"  # while stdin is still open
    process.stdin.close()
    assert process.wait(timeout=TIMEOUT) == 0


@pytest.mark.skipif(not os.path.exists("/proc/sys/kernel/ostype"), reason="Linux /proc only")
def test_proc_file_alone(tmp_path):
    with open("/proc/sys/kernel/ostype", "rb") as handle:
        want = hashlib.sha3_256(handle.read()).hexdigest()
    done = run_cli("/proc/sys/kernel/ostype")
    assert done.stdout == f"{want}  /proc/sys/kernel/ostype\n".encode()


KEY = b"a key of thirty-two bytes or so!!"


@pytest.fixture
def key_file(tmp_path):
    path = tmp_path / "key"
    path.write_bytes(KEY)
    return path


def _run_cli(argv, stdin=b"", env_extra=None):
    return subprocess.run(
        [sys.executable, "-m", "batchkeccak", "hash", *argv],
        input=stdin,
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **(env_extra or {})},
    )


def _main_in_process(argv, monkeypatch, capsysbinary, stdin=b""):
    """``batchkeccak hash ARGV`` as ``_run_cli`` runs it, in this process (``cli.main``):
    standard input ``stdin``, output and status as a finished child's."""
    import io

    from batchkeccak.cli import main

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    status = main(["hash", *argv])
    out, err = capsysbinary.readouterr()
    return subprocess.CompletedProcess(argv, status, out, err)


def test_keyed_and_tree_modes_hash_files_and_stdin_and_check_back(
    tmp_path, key_file, monkeypatch, capsysbinary
):
    import hmac

    from Crypto.Hash import KMAC256, KangarooTwelve, cSHAKE128

    small, large = tmp_path / "small", tmp_path / "large"
    small.write_bytes(b"hello")
    large.write_bytes(bytes(range(256)) * 9000)  # past the small-file size: streamed
    files = [str(small), str(large)]
    cases = [
        (
            ["-a", "kmac256", "--key-file", str(key_file), "--length", "32"],
            lambda m: KMAC256.new(key=KEY, data=m, mac_len=32).digest(),
        ),
        (
            ["-a", "hmac-sha3-256", "--key-env", "BK_TEST_KEY"],
            lambda m: hmac.digest(KEY, m, "sha3_256"),
        ),
        (
            ["-a", "cshake128", "--customization", "tag", "--length", "20"],
            lambda m: cSHAKE128.new(data=m, custom=b"tag").read(20),
        ),
        (["-a", "KT128"], lambda m: KangarooTwelve.new(data=m).read(32)),
    ]
    monkeypatch.setenv("BK_TEST_KEY", KEY.decode())

    def run(argv, stdin=b""):
        return _main_in_process(argv, monkeypatch, capsysbinary, stdin)

    for options, expected in cases:
        done = run([*options, *files])
        assert done.returncode == 0, done.stderr
        assert done.stdout.decode() == "".join(
            f"{expected(pathlib.Path(f).read_bytes()).hex()}  {f}\n" for f in files
        )
        piped = run([*options, "-"], stdin=b"hello")
        assert piped.stdout.decode() == f"{expected(b'hello').hex()}  -\n"
        listing = tmp_path / "LIST"
        tagged = run([*options, "--tag", *files])
        listing.write_bytes(tagged.stdout)
        # The tags name the algorithm: -c needs only the key, as cksum -c reads its tags.
        keys = [o for o in options if o.startswith("--key")][:1]
        key_args = (
            [*keys, str(key_file) if keys == ["--key-file"] else "BK_TEST_KEY"] if keys else []
        )
        custom = ["--customization", "tag"] if "--customization" in options else []
        checked = run(["-c", *key_args, *custom, str(listing)])
        assert checked.returncode == 0, checked.stderr
        assert checked.stdout.decode() == "".join(f"{f}: OK\n" for f in files)


@pytest.mark.slow  # a child process per case; the whole suite runs it
def test_a_wrong_key_fails_the_check(tmp_path, key_file):
    target = tmp_path / "f"
    target.write_bytes(b"data")
    made = _run_cli(["-a", "kmac128", "--key-file", str(key_file), "--length", "16", str(target)])
    listing = tmp_path / "LIST"
    listing.write_bytes(made.stdout)
    other = tmp_path / "other-key"
    other.write_bytes(b"another key")
    checked = _run_cli(["-c", "-a", "kmac128", "--key-file", str(other), str(listing)])
    assert checked.returncode == 1
    assert checked.stdout.decode() == f"{target}: FAILED\n"
    assert KEY.decode() not in checked.stdout.decode() + checked.stderr.decode()


def test_key_errors_name_the_source_never_the_key(tmp_path):
    target = tmp_path / "f"
    target.write_bytes(b"data")
    missing = _run_cli(["-a", "kmac256", "--length", "32", str(target)])
    assert missing.returncode == 1
    assert missing.stderr.decode() == (
        "batchkeccak: kmac_256 is keyed: give the key with --key-file or --key-env\n"
    )
    unset = _run_cli(["-a", "kmac256", "--key-env", "BK_NO_SUCH_VARIABLE", str(target)])
    assert unset.returncode == 1 and b"BK_NO_SUCH_VARIABLE" in unset.stderr
    refused = _run_cli(["-a", "sha3_256", "--key-env", "HOME", str(target)])
    assert refused.returncode == 1 and b"takes no key" in refused.stderr
    assert os.environ["HOME"].encode() not in refused.stderr


def test_lines_of_a_tree_mode():
    from Crypto.Hash import KangarooTwelve

    done = _run_cli(["--lines", "-a", "kt128", "--length", "8"], stdin=b"a\nbc\n")
    assert done.stdout.decode().split() == [
        KangarooTwelve.new(data=line).read(8).hex() for line in (b"a", b"bc")
    ]


class _Terminal:
    """stdout and a terminal's stderr writing to one screen, in the order they are written."""

    def __init__(self) -> None:
        self.text: list[str] = []

    def stream(self, tty: bool):
        import io

        terminal = self

        class Raw(io.RawIOBase):
            def writable(self):
                return True

            def write(self, data):
                terminal.text.append(bytes(data).decode())
                return len(data)

        class Text(io.TextIOWrapper):
            def isatty(self):
                return tty

        return Text(Raw(), encoding="utf-8", write_through=True)

    def lines(self) -> list[str]:
        """What the screen shows: a carriage return goes back to the line's start."""
        shown = []
        for line in "".join(self.text).split("\n"):
            cells: list[str] = []
            column = 0
            for part_index, part in enumerate(line.split("\r")):
                if part_index:
                    column = 0
                for char in part:
                    if column < len(cells):
                        cells[column] = char
                    else:
                        cells.append(char)
                    column += 1
            shown.append("".join(cells).rstrip())
        return shown


def _hash_on_a_terminal(monkeypatch, tmp_path, delay):
    from batchkeccak.cli import hash as hash_command

    paths = []
    for i, content in enumerate([b"", b"abc", b"x" * 1000]):
        paths.append(tmp_path / f"f{i}.bin")
        paths[-1].write_bytes(content)
    screen = _Terminal()
    monkeypatch.setattr(sys, "stdout", screen.stream(tty=True))
    monkeypatch.setattr(sys, "stderr", screen.stream(tty=True))
    if delay is not None:
        monkeypatch.setattr(hash_command, "PROGRESS_DELAY", delay)
    assert main(["hash", *map(str, paths)]) == 0
    sys.stdout.flush()
    expected = [f"{hashlib.sha3_256(p.read_bytes()).hexdigest()}  {p}" for p in paths]
    return screen, expected


def test_short_work_on_a_terminal_shows_no_bar(monkeypatch, tmp_path):
    screen, expected = _hash_on_a_terminal(monkeypatch, tmp_path, None)
    assert "".join(screen.text) == "".join(line + "\n" for line in expected)


def test_a_bar_is_erased_before_digests_are_written(monkeypatch, tmp_path):
    screen, expected = _hash_on_a_terminal(monkeypatch, tmp_path, 0)  # a bar at once
    assert "files" in "".join(screen.text)  # it was drawn
    assert [line for line in screen.lines() if line] == expected
