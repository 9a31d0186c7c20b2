"""``veracity audit --help`` says how --bins auto counts N with --sample-weight, as the audit counts it.

The help read "'auto' for ceil(N^(1/3))", N unsaid; weighted, the audit takes Kish's effective number of
rows (sum w)^2 / sum w^2 (printed "M = ceil(N_eff^(1/3))"): 400 rows of weights 1 and 9 give 6 bins, where
ceil(400^(1/3)) = 8 and ceil((sum w)^(1/3)) = 11.
"""

import json
import math
import re


def test_help_states_the_effective_rows(cli):
    result = cli(["audit", "--help"])
    text = " ".join(result.out.split())
    said = re.search(r"--bins BINS (.*?)\(default: 15\)", text)
    assert said is not None, text
    assert "with --sample-weight, the effective rows: (sum w)^2 / sum w^2" in said.group(1)


def test_weighted_auto_bins_follow_the_help(tmp_path, write_csv, cli):
    rows = [(round((i % 97 + 0.5) / 97, 4), i % 2, 1 if i % 4 else 9) for i in range(400)]
    data = write_csv(tmp_path / "d.csv", "p,y,w", rows)
    result = cli(["audit", data, "--score", "p", "--label", "y", "--sample-weight", "w", "--bins", "auto",
                  "--json", "-", "-q"])
    assert result.code == 0, result.err
    w = [r[2] for r in rows]
    n_eff = sum(w) ** 2 / sum(x * x for x in w)
    assert json.loads(result.out)["bins"] == math.ceil(n_eff ** (1 / 3)) == 6
