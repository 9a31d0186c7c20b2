"""``veracity fit --fit-role TEST`` on a role column written in capitals (session 38).

Only the exact roles ``test`` and ``train`` were refused: a file whose roles read ``Calib``/``TEST``/``Train``
was fit on its test rows with ``--fit-role TEST`` in silence (exit 0, the artifact recording role 'TEST').
It is refused now in one line, exit 2, with the flag that overrides it; ``--allow-role`` matches case-blind
and the fit is then the same map.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest



def _roles_file(tmp_path):
    rng = np.random.default_rng(38)
    p = rng.uniform(0.02, 0.98, 400)
    frame = pd.DataFrame({"score": p, "label": (rng.uniform(size=400) < p).astype(int),
                          "role": rng.choice(["Calib", "TEST", "Train"], 400)})
    path = tmp_path / "roles.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("role, why", [("TEST", "test rows decide nothing"),
                                       ("Train", "train rows already set the model's weights")])
def test_a_capitalised_test_or_train_role_is_refused(tmp_path, cli, refused, role, why):
    path = _roles_file(tmp_path)
    result = cli(["fit", path, "--method", "platt", "--fit-role", role, "--out", tmp_path / "cal.json"])
    refused(result, rf"refusing to fit PlattScaling on rows whose role is '{role}': .*{why}.* "
                    rf"pass --allow-role {role} to override")
    assert not (tmp_path / "cal.json").exists()


def test_allow_role_in_another_case_overrides_and_is_recorded(tmp_path, cli):
    path = _roles_file(tmp_path)
    allowed = cli(["fit", path, "--method", "platt", "--fit-role", "TEST", "--allow-role", "test",
                   "--out", tmp_path / "a.json", "-q"])
    assert allowed.code == 0, allowed.err
    art = json.loads((tmp_path / "a.json").read_text())
    assert (art["metadata"]["role"], art["metadata"]["allow_role"]) == ("TEST", "test")
    calib = cli(["fit", path, "--method", "platt", "--fit-role", "Calib", "--out", tmp_path / "c.json", "-q"])
    assert calib.code == 0, calib.err  # a calib role in capitals is still a calib role
    refused_ = cli(["fit", path, "--method", "platt", "--fit-role", "TEST", "--out", tmp_path / "t.json"])
    assert refused_.code == 2 and not (tmp_path / "t.json").exists()  # old: exit 0, fit on the test rows
