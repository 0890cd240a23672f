"""``batchkeccak parquet`` with keyed and customized algorithms: keys from a file or the
environment only, never echoed, never written to the output."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from Crypto.Hash import KMAC256

from batchkeccak.cli import main

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy

KEY = b"0123456789abcdef-secret-key-0123"


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "src.parquet"
    pq.write_table(pa.table({"email": ["ada@example.org", None, "grace@example.org"]}), path)
    return path


def run(source, tmp_path, *options):
    dst = tmp_path / "dst.parquet"
    return main(["parquet", str(source), str(dst), "-c", "email", *options]), dst


def test_key_file_and_customization(source, tmp_path, capsys):
    key_file = tmp_path / "key"
    key_file.write_bytes(KEY)
    status, dst = run(
        source,
        tmp_path,
        "-a",
        "kmac_256",
        "--length",
        "32",
        "--key-file",
        str(key_file),
        "--customization",
        "pseudonyms",
    )
    assert status == 0
    table = pq.read_table(dst)
    digests = table.column("email_kmac_256").to_pylist()
    assert digests[1] is None
    want = KMAC256.new(key=KEY, data=b"ada@example.org", mac_len=32, custom=b"pseudonyms").digest()
    assert digests[0] == want
    out = capsys.readouterr()
    assert KEY.decode() not in out.out + out.err
    assert KEY not in dst.read_bytes()
    assert KEY.decode() not in str(table.schema.metadata) + str(pq.read_metadata(dst))


def test_key_from_the_environment(source, tmp_path, monkeypatch):
    monkeypatch.setenv("PSEUDONYM_KEY", KEY.decode())
    status, dst = run(source, tmp_path, "-a", "hmac_sha3_256", "--key-env", "PSEUDONYM_KEY")
    assert status == 0
    import hmac

    digests = pq.read_table(dst).column("email_hmac_sha3_256").to_pylist()
    assert digests[2] == hmac.digest(KEY, b"grace@example.org", "sha3_256")


@pytest.mark.parametrize(
    "options, message",
    [
        (["-a", "kmac_256", "--length", "32", "--key-file", "MISSING"], "cannot read key file"),
        (["-a", "kmac_256", "--length", "32"], "give the key with --key-file or --key-env"),
        (["-a", "kmac_256", "--length", "32", "--key-env", "UNSET_KEY_VARIABLE"], "is not set"),
        (["-a", "kmac_256", "--length", "32", "--key-file", "EMPTY"], "is empty"),
        (["-a", "sha3_256", "--key-file", "KEY"], "sha3_256 takes no key"),
        (["-a", "sha3_256", "--customization", "x"], "takes no customization"),
        (["-a", "kmac_256", "--key-file", "KEY"], "length is required for kmac_256"),
    ],
)
def test_user_errors_exit_2_without_traceback(
    source, tmp_path, capsys, monkeypatch, options, message
):
    monkeypatch.delenv("UNSET_KEY_VARIABLE", raising=False)
    (tmp_path / "KEY").write_bytes(KEY)
    (tmp_path / "EMPTY").write_bytes(b"")
    options = [str(tmp_path / o) if o in ("MISSING", "EMPTY", "KEY") else o for o in options]
    status, dst = run(source, tmp_path, *options)
    err = capsys.readouterr().err
    assert status == 2 and not dst.exists()
    assert err.startswith("batchkeccak: error:") and message in err
    assert "Traceback" not in err and KEY.decode() not in err
    if "MISSING" in " ".join(options):
        assert "MISSING" in err


def test_key_on_the_command_line_is_refused(source, tmp_path, capsys):
    # A usage error, as GNU reports one (status 1), and the key is not repeated.
    status, _ = run(source, tmp_path, "-a", "kmac_256", "--length", "32", "--key", KEY.decode())
    assert status == 1
    err = capsys.readouterr().err
    assert err == (
        "batchkeccak: option '--key' is ambiguous; possibilities: '--key-file' "
        "'--key-env'\nTry 'batchkeccak parquet --help' for more information.\n"
    )
