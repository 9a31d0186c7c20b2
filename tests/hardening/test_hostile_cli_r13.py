"""A hostile user of the command line, round 13: options that silently did nothing, and the debiased
ECE named two ways.

Before: ``veracity conformal --random-state 4`` (no ``--randomized``: nothing is drawn) and ``veracity
compare --n-resamples 0 --random-state 3`` (no bootstrap to seed) ran as if the seed were not given;
``veracity apply --batch-rows 10`` on a CSV file read it whole, silently; the JSON of ``compare --by``
named the debiased ECE "ece_debiased" (``metric_label``) at the top level but not inside ``groups``;
``print(vc.compare_models(...))`` called it "ece" where the command line's table says "ece_debiased".
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import veracity as vc


def _two_models(path: Path, n: int = 400) -> Path:
    rng = np.random.default_rng(13)
    p = np.round(rng.uniform(0.02, 0.98, n), 4)
    y = (rng.uniform(size=n) < p).astype(np.int64)
    q = np.round(np.clip(p + rng.normal(0, 0.1, n), 0.01, 0.99), 4)
    g = np.where(np.arange(n) % 2 == 0, "x", "z")
    table = pa.table({"score": p, "label": y, "q": q, "g": g})
    if path.suffix == ".parquet":
        pq.write_table(table, path)
    else:
        pacsv.write_csv(table, path)
    return path


def _three_classes(path: Path, n: int = 300) -> Path:
    rng = np.random.default_rng(7)
    P = np.round(rng.dirichlet([2, 2, 2], n), 6)
    P[:, 2] = 1.0 - P[:, 0] - P[:, 1]
    y = (P.cumsum(axis=1) < rng.uniform(size=(n, 1))).sum(axis=1)
    pacsv.write_csv(pa.table({"p0": P[:, 0], "p1": P[:, 1], "p2": P[:, 2], "y": y}), path)
    return path


# -- seeds that seed nothing ----------------------------------------------------------------------

@pytest.mark.parametrize("flag", ["--random-state", "--seed"])
def test_conformal_seed_without_randomized_is_refused(tmp_path, cli, refused, flag):
    f = _three_classes(tmp_path / "m.csv")
    refused(cli(["conformal", f, "--score", "p0,p1,p2", "--label", "y", "--method", "aps", flag, "4"]),
            r"^veracity conformal: .*--random-state has no effect without --randomized")


def test_conformal_seed_with_randomized_still_changes_the_sets(tmp_path, cli):
    f = _three_classes(tmp_path / "m.csv")
    base = ["conformal", f, "--score", "p0,p1,p2", "--label", "y", "--method", "aps", "--randomized", "--json", "-"]
    one, two = cli(base + ["--random-state", "1"]), cli(base + ["--random-state", "2"])
    default, zero = cli(base), cli(base + ["--random-state", "0"])
    assert one.code == two.code == default.code == zero.code == 0, (one.err, default.err)
    assert json.loads(one.out)["roles"] != json.loads(two.out)["roles"]  # the seed draws the randomised sets
    assert json.loads(default.out) == json.loads(zero.out)  # not given: 0, as --help says


@pytest.mark.parametrize("flag", ["--random-state", "--seed"])
def test_compare_seed_without_resamples_is_refused(tmp_path, cli, refused, flag):
    f = _two_models(tmp_path / "d.csv")
    refused(cli(["compare", f, "--score", "score", "--against", "q", "--n-resamples", "0", flag, "3"]),
            r"--random-state has no effect with --n-resamples 0")


def test_compare_calibrator_seed_without_resamples_is_refused(tmp_path, cli, refused):
    f, cal = _two_models(tmp_path / "d.csv"), tmp_path / "cal.json"
    assert cli(["fit", f, "--method", "platt", "--out", cal, "--quiet"]).code == 0
    refused(cli(["compare", f, "--calibrator", cal, "--n-resamples", "0", "--random-state", "3"]),
            r"--random-state has no effect with --n-resamples 0")


def test_compare_default_seed_is_zero(tmp_path, cli):
    f = _two_models(tmp_path / "d.csv")
    base = ["compare", f, "--score", "score", "--against", "q", "--n-resamples", "20", "--json", "-"]
    default, zero, five = cli(base), cli(base + ["--random-state", "0"]), cli(base + ["--random-state", "5"])
    assert default.code == zero.code == five.code == 0, default.err
    assert json.loads(default.out) == json.loads(zero.out)
    assert json.loads(default.out)["random_state"] == 0
    assert json.loads(five.out)["comparison"] != json.loads(zero.out)["comparison"]  # the bootstrap is seeded
    bare = cli(["compare", f, "--score", "score", "--against", "q", "--n-resamples", "0", "--json", "-"])
    assert bare.code == 0 and json.loads(bare.out)["n_resamples"] == 0, bare.err


# -- --batch-rows on input that is not streamed ----------------------------------------------------

def test_apply_batch_rows_on_csv_is_refused(tmp_path, cli, refused):
    f, cal = _two_models(tmp_path / "d.csv"), tmp_path / "cal.json"
    assert cli(["fit", f, "--method", "platt", "--out", cal, "--quiet"]).code == 0
    refused(cli(["apply", cal, f, "--out", tmp_path / "o.csv", "--batch-rows", "10"]),
            r"--batch-rows sizes the batches of streamed Parquet input, and .*d\.csv is not Parquet")
    assert not (tmp_path / "o.csv").exists()


def test_apply_batch_rows_on_parquet_still_streams(tmp_path, cli):
    f, cal = _two_models(tmp_path / "d.parquet"), tmp_path / "cal.json"
    assert cli(["fit", f, "--method", "platt", "--out", cal, "--quiet"]).code == 0
    r = cli(["apply", cal, f, "--out", tmp_path / "o.parquet", "--batch-rows", "7"])
    assert r.code == 0, r.err
    got = pq.read_table(tmp_path / "o.parquet")
    want = vc.load(cal).transform(pq.read_table(f).column("score").to_numpy())
    np.testing.assert_allclose(got.column("calibrated").to_numpy(), want, rtol=0, atol=1e-12)


# -- the debiased ECE, one name everywhere ---------------------------------------------------------

def test_compare_groups_json_name_the_debiased_ece(tmp_path, cli):
    f = _two_models(tmp_path / "d.csv")
    r = cli(["compare", f, "--score", "score", "--against", "q", "--by", "g", "--n-resamples", "20", "--json", "-"])
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert set(doc["groups"]) == {"x", "z"}
    for rows in [doc["comparison"], *(g["comparison"] for g in doc["groups"].values())]:
        ece = [row for row in rows if row["metric"] == "ece"]
        assert ece and all(row["metric_label"] == "ece_debiased" for row in ece)
        assert all(row["metric_label"] == row["metric"] for row in rows if row["metric"] != "ece")


def test_model_comparison_prints_ece_debiased_as_the_cli_does(tmp_path, cli):
    f = _two_models(tmp_path / "d.csv")
    table = pacsv.read_csv(f)
    result = vc.compare_models({"score": table.column("score").to_numpy(), "q": table.column("q").to_numpy()},
                               table.column("label").to_numpy(), n_resamples=20, random_state=0)
    text = str(result)
    metrics = [line.split()[0] for line in text.splitlines()[2:6]]
    assert metrics == ["brier", "log_loss", "ece_debiased", "auc"], text
    assert [r.metric for r in result.rows] == ["brier", "log_loss", "ece", "auc"]  # the data keeps its name
    r = cli(["compare", f, "--score", "score", "--against", "q", "--n-resamples", "20"])
    assert r.code == 0, r.err
    assert r.out.rstrip("\n") == text  # one table, by the API and by the command line


# -- the verdict agrees with the Brier row -------------------------------------------------------

def _noisy_pair(seed: int, n: int = 1000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """b is a with N(0, 0.1) noise added: truly worse (higher expected Brier score)."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.uniform(size=n) < p).astype(np.int64)
    return p, np.clip(p + rng.normal(0, 0.1, n), 0.01, 0.99), y


def test_verdict_names_the_lower_brier_when_only_the_sum_is_significant():
    p, q, y = _noisy_pair(4)
    r = vc.compare_models({"a": p, "b": q}, y, n_resamples=200, random_state=0)
    brier, d = r.row("brier"), r.corp_differences[0]
    # the case: the paired Brier interval excludes 0, the DSC and MCB intervals each hold it
    assert brier.ci_low > 0 and d.dsc_low < 0 < d.dsc_high and d.mcb_low < 0 < d.mcb_high
    assert not r.verdict.startswith("no clear difference"), r.verdict  # was: "no clear difference ... Brier +0.0090"
    assert r.verdict.startswith("a has the lower Brier score (Brier +0.0090 ["), r.verdict
    assert "neither its resolution (DSC) nor its calibration (MCB) alone differs by more than noise" in r.verdict


def test_verdict_no_clear_difference_when_the_brier_interval_holds_zero():
    p, q, y = _noisy_pair(1)
    r = vc.compare_models({"a": p, "b": q}, y, n_resamples=200, random_state=0)
    brier = r.row("brier")
    assert brier.ci_low < 0 < brier.ci_high
    assert r.verdict.startswith("no clear difference between a and b: Brier +0.0023 ["), r.verdict


# -- flags --score-type score does not use; unknown flags named by their command -----------------

def test_compare_score_type_score_refuses_bootstrap_and_bin_flags(tmp_path, cli, refused):
    f = _two_models(tmp_path / "d.csv")
    base = ["compare", f, "--score", "score", "--against", "q", "--score-type", "score"]
    refused(cli(base + ["--n-resamples", "500"]), r"--n-resamples has no effect with --score-type score")
    refused(cli(base + ["--n-resamples", "50", "--random-state", "3", "--bins", "5"]),
            r"--n-resamples, --random-state and --bins have no effect with --score-type score")
    ok = cli(base + ["--json", "-"])
    assert ok.code == 0, ok.err
    assert [row["metric"] for row in json.loads(ok.out)["comparison"]] == ["auc"]


@pytest.mark.parametrize("argv, prog", [
    (["audit", "{f}", "--against", "q"], "veracity audit"),
    (["conformal", "{f}", "--nope"], "veracity conformal"),
    (["monitor", "status", "{f}", "--nope"], "veracity monitor status"),
])
def test_unknown_flag_is_named_by_its_command(tmp_path, cli, refused, argv, prog):
    f = _two_models(tmp_path / "d.csv")
    r = cli([a.replace("{f}", str(f)) for a in argv])
    refused(r, rf"^{prog}: usage error: unrecognized arguments: --\w+( q)? \(see {prog} --help\)$")


@pytest.mark.parametrize("command", ["audit", "conformal", "compare"])
def test_pos_label_on_integer_labels_is_shown_as_written(tmp_path, cli, refused, command):
    f = _two_models(tmp_path / "d.csv")
    extra = ["--score", "score", "--against", "q"] if command == "compare" else []
    refused(cli([command, f, *extra, "--pos-label", "7"]),
            r"--pos-label 7 is not among the values of column 'label' \(labels\) \(0, 1\)")
    assert cli([command, f, *extra, "--pos-label", "1", "--quiet"]).code == 0
