"""A --spark-master that is no Spark master URL is refused in one line, before any Spark session starts.

``veracity audit d.csv --engine spark --spark-master x`` printed the JVM's stack trace ("Exception in thread
"main" org.apache.spark.SparkException: Master must either be yarn or start with spark, k8s, or local"),
then "input error: could not read d.csv as CSV: Spark PySparkRuntimeError; check that it is a valid csv
file", which blamed a sound file; ``local[abc]`` did the same after a longer trace.
"""

import argparse
import re

import pytest

from veracity.cli._rows import check_engine_options


@pytest.mark.parametrize("master", ["x", "local[abc]", "local[0]", "spark://", "yarn-client", ""])
@pytest.mark.parametrize("command", [["audit"], ["fit", "--method", "platt", "--out", "{out}"]])
def test_refused_before_spark(tmp_path, write_csv, cli, refused, master, command):
    data = write_csv(tmp_path / "d.csv", "p,y", [(0.2 + 0.6 * (i % 2), i % 2) for i in range(40)])
    argv = [command[0], data, *(a.format(out=tmp_path / "c.json") for a in command[1:]), "--score", "p",
            "--label", "y", "--engine", "spark", "--spark-master", master]
    result = cli(argv)
    said = rf"input error: --spark-master '{re.escape(master)}' is not a Spark master URL; pass local, "
    said += r"local\[N\]"
    refused(result, said)
    assert "as CSV" not in result.err


@pytest.mark.parametrize("master", ["local", "local[2]", "local[*]", "local[4, 2]", "local-cluster[2,1,1024]",
                                    "spark://host:7077", "spark://a:7077,b:7077", "k8s://https://h:6443",
                                    "yarn", "mesos://zk://h:2181/mesos"])
def test_master_urls_taken(master):
    args = argparse.Namespace(engine="spark", spark_master=master, memory_limit=None)
    check_engine_options(args)  # no error: Spark's own forms pass
