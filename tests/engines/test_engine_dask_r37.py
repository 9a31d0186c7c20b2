"""The run's two-process Dask cluster polls itself seldom (round 37; a speed-only guard).

The cluster lives from the first test marked ``dask_cluster`` to the end of the run. At Dask's defaults
its scheduler and two workers checked their event loops every 20 ms, each worker sampled its memory
every 100 ms and profiled running tasks every 10 ms: 1.8 s of CPU per idle half minute, 0.4 s with the
settings of tests/conftest.py (``_DASK_CLUSTER_QUIET``). The worker processes take the configuration
they were started with, so it must be set when the cluster starts; this pins that they have it (and
that the cluster's numbers are untouched: tests/engines/test_engine_dask.py audits on it).
"""

import pytest

#: what each process of the cluster reads (tests/conftest.py sets them around the cluster's start)
QUIET = {"distributed.admin.tick.interval": "1s", "distributed.worker.memory.monitor-interval": "1s",
         "distributed.worker.profile.enabled": False}


@pytest.mark.dask_cluster
def test_the_dask_cluster_workers_poll_themselves_seldom():
    distributed = pytest.importorskip("distributed")
    import dask

    client = distributed.get_client()
    for key, value in QUIET.items():
        got = client.run(dask.config.get, key)  # {worker address: its value}
        assert len(got) == 2 and set(got.values()) == {value}, (key, got)
    # the scheduler runs in this process, whose configuration is Dask's default again after the start
    assert client.cluster.scheduler.periodic_callbacks["tick"].callback_time == 1000  # ms
