"""Paths, file decoding and resource caps (issue 13), in Python and on the CLI.

Every output path is checked before any work (a writable folder, not a directory, not
one of the inputs) and written atomically; unreadable inputs and odd column names give
one line and exit 2; bins and slices are bounded.
"""

import json
import os

import numpy as np
import pytest

import veracity as vc
from veracity import io
from veracity.cli._common import check_output_path

ROWS = "score,label,w\n0.2,0,1\n0.7,1,2\n0.9,1,1\n0.4,0,1\n0.6,1,1\n0.1,0,3\n"


@pytest.fixture
def data(tmp_path):
    f = tmp_path / "data.csv"
    f.write_text(ROWS)
    return f


@pytest.fixture
def cal(tmp_path, data, cli):
    c = tmp_path / "cal.json"
    assert cli(["fit", data, "--method", "platt", "--out", c]).code == 0
    return c


# -- outputs -----------------------------------------------------------------------------------
def test_fit_refuses_to_overwrite_its_input(data, cli, refused):
    before = data.read_bytes()
    refused(cli(["fit", data, "--method", "platt", "--out", data]), r"--out .*data\.csv is also the input file")
    assert data.read_bytes() == before


def test_apply_refuses_to_overwrite_the_calibrator_or_the_data(tmp_path, data, cal, cli, refused):
    before = cal.read_bytes()
    refused(cli(["apply", cal, data, "--out", cal]), "is also the calibrator")
    refused(cli(["apply", cal, data, "--out", data]), "is also the input file")
    # the same file through another spelling of its path
    refused(cli(["apply", cal, data, "--out", tmp_path / "." / "cal.json"]), "is also the calibrator")
    assert cal.read_bytes() == before and data.read_text() == ROWS


def test_json_refuses_input_and_other_output(tmp_path, data, cli, refused):
    refused(cli(["audit", data, "--json", data]), "is also the input file")
    out = tmp_path / "c.json"
    refused(cli(["fit", data, "--method", "platt", "--out", out, "--json", out]), r"--json .* is also --out")
    assert data.read_text() == ROWS and not out.exists()


@pytest.mark.parametrize("argv", [
    ["audit", "{data}", "--json", "{dir}"],
    ["fit", "{data}", "--method", "platt", "--out", "{dir}"],
    ["apply", "{cal}", "{data}", "--out", "{dir}"],
    ["report", "{data}", "--out", "{dir}"],
    ["threshold", "{data}", "--json", "{dir}"],
])
def test_output_path_is_a_directory(tmp_path, data, cal, cli, refused, argv):
    argv = [a.format(data=data, cal=cal, dir=tmp_path) for a in argv]
    refused(cli(argv), "is a directory")


@pytest.mark.parametrize("argv", [
    ["audit", "{data}", "--json", "{missing}/x.json"],
    ["fit", "{data}", "--method", "platt", "--out", "{missing}/c.json"],
    ["apply", "{cal}", "{data}", "--out", "{missing}/o.csv"],
    ["report", "{data}", "--out", "{missing}/r.html"],
    ["conformal", "{data}", "--json", "{missing}/x.json"],
])
def test_output_folder_missing_is_refused_before_any_work(tmp_path, data, cal, cli, refused, argv):
    argv = [a.format(data=data, cal=cal, missing=tmp_path / "no" / "such") for a in argv]
    refused(cli(argv), "folder .* does not exist")


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_output_folder_not_writable(tmp_path, data, cli, refused):  # pragma: no cover - root in CI
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o500)
    refused(cli(["audit", data, "--json", ro / "x.json"]), "cannot write in folder")


def test_check_output_path_unit(tmp_path, data):
    assert check_output_path(str(tmp_path / "new.json")) == tmp_path / "new.json"
    with pytest.raises(vc.VeracityError, match="needs a file path"):
        check_output_path("")
    with pytest.raises(vc.VeracityError, match="is also the input file"):
        check_output_path(str(data), inputs={"the input file": str(data)})


def test_outputs_are_written_atomically(tmp_path, data, cal, cli):
    out = tmp_path / "o.parquet"
    assert cli(["apply", cal, data, "--out", out]).code == 0
    assert cli(["audit", data, "--json", tmp_path / "a.json"]).code == 0
    assert json.loads((tmp_path / "a.json").read_text())["n"] == 6
    assert cli(["report", data, "--out", tmp_path / "r.html"]).code == 0
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_failed_write_leaves_the_old_file(tmp_path, monkeypatch):
    from veracity import _files

    target = tmp_path / "t.txt"
    target.write_text("old")

    def boom(tmp):
        tmp.write_text("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        _files.write_atomic(target, boom)
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["t.txt"]


# -- inputs ------------------------------------------------------------------------------------
def test_latin1_csv(tmp_path, cli, refused):
    f = tmp_path / "latin.csv"
    f.write_bytes("score,label,caf\xe9\n0.2,0,1\n0.7,1,2\n".encode("latin-1"))
    refused(cli(["audit", f]), r"is not UTF-8 text \(byte 0xe9")
    with pytest.raises(vc.VeracityError, match="not UTF-8"):
        io.read_table(f)


def test_latin1_values_in_a_string_column(tmp_path, cli, refused):
    f = tmp_path / "latin.csv"
    f.write_bytes("score,label,role\n0.2,0,caf\xe9\n0.7,1,calib\n".encode("latin-1"))
    result = cli(["audit", f])
    if result.code != 0:
        refused(result)


def test_duplicate_column_names(tmp_path, cli, refused):
    f = tmp_path / "dup.csv"
    f.write_text("score,label,label\n0.2,0,1\n0.7,1,0\n")
    for argv in (["audit", f], ["fit", f, "--method", "platt", "--out", tmp_path / "c.json"],
                 ["threshold", f], ["report", f, "--out", tmp_path / "r.html"]):
        refused(cli(argv), "column 'label' appears 2 times")


def test_column_name_with_a_newline_stays_one_line(tmp_path, cli, refused):
    f = tmp_path / "nl.csv"
    f.write_text('"sc\nore",label\n0.2,0\n0.7,1\n')
    refused(cli(["audit", f]), r"available columns: 'sc\\nore', label")


def test_any_multiline_library_message_is_printed_on_one_line(monkeypatch, data, cli, refused):
    from veracity.cli import _audit

    def bad(args):
        raise vc.VeracityError("first line\nsecond line")

    monkeypatch.setattr(_audit, "run", bad)
    refused(cli(["audit", data]), r"first line\\nsecond line")


def test_string_weights_in_threshold(tmp_path, cli, refused):
    f = tmp_path / "w.csv"
    f.write_text("score,label,w\n0.2,0,a\n0.7,1,b\n0.9,1,1\n")
    refused(cli(["threshold", f, "--weight", "w"]), "weight column w must hold numbers")
    refused(cli(["audit", f, "--weight", "w"]), "weight column w must hold numbers")


@pytest.mark.parametrize("argv, match", [
    (["report", "{data}", "--cost-fn", "inf", "--out", "{tmp}/r.html"], "finite"),
    (["report", "{data}", "--cost-fp", "nan", "--out", "{tmp}/r.html"], "finite"),
    (["threshold", "{data}", "--cost-fn", "inf"], "finite"),
])
def test_infinite_costs(tmp_path, data, cli, refused, argv, match):
    refused(cli([a.format(data=data, tmp=tmp_path) for a in argv]), match)


def test_report_cost_checked_in_python():
    with pytest.raises(vc.VeracityError, match="finite"):
        vc.report([0.2, 0.7, 0.4, 0.9], [0, 1, 0, 1], cost_fn=float("inf"), bootstrap=False, figures=False)


def test_binary_file_parse_error_does_not_echo_its_content(tmp_path, cli, refused):
    f = tmp_path / "secret.csv"
    f.write_text("a,b\n1,2\nroot:x:0:0:root:/root:/bin/bash,3,4\n")
    result = cli(["audit", f])
    refused(result, "could not read")
    assert "root:x" not in result.err


def test_input_directory_and_binary_calibrator(tmp_path, data, cli, refused):
    refused(cli(["audit", tmp_path]), "is a directory")
    binary = tmp_path / "cal.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    refused(cli(["apply", binary, data, "--out", tmp_path / "o.csv"]), "not a JSON calibrator artifact")


# -- bounded resources -------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [vc.ece, vc.reliability, vc.audit, vc.mce])
def test_bins_are_capped(fn):
    with pytest.raises(vc.VeracityError, match="bins must be at most 10,000, got 1,000,000,000"):
        fn([0.2, 0.7, 0.4], [0, 1, 0], bins=10**9)
    with pytest.raises(vc.VeracityError, match="bins must be at most"):
        vc.HistogramBinning(bins=10**6).fit([0.2, 0.7, 0.4], [0, 1, 0])


def test_cli_bins_capped(data, cli, refused, tmp_path):
    refused(cli(["audit", data, "--bins", "1000000000"]), "bins must be at most 10,000")
    refused(cli(["fit", data, "--method", "histogram", "--bins", "100000000", "--out", tmp_path / "h.json"]),
            "bins must be at most 10,000")


def test_slices_are_capped_with_the_rest_pooled():
    rng = np.random.default_rng(3)
    n = 5000
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(int)
    keys = np.where(np.arange(n) < 1000, "big", np.arange(n).astype(str))  # 4,001 distinct keys
    a = vc.audit(p, y, by=keys)
    assert len(a.groups) == 100
    other = a.groups["(other 3,902 values)"]
    assert a.groups["big"].n == 1000 and other.n == n - 1000 - 98
    # pooled slice = the audit of exactly those rows
    rest = ~np.isin(keys, [k for k in a.groups if not k.startswith("(other")])
    assert other.ece == pytest.approx(vc.audit(p[rest], y[rest], bins=15).ece, rel=1e-12)
    assert len(vc.audit(p, y, by=keys, max_groups=None).groups) == 4001
    assert len(vc.audit(p, y, by=keys, max_groups=10).groups) == 10
    with pytest.raises(vc.VeracityError, match="max_groups must be an integer >= 2"):
        vc.audit(p, y, by=keys, max_groups=0)


def test_cli_max_groups(tmp_path, cli, refused):
    f = tmp_path / "ids.csv"
    f.write_text("score,label,id\n" + "".join(f"{(i % 97) / 97:.3f},{i % 2},{i}\n" for i in range(500)))
    r = cli(["audit", f, "--by", "id", "--max-groups", "5", "--json", "-"])
    assert r.code == 0
    groups = json.loads(r.out)["groups"]
    assert len(groups) == 5 and "(other 496 values)" in groups
    r = cli(["audit", f, "--by", "id", "--json", "-"])
    assert len(json.loads(r.out)["groups"]) == 100
    refused(cli(["audit", f, "--by", "id", "--max-groups", "1"]), "--max-groups must be")


@pytest.mark.parametrize("content", [b"score,label,w,role\n0,0,1,\xe9t\xe9\n", b"\x80\r"])
def test_streaming_scan_of_a_latin1_file(tmp_path, cli, refused, content):
    # found by the fuzz suite: the streaming scan decoded the header/keys with a traceback
    f = tmp_path / "latin.csv"
    f.write_bytes(content)
    refused(cli(["monitor", "scan", f, "--period", "role"]), "is not UTF-8 text")
