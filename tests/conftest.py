import functools
import os
import sys
from pathlib import Path

import pytest

# The plain-Python reference model lives beside the tests and is imported by name.
sys.path.insert(0, str(Path(__file__).parent))

# Keep hypothesis runs bounded: the suite must stay quick on a 2-core machine.
from hypothesis import HealthCheck, settings

from patterns import cyclic_bytes

settings.register_profile(
    "batchkeccak",
    max_examples=int(os.environ.get("BATCHKECCAK_HYPOTHESIS_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("batchkeccak")


# The kernels are what most tests test: a small test batch must not slip to the one-shot
# backends (hashlib, pycryptodome) that small work takes. Subprocesses inherit this too.
# Tests of the choice itself (tests/test_dispatch.py) set it back to the measured limits,
# and the digest tests run on every backend policy (below).
os.environ["BATCHKECCAK_BACKEND"] = "kernels"


# ---------------------------------------------------------------------------------------
# Every backend policy. Each entry point has two implementations, the kernels and the
# one-shot backends (hashlib, pycryptodome), and the size-aware dispatcher picks one per
# call; a test marked ``every_backend`` (a module's ``pytestmark`` or one test) runs once per
# policy, so no path that users get by default goes untested:
#
# - ``kernels`` and ``oneshot``: each side forced (``oneshot`` wherever a backend has the
#   function; a mode without one still takes the kernels);
# - ``default-cold``: the measured limits in a process that has not loaded the kernels (the
#   dispatcher's account starts empty, so small calls go to hashlib or pycryptodome);
# - ``default-warm``: the measured limits once the kernels are loaded.
#
# Subprocesses the test starts (the command line) follow the same policy.

BACKEND_POLICIES = ("kernels", "oneshot", "default-cold", "default-warm")

WHOLE_SUITE_POLICIES = ("oneshot", "default-warm")
"""Policies the quick run (``pytest -m "not slow"``) leaves to the whole suite: forced kernels
and the default in a cold process already take both backends (small work goes to hashlib or
pycryptodome there), so a contributor's frequent run keeps every path at half the cost."""


def pytest_generate_tests(metafunc):
    # Under emulation (.ci/aarch64.sh) the kernels are what is checked: the one-shot
    # backends are the host's hashlib and pycryptodome, already run here.
    if metafunc.definition.get_closest_marker("every_backend") is not None and not os.environ.get(
        "BATCHKECCAK_EMULATOR"
    ):
        # A module may keep fewer policies in the quick run (QUICK_RUN_POLICIES): its
        # generated cases are many, and the whole suite still runs every policy.
        quick = getattr(metafunc.module, "QUICK_RUN_POLICIES", None)
        policies = [
            pytest.param(policy, marks=pytest.mark.slow, id=policy)
            if policy in WHOLE_SUITE_POLICIES or (quick is not None and policy not in quick)
            else policy
            for policy in BACKEND_POLICIES
        ]
        metafunc.parametrize("backend_policy", policies, indirect=True)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    _group_suffixes(config, items)
    # A kernels_only test (or parameter set) in an every_backend module keeps its run on
    # forced kernels alone; its other policies' runs are deselected.
    others = [
        item
        for item in items
        if item.get_closest_marker("kernels_only") is not None
        and getattr(item, "callspec", None) is not None
        and item.callspec.params.get("backend_policy", "kernels") != "kernels"
    ]
    if others:
        config.hook.pytest_deselected(items=others)
        dropped = set(map(id, others))
        items[:] = [item for item in items if id(item) not in dropped]


def _group_suffixes(config, items):
    """``--dist loadgroup`` (pyproject's addopts) sends the tests of one ``xdist_group`` to one
    worker: each worker names a grouped test ``nodeid@group`` and the controller groups by
    that suffix. pytest-xdist sets ``item._nodeid`` for it, which pytest 9.2 no longer reads
    (a node's id is ``item._id``): every group was then split over the workers, and a page
    that starts Spark and Ray started them once per worker. The suffix is set here where
    xdist's did not take."""
    if not (hasattr(config, "workerinput") and config.getvalue("loadgroup")):
        return
    for item in items:
        names = {
            str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
            for mark in item.iter_markers("xdist_group")
        }
        if not names or "@" in item.nodeid:
            continue
        suffixed = f"{item.nodeid}@{'_'.join(sorted(names))}"
        node_id = getattr(item, "_id", None)
        if node_id is not None and hasattr(node_id, "parse"):
            item._id = type(node_id).parse(suffixed)


@pytest.fixture(autouse=True)
def backend_policy(request, monkeypatch):
    """The backend policy a test runs under: ``kernels`` unless the test is marked
    ``every_backend`` (then each of :data:`BACKEND_POLICIES` in turn). A test of the kernels'
    own path (a count of tile calls, say) in such a module is marked ``kernels_only``."""
    policy = getattr(request, "param", "kernels")
    if policy == "kernels":
        yield policy  # the session's setting: nothing to change
        return
    from batchkeccak.core import dispatch

    monkeypatch.setattr(dispatch.ACCOUNT, "spent_us", 0.0)
    if policy == "oneshot":
        monkeypatch.setenv("BATCHKECCAK_BACKEND", "oneshot")
        forced = "oneshot"
    else:
        monkeypatch.delenv("BATCHKECCAK_BACKEND")
        forced = None
        if policy == "default-cold":
            # What kernels_loaded() looks for is then absent, as in a fresh process.
            monkeypatch.setattr(dispatch, "KERNEL_MODULE", "batchkeccak.<kernels not loaded>")
        else:
            import batchkeccak.sponge  # noqa: F401  (loaded, as after any kernel call)
    with dispatch.forced_backend(forced):
        yield policy


def pytest_sessionstart(session):
    """Clear numba's cache of the package when a compiled source changed since the last run.

    numba stamps a cached function with its own file only; the sponge kernels inline code
    from other files, so an edit there would otherwise leave them running the old code.
    """
    if hasattr(session.config, "workerinput"):
        return  # an xdist worker: the controller cleared the cache before it started them
    import numba

    from batchkeccak.native import jit

    # The stamp sits beside the cache it vouches for: where NUMBA_CACHE_DIR is set, numba
    # caches there, and two runs with different cache folders each need their own stamp.
    cache_dir = numba.config.CACHE_DIR
    folder = Path(cache_dir) if cache_dir else jit.PACKAGE_DIR / "__pycache__"
    stamp = folder / "compiled-sources.sha256"
    digest = jit.compiled_sources_digest()
    try:
        if stamp.read_text() == digest:
            return
    except OSError:
        pass
    jit.clear_cache()
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass  # a read-only checkout: numba cannot cache there either


@pytest.fixture(scope="session")
def pattern_bytes():
    """``i % 251`` filler, so no two blocks line up by accident (as BLAKE3's tests do)."""

    def make(length: int, seed: int = 0) -> bytes:
        return cyclic_bytes(length, seed)

    return make


# ---------------------------------------------------------------------------------------
# The slow marker: tests that start a cluster, build large data or take more than about
# SLOW_SECONDS carry @pytest.mark.slow, so that `pytest -m "not slow"` stays a quick run.
# Unmarked tests that ran longer are listed at the end of the run (a report, not a failure:
# machines differ), so the marker stays where it belongs as tests are added.

SLOW_SECONDS = 3.0
_unmarked_slow: list[tuple[str, float]] = []


_KERNEL_SECONDS = [0.0]
"""numba's compiles and cache loads in this process, timed (its ``numba:compile`` event;
nested compiles are part of the outer one). The first test to use a kernel pays for it on a
cold cache, 10 s and more on 2 cores: that is the cache's state, not the test's own time,
and the slow report leaves it out."""


def pytest_configure(config):
    import threading
    import time

    from numba.core import event

    class KernelClock(event.Listener):
        def __init__(self) -> None:
            self.local = threading.local()  # compiles nest, on whichever thread asked

        def on_start(self, started) -> None:
            depth = getattr(self.local, "depth", 0)
            if depth == 0:
                self.local.since = time.perf_counter()
            self.local.depth = depth + 1

        def on_end(self, ended) -> None:
            self.local.depth -= 1
            if self.local.depth == 0:
                _KERNEL_SECONDS[0] += time.perf_counter() - self.local.since

    event.register("numba:compile", KernelClock())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    before = _KERNEL_SECONDS[0]
    try:
        return (yield)
    finally:
        item.user_properties.append(("kernel_load_seconds", _KERNEL_SECONDS[0] - before))


def pytest_runtest_logreport(report):
    if report.when != "call" or "slow" in report.keywords:
        return
    loading = dict(report.user_properties).get("kernel_load_seconds", 0.0)
    if report.duration - loading > SLOW_SECONDS:
        _unmarked_slow.append((report.nodeid, report.duration - loading))


def pytest_terminal_summary(terminalreporter):
    if _unmarked_slow:
        terminalreporter.section(
            f"tests over {SLOW_SECONDS:.0f} s without @pytest.mark.slow (numba's compiling and "
            "cache loads left out)"
        )
        for nodeid, seconds in sorted(_unmarked_slow, key=lambda item: -item[1]):
            terminalreporter.write_line(f"{seconds:6.2f} s  {nodeid}")


# ---------------------------------------------------------------------------------------
# One Spark session and one Ray runtime per test process. tests/test_spark.py,
# tests/test_ray.py and the docs page whose blocks start Spark and Ray (tests/test_docs.py)
# share them, and share one xdist group (scale_out_data.ENGINE_GROUP), so that one worker
# starts each engine once (a JVM start is 10-20 s on a loaded 2-core machine). Both start in
# the engine_folder fixture's folder: a Spark driver resolves relative paths against the
# folder its JVM started in, and Ray's workers write relative paths in the folder Ray started
# in, so the docs page, which reads and writes relative paths as a reader would, runs there.


_ENGINE_STOPS: list = []
"""How to stop each engine the test process started (the fixtures below register them)."""


def _in_engine_group(item) -> bool:
    import scale_out_data

    marker = item.get_closest_marker("xdist_group")
    return marker is not None and marker.args[:1] == (scale_out_data.ENGINE_GROUP,)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """Stop Spark and Ray after the last test that uses them: their idle processes (a JVM,
    Ray's daemons and workers) take a share of the CPU for as long as they run. The group
    runs on one worker in collection order (``--dist loadgroup``), so the last of its tests
    in the collection is the last to run."""
    if _ENGINE_STOPS and item is _last_engine_test(item.session):
        while _ENGINE_STOPS:
            _ENGINE_STOPS.pop()()


@functools.cache
def _last_engine_test(session):
    return next((item for item in reversed(session.items) if _in_engine_group(item)), None)


@pytest.fixture(scope="session")
def engine_folder(tmp_path_factory):
    """The folder the shared Spark session and Ray runtime start in (empty otherwise)."""
    return tmp_path_factory.mktemp("engines")


@pytest.fixture(scope="session")
def kernels_in_cache():
    """The kernels the engines' tests use (modes, Arrow columns and rows, the one-call
    vectors) compiled into numba's cache before an engine starts its Python workers, so
    that each of them loads the kernels instead of compiling them again (on a cold cache,
    seconds of compiling per worker; under a second when the cache is warm)."""
    from batchkeccak.cli import warmup

    warmup.warm_every_kernel([warmup.modes, warmup.engine_vectors, warmup.columns])


def java_problem() -> str | None:
    """Why Spark cannot start here, or None: PySpark 4 needs Java 17 or later."""
    import re
    import shutil
    import subprocess

    if shutil.which("java") is None:
        return "no java on PATH: install Java 17+ (e.g. apt-get install openjdk-17-jre-headless)"
    banner = subprocess.run(
        ["java", "-version"], check=False, capture_output=True, text=True
    ).stderr
    found = re.search(r'version "(\d+)(?:\.(\d+))?', banner)
    if found:
        major = int(found.group(1)) if found.group(1) != "1" else int(found.group(2) or 0)
        if major < 17:
            return f"java {major} found; Spark 4 needs Java 17+ (install openjdk-17-jre-headless)"
    return None


@pytest.fixture(scope="session")
def spark_session(engine_folder, kernels_in_cache):
    """A local[2] Spark session for the whole test process (skips without PySpark or Java)."""
    import contextlib

    pytest.importorskip("pyspark")
    problem = java_problem()
    if problem:
        pytest.skip(problem)
    from pyspark.sql import SparkSession

    # The Python workers must run this interpreter, which has batchkeccak and pyarrow.
    previous = os.environ.get("PYSPARK_PYTHON")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    with contextlib.chdir(engine_folder):
        session = (
            SparkSession.builder.master("local[2]")
            .appName("batchkeccak-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "4")
            # Small batches, so every partition is several hash_array calls.
            .config("spark.sql.execution.arrow.maxRecordsPerBatch", "40")
            # The JVM's client compiler only and one garbage collector thread: a test
            # session's jobs are small, and the JIT's optimizing tier and parallel GC threads
            # cost about as much CPU as the jobs themselves (20 s against 41 s of the JVM's
            # CPU over the Spark and Ray tests on a 2-core machine).
            .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
            .getOrCreate()
        )
    session.sparkContext.setLogLevel("ERROR")

    def stop() -> None:
        session.stop()
        if previous is None:
            os.environ.pop("PYSPARK_PYTHON", None)
        else:
            os.environ["PYSPARK_PYTHON"] = previous

    _ENGINE_STOPS.append(stop)
    yield session
    if stop in _ENGINE_STOPS:
        _ENGINE_STOPS.remove(stop)
        stop()


@pytest.fixture(scope="session")
def ray_runtime(engine_folder, kernels_in_cache):
    """A local Ray runtime for the whole test process (skips without Ray). One CPU: the
    datasets still run as several blocks, and each further CPU keeps Ray worker processes
    running beside the rest of the suite (9 s of CPU against 2 s over these tests)."""
    import contextlib

    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    started = not ray.is_initialized()
    if started:
        with contextlib.chdir(engine_folder):
            ray.init(
                num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False
            )
    ray.data.DataContext.get_current().enable_progress_bars = False
    if started:
        _ENGINE_STOPS.append(ray.shutdown)
    yield ray
    if ray.shutdown in _ENGINE_STOPS:
        _ENGINE_STOPS.remove(ray.shutdown)
        ray.shutdown()
