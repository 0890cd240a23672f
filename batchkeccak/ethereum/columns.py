"""Keccak-256 columns of Ethereum data: checksummed addresses (EIP-55), CREATE and CREATE2
addresses, function selectors, event topics and the storage slots of mappings.

Each function reads a whole column, builds every message in one numpy (or compiled) pass and
hashes them in one batch call; only the ``str`` results of :func:`checksum_addresses` are
Python objects, one per row, because a list of strings is what was asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from batchkeccak.api import hasher
from batchkeccak.ethereum import _kernels
from batchkeccak.inputs import FlatMessages, flat_to_rows, readonly, to_flat
from batchkeccak.inputs._pylist import flatten_bytes, hex_texts
from batchkeccak.inputs.sequences import COMPILED_READ_MIN, unencodable_text
from batchkeccak.support.checks import check_int, is_int
from batchkeccak.support.hextext import HEX_DIGITS, decode_hex_digits, hex_text_fault

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "checksum_addresses",
    "contract_addresses",
    "create2_addresses",
    "event_topics",
    "mapping_slots",
    "selectors",
]

NO_DIGESTS = readonly(np.zeros((0, 32), dtype=np.uint8))


def keccak_rows(rows: np.ndarray) -> np.ndarray:
    """Keccak-256 of every row of a 2-D uint8 array."""
    return hasher("keccak_256").hash_rows(np.ascontiguousarray(rows))


def is_arrow(value: object) -> bool:
    return type(value).__module__.startswith("pyarrow")


def is_arrow_column(value: object) -> bool:
    if not is_arrow(value):
        return False
    import pyarrow as pa

    return isinstance(value, (pa.Array, pa.ChunkedArray))


def is_arrow_text(value: object) -> bool:
    import pyarrow as pa

    kind = value.type  # type: ignore[attr-defined]  # the caller passes an Arrow array (untyped pyarrow)
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or (hasattr(pa.types, "is_string_view") and pa.types.is_string_view(kind))
    )


def arrow_values(column: object) -> pa.Array:
    """An Arrow column as one array of plain values, nulls kept: its chunks joined, a
    dictionary decoded (its null values become null rows), a view type cast to the large
    type of the same values (whose rows lie back to back, as every reader here needs)."""
    import pyarrow as pa

    from batchkeccak.inputs.arrow_types import normalize

    if isinstance(column, pa.ChunkedArray):
        chunks = column.chunks or [pa.array([], type=column.type)]
    else:
        chunks = [column]
    plain = [normalize(chunk, offsets=True) for chunk in chunks]
    return plain[0] if len(plain) == 1 else pa.concat_arrays(plain)


def null_mask(column: pa.Array) -> np.ndarray | None:
    """A bool mask of the null rows of a plain Arrow array, or None when it has none."""
    if not column.null_count:
        return None
    return column.is_null().to_numpy(zero_copy_only=False)


def without_nulls(values: object, argument: str) -> object:
    """An Arrow column as one plain array (:func:`arrow_values`); ValueError naming its first
    null row, which has no value to derive a result from. Anything else as it is."""
    if not is_arrow_column(values):
        return values
    column = arrow_values(values)
    nulls = null_mask(column)
    if nulls is not None:
        row = int(np.flatnonzero(nulls)[0])
        raise ValueError(
            f"{argument}[{row}] is null; drop or fill the nulls first "
            "(pyarrow.compute.drop_null / fill_null)"
        )
    return column


def text_rows(texts: object, argument: str) -> tuple[np.ndarray, np.ndarray]:
    """A column of ``str`` (a sequence or an Arrow string column) as UTF-8 ``(data,
    offsets)``, the offsets where the rows lie in ``data`` (a slice's do not start at 0);
    TypeError naming the first row that is not a string, ValueError the first null."""
    if not is_arrow(texts):
        import pyarrow as pa

        if isinstance(texts, (str, bytes)):
            raise TypeError(f"{argument} must be a sequence of str, got one {type(texts).__name__}")
        items: list | tuple = (
            texts if isinstance(texts, (list, tuple)) else list(texts)  # type: ignore[call-overload]  # not iterable: TypeError
        )
        if len(items) >= COMPILED_READ_MIN:
            # Exact str of ASCII characters are read where CPython keeps their UTF-8 bytes,
            # in compiled code; any other value (and a short list) goes through Arrow.
            flat = flatten_bytes(items, text=True, binary=False)
            if flat is not None:
                return readonly(flat[0]), readonly(flat[1])
        try:
            texts = pa.array(items, type=pa.string())
        except UnicodeEncodeError:
            fault = unencodable_text(items)
            if fault is None:
                raise
            raise ValueError(
                f"{argument}[{fault[0]}] is not valid UTF-8 text: {fault[1]}"
            ) from None
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
            row = next(i for i, t in enumerate(items) if not isinstance(t, str))
            raise TypeError(
                f"{argument}[{row}] must be a str, got {type(items[row]).__name__}"
            ) from None
    return to_flat(without_nulls(texts, argument), argument)


def fixed_rows(values: object, width: int, argument: str, what: str) -> np.ndarray:
    """A column of ``width``-byte values (any ``hash_many`` form) as ``(N, width)`` uint8;
    ValueError naming the first row of another length, or the first null."""
    values = without_nulls(values, argument)
    if isinstance(values, np.ndarray) and values.ndim == 2:
        if values.dtype != np.uint8:
            raise TypeError(f"{argument} must be a uint8 array, got {values.dtype}")
        if values.shape[1] != width:
            raise ValueError(
                f"{argument} must have {width} bytes per row ({what}), got {values.shape[1]}"
            )
        return values
    data, offsets = to_flat(values, argument)
    return flat_to_rows(data, offsets, width, argument, f"{what} is {width} bytes")


def decode_hex_rows(
    data: np.ndarray, offsets: np.ndarray, digits: int, argument: str, what: str
) -> np.ndarray:
    """Hex text rows (``0x`` and ``digits`` hex digits, or the digits alone) as ``(N,
    digits // 2)`` bytes; ValueError naming the first row that is not."""
    lengths = np.diff(offsets)
    prefixed = lengths == digits + 2
    wrong = np.flatnonzero(~prefixed & (lengths != digits))
    if wrong.size:
        row = int(wrong[0])
        # The row's text, to count its characters rather than its UTF-8 bytes: one of the
        # right count holds a character that is not ASCII, so not a hex digit.
        text = data[int(offsets[row]) : int(offsets[row + 1])].tobytes().decode("utf-8", "replace")
        raise hex_text_fault(text, digits, f"{argument}[{row}]", what)
    starts = offsets[:-1]
    if prefixed.any():
        heads = data[starts[prefixed]]
        marks = data[starts[prefixed] + 1]
        bad = np.flatnonzero((heads != ord("0")) | ((marks != ord("x")) & (marks != ord("X"))))
        if bad.size:
            row = int(np.flatnonzero(prefixed)[bad[0]])
            raw = data[int(offsets[row]) : int(offsets[row + 1])].tobytes()
            raise hex_text_fault(raw.decode("utf-8", "replace"), digits, f"{argument}[{row}]", what)
    count = lengths.shape[0]
    width = int(lengths[0]) if count else digits
    if count and (prefixed.all() or not prefixed.any()):
        # One length for every row (the usual column): the rows are back to back, a 2-D
        # view of the data, where gathering each digit by its own index cost 5 times more.
        begin = int(offsets[0])
        rows = data[begin : begin + count * width].reshape(count, width)
        values, bad = decode_hex_digits(rows[:, width - digits :])
    else:
        first = starts + 2 * prefixed
        values, bad = decode_hex_digits(data[first[:, None] + np.arange(digits)])
    bad_rows = np.flatnonzero(bad)
    if bad_rows.size:
        row = int(bad_rows[0])
        text = data[int(offsets[row]) : int(offsets[row + 1])].tobytes().decode("utf-8", "replace")
        raise hex_text_fault(text, digits, f"{argument}[{row}]", what)
    return values


def address_rows(addresses: object, argument: str = "addresses") -> np.ndarray:
    """Addresses as ``(N, 20)`` uint8, from ``(N, 20)`` uint8, 20-byte values or hex strings
    with or without ``0x`` (any case: a checksum is not checked)."""
    if is_arrow(addresses) and is_arrow_text(addresses):
        data, offsets = text_rows(addresses, argument)
        return decode_hex_rows(data, offsets, 40, argument, "an address")
    if not isinstance(addresses, (np.ndarray, FlatMessages, str, bytes)) and not is_arrow(
        addresses
    ):
        rows = list(addresses)  # type: ignore[call-overload]  # not iterable: TypeError
        if rows and isinstance(rows[0], str):
            # Arrow would read a bytes value as UTF-8 text: refused here, by its row.
            kinds = set(map(type, rows))
            if not all(kind is NONE_TYPE or issubclass(kind, str) for kind in kinds):
                fault = address_list_fault(rows, argument)
                if fault is not None:
                    raise fault
            data, offsets = text_rows(rows, argument)
            return decode_hex_rows(data, offsets, 40, argument, "an address")
        try:
            return fixed_rows(rows, 20, argument, "an address")
        except (TypeError, ValueError):
            # Said of the list where it can be (a str among 20-byte values, hex text given
            # as bytes), rather than of how the first wrong row reads as bytes.
            fault = address_list_fault(rows, argument)
            if fault is None:
                raise
            raise fault from None
    return fixed_rows(addresses, 20, argument, "an address")


NONE_TYPE = type(None)

ADDRESS_LIST_RULE = (
    "a list of addresses is all hex str or all 20-byte values (None allowed in either)"
)


def bytes_view(value: object) -> memoryview | None:
    """``value``'s buffer as a view, or None where it has none."""
    try:
        return memoryview(value)  # type: ignore[arg-type]  # probing the buffer protocol
    except TypeError:
        return None


def holds_hex_text(view: memoryview) -> bool:
    """Whether a bytes-like value holds an address's hex text, ``0x`` or not: refused (bytes
    are an address's own 20 bytes, as eth_utils reads them too), with a hint."""
    if not view.c_contiguous:
        return False
    raw = view.tobytes()
    digits = raw[2:] if len(raw) == 42 and raw[:2] in (b"0x", b"0X") else raw
    return len(digits) == 40 and set(digits.decode("latin-1")) <= HEX_DIGITS


DECODE_HEX_TEXT = "pass hex as str (decode it first, for example value.decode())"


def hex_bytes_fault(name: str, view: memoryview) -> ValueError:
    return ValueError(
        f"{name} is {view.nbytes} bytes of hex text; an address is 20 bytes: {DECODE_HEX_TEXT}"
    )


def address_list_fault(rows: list, argument: str) -> Exception | None:
    """The error for the first wrong value of a list of addresses, where it says more than
    a reader would: a value of the other kind than the first (a bytes-like value among hex
    str, a str among 20-byte values), or bytes that hold hex text. None where the first
    wrong value is wrong otherwise: the reader's own error names it."""
    text = isinstance(rows[0], str)
    for row, item in enumerate(rows):
        if item is None or (text and isinstance(item, str)):
            continue
        name = f"{argument}[{row}]"
        if isinstance(item, str):  # among 20-byte values
            return TypeError(f"{name} is a str in a list of 20-byte values: {ADDRESS_LIST_RULE}")
        view = bytes_view(item)
        if view is None:
            return None
        with view:
            if text:
                hint = f"; it holds hex text: {DECODE_HEX_TEXT}" if holds_hex_text(view) else ""
                return TypeError(
                    f"{name} is {type(item).__name__} in a list of hex str: "
                    f"{ADDRESS_LIST_RULE}{hint}"
                )
            if view.nbytes == 20 and view.c_contiguous:
                continue
            return hex_bytes_fault(name, view) if holds_hex_text(view) else None
    return None


def one_or_rows(value: object, count: int, width: int, argument: str, what: str) -> np.ndarray:
    """One ``width``-byte value (bytes-like or hex) as ``(1, width)``, or a column of
    ``count`` of them as ``(count, width)``."""
    if isinstance(value, str):
        if not value.isascii():  # so not hex (a lone surrogate would not even encode)
            raise hex_text_fault(value, 2 * width, argument, what)
        return decode_hex_rows(
            np.frombuffer(value.encode(), dtype=np.uint8),
            np.array([0, len(value)]),
            2 * width,
            argument,
            what,
        )
    if isinstance(value, (bytes, bytearray, memoryview)) or (
        isinstance(value, np.ndarray) and value.ndim == 1
    ):
        one = bytes(memoryview(value).cast("B"))  # type: ignore[arg-type]  # numpy's stubs give ndarray __buffer__ only on Python 3.12+
        if width == 20 and holds_hex_text(memoryview(one)):
            raise hex_bytes_fault(argument, memoryview(one))
        if len(one) != width:
            raise ValueError(f"{argument} is {len(one)} bytes; {what} is {width} bytes")
        return np.frombuffer(one, dtype=np.uint8).reshape(1, width)
    rows = (
        address_rows(value, argument) if width == 20 else fixed_rows(value, width, argument, what)
    )
    if rows.shape[0] != count:
        raise ValueError(
            f"{argument} has {rows.shape[0]} rows but there are {count}: give one {what} "
            "or one per row"
        )
    return rows


NULL_ADDRESS_TEXT = "0x" + "0" * 40
"""What a null row is read as while the others are checked and hashed; its result is null."""


def nullable_addresses(addresses: object) -> tuple[object, np.ndarray | None]:
    """``addresses`` with every null row (None in a sequence, a null in an Arrow column)
    replaced by the zero address, and the mask of those rows (None when there are none)."""
    if is_arrow_column(addresses):
        import pyarrow as pa
        import pyarrow.compute as pc

        column = arrow_values(addresses)
        nulls = null_mask(column)
        if nulls is None:
            return column, None
        kind = column.type
        filler: str | bytes
        if is_arrow_text(column):
            filler = NULL_ADDRESS_TEXT
        else:
            filler = bytes(kind.byte_width if pa.types.is_fixed_size_binary(kind) else 20)
        return pc.fill_null(column, pa.scalar(filler, type=kind)), nulls
    if isinstance(addresses, (np.ndarray, FlatMessages, str, bytes, bytearray, memoryview)):
        return addresses, None
    rows = list(addresses)  # type: ignore[call-overload]  # not iterable: TypeError
    nulls = np.fromiter((a is None for a in rows), dtype=bool, count=len(rows))
    if not nulls.any():
        return rows, None
    present = rows[int(np.argmin(nulls))]
    filler = NULL_ADDRESS_TEXT if isinstance(present, str) else bytes(20)
    return [filler if a is None else a for a in rows], nulls


def checksum_addresses(addresses: object) -> object:
    """EIP-55 checksummed addresses: hex whose letters are upper case where the Keccak-256
    of the lower-case hex has a nibble of 8 or more.

    Parameters
    ----------
    addresses
        ``(N, 20)`` uint8, a column of 20-byte values (any form ``hash_many`` takes), or
        hex strings (a sequence of ``str`` or an Arrow string column) in any case, with or
        without ``0x``, as ``eth_utils.to_checksum_address`` takes them. A null (None in a
        sequence, a null in an Arrow column) stays null. A list is all hex ``str`` or all
        20-byte values, whatever its first value is; ``bytes`` of hex text are refused.

    Returns
    -------
    list of str or pyarrow.StringArray
        ``"0x"`` and 40 hex digits per address (None for a null); a pyarrow string array
        when ``addresses`` is an Arrow column (``large_string`` past 2 GiB of text,
        51,130,563 addresses).

    Raises
    ------
    ValueError
        Naming the first row that is not 20 bytes, or not 40 ASCII hex digits after an
        optional ``0x`` (a str that UTF-8 cannot encode included).
    TypeError
        Naming the first row that is neither a str nor a bytes-like value, or the first
        value of a list of the other kind than its first (a str among 20-byte values, a
        bytes-like value among hex str).

    Examples
    --------
    >>> from batchkeccak.ethereum import checksum_addresses
    >>> checksum_addresses(["0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", None])
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', None]
    """
    import pyarrow as pa

    decoded = None
    if type(addresses) in (list, tuple) and len(addresses) >= COMPILED_READ_MIN:  # type: ignore[arg-type]  # a list or tuple (checked)
        # Hex text and None, decoded in one compiled pass from where CPython keeps the
        # characters; anything else (and what is wrong with it) through the path below.
        decoded = hex_texts(addresses, 40)
    if decoded is None:
        values, nulls = nullable_addresses(addresses)
        rows = np.ascontiguousarray(address_rows(values))
    else:
        rows, nulls = decoded
    count = rows.shape[0]
    lower = np.empty((count, 40), dtype=np.uint8)
    rows = readonly(rows)
    _kernels.address_hex(rows, NO_DIGESTS, lower)
    text = np.empty((count, 42), dtype=np.uint8)
    _kernels.address_hex(rows, readonly(keccak_rows(lower)), text)
    wide = 42 * count >= 2**31
    offsets = np.arange(0, 42 * count + 1, 42, dtype=np.int64 if wide else np.int32)
    array_type = pa.LargeStringArray if wide else pa.StringArray
    validity = None if nulls is None else pa.py_buffer(np.packbits(~nulls, bitorder="little"))
    texts = array_type.from_buffers(
        count,
        pa.py_buffer(offsets),
        pa.py_buffer(text.reshape(-1)),
        validity,
        0 if nulls is None else int(np.count_nonzero(nulls)),
    )
    if is_arrow(addresses):
        return texts
    # One Arrow column read out as str objects: measured 2.5 times faster than numpy's
    # astype("U42").tolist(), which widens every character to 4 bytes first.
    return texts.to_pylist()


def create2_addresses(deployer: object, salts: object, init_code_hash: object) -> np.ndarray:
    """CREATE2 addresses (EIP-1014): ``keccak256(0xff ++ deployer ++ salt ++
    init_code_hash)[12:]`` for every salt.

    Parameters
    ----------
    deployer
        One address (20 bytes or its hex) for every row, or one per row (``(N, 20)`` uint8,
        20-byte values or hex strings).
    salts
        ``(N, 32)`` uint8 or 32-byte values (any form ``hash_many`` takes).
    init_code_hash
        The Keccak-256 of the init code: one 32-byte value, or one per row.

    Returns
    -------
    numpy.ndarray
        ``(N, 20)`` uint8 addresses.

    Examples
    --------
    >>> from batchkeccak.ethereum import create2_addresses
    >>> create2_addresses(bytes(20), [bytes(32)], bytes.fromhex(
    ...     "bc36789e7a1e281436464229828f817d6612f7b477d66591ff96a9e064bcc98a"))[0].tobytes().hex()
    '4d1a2e2bb4f88f0250f26ffff098b0b30b26bf38'
    """
    salt_rows = fixed_rows(salts, 32, "salts", "a salt")
    count = salt_rows.shape[0]
    deployers = one_or_rows(deployer, count, 20, "deployer", "an address")
    code_hashes = one_or_rows(init_code_hash, count, 32, "init_code_hash", "a hash")
    messages = np.empty((count, 85), dtype=np.uint8)
    messages[:, 0] = 0xFF
    messages[:, 1:21] = deployers
    messages[:, 21:53] = salt_rows
    messages[:, 53:85] = code_hashes
    return keccak_rows(messages)[:, 12:]


def nonce_column(nonces: object) -> np.ndarray:
    """Nonces as uint64; TypeError / ValueError naming the first row that is not an int in
    ``0 .. 2**64 - 1``."""
    if is_arrow_column(nonces):
        import pyarrow as pa

        column = without_nulls(nonces, "nonces")
        kind = column.type  # type: ignore[attr-defined]  # an Arrow array (is_arrow_column); pyarrow is untyped
        if not pa.types.is_integer(kind):
            raise TypeError(f"nonces must hold ints, got Arrow type {kind}")
        nonces = column.to_numpy()  # type: ignore[attr-defined]  # an Arrow array (is_arrow_column); pyarrow is untyped
    if isinstance(nonces, np.ndarray):
        if nonces.ndim != 1:
            raise ValueError(f"nonces must be a 1-D column of ints, got {nonces.ndim}-D")
        if nonces.shape[0] and nonces.dtype.kind not in "iu":
            raise TypeError(f"nonces must hold ints, got {nonces.dtype}")
        if nonces.dtype.kind == "i" and (nonces < 0).any():
            row = int(np.flatnonzero(nonces < 0)[0])
            raise ValueError(f"nonces[{row}] = {int(nonces[row])} is negative")
        return nonces.astype(np.uint64)
    if isinstance(nonces, (str, bytes)):
        raise TypeError(f"nonces must be a column of ints, got {type(nonces).__name__}")
    values = list(nonces)  # type: ignore[call-overload]  # anything else is taken as an iterable of ints; list() raises TypeError
    for row, nonce in enumerate(values):
        number = check_int(nonce, f"nonces[{row}]")
        if number < 0:
            raise ValueError(f"nonces[{row}] = {number} is negative")
        if number >= 2**64:
            raise ValueError(f"nonces[{row}] = {number} does not fit in 64 bits (EIP-2681)")
    return np.array(values, dtype=np.uint64)


def contract_addresses(deployers: object, nonces: object) -> np.ndarray:
    """CREATE addresses: ``keccak256(rlp([sender, nonce]))[12:]`` for every nonce.

    ``deployers`` is one sender or one per row, in the forms ``deployer`` takes in
    :func:`create2_addresses`; ``nonces`` are N ints in ``0 .. 2**64 - 1`` (a sequence, a
    numpy or an Arrow integer array). Returns the ``(N, 20)`` uint8 addresses.

    Examples
    --------
    >>> from batchkeccak.ethereum import contract_addresses
    >>> sender = bytes.fromhex("6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0")
    >>> contract_addresses(sender, [0])[0].tobytes().hex()
    'cd234a471b72ba2f1ccf0a70fcaba648a5eecd8d'
    """
    nonce_values = nonce_column(nonces)
    count = nonce_values.shape[0]
    senders = one_or_rows(deployers, count, 20, "deployers", "an address")
    data, offsets = _kernels.create_messages(
        readonly(np.ascontiguousarray(senders)), readonly(nonce_values)
    )
    return hasher("keccak_256").hash_flat(data, offsets)[:, 12:]


def signature_rows(signatures: object) -> tuple[np.ndarray, np.ndarray]:
    """Signature strings as UTF-8 ``(data, offsets)``; ValueError naming a row that is not
    in canonical form (a name, then parameter types in parentheses, no spaces)."""
    as_bytes = isinstance(signatures, (np.ndarray, FlatMessages)) or (
        is_arrow(signatures) and not is_arrow_text(signatures)
    )
    if as_bytes:
        data, offsets = to_flat(without_nulls(signatures, "signatures"), "signatures")
    else:
        data, offsets = text_rows(signatures, "signatures")
    lengths = np.diff(offsets)
    count = lengths.shape[0]
    if count == 0:
        return data, offsets
    # The last byte of each row; an empty row has none (and may sit where data ends).
    filled = lengths > 0
    last = np.zeros(count, dtype=np.uint8)
    last[filled] = data[offsets[1:][filled] - 1]
    opens = np.zeros(count, dtype=bool)
    row_of_byte = np.repeat(np.arange(count), lengths)
    region = data[int(offsets[0]) : int(offsets[-1])]
    opens[row_of_byte[region == ord("(")]] = True
    spaced = np.zeros(count, dtype=bool)
    spaced[row_of_byte[np.isin(region, np.frombuffer(b" \t\r\n", dtype=np.uint8))]] = True
    wrong = np.flatnonzero((lengths < 3) | (last != ord(")")) | ~opens | spaced)
    if wrong.size:
        row = int(wrong[0])
        text = bytes(data[offsets[row] : offsets[row + 1]]).decode("utf-8", "replace")
        raise ValueError(
            f"signatures[{row}] = {text!r} is not a canonical signature such as "
            "'transfer(address,uint256)' (a name, the parameter types in parentheses, no "
            "spaces)"
        )
    return data, offsets


def selectors(signatures: object) -> np.ndarray:
    """Function selectors: the first 4 bytes of the Keccak-256 of each canonical signature.

    Parameters
    ----------
    signatures
        Signature strings such as ``"transfer(address,uint256)"``: a sequence of ``str``,
        an Arrow string column, or their UTF-8 bytes in any form ``hash_many`` takes.

    Returns
    -------
    numpy.ndarray
        ``(N, 4)`` uint8.

    Examples
    --------
    >>> from batchkeccak.ethereum import selectors
    >>> selectors(["transfer(address,uint256)"])[0].tobytes().hex()
    'a9059cbb'
    """
    return event_topics(signatures)[:, :4]


def event_topics(signatures: object) -> np.ndarray:
    """Event topics (``topic0``): the Keccak-256 of each canonical event signature.

    Parameters
    ----------
    signatures
        Signature strings such as ``"Transfer(address,address,uint256)"``, as for
        :func:`selectors`.

    Returns
    -------
    numpy.ndarray
        ``(N, 32)`` uint8.

    Examples
    --------
    >>> from batchkeccak.ethereum import event_topics
    >>> event_topics(["Transfer(address,address,uint256)"])[0].tobytes().hex()[:16]
    'ddf252ad1be2c89b'
    """
    data, offsets = signature_rows(signatures)
    return hasher("keccak_256").hash_flat(data, offsets)


def word(value: object, argument: str) -> bytes:
    """A 32-byte word from an int (two's complement for a negative one, as ``int256``) or
    32 bytes."""
    if is_int(value):
        number = int(value)
        if not -(2**255) <= number < 2**256:
            raise ValueError(f"{argument} = {number} does not fit in 32 bytes")
        return (number % 2**256).to_bytes(32, "big")
    try:
        raw = bytes(memoryview(value).cast("B"))  # type: ignore[arg-type]  # probing the buffer protocol: TypeError is caught below
    except TypeError:
        raise TypeError(
            f"{argument} must be an int or 32 bytes, got {type(value).__name__}"
        ) from None
    if len(raw) != 32:
        raise ValueError(f"{argument} is {len(raw)} bytes; a word is 32")
    return raw


def key_words(keys: object) -> np.ndarray:
    """Mapping keys as ``(N, 32)`` words: words as they are, addresses left-padded with
    zeros, ints as 32-byte big-endian (two's complement when negative)."""
    keys = without_nulls(keys, "keys")
    if is_arrow_column(keys):
        import pyarrow as pa

        if pa.types.is_integer(keys.type):  # type: ignore[attr-defined]  # an Arrow array (is_arrow_column); pyarrow is untyped
            keys = keys.to_pylist()  # type: ignore[attr-defined]  # an Arrow array (is_arrow_column); pyarrow is untyped
    if isinstance(keys, np.ndarray) and keys.ndim == 2:
        if keys.dtype != np.uint8 or keys.shape[1] not in (20, 32):
            raise ValueError(
                f"keys as an array must be (N, 32) words or (N, 20) addresses of uint8, got "
                f"{keys.shape} {keys.dtype}"
            )
        rows = keys
    elif isinstance(keys, (list, tuple)) and keys and all(is_int(k) for k in keys):
        rows = np.frombuffer(
            b"".join(word(k, f"keys[{i}]") for i, k in enumerate(keys)), dtype=np.uint8
        ).reshape(-1, 32)
    else:
        data, offsets = to_flat(keys, "keys")
        lengths = np.diff(offsets)
        wrong = np.flatnonzero((lengths != 32) & (lengths != 20))
        if wrong.size:
            row = int(wrong[0])
            raise ValueError(
                f"keys[{row}] is {int(lengths[row])} bytes; a key is a 32-byte word or a "
                "20-byte address"
            )
        rows = np.zeros((lengths.shape[0], 32), dtype=np.uint8)
        index = offsets[1:, None] - 32 + np.arange(32)
        inside = np.arange(32) >= 32 - lengths[:, None]
        rows[inside] = data[index[inside]]
        return rows
    if rows.shape[1] == 20:
        padded = np.zeros((rows.shape[0], 32), dtype=np.uint8)
        padded[:, 12:] = rows
        return padded
    return rows


def mapping_slots(keys: object, slot: object) -> np.ndarray:
    """Storage slots of Solidity mapping entries: ``keccak256(pad32(key) ++ pad32(slot))``.

    Parameters
    ----------
    keys
        ``(N, 32)`` uint8 words, ``(N, 20)`` uint8 addresses (left-padded with zeros), a
        sequence of 32- or 20-byte values, or a sequence of Python ints or an Arrow integer
        column (negative ones as ``int256``, in two's complement).
    slot
        The mapping's own slot: an int, or 32 bytes.

    Returns
    -------
    numpy.ndarray
        ``(N, 32)`` uint8 slots.

    Examples
    --------
    >>> from batchkeccak.ethereum import mapping_slots
    >>> mapping_slots([1], 0)[0].tobytes().hex()[:16]
    'ada5013122d395ba'
    """
    words = key_words(keys)
    messages = np.empty((words.shape[0], 64), dtype=np.uint8)
    messages[:, :32] = words
    messages[:, 32:] = np.frombuffer(word(slot, "slot"), dtype=np.uint8)
    return keccak_rows(messages)
