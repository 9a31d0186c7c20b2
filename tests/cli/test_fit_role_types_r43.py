"""``veracity fit --role-col fold --fit-role 1 --engine duckdb|dask`` on a role column that is not text
(session 43).

Integer folds, float folds and true/false flags failed on the lazy engines with "could not read roles.csv as
CSV: the engine InvalidOperationError; check that it is a valid csv file" (the file was fine: the count of
blank roles summed a literal, which narwhals refuses), while ``--engine memory`` fit. Now every engine picks
the same rows, as memory spells the roles (numpy's text: ``1``, ``1.0``, ``True``), and saves the same map.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

pytestmark = pytest.mark.usefixtures("engine_installed")

rng = np.random.default_rng(4301)
N = 400
P = rng.uniform(0.02, 0.98, N)
Y = (rng.uniform(size=N) < P ** 1.5).astype(int)
FOLD = rng.integers(1, 3, N)


@pytest.fixture
def roles(tmp_path):
    path = tmp_path / "roles.csv"
    path.write_text("score,label,fold,foldf,flag\n" + "".join(
        f"{p:.6f},{y},{f},{float(f)},{'true' if f == 1 else 'false'}\n" for p, y, f in zip(P, Y, FOLD)))
    return path


@pytest.mark.parametrize("engine", ["memory", "duckdb", "dask"])
@pytest.mark.parametrize("col, role", [("fold", "1"), ("foldf", "1.0"), ("flag", "True")])
def test_lazy_engines_fit_on_the_role_rows(tmp_path, cli, roles, engine, col, role):
    out = tmp_path / f"{engine}.json"
    got = cli(["fit", roles, "--method", "platt", "--role-col", col, "--fit-role", role, "--engine", engine,
               "--out", out, "-q"])
    assert got.code == 0, got.err
    state = json.loads(out.read_text())["state"]
    # the array fit on the rows of fold 1
    import veracity as vc

    ref = vc.PlattScaling().fit(np.round(P, 6)[FOLD == 1], Y[FOLD == 1])
    assert state["a_"] == pytest.approx(ref.a_, rel=1e-9) and state["b_"] == pytest.approx(ref.b_, rel=1e-9)


@pytest.mark.parametrize("engine", ["memory", "duckdb", "dask"])
def test_a_role_not_there_named_alike(cli, refused, roles, engine, tmp_path):
    refused(cli(["fit", roles, "--method", "platt", "--role-col", "foldf", "--fit-role", "1", "--engine",
                 engine, "--out", tmp_path / "c.json"]),
            r"no rows with role '1' in column 'foldf' of \S*roles\.csv \(values: 1\.0, 2\.0\); pick one")
