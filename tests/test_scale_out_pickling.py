"""What the Spark and Ray integrations ship to their workers.

The per-batch closures travel by value (cloudpickle), together with every global they name. A
global bound to something the worker cannot import (a wrapper a test or a user installed on
the driver, say) would break every task. So the closures name only module-level functions of
their own module, which travel by reference and are imported fresh on the worker.
"""

from __future__ import annotations

import pytest

import batchkeccak as bk
from batchkeccak._sql import sql_functions

DRIVER_ONLY_NAMES = (b"hash_array", b"hash_rows", b"check_values")


def shipped_bytes(dumps, closure) -> bytes:
    payload = dumps(closure)
    for name in DRIVER_ONLY_NAMES:
        assert name not in payload, (closure.__name__, name)
    return payload


def test_spark_closures_name_only_their_module():
    pytest.importorskip("pyspark")
    from pyspark import cloudpickle

    from batchkeccak import spark

    resolved = bk.hasher("kmac_256", key=b"k" * 32, length=32)
    closures = [
        spark._digest_function(resolved, False, None),
        spark._row_digest_function(resolved, ["a", "b"], True, 2),
        spark._sql_function(sql_functions()["sha3_256"], {}),
        spark._sql_function(sql_functions()["shake_128"], {}),
        spark._sql_function(sql_functions()["kmac_256"], {"pii": b"k" * 32}),
    ]
    for closure in closures:
        assert (
            cloudpickle.loads(shipped_bytes(cloudpickle.dumps, closure)).__name__
            == closure.__name__
        )


def test_ray_closures_name_only_their_module():
    pytest.importorskip("ray")
    from ray import cloudpickle

    from batchkeccak import ray as bk_ray

    resolved = bk.hasher("sha3_256")
    closure = bk_ray._column_function(resolved, "email", "email_sha3_256", False, None)
    assert cloudpickle.loads(shipped_bytes(cloudpickle.dumps, closure)).__name__ == closure.__name__
