"""One message, hashed by hashlib or pycryptodome: the backend for work too small to be worth
the kernels (a hash object that never filled its buffer, a single short message).

A row of the table is here when one of them computes exactly the same function: SHA-3 and
SHAKE through hashlib (OpenSSL), Keccak and TurboSHAKE (any domain byte) through pycryptodome.
Anything else (another domain byte, a start state other than zeros) returns None, and the
caller uses the kernels.
"""

from __future__ import annotations

import hashlib
from typing import cast

from batchkeccak.core.parameters import Algorithm

_FAMILIES = {"hashlib": "hashlib", "keccak": "pycryptodome", "turboshake": "pycryptodome"}
"""The backend of each value of the rows' ``oneshot`` column."""


def backend_family(spec: Algorithm, domain: int) -> str | None:
    """``"hashlib"`` or ``"pycryptodome"``: which one-shot backend has ``spec`` with
    ``domain`` (from the all-zero state), read from the row's ``oneshot`` column; None when
    neither has it."""
    kind = spec.oneshot
    if kind is None or (kind != "turboshake" and domain != spec.suffix):
        return None  # only TurboSHAKE takes any domain byte
    return _FAMILIES[kind]


def oneshot_function(spec: Algorithm, domain: int, out_len: int):
    """A function of one message (bytes-like) returning its ``out_len``-byte digest under
    ``spec`` from the all-zero state with ``domain``; None where no backend has it. Made once
    per call and applied to every message: the loop over a batch stays one ``map``."""
    family = backend_family(spec, domain)
    if family is None:
        return None
    name = spec.name
    if family == "hashlib":
        constructor = getattr(hashlib, name)
        if spec.xof:
            return lambda message: constructor(message).digest(out_len)
        return lambda message: constructor(message).digest()
    if spec.oneshot == "keccak":
        from Crypto.Hash import keccak

        size = cast(int, spec.digest_size)  # the keccak_ rows are fixed-length
        return lambda message: keccak.new(data=message, digest_bytes=size).digest()
    factory = _turboshake(spec)
    return lambda message: factory.new(domain=domain, data=message).read(out_len)


def _turboshake(spec: Algorithm):
    """pycryptodome's TurboSHAKE of the row's capacity (TurboSHAKE128's is 32 bytes)."""
    from Crypto.Hash import TurboSHAKE128, TurboSHAKE256

    return TurboSHAKE128 if spec.capacity == 32 else TurboSHAKE256


def oneshot_digest(
    spec: Algorithm, domain: int, message: bytes | bytearray | memoryview, out_len: int
) -> bytes | None:
    """``out_len`` bytes of ``spec`` over ``message`` from the all-zero state with ``domain``,
    or None where neither hashlib nor pycryptodome has that function."""
    function = oneshot_function(spec, domain, out_len)
    return None if function is None else function(message)


def oneshot_object(spec: Algorithm, domain: int):
    """A new incremental object of the backend (``update(data)``), and the function that reads
    ``out_len`` bytes from it: for one message that arrives in pieces (a file). None where no
    backend has the function."""
    made = oneshot_factory(spec, domain)
    if made is None:
        return None
    make, read = made
    return make(b""), read


def oneshot_factory(spec: Algorithm, domain: int):
    """What makes a new incremental object of the backend, called with the first bytes of
    the message (``b""`` for none), and the function that reads ``out_len`` bytes from one;
    None where no backend has the function."""
    family = backend_family(spec, domain)
    if family is None:
        return None
    if family == "hashlib":
        if spec.xof:
            return getattr(hashlib, spec.name), lambda digest, out_len: digest.digest(out_len)
        return getattr(hashlib, spec.name), lambda digest, out_len: digest.digest()
    if spec.oneshot == "keccak":
        from Crypto.Hash import keccak

        size = cast(int, spec.digest_size)  # the keccak_ rows are fixed-length
        return (
            (lambda data: keccak.new(data=data, digest_bytes=size)),
            lambda digest, out_len: digest.digest(),
        )
    factory = _turboshake(spec)
    return (
        (lambda data: factory.new(domain=domain, data=data)),
        lambda digest, out_len: digest.read(out_len),
    )


def mode_oneshot(form: tuple, out_len: int):
    """The one-shot functions of a mode with these parameters (``form``, which the mode's
    builder sets where a backend has the function): ``(one, start, finish)``, ``one(message)``
    the digest of one bytes-like message, ``start()`` a new incremental object
    (``update(data)``) and ``finish(obj)`` its digest; ``start`` and ``finish`` are None
    where a message must be given whole (TupleHash: an update is one more string).

    - ``("cshake", bits, S)``: pycryptodome's ``cSHAKE128/256`` (the function name N empty);
    - ``("kmac", bits, key, S)``: ``KMAC128/256`` (not the XOF forms; a key of at least
      ``bits / 8`` bytes and an output of at least 8 bytes, which pycryptodome requires);
    - ``("tuplehash", bits, S)``: ``TupleHash128/256`` of the one-string tuple (not the XOF
      forms; an output of at least 8 bytes);
    - ``("hmac", name, key)``: the standard library's ``hmac`` over hashlib's ``name``.
    """
    kind = form[0]
    if kind == "hmac":
        import hmac

        _, name, key = form
        return (
            lambda message: hmac.digest(key, message, name),
            lambda: hmac.new(key, digestmod=name),
            lambda stream: stream.digest(),
        )
    bits = form[1]
    if kind == "cshake":
        from Crypto.Hash import cSHAKE128, cSHAKE256

        cshake = cSHAKE128 if bits == 128 else cSHAKE256
        custom = form[2]
        return (
            lambda message: cshake.new(data=message, custom=custom).read(out_len),
            lambda: cshake.new(custom=custom),
            lambda stream: stream.read(out_len),
        )
    if kind == "kmac":
        from Crypto.Hash import KMAC128, KMAC256

        kmac = KMAC128 if bits == 128 else KMAC256
        key, custom = form[2], form[3]
        return (
            lambda message: kmac.new(
                key=key, data=message, mac_len=out_len, custom=custom
            ).digest(),
            lambda: kmac.new(key=key, mac_len=out_len, custom=custom),
            lambda stream: stream.digest(),
        )
    if kind == "tuplehash":
        from Crypto.Hash import TupleHash128, TupleHash256

        tuplehash = TupleHash128 if bits == 128 else TupleHash256
        custom = form[2]

        def one(message) -> bytes:
            state = tuplehash.new(digest_bytes=out_len, custom=custom)
            state.update(message)
            return state.digest()

        return one, None, None
    raise ValueError(f"mode_oneshot: unknown form {kind!r}")


def tuplehash_oneshot(form: tuple, out_len: int):
    """TupleHash of a tuple of any number of strings (``form`` as in :func:`mode_oneshot`):
    a function of a list of bytes-like strings."""
    from Crypto.Hash import TupleHash128, TupleHash256

    tuplehash = TupleHash128 if form[1] == 128 else TupleHash256
    custom = form[2]

    def hash_tuple(strings) -> bytes:
        state = tuplehash.new(digest_bytes=out_len, custom=custom)
        for string in strings:
            state.update(string)
        return state.digest()

    return hash_tuple
