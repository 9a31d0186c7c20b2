"""The audit's min_count reaches its honest sections: the bootstrap's and the estimators' MCE read the bins
the audit's MCE reads. They used 20 whatever the audit was given: `--min-count 5 --honest` printed MCE 0.5967
above a bootstrap row `mce 0.1488 [0.0000, 0.2308]`, an interval that excluded the headline."""

import numpy as np
import pytest

import veracity as vc


@pytest.fixture
def rows():
    rng = np.random.default_rng(0)
    p = np.concatenate([rng.beta(2, 5, 588), np.full(12, 0.93)])
    y = np.concatenate([(rng.random(588) < p[:588]).astype(int), np.repeat([1, 0], [4, 8])])
    return p, y


def test_bootstrap_and_estimators_read_the_audits_min_count(rows):
    p, y = rows
    res = vc.audit(p, y, min_count=5, bootstrap=True, estimators=True, n_resamples=200)
    plain = vc.mce(p, y, min_count=5)
    assert res.mce == pytest.approx(plain, abs=1e-15)
    assert res.mce > vc.mce(p, y, min_count=20) + 0.3  # the 12-row bin decides: the setting matters here
    intervals = res.extras["intervals"]
    row = intervals["mce"]
    assert row.estimate == pytest.approx(plain, abs=1e-15)
    assert row.low <= plain <= row.high
    assert "max (bins n>=5)" in str(res.extras["estimators"])


def test_the_cli_prints_one_mce(cli, tmp_path, rows):
    p, y = rows
    path = tmp_path / "m.csv"
    path.write_text("score,label\n" + "".join(f"{float(a)!r},{int(b)}\n" for a, b in zip(p, y)))
    out = cli(["audit", str(path), "--min-count", "5", "--honest", "--n-resamples", "200"]).out
    head = f"MCE {vc.mce(p, y, min_count=5):.4f}"
    assert head in out
    mce_row = next(line for line in out.splitlines() if line.startswith("mce "))
    assert mce_row.split()[1] == head.split()[1]
