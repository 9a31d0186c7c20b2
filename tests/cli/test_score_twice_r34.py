"""--score naming one column twice is refused by every command, in one line naming the column.

``veracity audit --score z0,z0,z1 --score-type logit`` (a typo for ``z0,z1,z2``) read class 1's logits from
class 0's column and audited that three-class model, exit 0; logits need not sum to 1, so nothing refused
it. ``veracity fit --method temperature`` on the same columns fitted tau = 221.8 and saved it, silently.
"""

import numpy as np
import pytest

SAID = r"input error: --score names the column 'z0' twice"


@pytest.fixture
def data(tmp_path, write_csv):
    rng = np.random.default_rng(0)
    z = rng.normal(size=(300, 3))
    y = rng.integers(0, 3, size=300)
    rows = [(*np.round(z[i], 6), int(y[i])) for i in range(300)]
    return write_csv(tmp_path / "mc.csv", "z0,z1,z2,y", rows)


@pytest.mark.parametrize("spec", ["z0,z0,z1", "z0, z1, z0"])
@pytest.mark.parametrize("command", [["audit"], ["conformal"], ["fit", "--method", "temperature"]])
def test_refused(data, tmp_path, cli, refused, command, spec):
    out = ["--out", str(tmp_path / "cal.json")] if command[0] == "fit" else []
    argv = [command[0], data, *command[1:], "--score", spec, "--label", "y", "--score-type", "logit", *out]
    refused(cli(argv), SAID)
    assert not (tmp_path / "cal.json").exists()


def test_each_column_once_runs(data, tmp_path, cli):
    result = cli(["audit", data, "--score", "z0,z1,z2", "--label", "y", "--score-type", "logit", "-q"])
    assert result.code == 0, result.err
    fitted = cli(["fit", data, "--score", "z0,z1,z2", "--label", "y", "--score-type", "logit", "--method",
                  "temperature", "--out", str(tmp_path / "cal.json"), "-q"])
    assert fitted.code == 0, fitted.err
