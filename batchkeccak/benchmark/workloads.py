"""The workloads: each builds its messages, checks digests, times, and returns a Workload."""

from __future__ import annotations

import functools
import importlib.util
import time
from collections.abc import Callable, Sequence

import numpy as np

from batchkeccak.benchmark.competitors import (
    Adapter,
    Competitor,
    check_digests,
    check_same,
    resolve_competitors,
    sample_indices,
)
from batchkeccak.benchmark.config import SuiteConfig
from batchkeccak.benchmark.report import Row, Workload, size_text
from batchkeccak.benchmark.startup import measure_startup
from batchkeccak.benchmark.timing import interleaved
from batchkeccak.core import parallel
from batchkeccak.inputs import FlatMessages


def _xof_length(algorithm: str) -> int | None:
    from batchkeccak.core.parameters import get_algorithm

    return 32 if get_algorithm(algorithm).xof else None


def _out_len(algorithm: str) -> int:
    from batchkeccak.core.parameters import get_algorithm

    spec = get_algorithm(algorithm)
    return spec.digest_size or 32


def _permutations(lengths: np.ndarray, algorithm: str) -> int:
    """Keccak-p calls the sponge makes for messages of these lengths."""
    from batchkeccak.core.parameters import get_algorithm

    spec = get_algorithm(algorithm)
    squeeze_extra = (_out_len(algorithm) - 1) // spec.rate
    return int(np.sum(lengths // spec.rate + 1)) + len(lengths) * squeeze_extra


def _random_rows(count: int, size: int, seed: int) -> np.ndarray:
    return np.frombuffer(np.random.default_rng(seed).bytes(count * size), np.uint8).reshape(
        count, size
    )


def log_uniform_lengths(count: int, maximum: int, seed: int) -> np.ndarray:
    """Message lengths from 0 to ``maximum`` bytes, uniform in log(1 + length)."""
    rng = np.random.default_rng(seed)
    lengths = np.exp(rng.uniform(0.0, np.log(maximum + 1), size=count)).astype(np.int64) - 1
    return np.clip(lengths, 0, maximum)


def _thread_label(threads: int) -> str:
    return f"{threads} thread" + ("" if threads == 1 else "s")


_PermutationBench = tuple[Callable, Callable, Callable, np.ndarray, np.ndarray, np.ndarray]
"""The jitted tile, state and chain loops, a tile, its spare and one state's lanes."""


class Context:
    """What every workload needs: the config, the competitors, notes, a logger."""

    def __init__(self, config: SuiteConfig, competitors: Sequence[Competitor], log) -> None:
        from batchkeccak.core.parallel import available_cores

        self.config = config
        self.competitors = competitors
        self.log = log
        self.notes: list[str] = []
        self.cores = available_cores()
        self.tsc_hz: float | None = None
        self.compile_s: dict[str, float] = {}
        self.permutation: _PermutationBench | None = None

    def adapters(self, algorithm: str) -> list[tuple[Competitor, Adapter]]:
        return resolve_competitors(self.competitors, algorithm, _xof_length(algorithm), self.notes)


def _compare_workload(
    ctx: Context,
    workload: Workload,
    batch: Callable[[int | None], np.ndarray],
    messages: Callable[[int], bytes],
    count: int,
    competitor_messages: list[bytes],
    per_message_bytes: int | None,
    total_bytes: int,
    thread_options: Sequence[int | None] = (1, None),
) -> None:
    """Time batchkeccak (per thread option) and every competitor loop, interleaved."""
    algorithm = workload.algorithm
    assert algorithm is not None
    expected = batch(1)
    for threads in thread_options:
        if threads != 1:
            check_same(workload.name, f"threads={threads}", batch(threads), expected)
    adapters = ctx.adapters(algorithm)
    indices = sample_indices(len(competitor_messages), ctx.config.sample)
    for competitor, adapter in adapters:
        check_digests(
            competitor.name,
            adapter.digest,
            messages,
            expected,
            indices,
            f"{workload.name} ({algorithm})",
        )
    candidates: dict[str, Callable[[], object]] = {}
    for threads in thread_options:
        key = "batchkeccak-1" if threads == 1 else "batchkeccak-all"
        candidates[key] = functools.partial(batch, threads)
    for competitor, adapter in adapters:
        candidates[competitor.name] = functools.partial(adapter.loop, competitor_messages)
    times = interleaved(candidates, ctx.config.repeats)
    subset_bytes = sum(map(len, competitor_messages))
    for threads in thread_options:
        key = "batchkeccak-1" if threads == 1 else "batchkeccak-all"
        used = 1 if threads == 1 else ctx.cores
        workload.rows.append(
            Row(
                key,
                f"batchkeccak, {_thread_label(used)}",
                used,
                count,
                total_bytes,
                times[key],
                per_message_bytes,
            )
        )
    for competitor, _ in adapters:
        note = (
            ""
            if len(competitor_messages) == count
            else f"timed on {len(competitor_messages):,} of {count:,} messages"
        )
        workload.rows.append(
            Row(
                competitor.name,
                competitor.label,
                1,
                len(competitor_messages),
                subset_bytes,
                times[competitor.name],
                per_message_bytes,
                note,
            )
        )


def _permutation_loops():
    from numba import njit

    from batchkeccak.permutation import state_permute, tile_permute

    # Compiled afresh on every run (well under a second) rather than cached: a loop that
    # inlined an older permutation would time yesterday's kernel.
    @njit(nogil=True)
    def tile_loop(tile, spare, first_round, calls):
        for _ in range(calls):
            tile_permute(tile, spare, first_round)
        return tile[0]

    @njit(nogil=True)
    def state_loop(lanes, first_round, calls):
        for _ in range(calls):
            state_permute(lanes, first_round)
        return lanes[0]

    @njit(nogil=True)
    def chain_loop(seed, steps):
        # One dependent scalar chain, no memory: each step waits on the last, so a core runs
        # it at full speed even when another thread shares its execution units.
        x = seed
        for _ in range(steps):
            x = (x + np.uint64(0x9E3779B97F4A7C15)) ^ (x >> np.uint64(7))
        return x

    return tile_loop, state_loop, chain_loop


def _permutation_bench(ctx: Context) -> _PermutationBench:
    """The jitted permutation loops and their buffers, compiled once per run."""
    if ctx.permutation is None:
        from batchkeccak.permutation import LANE_COUNT, TILE_WIDTH, new_tiles

        started = time.perf_counter()
        tile_loop, state_loop, chain_loop = _permutation_loops()
        rng = np.random.default_rng(ctx.config.seed)
        tile, spare = new_tiles()  # 64-byte aligned, as the kernels allocate theirs
        tile[:] = rng.integers(0, 2**63, size=LANE_COUNT * TILE_WIDTH, dtype=np.uint64)
        lanes = tile[:LANE_COUNT].copy()
        tile_loop(tile, spare, 0, 1)
        state_loop(lanes, 0, 1)
        chain_loop(np.uint64(1), 1)
        ctx.compile_s["permutation loops"] = time.perf_counter() - started
        ctx.permutation = (tile_loop, state_loop, chain_loop, tile, spare, lanes)
    return ctx.permutation


def bench_permutation(ctx: Context) -> Workload:
    from batchkeccak.core.parameters import get_algorithm
    from batchkeccak.permutation import TILE_WIDTH, new_tiles

    config = ctx.config
    rate = get_algorithm(config.algorithm).rate
    workload = Workload(
        "permutation",
        f"Keccak-f[1600] in a jitted loop, no Python overhead; MB/s = {rate} B absorbed per "
        f"permutation, the one-core ceiling for {config.algorithm}",
        None,
        "state-permutation",
    )
    tile_loop, state_loop, chain_loop, tile, spare, lanes = _permutation_bench(ctx)
    tile_calls = config.permutation_calls
    state_calls = config.permutation_calls * TILE_WIDTH // 4
    chain_steps = config.permutation_calls * 4096  # about as long as the tile loop
    cores = parallel.available_cores()
    # The same loops on every core at once, each on its own data: how far the machine itself
    # lets a kernel scale, the ceiling for every multi-threaded figure. The tile keeps the
    # vector pipes busy; the dependent chain barely uses any, so it scales even where two
    # virtual cores share one physical core's execution units, and the tile then does not.
    own_tiles = [new_tiles() for _ in range(cores)]
    for own_tile, _ in own_tiles:
        own_tile[:] = tile
    seeds = [(np.uint64(core + 1),) for core in range(cores)]

    def tile_everywhere():
        parallel.run_parallel(lambda buffers: tile_loop(*buffers, 0, tile_calls), own_tiles)

    def chain_everywhere():
        parallel.run_parallel(lambda seed: chain_loop(*seed, chain_steps), seeds)

    candidates = {
        "tile": lambda: tile_loop(tile, spare, 0, tile_calls),
        "state": lambda: state_loop(lanes, 0, state_calls),
    }
    if cores > 1:
        candidates["tile_all_cores"] = tile_everywhere
        candidates["chain"] = lambda: chain_loop(np.uint64(1), chain_steps)
        candidates["chain_all_cores"] = chain_everywhere
    times = interleaved(candidates, config.repeats)
    tile_items = tile_calls * TILE_WIDTH
    workload.rows.append(
        Row(
            "tile",
            f"tile_permute ({TILE_WIDTH} states)",
            1,
            tile_items,
            tile_items * rate,
            times["tile"],
        )
    )
    workload.rows.append(
        Row("state", "state_permute (1 state)", 1, state_calls, state_calls * rate, times["state"])
    )
    if cores > 1:
        workload.rows.append(
            Row(
                "tile_all_cores",
                f"tile_permute on {cores} cores at once",
                cores,
                tile_items * cores,
                tile_items * cores * rate,
                times["tile_all_cores"],
            )
        )
        scaling = workload.rows[0].ns_per_item / workload.rows[2].ns_per_item
        workload.figures["tile_core_scaling"] = scaling
        chain_one = Row(
            "chain", "dependent scalar chain, ns/step", 1, chain_steps, 0, times["chain"]
        )
        chain_all = Row(
            "chain_all_cores",
            f"dependent scalar chain on {cores} cores at once",
            cores,
            chain_steps * cores,
            0,
            times["chain_all_cores"],
        )
        workload.rows += [chain_one, chain_all]
        chain_scaling = chain_one.ns_per_item / chain_all.ns_per_item
        workload.figures["chain_core_scaling"] = chain_scaling
        workload.notes.append(
            f"{cores} cores at once permute {scaling:.2f}x the states per second of one core; "
            f"a dependent scalar chain runs {chain_scaling:.2f}x as many steps"
        )
        if chain_scaling > 0.9 * cores and scaling < 0.75 * cores:
            workload.notes.append(
                "the cores run at once but share vector execution units, as SMT siblings "
                f"do: a kernel that keeps the vector pipes busy cannot reach {cores}x here"
            )
    tile_ns = workload.rows[0].ns_per_item
    state_ns = workload.rows[1].ns_per_item
    workload.figures["tile_over_state"] = tile_ns / state_ns
    if ctx.tsc_hz:
        workload.figures["tile_cycles_per_state"] = tile_ns * ctx.tsc_hz / 1e9
        workload.figures["state_cycles"] = state_ns * ctx.tsc_hz / 1e9
        workload.rows[0].note = f"{tile_ns * ctx.tsc_hz / 1e9:,.0f} TSC cycles/state"
        workload.rows[1].note = f"{state_ns * ctx.tsc_hz / 1e9:,.0f} TSC cycles"
    workload.notes.append(
        f"one state in a tile costs {tile_ns / state_ns:.2f}x a single-state permutation"
    )
    return workload


def _longest_first(offsets: np.ndarray, rate: int) -> np.ndarray:
    # The order batchkeccak.api.hash_flat gives the sponge for messages of varied sizes.
    blocks = np.diff(offsets) // rate + 1
    return np.argsort(blocks.max() - blocks, kind="stable").astype(np.int64)


def bench_absorb(ctx: Context) -> Workload:
    from batchkeccak.core.hashers import ZERO_STATE
    from batchkeccak.core.parameters import get_algorithm
    from batchkeccak.inputs import to_flat
    from batchkeccak.permutation import TILE_WIDTH
    from batchkeccak.sponge import run_jobs

    config = ctx.config
    algorithm = config.algorithm
    spec = get_algorithm(algorithm)
    first_round = spec.first_round
    out_len = _out_len(algorithm)
    workload = Workload(
        "absorb",
        "sponge.run_jobs on one thread, flat buffers, no API: ns per permutation "
        "(absorb + permute + squeeze + lane refills), interleaved with the bare tile "
        "permutation",
        algorithm,
        "permutation",
    )
    varied_count = min(config.varied_count, 1 << 16)
    lengths = log_uniform_lengths(varied_count, config.varied_max, config.seed + 4)
    varied_offsets = np.zeros(varied_count + 1, dtype=np.int64)
    np.cumsum(lengths, out=varied_offsets[1:])
    varied_data = np.frombuffer(
        np.random.default_rng(config.seed + 5).bytes(int(varied_offsets[-1])), np.uint8
    )
    long_data = _random_rows(2 * TILE_WIDTH, config.absorb_size, config.seed + 7)
    short_data = _random_rows(min(config.small_count, 1 << 16), config.small_size, config.seed + 7)
    # A plain tuple would be two messages (the data and the offsets), not varied_count.
    varied_flat = to_flat(FlatMessages(varied_data, varied_offsets))
    cases = {
        "long": (f"{2 * TILE_WIDTH} x {size_text(config.absorb_size)}", to_flat(long_data), None),
        "short": (
            f"{short_data.shape[0]:,} x {size_text(config.small_size)}",
            to_flat(short_data),
            None,
        ),
        "varied-sorted": (
            f"{varied_count:,} log-uniform 0..{size_text(config.varied_max)}, longest first",
            varied_flat,
            _longest_first(varied_flat[1], spec.rate),
        ),
        "varied-natural": ("the same, in their own order", varied_flat, None),
    }
    candidates: dict[str, Callable[[], object]] = {}
    shapes = {}
    for key, (label, (data, offsets), order) in cases.items():
        count = offsets.shape[0] - 1
        if order is None:
            order = np.arange(count, dtype=np.int64)
        out = np.empty((count, out_len), dtype=np.uint8)
        args = (
            data,
            offsets,
            None,
            order,
            None,
            ZERO_STATE,
            None,
            spec.rate,
            spec.suffix,
            first_round,
            out,
        )
        run_jobs(*args)
        check_same(
            "absorb", f"run_jobs on {label}", out, _hash(FlatMessages(data, offsets), algorithm, 1)
        )
        candidates[key] = functools.partial(run_jobs, *args)
        shapes[key] = (
            label,
            count,
            int(offsets[-1] - offsets[0]),
            _permutations(np.diff(offsets), algorithm),
        )
    tile_loop, _, _, tile, spare, _ = _permutation_bench(ctx)
    tile_calls = max(1, config.permutation_calls // 4)
    candidates["tile"] = lambda: tile_loop(tile, spare, first_round, tile_calls)
    times = interleaved(candidates, config.repeats)
    tile_row = Row(
        "tile",
        f"tile_permute alone ({TILE_WIDTH} states)",
        1,
        tile_calls * TILE_WIDTH,
        tile_calls * TILE_WIDTH * spec.rate,
        times["tile"],
    )
    shape_rows = {}
    for key, (label, count, nbytes, perms) in shapes.items():
        row = Row(key, f"run_jobs, {label}", 1, perms, nbytes, times[key])
        share = tile_row.ns_per_item / row.ns_per_item
        row.note = f"the permutation is {share:.0%} of it"
        workload.figures[f"{key}_permutation_share"] = share
        workload.rows.append(row)
        shape_rows[key] = row
    workload.rows.append(tile_row)
    sorted_row, natural_row = shape_rows["varied-sorted"], shape_rows["varied-natural"]
    workload.figures["sorted_over_natural_time"] = sorted_row.best / natural_row.best
    workload.notes.append(
        f"varied sizes: the longest-first order takes {sorted_row.best / natural_row.best:.2f}x "
        "the time of the messages' own order"
    )
    return workload


def _hash(messages: object, algorithm: str, threads: int | None) -> np.ndarray:
    import batchkeccak

    return batchkeccak.hash_many(
        messages, algorithm, length=_xof_length(algorithm), threads=threads
    )


def _bench_rows(
    ctx: Context, workload: Workload, count: int, size: int, seed: int, compared: int
) -> Workload:
    """``count`` random messages of ``size`` bytes from one 2-D array; competitors hash the
    first ``compared`` of them, each in one call."""
    rows = _random_rows(count, size, seed)
    algorithm = workload.algorithm
    assert algorithm is not None
    subset = [rows[i].tobytes() for i in range(min(count, compared))]
    _compare_workload(
        ctx,
        workload,
        lambda t: _hash(rows, algorithm, t),
        lambda i: rows[i].tobytes(),
        count,
        subset,
        size,
        count * size,
    )
    return workload


def bench_small(ctx: Context, algorithm: str | None = None, name: str = "small") -> Workload:
    config = ctx.config
    algorithm = algorithm or config.algorithm
    count, size = config.small_count, config.small_size
    description = (
        f"{count:,} messages x {size} B, {algorithm}, from a ({count}, {size}) uint8 array"
    )
    workload = Workload(name, description, algorithm, "message")
    return _bench_rows(ctx, workload, count, size, config.seed + 1, config.competitor_messages)


def bench_large(ctx: Context) -> Workload:
    config = ctx.config
    algorithm = config.algorithm
    count, size = config.large_count, config.large_size
    description = (
        f"{count} messages x {size_text(size)}, {algorithm}, from a 2-D array; "
        "competitors hash each message in one call"
    )
    workload = Workload("large", description, algorithm, "message")
    return _bench_rows(ctx, workload, count, size, config.seed + 2, count)


def bench_single(ctx: Context) -> Workload:
    config = ctx.config
    algorithm = config.algorithm
    size = config.single_size
    message = np.random.default_rng(config.seed + 3).bytes(size)
    workload = Workload(
        "single",
        f"one {size_text(size)} message, {algorithm}, passed as [bytes] (the single-state path)",
        algorithm,
        "message",
    )
    _compare_workload(
        ctx,
        workload,
        lambda t: _hash([message], algorithm, t),
        lambda i: message,
        1,
        [message],
        size,
        size,
        thread_options=(None,),
    )
    workload.notes.append("a single message runs on one thread whatever threads= says")
    return workload


def bench_varied(ctx: Context) -> Workload:
    config = ctx.config
    algorithm = config.algorithm
    count = config.varied_count
    lengths = log_uniform_lengths(count, config.varied_max, config.seed + 4)
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    data = np.frombuffer(np.random.default_rng(config.seed + 5).bytes(int(offsets[-1])), np.uint8)
    mean = max(1, round(float(lengths.mean())))
    equal = _random_rows(count, mean, config.seed + 6)
    workload = Workload(
        "varied",
        f"{count:,} messages, lengths log-uniform 0..{size_text(config.varied_max)} "
        f"(mean {mean} B) as (data, offsets), against {count:,} x {mean} B, all threads",
        algorithm,
        "message",
    )

    def varied(threads):
        return _hash(FlatMessages(data, offsets), algorithm, threads)

    def even(threads):
        return _hash(equal, algorithm, threads)

    expected = varied(1)
    check_same("varied", "all threads", varied(None), expected)
    adapters = ctx.adapters(algorithm)[:1]
    subset_count = min(count, config.competitor_messages)
    subset = [data[offsets[i] : offsets[i + 1]].tobytes() for i in range(subset_count)]
    for competitor, adapter in adapters:
        check_digests(
            competitor.name,
            adapter.digest,
            lambda i: subset[i],
            expected,
            sample_indices(subset_count, config.sample),
            f"varied ({algorithm})",
        )
    even(None)
    candidates: dict[str, Callable[[], object]] = {
        "varied": lambda: varied(None),
        "equal": lambda: even(None),
    }
    for competitor, adapter in adapters:
        candidates[competitor.name] = functools.partial(adapter.loop, subset)
    times = interleaved(candidates, config.repeats)
    varied_row = Row(
        "varied",
        f"batchkeccak varied, {_thread_label(ctx.cores)}",
        ctx.cores,
        count,
        int(offsets[-1]),
        times["varied"],
    )
    equal_row = Row(
        "equal",
        f"batchkeccak {mean} B each, {_thread_label(ctx.cores)}",
        ctx.cores,
        count,
        count * mean,
        times["equal"],
        mean,
    )
    workload.rows += [varied_row, equal_row]
    for competitor, _ in adapters:
        note = "" if subset_count == count else f"timed on {subset_count:,} of {count:,} messages"
        workload.rows.append(
            Row(
                competitor.name,
                competitor.label,
                1,
                subset_count,
                sum(map(len, subset)),
                times[competitor.name],
                None,
                note,
            )
        )
    varied_perms = _permutations(lengths, algorithm)
    equal_perms = _permutations(np.full(count, mean), algorithm)
    perm_ratio = (varied_perms / varied_row.best) / (equal_perms / equal_row.best)
    workload.figures["bytes_ratio"] = varied_row.mb_per_s / equal_row.mb_per_s
    workload.figures["permutation_rate_ratio"] = perm_ratio
    workload.notes.append(
        f"permutations/s varied / equal = {perm_ratio:.2f} (scheduling alone, padding aside: "
        f"{varied_perms:,} vs {equal_perms:,} permutations)"
    )
    return workload


def bench_forms(ctx: Context) -> Workload:
    from batchkeccak.inputs import to_flat

    config = ctx.config
    algorithm = config.algorithm
    count, size = config.small_count, config.small_size
    rows = _random_rows(count, size, config.seed + 8)
    as_list = [row.tobytes() for row in rows]
    data, offsets = to_flat(rows)
    flat = FlatMessages(np.asarray(data), np.asarray(offsets))
    workload = Workload(
        "forms",
        f"hash_many per input form, {count:,} x {size} B, {algorithm}, all threads; "
        "to_flat = list of bytes to (data, offsets) alone",
        algorithm,
        "message",
    )
    forms: dict[str, tuple[str, object]] = {
        "list": ("list of bytes", as_list),
        "array2d": ("2-D uint8 array", rows),
        "flat": ("FlatMessages(data, offsets)", flat),
    }
    if importlib.util.find_spec("pyarrow") and importlib.util.find_spec("batchkeccak.arrow"):
        import pyarrow as pa

        column = pa.array(as_list, type=pa.binary())
        forms["arrow"] = ("pyarrow binary array", column)
    else:
        workload.notes.append("pyarrow form skipped: batchkeccak.arrow or pyarrow missing")
    expected = _hash(rows, algorithm, None)
    candidates: dict[str, Callable[[], object]] = {}
    for key, (_, messages) in forms.items():
        check_same("forms", key, _hash(messages, algorithm, None), expected)
        candidates[key] = functools.partial(_hash, messages, algorithm, None)
    candidates["to_flat"] = lambda: to_flat(as_list)
    times = interleaved(candidates, config.repeats)
    for key, (label, _) in forms.items():
        workload.rows.append(
            Row(key, f"hash_many({label})", ctx.cores, count, count * size, times[key], size)
        )
    workload.rows.append(
        Row(
            "to_flat",
            "inputs.to_flat(list of bytes)",
            1,
            count,
            count * size,
            times["to_flat"],
            size,
            "conversion only",
        )
    )
    workload.figures["to_flat_over_flat_hash"] = min(times["to_flat"]) / min(times["flat"])
    return workload


def bench_sweep(ctx: Context) -> Workload:
    config = ctx.config
    algorithm = config.algorithm
    workload = Workload(
        "sweep",
        f"throughput against message size, {algorithm}, 2-D array input; competitor loops "
        f"on at most {size_text(config.sweep_competitor_bytes)} per size",
        algorithm,
        "message",
    )
    adapters = ctx.adapters(algorithm)
    labels = {
        "batchkeccak-1": "batchkeccak, 1 thread",
        "batchkeccak-all": f"batchkeccak, {_thread_label(ctx.cores)}",
    }
    for size in config.sweep_sizes:
        _sweep_point(ctx, workload, size, adapters, labels)
    return workload


def _sweep_point(
    ctx: Context,
    workload: Workload,
    size: int,
    adapters: list[tuple[Competitor, Adapter]],
    labels: dict[str, str],
) -> None:
    config = ctx.config
    algorithm = config.algorithm
    count = max(1, min(config.sweep_bytes // size, config.sweep_max_count))
    rows = _random_rows(count, size, config.seed + size)
    sub = max(1, min(count, config.sweep_competitor_bytes // size, config.competitor_messages))
    subset = [rows[i].tobytes() for i in range(sub)]
    expected = _hash(rows, algorithm, 1)
    check_same(f"sweep {size} B", "all threads", _hash(rows, algorithm, None), expected)
    for competitor, adapter in adapters:
        check_digests(
            competitor.name,
            adapter.digest,
            subset.__getitem__,
            expected,
            sample_indices(sub, 8),
            f"sweep {size} B ({algorithm})",
        )
    candidates: dict[str, Callable[[], object]] = {
        "batchkeccak-1": lambda: _hash(rows, algorithm, 1),
        "batchkeccak-all": lambda: _hash(rows, algorithm, None),
    }
    for competitor, adapter in adapters:
        candidates[competitor.name] = functools.partial(adapter.loop, subset)
    times = interleaved(candidates, config.sweep_repeats)
    for key, label in labels.items():
        threads = 1 if key == "batchkeccak-1" else ctx.cores
        workload.rows.append(
            Row(f"{key}@{size}", label, threads, count, count * size, times[key], size)
        )
    for competitor, _ in adapters:
        workload.rows.append(
            Row(
                f"{competitor.name}@{size}",
                competitor.label,
                1,
                sub,
                sub * size,
                times[competitor.name],
                size,
            )
        )


def bench_startup(ctx: Context) -> Workload:
    config = ctx.config
    return measure_startup(
        config.algorithm, config.startup_repeats, config.startup_cold_repeats, ctx.log
    )


RUNNERS: dict[str, Callable[[Context], Workload]] = {
    "permutation": bench_permutation,
    "absorb": bench_absorb,
    "small": bench_small,
    "small_keccak": lambda ctx: bench_small(ctx, "keccak_256", "small_keccak"),
    "large": bench_large,
    "varied": bench_varied,
    "single": bench_single,
    "forms": bench_forms,
    "sweep": bench_sweep,
    "startup": bench_startup,
}
"""Each workload by name (the names of ``config.WORKLOADS``)."""
