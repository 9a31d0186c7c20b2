"""The frame form's ``score=[...]`` naming one column twice read a class's scores from another's column and
returned numbers (ECE 0.2048 for ['z0', 'z0', 'z1']); the CLI and ``to_sql`` refused it. Refused on every
frame now, in one line (round 34)."""
import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity import VeracityError


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_a_column_named_twice_is_refused(backend):
    rng = np.random.default_rng(0)
    z = rng.normal(size=(300, 3))
    df = pd.DataFrame({"z0": z[:, 0], "z1": z[:, 1], "z2": z[:, 2], "y": rng.integers(0, 3, 300)})
    data = df if backend == "pandas" else pytest.importorskip("duckdb").from_df(df)
    with pytest.raises(VeracityError, match=r"^score= names the column 'z0' twice") as info:
        vc.audit(data, score=["z0", "z0", "z1"], label="y", score_type="logit")
    assert "\n" not in str(info.value)
    assert vc.audit(data, score=["z0", "z1", "z2"], label="y", score_type="logit").n == 300
