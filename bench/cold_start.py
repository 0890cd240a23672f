"""The first kernel call of a fresh process, and where its compile time goes.

    NUMBA_CACHE_DIR=$(mktemp -d) python bench/cold_start.py [-v] [--warmup]

Times importing batchkeccak and the first ``hash_many([bytes(range(100))] * 1000,
"sha3_256")`` on the kernels (``dispatch.forced_backend``: without it those messages go to
hashlib and nothing compiles); ``--warmup`` times ``batchkeccak.warmup()`` instead, what
``batchkeccak demo`` reports as "kernels ready in". Run it with an empty
``NUMBA_CACHE_DIR``, or it times loading the cache.

``-v`` lists every function numba compiled, nested by who asked for it (a nested function
was compiled while the outer one was being typed, and its time is part of the outer one's),
with the argument types of each specialization, and the slowest passes of each.
"""

import sys
import time

started = time.perf_counter()
from numba.core import event

compiled = []
_open = []


class _Compiles(event.Listener):
    def on_start(self, ev):
        _open.append((ev.data.get("dispatcher"), ev.data.get("args"), time.perf_counter()))

    def on_end(self, ev):
        dispatcher, args, since = _open.pop()
        compiled.append((len(_open), dispatcher, args, time.perf_counter() - since))


event.register("numba:compile", _Compiles())

import batchkeccak as bk
from batchkeccak.core.dispatch import forced_backend

imported = time.perf_counter()
if "--warmup" in sys.argv:
    bk.warmup()
    what = "warmup()"
else:
    with forced_backend("kernels"):
        bk.hash_many([bytes(range(100))] * 1000, "sha3_256")
    what = "first hash_many"
done = time.perf_counter()
own = sum(seconds for depth, _, _, seconds in compiled if depth == 0)
print(
    f"import {imported - started:.2f} s  {what} {done - imported:.2f} s  "
    f"(compiling {own:.2f} s, {len(compiled)} specializations)"
)


def _name(dispatcher):
    return "?" if dispatcher is None else dispatcher.py_func.__qualname__


def _passes(dispatcher, args):
    times = dispatcher.get_metadata(tuple(args))["pipeline_times"]["nopython"]
    slowest = sorted(
        ((t.init + t.run + t.finalize, name) for name, t in times.items()), reverse=True
    )[:4]
    return (
        "  ["
        + ", ".join(f"{name.split('_', 1)[1]} {seconds:.2f}" for seconds, name in slowest)
        + "]"
    )


if "-v" in sys.argv:
    for depth, dispatcher, args, seconds in compiled:
        line = f"{'  ' * depth}{_name(dispatcher)} {seconds:.2f} s"
        if dispatcher is not None and dispatcher.py_func.__module__.startswith("batchkeccak"):
            line += f"  ({', '.join(map(str, args))})" if args is not None else ""
            line += _passes(dispatcher, args)
        print(line)
