"""Round 20: probabilities declared as logits are refused inside a database, as on arrays and frames.

Before: ``vc.audit(con, table=..., score_type="logit")`` over a column of probabilities (every score
in [0, 1]) audited σ(p) — every "probability" squeezed into [0.5, 0.73] — and printed an ECE of 0.2
for a well-calibrated model, where ``vc.audit`` on the same rows (arrays, pandas, a DuckDB relation)
refuses in one line: "they look like probabilities". The check ran only when some row broke the
contract. Now the rule of the array form holds (from 20 rows, some score strictly inside (0, 1)).
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

from .conftest import CountingConnection, load

N = 400


def _probabilities(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.random(N)
    return p, (rng.random(N) < p).astype(np.int64)


def _message(p, y, **kw) -> str:
    with pytest.raises(vc.VeracityError) as memory:
        vc.audit(p, y, score_type="logit", **kw)
    return str(memory.value)


@pytest.mark.parametrize("options", [
    {}, {"strategy": "quantile", "bins": 5}, {"by": "g"}, {"sample_weight": "w"}, {"bins": "auto"},
])
def test_probabilities_declared_as_logits_are_refused(engine, options):
    name, conn = engine
    p, y = _probabilities()
    g = np.array(["a", "b"] * (N // 2), dtype=object)
    w = np.linspace(0.5, 2.0, N)
    load(name, conn, "declared_logits", {"p": p, "y": y, "g": g, "w": w})
    want = _message(p, y)
    assert "look like probabilities" in want  # the array form's rule, the oracle here
    with pytest.raises(vc.VeracityError) as got:
        vc.audit(conn, table="declared_logits", score="p", label="y", score_type="logit", **options)
    assert str(got.value) == want
    assert "\n" not in str(got.value)


@pytest.mark.parametrize("scores", ["zero-one", "few"])
def test_logits_the_array_form_accepts_are_audited(engine, scores):
    """Logits that are all 0 or 1, or fewer than 20 rows in [0, 1]: plausible logits, audited as on arrays."""
    name, conn = engine
    p, y = _probabilities(1)
    s = np.round(p) if scores == "zero-one" else p
    if scores == "few":
        s, y = s[:19], y[:19]
    load(name, conn, f"logits_{scores.replace('-', '_')}", {"s": s, "y": y})
    got = vc.audit(conn, table=f"logits_{scores.replace('-', '_')}", score="s", label="y", score_type="logit")
    memory = vc.audit(s, y, score_type="logit")
    assert str(got) == str(memory)


def test_ordinary_logits_cost_no_extra_statement(engine):
    """Logits with some score outside [0, 1] (every real model's): the audit's statements are as before."""
    name, conn = engine
    rng = np.random.default_rng(2)
    s = rng.normal(size=N) * 2.0
    y = (rng.random(N) < 1.0 / (1.0 + np.exp(-s))).astype(np.int64)
    load(name, conn, "real_logits", {"s": s, "y": y})
    counted = CountingConnection(conn)
    got = vc.audit_sql(counted, table="real_logits", score="s", label="y", score_type="logit", dialect=name)
    assert got.ece == pytest.approx(vc.audit(s, y, score_type="logit").ece, abs=1e-12)
    assert not any("_c_s_mid" in sql for sql in counted.statements)
