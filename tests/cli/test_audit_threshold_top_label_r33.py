"""``veracity audit --threshold`` on several --score columns read top-label.

The top-label accuracy is the argmax's: ``--threshold 0.3`` changed no number, only the JSON's
``"threshold": 0.3`` beside an accuracy that used none, exit 0. Refused now; ``--multiclass classwise``
(one-vs-rest accuracies at the threshold) and binary audits keep it."""

import json


def _file(tmp_path, write_csv):
    rows = [(0.6, 0.3, 0.1, 0, 0), (0.2, 0.5, 0.3, 1, 1), (0.1, 0.2, 0.7, 2, 0), (0.4, 0.35, 0.25, 1, 1),
            (0.3, 0.3, 0.4, 0, 0), (0.5, 0.1, 0.4, 2, 0)] * 10
    return write_csv(tmp_path / "mc.csv", "p0,p1,p2,label,y", rows)


def test_top_label_refuses_threshold(tmp_path, cli, refused, write_csv):
    path = _file(tmp_path, write_csv)
    assert cli(["audit", path, "--score", "p0,p1,p2", "-q"]).code == 0
    refused(cli(["audit", path, "--score", "p0,p1,p2", "--threshold", "0.3", "-q"]),
            r"--threshold has no effect on the top-label reading")


def test_classwise_and_binary_keep_threshold(tmp_path, cli, write_csv):
    path = _file(tmp_path, write_csv)
    out = cli(["audit", path, "--score", "p0,p1,p2", "--multiclass", "classwise", "--threshold", "0.3",
               "--json", "-"])
    assert out.code == 0 and json.loads(out.out)["threshold"] == 0.3
    binary = cli(["audit", path, "--score", "p1", "--label", "y", "--threshold", "0.3", "--json", "-"])
    assert binary.code == 0 and json.loads(binary.out)["threshold"] == 0.3
    plain = cli(["audit", path, "--score", "p0,p1,p2", "--json", "-"])
    assert plain.code == 0 and json.loads(plain.out)["threshold"] == 0.5
