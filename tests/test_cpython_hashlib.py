"""CPython's own test_hashlib, run against batchkeccak's hashlib-style objects.

The interpreter's ``test`` package ships ``test_hashlib``; its test case is run here through a
stand-in ``hashlib`` module whose SHA-3 and SHAKE constructors, ``new`` and ``file_digest``
are batchkeccak's. Only the tests that concern those functions run; every one of them passes
except the deliberate differences listed in ``DELIBERATE`` and ``NOT_RUN`` (docs/streams.md
lists them too).
"""

from __future__ import annotations

import hashlib
import types
import unittest

import pytest

import batchkeccak as bk

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy

test_hashlib = pytest.importorskip(
    "test.test_hashlib", reason="this Python was installed without its test package"
)

NAMES = ("sha3_224", "sha3_256", "sha3_384", "sha3_512", "shake_128", "shake_256")

TESTS = (
    "test_hash_array",
    "test_algorithms_guaranteed",
    "test_algorithms_available",
    "test_unknown_hash",
    "test_hexdigest",
    "test_digest_length_overflow",
    "test_name_attribute",
    "test_large_update",
    "test_no_unicode_sha3",
    "test_blocksize_name_sha3",
    "test_extra_sha3",
    "test_case_sha3_224_0",
    "test_case_sha3_256_0",
    "test_case_sha3_384_0",
    "test_case_sha3_512_0",
    "test_case_shake_128_0",
    "test_case_shake_256_0",
    "test_gil",
    "test_threaded_hashing",
    "test_file_digest",
)
"""Every test of the SHA-3 and SHAKE functions, and the generic ones that run over every
constructor. The ``*_vector`` tests download NIST's files from pythontest.net, which this
suite cannot reach; tests/test_kat.py checks the same NIST vectors from pycryptodome's copy."""

DELIBERATE = {
    "test_extra_sha3": "checks the private C attributes of CPython's _sha3 objects "
    "(_capacity_bits, _rate_bits, _suffix); batchkeccak's are plain Python objects",
}

NOT_RUN = {
    "test_digest_length_overflow": "expects SHAKE digests of 2**29 bytes and more to be "
    "refused, as CPython's own _sha3 refuses them (the test skips OpenSSL's objects); "
    "batchkeccak caps them at 2**40 bytes, as OpenSSL does, so it would compute 512 MiB",
}


def stand_in_module() -> types.ModuleType:
    module = types.ModuleType("hashlib")
    module.new = bk.new
    for name in NAMES:
        setattr(module, name, getattr(bk, name))
    module.algorithms_guaranteed = frozenset(NAMES)
    module.algorithms_available = frozenset(NAMES)
    module.file_digest = bk.file_digest
    # test_threaded_hashing updates one shared object from five threads, with SHA-1;
    # SHA3-256 stands in for it (the expected value comes from one update of the same data).
    module.sha1 = bk.sha3_256
    # test_gil checks a fixed SHA-256 digest after running every constructor above: the
    # real SHA-256 answers that part.
    module.sha256 = hashlib.sha256
    return module


class BatchkeccakHashlibTests(test_hashlib.HashLibTestCase):
    __test__ = False  # run by name below, with the stand-in module in place
    supported_hash_names = NAMES
    shakes = frozenset({"shake_128", "shake_256"})

    def __init__(self, *args, **kwargs):
        # The constructors under test: batchkeccak's alone (the parent adds OpenSSL's too).
        self.constructors_to_test = {}
        for name in NAMES:

            def via_new(data=None, _name=name, **params):
                return bk.new(_name, **params) if data is None else bk.new(_name, data, **params)

            self.constructors_to_test[name] = {getattr(bk, name), via_new}
        self._hashlib = None
        unittest.TestCase.__init__(self, *args, **kwargs)


def available_tests() -> list[str]:
    return [name for name in TESTS if hasattr(BatchkeccakHashlibTests, name)]


@pytest.mark.parametrize("name", available_tests())
def test_cpython_hashlib_case(name, monkeypatch):
    if name in NOT_RUN:
        pytest.skip(NOT_RUN[name])
    monkeypatch.setattr(test_hashlib, "hashlib", stand_in_module())
    result = unittest.TestResult()
    BatchkeccakHashlibTests(name).run(result)
    problems = [text for _, text in result.errors + result.failures]
    if name in DELIBERATE:
        assert problems, f"{name} passes now: remove it from DELIBERATE"
        pytest.skip(DELIBERATE[name])
    assert not result.skipped, result.skipped
    assert problems == [], problems[0] if problems else ""
    assert result.testsRun == 1
