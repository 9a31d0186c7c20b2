"""A hostile user of the command line, round 6: counts and words that match the rows read.

Before: ``veracity report`` on a file with a role column checked only the test rows, so a bad
label in a 600-row file was "1 of 300 are not" (the rows of the --eval-role), with nothing
saying which rows were read.
"""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from veracity.cli import main


def _run(capsys, argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _role_csv(path: Path, n: int = 600, *, label=None, score=None) -> Path:
    rng = np.random.default_rng(0)
    p = np.round(rng.uniform(0.01, 0.99, n), 4)
    y = (rng.uniform(size=n) < p).astype(int)
    role = np.where(np.arange(n) % 2 == 0, "calib", "test")
    lines = ["score,label,role"]
    for i in range(n):
        s = score(i, p[i]) if score else p[i]
        lab = label(i, y[i]) if label else y[i]
        lines.append(f"{s},{lab},{role[i]}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_report_role_errors_count_all_rows_read(tmp_path, capsys):
    # a bad label in a test row (odd index) and a bad score in a calib row: counted among all 600 rows
    f = _role_csv(tmp_path / "bad.csv", label=lambda i, y: 2 if i == 5 else y)
    code, out, err = _run(capsys, ["report", f, "--out", tmp_path / "r.html", "--no-bootstrap"])
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "1 of 600" in err and "of 300" not in err
    assert "role = calib or test" in err
    f = _role_csv(tmp_path / "bad2.csv", score=lambda i, p: 1.5 if i in (3, 4) else p)
    code, out, err = _run(capsys, ["report", f, "--out", tmp_path / "r.html", "--no-bootstrap"])
    assert code == 2 and "2 of 600" in err and "--score-type logit" in err


def test_report_role_rows_fine_still_written(tmp_path, capsys):
    f = _role_csv(tmp_path / "ok.csv")
    code, out, err = _run(capsys, ["report", f, "--out", tmp_path / "r.html", "--no-bootstrap"])
    assert code == 0 and (tmp_path / "r.html").is_file()


def test_report_same_fit_and_eval_role_says_it_flatters(tmp_path, capsys):
    # --fit-role test --eval-role test chose the recall threshold on the rows shown, with no word of it
    f = _role_csv(tmp_path / "ok.csv")
    code, out, err = _run(capsys, ["report", f, "--out", tmp_path / "r.html", "--no-bootstrap",
                                   "--fit-role", "test", "--eval-role", "test", "--json", "-"])
    assert code == 0
    notes = json.loads(out)["notes"]
    assert any("flatters it" in n for n in notes)
    assert not any("recall_threshold=" in n for n in notes)  # the CLI's words, not the Python keyword
    assert "flatters it" in (tmp_path / "r.html").read_text()


def test_report_takes_bins_auto_like_audit(tmp_path, capsys):
    # `report --bins 0` said "a positive integer or 'auto'", but `report --bins auto` was a usage error
    f = _role_csv(tmp_path / "ok.csv")
    out_html = tmp_path / "r.html"
    code, out, err = _run(capsys, ["report", f, "--out", out_html, "--no-bootstrap", "--bins", "auto",
                                   "--strategy", "equal-count"])
    assert code == 0, err
    # 300 test rows: ceil(300 ** (1/3)) = 7 bins, named on the page as a number
    assert "7 equal-count (auto)" in out_html.read_text()


def test_report_mce_names_the_insufficient_bins_like_audit(tmp_path, capsys):
    # 200 rows in 15 bins: one bin has 20 rows. The page said "MCE 0.0163" under "ECE 0.0967" (a maximum
    # below the mean), where `veracity audit` says "(largest gap among the insufficient bins 0.2735, not acted on)"
    rng = np.random.default_rng(0)
    p = np.round(rng.uniform(size=200), 4)
    y = (rng.uniform(size=200) < p).astype(int)
    f = tmp_path / "s.csv"
    f.write_text("score,label\n" + "".join(f"{a},{b}\n" for a, b in zip(p, y)))
    code, text, _ = _run(capsys, ["audit", f])
    assert code == 0
    shown = next(line for line in text.splitlines() if "largest gap among the insufficient bins" in line)
    mce = shown[shown.index("MCE"):shown.index("not acted on") + len("not acted on)")]
    code, _, _ = _run(capsys, ["report", f, "--out", tmp_path / "r.html", "--no-bootstrap"])
    page = (tmp_path / "r.html").read_text()
    assert code == 0 and page.count(mce) >= 2  # the ECE card and the reliability table's note
    assert "Of 1 bin with at least 20 observations" in page


def test_glob_matching_nothing_is_one_line(tmp_path, capsys):
    # before: "note: auditing ... lazily with DuckDB" and then the error: two lines for one mistake
    code, out, err = _run(capsys, ["audit", str(tmp_path / "*.parquet")])
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [f"veracity audit: input error: no file matches {tmp_path}/*.parquet; "
                                        "check the pattern"]


def test_report_against_the_label_column_is_refused(tmp_path, capsys):
    # before: "which model: label vs score: label is better" (the answers scored as a second model)
    code, out, err = _run(capsys, ["report", "--against", "label", "--out", tmp_path / "r.html", "--no-bootstrap"])
    assert code == 2 and out == "" and not (tmp_path / "r.html").exists()
    assert "--against label is the --label column" in err and len(err.strip().splitlines()) == 1


def test_report_store_options_without_a_store_are_refused(tmp_path, capsys):
    # before: --as-of / --freq / --horizon without --store did nothing, and the page was written
    for extra, named in ((["--as-of", "2020-01-01"], "--as-of"), (["--freq", "D", "--horizon", "3d"], "--freq, --horizon")):
        code, out, err = _run(capsys, ["report", *extra, "--out", tmp_path / "r.html", "--no-bootstrap"])
        assert code == 2 and not (tmp_path / "r.html").exists()
        assert err.startswith(f"veracity report: input error: {named} shape") and "--store" in err


def test_report_role_values_quoted_and_the_implicit_column_named(tmp_path, capsys):
    # before: "(values:  Test, Calib)": the space of " Test" invisible, and nothing said the 'role' column
    # was picked without --role-col
    f = _role_csv(tmp_path / "r.csv", n=40)
    f.write_text(f.read_text().replace(",test\n", ", Test\n").replace(",calib\n", ",Calib\n"))
    code, out, err = _run(capsys, ["report", f, "--out", tmp_path / "r.html", "--no-bootstrap"])
    assert code == 2 and "(values: ' Test', 'Calib')" in err and "--role-col names another" in err


def test_report_fit_rows_without_a_threshold_do_not_fall_back_to_the_test_rows(tmp_path, capsys):
    # the calib rows hold 5 positives (a 0.95-recall threshold needs 19): before, the page silently chose
    # it on the test rows it shows, and advised adding the role column the file already has
    n = 600
    f = _role_csv(tmp_path / "few.csv", n=n, label=lambda i, y: (1 if i < 10 else 0) if i % 2 == 0 else y)
    code, out, err = _run(capsys, ["report", f, "--out", tmp_path / "r.html", "--no-bootstrap", "--json", "-"])
    assert code == 0
    notes = json.loads(out)["notes"]
    assert not any("flatters" in n for n in notes)
    omitted = [n for n in notes if n.startswith("target-recall threshold omitted: the role = calib rows")]
    assert len(omitted) == 1 and "got n = 5" in omitted[0] and "correction=False" not in omitted[0]
    page = (tmp_path / "r.html").read_text()
    assert "flatters" not in page and "target-recall threshold omitted: the role = calib rows" in page


def test_out_dash_is_refused(tmp_path, capsys, monkeypatch):
    # before: `--out -` (stdout elsewhere, as in --json -) wrote a file named '-'
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, ["report", "--out", "-", "--no-bootstrap"])
    assert code == 2 and not (tmp_path / "-").exists()
    assert "--out - would write a file named '-'" in err


def test_writing_through_links_and_devices(tmp_path, capsys):
    # before: the atomic rename replaced the link itself with a regular file; for a device path such as
    # /dev/stdout or /dev/null (as root, who may write in /dev) the device itself was replaced
    to_null = tmp_path / "null.html"
    to_null.symlink_to(os.devnull)
    code, _, err = _run(capsys, ["report", "--out", to_null, "--no-bootstrap", "--quiet"])
    assert code == 0, err
    assert to_null.is_symlink() and not Path(os.devnull).is_file()
    target = tmp_path / "real.html"
    link = tmp_path / "link.html"
    link.symlink_to(target)
    code, _, err = _run(capsys, ["report", "--out", link, "--no-bootstrap", "--quiet"])
    assert code == 0 and link.is_symlink() and target.read_text().startswith("<!DOCTYPE html>")


def test_report_fit_rows_of_zero_weight_named_in_the_flags_words(tmp_path, capsys):
    f = _role_csv(tmp_path / "w.csv", n=200)
    rows = f.read_text().splitlines()
    f.write_text("\n".join([rows[0] + ",w"] + [r + (",0" if r.endswith("calib") else ",1") for r in rows[1:]]) + "\n")
    code, out, err = _run(capsys, ["report", f, "--sample-weight", "w", "--out", tmp_path / "r.html",
                                   "--no-bootstrap", "--json", "-"])
    assert code == 0
    notes = json.loads(out)["notes"]
    assert not any("flatters" in n for n in notes)
    assert any("the role = calib rows it is chosen on give none: --sample-weight sums to 0" in n for n in notes)


def test_report_by_with_missing_values_slices_them_like_audit(tmp_path, capsys):
    # before: `audit --by` showed the missing values as a slice 'None' (now '(missing)'); `report --by`
    # refused the file
    f = tmp_path / "s.csv"
    f.write_text("score,label,seg,num\n0.2,0,a,1\n0.8,1,b,\n0.7,1,,2\n0.3,0,a,1\n")
    for by in ("seg", "num"):
        code, text, _ = _run(capsys, ["audit", f, "--by", by])
        assert code == 0 and "\n(missing) " in text
        code, _, err = _run(capsys, ["report", f, "--by", by, "--out", tmp_path / "r.html", "--no-bootstrap"])
        assert code == 0, err
        page = (tmp_path / "r.html").read_text()
        assert 'class="key">(missing)<' in page and 'class="key">nan<' not in page
        assert 'class="key">None<' not in page
        assert 'class="key">1.0<' not in page


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_note_is_not_glued_to_the_progress_bar(monkeypatch):
    # before: on a terminal the file's name was printed after the bar's text on its line:
    # "veracity audit: 00:00/path/scores.csv"
    import argparse
    import time

    from veracity.cli._common import note
    from veracity.cli._progress import activity

    pytest.importorskip("tqdm")
    err = _Tty()
    monkeypatch.setattr(sys, "stderr", err)
    args = argparse.Namespace(quiet=False, json=None)
    with activity(args, "veracity audit", delay=0):
        time.sleep(0.5)  # the bar is drawn
        note(args, "scores.csv")
    text = err.getvalue()
    assert "veracity audit: 00:0" in text and "scores.csv" in text
    before = text[:text.index("scores.csv")]
    assert before.endswith("\r"), repr(before[-40:])


def test_report_ranking_scores_say_how_to_report_them(tmp_path, capsys):
    # before: "this function reads the scores as probabilities ...: calibrate first" even with --calibrator
    cal = tmp_path / "cal.json"
    assert main(["fit", "--method", "isotonic", "--score", "logit", "--score-type", "score", "--role-col", "role",
                 "--out", str(cal), "--quiet"]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:  # argparse's usage error: report offers no ranking score type
        _run(capsys, ["report", "--score", "logit", "--score-type", "score", "--calibrator", cal,
                      "--out", tmp_path / "r.html"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "this function" not in err and "veracity apply CAL.json FILE" in err


def test_report_logits_as_probabilities_counted_among_all_rows(tmp_path, capsys):
    # the bundled data (6,000 rows, 3,000 test): before, "2737 of 3000 are not" for a 6000-row file
    code, out, err = _run(capsys, ["report", "--score", "logit", "--out", tmp_path / "r.html"])
    assert code == 2 and "of 6000 are not" in err and "of 3000" not in err and "--score-type logit" in err


def test_weight_column_with_decimal_commas_or_percent_signs_says_so(tmp_path, capsys):
    # as the score column already does; before: "convert it to numbers" only
    f = tmp_path / "w.csv"
    f.write_text("score;label;w\n0.2;0;1,5\n0.8;1;2,5\n")
    code, _, err = _run(capsys, ["audit", f, "--sample-weight", "w"])
    assert code == 2 and "weight column w must hold numbers" in err and "decimal comma" in err
    f.write_text("score,label,w\n0.2,0,50%\n0.8,1,50%\n")
    code, _, err = _run(capsys, ["audit", f, "--sample-weight", "w"])
    assert code == 2 and "without the % sign" in err


def test_report_features_with_missing_values_like_segments(tmp_path, capsys):
    # before: `veracity segments --features seg` made the missing values a segment; `report --features seg`
    # refused the file ("drop or fill those rows first")
    rng = np.random.default_rng(0)
    n = 400
    p = np.round(rng.uniform(size=n), 4)
    y = (rng.uniform(size=n) < p).astype(int)
    age = np.round(rng.uniform(20, 70, n)).astype(int).astype(str)
    age[::5] = ""
    f = tmp_path / "f.csv"
    f.write_text("score,label,age\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(p, y, age)))
    code, text, _ = _run(capsys, ["segments", f, "--features", "age"])
    assert code == 0
    mce = text[text.index("MCE "):].split()[1]
    code, out, err = _run(capsys, ["report", f, "--features", "age", "--out", tmp_path / "r.html", "--no-bootstrap"])
    assert code == 0, err
    assert f'<div class="card-value">{mce}</div>' in (tmp_path / "r.html").read_text()
