"""A Spark DataFrame whose session has stopped is refused in one line (round 35).

pyspark raised a bare ``AssertionError`` (no message) from the first column expression veracity built
over such a frame (``spark.stop()``, or a master that went away). Checked by hand on a real stopped
``local[1]`` session (one more JVM is too slow for the suite): here the run's shared session is made to
look stopped for one call (its context's Java handle None, as ``SparkContext.stop`` leaves it).
"""

import pytest

import veracity as vc
from veracity import VeracityError


def test_audit_of_a_frame_whose_spark_session_stopped_says_so(spark, monkeypatch):
    df = spark.createDataFrame([(0.2, 0), (0.7, 1), (0.4, 1)], ["p", "y"])
    monkeypatch.setattr(df.sparkSession.sparkContext, "_jsc", None)
    with pytest.raises(VeracityError, match=r"Spark session of this DataFrame has stopped.*create the "
                                            r"DataFrame again"):
        vc.audit(df, score="p", label="y")


def test_a_live_session_is_read(spark):
    df = spark.createDataFrame([(0.2, 0), (0.7, 1), (0.4, 1)], ["p", "y"])
    assert vc.audit(df, score="p", label="y").n == 3
