"""Numba kernels of the Merkle Patricia trie: key order, trie shapes, node encoding, proofs.

Keys are byte strings read through ``(key_data, key_offsets)``; a trie walks them nibble by
nibble, high nibble first. Nothing here allocates a Python object per key or per node: the
shapes of every trie of a batch live in flat arrays (one entry per node), and each level of
nodes is written as RLP into one flat buffer, ready for one batch hash.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from batchkeccak.native.emitters import prefetch
from batchkeccak.native.jit import njit
from batchkeccak.native.words import load_le64, store_le64

LEAF = 0
EXTENSION = 1
BRANCH = 2
BRANCH_VALUE = 3
"""A branch that holds a value too: the value of its key ``key_row``."""

PREFETCH_NODES = 8
"""How many nodes ahead the encoding asks for a value's cache line."""

HASH_REFERENCE = 33
"""Bytes a hashed child takes in its parent: 0xa0 (a 32-byte string) and the hash."""

# Error codes of verify_walk, turned into messages by the caller.
PROOF_OK = 0
PROOF_MISSING_NODE = 1
PROOF_WRONG_HASH = 2
PROOF_MALFORMED = 3
PROOF_EXTRA_NODES = 4


# -- the arrays a trie batch passes around -----------------------------------------------------
#
# Arrays that always travel together go to the kernels as one named tuple: numba takes it as
# one argument and compiles one specialization per set of array types, as it did per list of
# separate arrays.


class SortedKeys(NamedTuple):
    """The keys, row ``r`` at ``data[offsets[r]:offsets[r + 1]]``, and ``order``: position
    ``i`` in key order is row ``order[i]``."""

    data: np.ndarray
    offsets: np.ndarray
    order: np.ndarray


class Values(NamedTuple):
    """The values, row ``r`` at ``data[offsets[r]:offsets[r + 1]]``."""

    data: np.ndarray
    offsets: np.ndarray


class TrieNodes(NamedTuple):
    """The nodes of a batch of tries, one entry each, as :func:`trie_shapes` fills them in."""

    kind: np.ndarray
    path_start: np.ndarray
    first_child: np.ndarray
    child_mask: np.ndarray
    key_row: np.ndarray


class NodeItems(NamedTuple):
    """Where each item (a node, see :func:`encode_level`) is kept: its digest at bytes ``32 *
    slot[item]`` on of ``digests``, or, where ``slot[item]`` is -1, its RLP (under 32 bytes)
    at bytes ``32 * item`` on of ``embedded``, ``embedded_length[item]`` of them."""

    slot: np.ndarray
    digests: np.ndarray
    embedded: np.ndarray
    embedded_length: np.ndarray


# -- bytes -------------------------------------------------------------------------------------
#
# numba reads a negative signed index from the end of the array, and the check it adds for
# that on every computed index keeps LLVM from vectorizing a loop: byte copies indexed with
# int64 offsets were measured 5 to 10 times slower than the same copies indexed unsigned.
# The hot loops below therefore index through ``at``, whose indices are never negative.


@njit(cache=True, nogil=True, inline="always")
def at(index):
    return np.uint64(index)


@njit(cache=True, nogil=True, inline="always")
def copy_bytes(out, position, data, start, count):
    # Eight bytes at a time (LLVM merges each eight into one load and one store), then the
    # rest: the copies here are short (keys, values, digests), where a vectorized loop
    # spends most of its time on its checks and its byte-by-byte tail.
    words = count >> 3
    for w in range(words):
        store_le64(out, position + 8 * w, load_le64(data, start + 8 * w))
    for i in range(8 * words, count):
        out[at(position + i)] = data[at(start + i)]
    return position + count


# -- keys --------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def key_prefixes(key_data, key_offsets):
    """The first 8 bytes of every key as a big-endian uint64, zero-padded: the primary sort
    key, which orders keys as bytes do except among keys that tie on it."""
    count = key_offsets.shape[0] - 1
    out = np.zeros(count, dtype=np.uint64)
    for i in range(count):
        start = key_offsets[i]
        length = min(key_offsets[i + 1] - start, 8)
        word = np.uint64(0)
        for b in range(8):
            word <<= np.uint64(8)
            if b < length:
                word |= np.uint64(key_data[start + b])
        out[i] = word
    return out


@njit(cache=True, nogil=True, inline="always")
def key_less(key_data, key_offsets, a, b):
    start_a = key_offsets[a]
    start_b = key_offsets[b]
    length_a = key_offsets[a + 1] - start_a
    length_b = key_offsets[b + 1] - start_b
    for i in range(min(length_a, length_b)):
        x = key_data[start_a + i]
        y = key_data[start_b + i]
        if x != y:
            return x < y
    return length_a < length_b


@njit(cache=True, nogil=True)
def _merge_sort_run(key_data, key_offsets, order, scratch, first, stop):
    # Bottom-up merge sort of order[first:stop] by whole keys: O(m log m) however many
    # keys share their first 8 bytes, where an insertion sort would turn quadratic.
    width = 1
    size = stop - first
    while width < size:
        lo = first
        while lo < stop:
            mid = min(lo + width, stop)
            hi = min(lo + 2 * width, stop)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if key_less(key_data, key_offsets, order[j], order[i]):
                    scratch[k] = order[j]
                    j += 1
                else:
                    scratch[k] = order[i]
                    i += 1
                k += 1
            while i < mid:
                scratch[k] = order[i]
                i += 1
                k += 1
            while j < hi:
                scratch[k] = order[j]
                j += 1
                k += 1
            lo = hi
        for k in range(first, stop):
            order[k] = scratch[k]
        width *= 2


@njit(cache=True, nogil=True)
def finish_key_order(key_data, key_offsets, group_starts, prefixes, order):
    """Sort, in place, each run of ``order`` whose rows tie on their 8-byte prefix within one
    group, by whole keys; ``order`` arrives sorted by (group, prefix), group g at positions
    ``group_starts[g]:group_starts[g + 1]``. Returns the position of the first of two equal
    keys of one group, or -1."""
    scratch = np.empty(order.shape[0], dtype=order.dtype)
    duplicate = -1
    for g in range(group_starts.shape[0] - 1):
        i = group_starts[g]
        stop = group_starts[g + 1]
        while i < stop:
            j = i + 1
            while j < stop and prefixes[order[j]] == prefixes[order[i]]:
                j += 1
            if j - i > 1:
                _merge_sort_run(key_data, key_offsets, order, scratch, i, j)
                for t in range(i, j - 1):
                    if duplicate < 0 and not key_less(
                        key_data, key_offsets, order[t], order[t + 1]
                    ):
                        duplicate = t
            i = j
    return duplicate


@njit(cache=True, nogil=True)
def ordered_keys(group_starts):
    """``rlp(i)`` for the index ``i`` of every row in its group, as flat keys, and the rows in
    key order: ``rlp(1) .. rlp(127) < rlp(0) = 0x80 < rlp(128) < ...`` (one byte 0x01..0x7f,
    then 0x80, then the longer encodings, whose length byte grows with the value)."""
    groups = group_starts.shape[0] - 1
    count = group_starts[groups] - group_starts[0]
    base = group_starts[0]
    offsets = np.empty(count + 1, dtype=np.int64)
    offsets[0] = 0
    for g in range(groups):
        for row in range(group_starts[g], group_starts[g + 1]):
            index = row - group_starts[g]
            length = 1
            if index >= 128:
                value = index
                while value > 0:
                    length += 1
                    value >>= 8
            offsets[row - base + 1] = offsets[row - base] + length
    data = np.empty(offsets[count], dtype=np.uint8)
    order = np.empty(count, dtype=np.int64)
    for g in range(groups):
        first = group_starts[g] - base
        size = group_starts[g + 1] - group_starts[g]
        for index in range(size):
            position = offsets[first + index]
            if index == 0:
                data[position] = 0x80
            elif index < 128:
                data[position] = index
            else:
                length = offsets[first + index + 1] - position - 1
                data[position] = 0x80 + length
                value = index
                for b in range(length, 0, -1):
                    data[position + b] = value & 0xFF
                    value >>= 8
        # Key order: 1..127, then 0, then 128 and up.
        k = first
        for index in range(1, min(size, 128)):
            order[k] = first + index
            k += 1
        if size > 0:
            order[k] = first
            k += 1
        for index in range(128, size):
            order[k] = first + index
            k += 1
    return data, offsets, order


# -- shapes ------------------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def nibble(key_data, start, i):
    byte = np.int64(key_data[at(start + (i >> 1))])
    return (byte >> 4) if (i & 1) == 0 else (byte & 0x0F)


@njit(cache=True, nogil=True, inline="always")
def shared_nibbles(key_data, start_a, start_b, length):
    """How many leading nibbles the keys at ``start_a`` and ``start_b`` share, compared over
    ``length`` bytes (the shorter key's): ``2 * length`` where one is a prefix of the other."""
    for j in range(length):
        x = key_data[at(start_a + j)]
        y = key_data[at(start_b + j)]
        if x != y:
            return 2 * j + (1 if (x >> 4) == (y >> 4) else 0)
    return 2 * length


@njit(cache=True, nogil=True)
def shared_prefixes(key_data, key_offsets, order, shared):
    """``shared[i]``: the nibbles sorted keys ``i`` and ``i + 1`` have in common. Returns the
    longest key's length in bytes."""
    count = order.shape[0]
    longest = 0
    for i in range(count):
        # As in encode_leaves: the keys' lines asked for ahead, their offsets' further ahead.
        if i + 2 * PREFETCH_NODES < count:
            prefetch(key_offsets, order[i + 2 * PREFETCH_NODES])
        if i + PREFETCH_NODES < count:
            prefetch(key_data, key_offsets[order[i + PREFETCH_NODES]])
        row = order[i]
        start_a = key_offsets[row]
        length_a = key_offsets[row + 1] - start_a
        longest = max(longest, length_a)
        if i + 1 == count:
            break
        start_b = key_offsets[order[i + 1]]
        length = min(length_a, key_offsets[order[i + 1] + 1] - start_b)
        shared[i] = shared_nibbles(key_data, start_a, start_b, length)
    return longest


@njit(cache=True, nogil=True)
def place_roots(group_starts, roots, node_lo, node_hi, path_start):
    """Number the roots of the non-empty tries first, in trie order (an empty trie's
    ``roots`` entry stays -1). Returns how many nodes that makes."""
    nodes = 0
    for g in range(group_starts.shape[0] - 1):
        if group_starts[g + 1] > group_starts[g]:
            roots[g] = nodes
            node_lo[nodes] = group_starts[g]
            node_hi[nodes] = group_starts[g + 1]
            path_start[nodes] = 0
            nodes += 1
    return nodes


# Called once per branch: compiled without numba's reference counting (``_nrt=False``), the
# call costs no atomic reference counts on its array arguments.
@njit(cache=True, nogil=True, _nrt=False)
def branch_children(node, lo, hi, d, nodes, keys, shared, trie, node_hi):
    """Number a branch's children from ``nodes`` on: one per run of the sorted keys
    ``lo:hi`` with the same nibble ``d``, in nibble order (a child's first key at
    ``trie.key_row``, its end at ``node_hi``). Sets the branch's ``child_mask`` and returns
    the next free node number."""
    mask = 0
    i = lo
    while i < hi:
        j = i
        while j < hi - 1 and shared[j] > d:
            j += 1
        mask |= 1 << nibble(keys.data, keys.offsets[keys.order[i]], d)
        trie.key_row[nodes] = i
        node_hi[nodes] = j + 1
        trie.path_start[nodes] = d + 1
        nodes += 1
        i = j + 1
    trie.child_mask[node] = mask
    return nodes


@njit(cache=True, nogil=True)
def trie_shapes(keys, group_starts, trie, node_hi, shared):
    """The nodes of every trie, from its keys in order (``keys.order[group_starts[g]:
    group_starts[g + 1]]`` are trie g's rows, sorted, without absent keys).

    A range of sorted keys sharing a prefix of ``d`` nibbles is one node: a leaf if it holds
    one key; else an extension over the nibbles all of them share beyond ``d`` (the minimum
    of their neighbours' common-prefix lengths), or, when there are none, a branch whose
    children are the runs of keys with the same nibble at ``d`` (a key that ends at ``d`` is
    the branch's value: kind ``BRANCH_VALUE``). A branch's children are numbered
    consecutively, in nibble order.

    Nodes are numbered breadth first across all the tries: the roots first (in trie order),
    then every node one below a root, and so on, so each level is one range of numbers and
    is encoded and hashed without gathering its nodes.

    The caller gives the arrays of the nodes (``trie``, a :class:`TrieNodes`, and
    ``node_hi``), ``3 * len(order) + 1`` entries each (a leaf, a branch or an extension per
    key at most), and ``shared``, ``len(order)`` entries: memory it keeps from call to call
    (fresh memory costs a page fault per 4 KiB written). Returns ``(nodes, roots, levels)``:
    the first ``nodes`` entries are filled in. A node's path is nibbles from ``path_start``
    (to the end of a leaf's key, to the start of an extension's child's path, and none for a
    branch) of the key at position ``key_row`` of the sorted keys (row
    ``order[key_row]``, whose value a leaf or a ``BRANCH_VALUE`` holds); it is the run
    ``key_row:node_hi`` of them; level ``d`` is nodes ``levels[d]:levels[d + 1]``;
    ``roots[g]`` is -1 for an empty trie.
    """
    key_data, key_offsets, order = keys
    kind, path_start, first_child, _, node_lo = trie
    longest = shared_prefixes(key_data, key_offsets, order, shared)
    # No path runs deeper than one level per nibble plus the extension above each branch.
    levels = np.empty(4 * longest + 3, dtype=np.int64)
    roots = np.full(group_starts.shape[0] - 1, -1, dtype=np.int64)
    nodes = place_roots(group_starts, roots, node_lo, node_hi, path_start)
    depth = 0
    levels[0] = 0
    level_end = nodes
    node = np.int64(0)  # not a literal: branch_children is compiled for int64 only
    while node < nodes:
        if node == level_end:
            depth += 1
            levels[depth] = node
            level_end = nodes
        lo = node_lo[node]
        hi = node_hi[node]
        d = path_start[node]
        if hi - lo == 1:
            kind[node] = LEAF
            node += 1
            continue
        common = shared[lo]
        for i in range(lo + 1, hi - 1):
            common = min(common, shared[i])
        if common > d:
            kind[node] = EXTENSION
            first_child[node] = nodes
            node_lo[nodes] = lo
            node_hi[nodes] = hi
            path_start[nodes] = common
            nodes += 1
            node += 1
            continue
        kind[node] = BRANCH
        row = order[lo]
        if 2 * (key_offsets[row + 1] - key_offsets[row]) == d:
            kind[node] = BRANCH_VALUE
            lo += 1
        first_child[node] = nodes
        nodes = branch_children(node, lo, hi, d, nodes, keys, shared, trie, node_hi)
        node += 1
    levels[depth + 1] = nodes
    return nodes, roots, levels[: depth + 2] if nodes else levels[:1]


# -- RLP ---------------------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def header_length(payload):
    if payload <= 55:
        return 1
    n = 1
    while payload > 0:
        n += 1
        payload >>= 8
    return n


@njit(cache=True, nogil=True, inline="always")
def write_header(out, position, payload, short_base):
    """RLP's length prefix (``short_base`` 0x80 for strings, 0xc0 for lists)."""
    if payload <= 55:
        out[at(position)] = short_base + payload
        return position + 1
    size = header_length(payload) - 1
    out[at(position)] = short_base + 55 + size
    for b in range(size, 0, -1):
        out[at(position + b)] = payload & 0xFF
        payload >>= 8
    return position + 1 + size


@njit(cache=True, nogil=True, inline="always")
def string_length(data, start, stop):
    n = stop - start
    if n == 1 and data[at(start)] < 0x80:
        return 1
    return header_length(n) + n


@njit(cache=True, nogil=True, inline="always")
def write_string(out, position, data, start, stop):
    n = stop - start
    if not (n == 1 and data[at(start)] < 0x80):
        position = write_header(out, position, n, 0x80)
    return copy_bytes(out, position, data, start, n)


@njit(cache=True, nogil=True, inline="always")
def path_length(nibbles):
    # Hex-prefix bytes: one flag byte (holding the first nibble when the count is odd) and
    # the rest in pairs; its first byte is below 0x80, so one byte needs no RLP header.
    size = nibbles // 2 + 1
    return 1 if size == 1 else header_length(size) + size


@njit(cache=True, nogil=True, inline="always")
def write_path(out, position, key_data, key_start, start, stop, leaf):
    nibbles = stop - start
    size = nibbles // 2 + 1
    if size > 1:
        position = write_header(out, position, size, 0x80)
    flag = 2 if leaf else 0
    if nibbles & 1:
        out[at(position)] = ((flag + 1) << 4) | nibble(key_data, key_start, start)
        start += 1
    else:
        out[at(position)] = flag << 4
    position += 1
    pairs = (stop - start) >> 1
    first = key_start + (start >> 1)
    if start & 1 == 0:  # the pairs are whole bytes of the key
        return copy_bytes(out, position, key_data, first, pairs)
    for i in range(pairs):
        high = np.int64(key_data[at(first + i)]) & 0x0F
        low = np.int64(key_data[at(first + i + 1)]) >> 4
        out[at(position + i)] = (high << 4) | low
    return position + pairs


# -- nodes into a buffer -----------------------------------------------------------------------
#
# encode_leaves and encode_level fill a buffer the same way: a node's RLP is written at the end
# of what the buffer holds, then either left there to be hashed with the rest of the buffer,
# or copied to ``embedded`` for its parent (and written over by the next node). Both run
# without numba's reference counting (``_nrt=False``, their caller allocating what they
# return), and so do the branch encoders: the steps they share are inlined into them
# (``inline="always"``) at no cost only there. Inlined into a kernel with reference counts,
# steps that read their arrays from a tuple made the leaves 2.5x slower; compiled apart (and
# called: LLVM inlines only the smallest), 1.3x slower.


@njit(cache=True, nogil=True, inline="always")
def fits(buffer, position, size, hashed_items, hashed):
    """Whether a node of ``size`` bytes goes into ``buffer`` at ``position``, and its item
    into ``hashed_items``. It takes 32 bytes at least: one to be embedded is written here
    before it is copied out. Roots are hashed however short, so a buffer may take more of
    them than it has 32 bytes, and ``hashed_items`` (``len(buffer) // 32 + 1`` long at
    most) may be full first."""
    return hashed < hashed_items.shape[0] and position + max(size, 32) <= buffer.shape[0]


@njit(cache=True, nogil=True, inline="always")
def place(items, item, embed, buffer, position, size, offsets, hashed_items, hashed, slot_base):
    """Keep the node of ``item`` just written at ``position``: copied to ``embedded`` for its
    parent, or left in ``buffer`` as its ``hashed``-th node, to be hashed into slot
    ``slot_base + hashed``. Returns the buffer's new end and count of nodes."""
    if embed:
        copy_bytes(items.embedded, 32 * item, buffer, position, size)
        items.embedded_length[item] = size
        items.slot[item] = -1
        return position, hashed
    offsets[hashed] = position
    hashed_items[hashed] = item
    items.slot[item] = slot_base + hashed
    return position + size, hashed + 1


@njit(cache=True, nogil=True, inline="always")
def reference_length(items, item):
    """The bytes a child takes in its parent: a hashed one 0xa0 and its digest, an embedded
    one its RLP."""
    return HASH_REFERENCE if items.slot[item] >= 0 else items.embedded_length[item]


@njit(cache=True, nogil=True, inline="always")
def write_reference(buffer, at_byte, items, item):
    """Write a child as its parent holds it (see :func:`reference_length`)."""
    slot = items.slot[item]
    if slot >= 0:
        buffer[at(at_byte)] = 0xA0
        return copy_bytes(buffer, at_byte + 1, items.digests, 32 * slot, 32)
    return copy_bytes(buffer, at_byte, items.embedded, 32 * item, items.embedded_length[item])


@njit(cache=True, nogil=True, inline="always")
def node_item(trie, items_base, node):
    """A node's item: a leaf's key position, any other node ``n`` the item ``items_base + n``
    (``items_base`` is ``len(order)``)."""
    return trie.key_row[node] if trie.kind[node] == LEAF else items_base + node


@njit(cache=True, nogil=True, _nrt=False)
def encode_leaves(first, stop, group_starts, keys, values, items, buffer, offsets, hashed_items):
    """RLP of the leaves among the sorted keys ``first:stop`` (position i is row
    ``keys.order[i]``, trie g positions ``group_starts[g]:group_starts[g + 1]``), until
    ``buffer`` is full.

    A leaf needs no other node: its path starts one nibble past the longer of the prefixes
    its key shares with its neighbours (where its parent branches), and a key that is a
    prefix of the next one is no leaf but a branch's value. So the leaves, most of the
    nodes and of the bytes, are encoded and hashed while the rest of the trie is built.

    Leaves are items ``first:stop`` of :func:`encode_level`'s scheme: one written to
    ``buffer`` (32 bytes or more, or the root of a one-key trie) gets slot ``first + i``;
    any other is embedded in its parent. Returns ``(reached, needed, hashed)`` as
    :func:`encode_level` does.
    """
    key_data, key_offsets, order = keys
    value_data, value_offsets = values
    groups = group_starts.shape[0] - 1
    low = 0
    high = groups
    while high - low > 1:  # the trie holding position first
        middle = (low + high) // 2
        if group_starts[middle] <= first:
            low = middle
        else:
            high = middle
    g = low
    position = 0
    hashed = 0
    needed = 0
    before = -1  # the nibbles key i shares with key i - 1 of its trie, -1 for its first
    # Starting inside a trie, the step before first only measures what it shares with first.
    i = first - 1 if first > group_starts[g] else first
    while i < stop:
        while group_starts[g + 1] <= i:
            g += 1
        lo = group_starts[g]
        hi = group_starts[g + 1]
        if i == lo:
            before = -1
        # The keys and values are read in key order, which is no order in memory: their
        # cache lines are asked for a few keys ahead, and the lines of their offsets
        # (needed to find them) twice as far ahead.
        if i + 2 * PREFETCH_NODES < stop:
            further = order[i + 2 * PREFETCH_NODES]
            prefetch(key_offsets, further)
            prefetch(value_offsets, further)
        if i + PREFETCH_NODES < stop:
            ahead = order[i + PREFETCH_NODES]
            prefetch(key_data, key_offsets[ahead])
            prefetch(value_data, value_offsets[ahead])
        row = order[i]
        start = key_offsets[row]
        length = key_offsets[row + 1] - start
        after = -1
        if i + 1 < hi:
            next_row = order[i + 1]
            next_start = key_offsets[next_row]
            common = min(length, key_offsets[next_row + 1] - next_start)
            after = shared_nibbles(key_data, start, next_start, common)
        if i < first or after == 2 * length:  # not to encode, or a branch's value
            before = after
            i += 1
            continue
        depth = max(before, after) + 1
        value_start = value_offsets[row]
        value_stop = value_offsets[row + 1]
        payload = path_length(2 * length - depth) + string_length(
            value_data, value_start, value_stop
        )
        size = header_length(payload) + payload
        if not fits(buffer, position, size, hashed_items, hashed):
            needed = 0 if hashed else size
            break
        at_byte = write_header(buffer, position, payload, 0xC0)
        at_byte = write_path(buffer, at_byte, key_data, start, depth, 2 * length, True)
        write_string(buffer, at_byte, value_data, value_start, value_stop)
        embed = size < 32 and hi - lo > 1
        position, hashed = place(
            items, i, embed, buffer, position, size, offsets, hashed_items, hashed, first
        )
        before = after
        i += 1
    offsets[hashed] = position
    return max(i, first), needed, hashed


# The branch encoders run once per branch, compiled apart: measured faster than written out in
# encode_level (see "Tuning log" in docs/performance.md).
@njit(cache=True, nogil=True, _nrt=False)
def branch_payload(node, trie, order, values, items):
    """The RLP payload length of a branch: its 16 children (a hashed child as 0xa0 and its
    digest, an embedded one as its RLP, a missing one as 0x80) and its value."""
    items_base = order.shape[0]
    payload = 1
    child = trie.first_child[node]
    mask = trie.child_mask[node]
    for branch_slot in range(16):
        if (mask >> branch_slot) & 1:
            payload += reference_length(items, node_item(trie, items_base, child))
            child += 1
        else:
            payload += 1
    if trie.kind[node] == BRANCH_VALUE:
        row = order[trie.key_row[node]]
        payload += string_length(values.data, values.offsets[row], values.offsets[row + 1]) - 1
    return payload


@njit(cache=True, nogil=True, _nrt=False)
def write_branch(buffer, at_byte, node, trie, order, values, items):
    """Write a branch's payload (as :func:`branch_payload` counts it) from ``at_byte`` on."""
    items_base = order.shape[0]
    child = trie.first_child[node]
    mask = trie.child_mask[node]
    for branch_slot in range(16):
        if (mask >> branch_slot) & 1:
            at_byte = write_reference(buffer, at_byte, items, node_item(trie, items_base, child))
            child += 1
        else:
            buffer[at(at_byte)] = 0x80
            at_byte += 1
    if trie.kind[node] == BRANCH_VALUE:
        row = order[trie.key_row[node]]
        write_string(buffer, at_byte, values.data, values.offsets[row], values.offsets[row + 1])
    else:
        buffer[at(at_byte)] = 0x80


@njit(cache=True, nogil=True, _nrt=False)
def encode_level(first, stop, root_count, trie, keys, values, items, buffer, offsets, hashed_items):
    """RLP of the branches and extensions among nodes ``first:stop`` of one level (whose
    children are all encoded), until ``buffer`` is full; the leaves are
    :func:`encode_leaves`' work.

    Every node has an item, where its digest or embedded RLP is found (a :class:`NodeItems`):
    a leaf the position of its key (``key_row``), any other node ``n`` the item ``len(order)
    + n``. A node whose RLP is 32 bytes or more, or a root (nodes ``0:root_count``), is
    written into ``buffer``, back to back, to be hashed in one batch: the i-th gets slot
    ``len(order) + first + i``, the row of ``digests`` its hash is to be written to. Any
    other node is embedded in its parent (slot -1). A parent refers to a hashed child as
    0xa0 and its digest.

    Returns ``(reached, needed, hashed)``: the nodes ``first:reached`` are done, and the
    ``hashed`` written to ``buffer`` are items ``hashed_items[:hashed]``, at ``offsets[:hashed
    + 1]``; ``needed`` is the size of a node that does not fit in an empty ``buffer`` (0
    otherwise). ``offsets`` and ``hashed_items`` have room for as many nodes as the buffer
    may take (one per 32 bytes, and the end of the last) or as the range holds.
    """
    kind, path_start, first_child, _, key_row = trie
    key_data, key_offsets, order = keys
    items_base = order.shape[0]
    slot_base = items_base + first
    position = 0
    hashed = 0
    needed = 0
    node = first
    while node < stop:
        k = kind[node]
        if k == LEAF:
            node += 1
            continue
        # The payload's length first: whether the node is embedded, and whether it fits.
        if k >= BRANCH:
            payload = branch_payload(node, trie, order, values, items)
        else:  # an extension, whose child is a branch
            end = path_start[first_child[node]]
            child = items_base + first_child[node]
            payload = path_length(end - path_start[node]) + reference_length(items, child)
        size = header_length(payload) + payload
        if not fits(buffer, position, size, hashed_items, hashed):
            needed = 0 if hashed else size
            break
        # Written at the end of the buffer either way (one output array: a variable that
        # switched between two arrays cost two atomic reference counts per node).
        at_byte = write_header(buffer, position, payload, 0xC0)
        if k >= BRANCH:
            write_branch(buffer, at_byte, node, trie, order, values, items)
        else:
            key_start = key_offsets[order[key_row[node]]]
            at_byte = write_path(buffer, at_byte, key_data, key_start, path_start[node], end, False)
            write_reference(buffer, at_byte, items, child)
        item = items_base + node
        embed = size < 32 and node >= root_count
        position, hashed = place(
            items, item, embed, buffer, position, size, offsets, hashed_items, hashed, slot_base
        )
        node += 1
    offsets[hashed] = position
    return node, needed, hashed


# -- proofs ------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def proof_paths(root, query_data, query_offsets, trie, keys, item_slot):
    """The hashed nodes (an ``item_slot`` >= 0, items as in :func:`encode_level`) on the way
    from ``root`` to each query key, root first: the nodes an ``eth_getProof`` proof lists
    (an embedded node travels inside its parent). Returns ``(nodes, starts)``: query q's
    nodes are ``nodes[starts[q]:starts[q + 1]]``."""
    kind, path_start, first_child, child_mask, key_row = trie
    key_data, key_offsets, order = keys
    items_base = order.shape[0]
    queries = query_offsets.shape[0] - 1
    starts = np.empty(queries + 1, dtype=np.int64)
    capacity = 16
    nodes = np.empty(capacity, dtype=np.int64)
    count = 0
    for q in range(queries):
        starts[q] = count
        node = root
        q_start = query_offsets[q]
        q_nibbles = 2 * (query_offsets[q + 1] - q_start)
        d = 0
        while node >= 0:
            k = kind[node]
            if item_slot[key_row[node] if k == LEAF else items_base + node] >= 0:
                if count == capacity:
                    capacity *= 2
                    grown = np.empty(capacity, dtype=np.int64)
                    for i in range(count):  # not a slice assignment: see docs/performance.md
                        grown[i] = nodes[i]
                    nodes = grown
                nodes[count] = node
                count += 1
            next_node = -1
            if k == EXTENSION:
                start = key_offsets[order[key_row[node]]]
                length = path_start[first_child[node]] - path_start[node]
                if q_nibbles - d >= length:
                    same = True
                    for i in range(length):
                        if nibble(query_data, q_start, d + i) != nibble(
                            key_data, start, path_start[node] + i
                        ):
                            same = False
                            break
                    if same:
                        d += length
                        next_node = first_child[node]
            elif k >= BRANCH and d < q_nibbles:
                branch_slot = nibble(query_data, q_start, d)
                mask = child_mask[node]
                if (mask >> branch_slot) & 1:
                    below = mask & ((1 << branch_slot) - 1)
                    rank = 0
                    while below:
                        below &= below - 1
                        rank += 1
                    next_node = first_child[node] + rank
                    d += 1
            node = next_node
    starts[queries] = count
    return nodes[:count], starts


@njit(cache=True, nogil=True)
def verify_walk(
    root, proof_data, node_offsets, proof_starts, digests, query_data, query_offsets, empty_root
):
    """Follow each query key down its proof from ``root``.

    Proof q is nodes ``proof_starts[q]:proof_starts[q + 1]`` of the flat ``proof_data``
    (``node_offsets`` one entry per node, ``digests`` their Keccak-256). Each node must hash
    to the reference its parent holds (the first to ``root``); an embedded child is read
    inside its parent, and refused (``PROOF_MALFORMED``) when its RLP is over 32 bytes, as
    go-ethereum refuses it. Returns ``(status, value_start, value_stop, bad_node)``: ``status``
    is ``PROOF_OK`` or an error code, and a value start of -1 means the key is absent.
    """
    queries = proof_starts.shape[0] - 1
    digest_bytes = digests.reshape(-1)
    status = np.zeros(queries, dtype=np.int8)
    value_start = np.full(queries, -1, dtype=np.int64)
    value_stop = np.full(queries, -1, dtype=np.int64)
    bad_node = np.full(queries, -1, dtype=np.int64)
    expected = np.empty(32, dtype=np.uint8)
    item_start = np.empty(17, dtype=np.int64)
    item_stop = np.empty(17, dtype=np.int64)
    item_list = np.zeros(17, dtype=np.bool_)
    item_head = np.empty(17, dtype=np.int64)
    for q in range(queries):
        for b in range(32):
            expected[b] = root[b]
        k = proof_starts[q]
        last = proof_starts[q + 1]
        q_start = query_offsets[q]
        q_nibbles = 2 * (query_offsets[q + 1] - q_start)
        d = 0
        if k == last:
            same = True
            for b in range(32):
                if root[b] != empty_root[b]:
                    same = False
            if not same:
                status[q] = PROOF_MISSING_NODE
            continue
        done = False
        while not done:
            if k == last:
                status[q] = PROOF_MISSING_NODE
                bad_node[q] = k - proof_starts[q]
                break
            for b in range(32):
                if digest_bytes[at(32 * k + b)] != expected[b]:
                    status[q] = PROOF_WRONG_HASH
                    bad_node[q] = k - proof_starts[q]
                    done = True
                    break
            if done:
                break
            # The node is one RLP list: it is read as a list of one item, then that item's
            # items are the node's; an embedded child node is read the same way, inside.
            start = node_offsets[k]
            stop = node_offsets[k + 1]
            bad_node[q] = k - proof_starts[q]
            k += 1
            whole_node = True
            while True:
                # The items of start:stop, 17 at most. Written out here, not called: a
                # function taking the array cost two atomic reference counts per call.
                items = 0
                position = start
                while position < stop and items < 17:
                    first = np.int64(proof_data[at(position)])
                    is_list = first >= 0xC0
                    payload_start = position + 1
                    payload_stop = -1
                    if first < 0x80:
                        payload_start = position
                        payload_stop = position + 1
                    elif first < 0xB8 or (is_list and first < 0xF8):
                        payload_stop = payload_start + first - (0xC0 if is_list else 0x80)
                        if payload_stop > stop or (
                            first == 0x81 and proof_data[at(payload_start)] < 0x80
                        ):
                            payload_stop = -1
                    else:
                        size = first - (0xF7 if is_list else 0xB7)
                        if position + 1 + size <= stop and proof_data[at(position + 1)] != 0:
                            length = 0
                            for b in range(size):
                                length = (length << 8) | np.int64(proof_data[at(position + 1 + b)])
                            payload_start = position + 1 + size
                            if length > 55 and payload_start + length <= stop:
                                payload_stop = payload_start + length
                    if payload_stop < 0:
                        break
                    item_start[items] = payload_start
                    item_stop[items] = payload_stop
                    item_list[items] = is_list
                    item_head[items] = position
                    items += 1
                    position = payload_stop
                if whole_node:
                    if position != stop or items != 1 or not item_list[0]:
                        status[q] = PROOF_MALFORMED
                        done = True
                        break
                    start = item_start[0]
                    stop = item_stop[0]
                    whole_node = False
                    continue
                if position != stop or (items != 2 and items != 17):
                    status[q] = PROOF_MALFORMED
                    done = True
                    break
                child = -1
                if items == 17:
                    if d == q_nibbles:
                        if item_list[16]:
                            status[q] = PROOF_MALFORMED
                        elif item_stop[16] > item_start[16]:
                            value_start[q] = item_start[16]
                            value_stop[q] = item_stop[16]
                        done = True
                        break
                    child = nibble(query_data, q_start, d)
                    d += 1
                else:
                    if item_list[0] or item_stop[0] == item_start[0]:
                        status[q] = PROOF_MALFORMED
                        done = True
                        break
                    hp_start = item_start[0]
                    flag = proof_data[at(hp_start)] >> 4
                    if flag > 3 or ((flag & 1) == 0 and (proof_data[at(hp_start)] & 0x0F) != 0):
                        status[q] = PROOF_MALFORMED
                        done = True
                        break
                    odd = flag & 1
                    length = 2 * (item_stop[0] - hp_start) - 2 + odd
                    first_path = 2 - odd
                    matches = q_nibbles - d >= length
                    if matches:
                        for i in range(length):
                            if nibble(query_data, q_start, d + i) != nibble(
                                proof_data, hp_start, first_path + i
                            ):
                                matches = False
                                break
                    if flag >= 2:
                        if item_list[1]:
                            status[q] = PROOF_MALFORMED
                        elif matches and d + length == q_nibbles and (item_stop[1] > item_start[1]):
                            value_start[q] = item_start[1]
                            value_stop[q] = item_stop[1]
                        done = True
                        break
                    if not matches:
                        done = True
                        break
                    d += length
                    child = 1
                a = item_start[child]
                e = item_stop[child]
                if item_list[child]:
                    # An embedded node is one whose RLP is shorter than a hash; go-ethereum's
                    # decodeRef refuses one of more than 32 bytes, and so does this walk.
                    if e - item_head[child] > 32:
                        status[q] = PROOF_MALFORMED
                        done = True
                        break
                    start, stop = a, e
                    continue
                if e - a == 0 and items == 17:
                    done = True
                    break
                if e - a != 32:
                    status[q] = PROOF_MALFORMED
                    done = True
                    break
                for b in range(32):
                    expected[b] = proof_data[at(a + b)]
                break
        if status[q] == PROOF_OK and k != last:
            status[q] = PROOF_EXTRA_NODES
            bad_node[q] = k - proof_starts[q]
    return status, value_start, value_stop, bad_node


# -- columns -----------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def create_messages(addresses, nonces):
    """``rlp([address, nonce])`` of every row, back to back: the message a CREATE address is
    the Keccak-256 of. ``addresses`` is ``(N, 20)`` (or ``(1, 20)`` for one sender)."""
    count = nonces.shape[0]
    shared = addresses.shape[0] == 1
    offsets = np.empty(count + 1, dtype=np.int64)
    offsets[0] = 0
    for i in range(count):
        nonce = nonces[i]
        size = 1
        if nonce >= 128:
            while nonce > 0:
                size += 1
                nonce >>= np.uint64(8)
        offsets[i + 1] = offsets[i] + 22 + size
    data = np.empty(offsets[count], dtype=np.uint8)
    for i in range(count):
        position = offsets[i]
        size = offsets[i + 1] - position
        data[position] = 0xC0 + size - 1
        data[position + 1] = 0x94
        row = 0 if shared else i
        for b in range(20):
            data[position + 2 + b] = addresses[row, b]
        nonce = nonces[i]
        position += 22
        if nonce == 0:
            data[position] = 0x80
        elif nonce < 128:
            data[position] = nonce
        else:
            length = size - 23
            data[position] = 0x80 + length
            for b in range(length, 0, -1):
                data[position + b] = nonce & np.uint64(0xFF)
                nonce >>= np.uint64(8)
    return data, offsets


HEX_CASES = np.frombuffer(b"0123456789abcdef0123456789ABCDEF", dtype=np.uint8)
"""The hex digits in lower case, then in upper case (EIP-55)."""


@njit(cache=True, nogil=True)
def address_hex(addresses, digests, out):
    """The hex of every 20-byte address into the last 40 bytes of each row of ``out``,
    after ``0x`` when ``out`` has 42 bytes a row: in lower case, or, given the Keccak-256
    of that lower-case hex (``digests``, one row per address; none for lower case), each
    letter upper case where the digest's nibble at its place is 8 or more (EIP-55)."""
    count = addresses.shape[0]
    width = out.shape[1]
    source = addresses.reshape(-1)
    target = out.reshape(-1)
    hashes = digests.reshape(-1)
    checksum = digests.shape[0] > 0
    for row in range(count):
        position = row * width + width - 40
        if width == 42:
            target[at(position - 2)] = 0x30
            target[at(position - 1)] = 0x78
        for b in range(20):
            byte = np.int64(source[at(20 * row + b)])
            high_case = 0
            low_case = 0
            if checksum:
                digest = np.int64(hashes[at(32 * row + b)])
                high_case = (digest >> 7) << 4
                low_case = ((digest >> 3) & 1) << 4
            target[at(position + 2 * b)] = HEX_CASES[at(high_case | (byte >> 4))]
            target[at(position + 2 * b + 1)] = HEX_CASES[at(low_case | (byte & 0x0F))]
