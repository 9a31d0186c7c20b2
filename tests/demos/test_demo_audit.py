"""``veracity demo audit`` and ``veracity demo`` (all): the bundled-data walk-through."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.cli import main as cli_main
from veracity.demos import audit, kg, splits


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> audit.AuditDemo:
    return audit.run(plots=tmp_path_factory.mktemp("audit_plots"))


def test_audit_is_of_the_test_rows_only(demo: audit.AuditDemo) -> None:
    d = vc.load_demo()
    test = d["role"] == "test"
    assert demo.audit.n == int(test.sum())
    assert demo.audit.base_rate == pytest.approx(float(d["label"][test].mean()))


def test_temperature_fit_on_calib_repairs_the_overconfident_model(demo: audit.AuditDemo) -> None:
    ts = demo.calibrator
    assert ts.temperature_ > 1.0  # the bundled model is documented as overconfident
    assert ts.nll_after_ < ts.nll_before_
    rows = {r.metric: r for r in demo.ledger.rows}
    assert rows["ECE"].after < rows["ECE"].before  # on test, which the fit never saw
    assert rows["NLL"].after < rows["NLL"].before
    assert rows["AUC"].after == rows["AUC"].before
    assert rows["accuracy@0.5"].after == rows["accuracy@0.5"].before
    assert demo.after.ece < demo.audit.ece


def test_threshold_table_rows_are_consistent(demo: audit.AuditDemo) -> None:
    t = demo.table
    assert list(t.threshold) == list(demo.thresholds.values())
    assert demo.thresholds["cost-optimal t* = 1/(1+4)"] == pytest.approx(0.2)
    assert np.all(t.tp + t.fn == t.tp[0] + t.fn[0])  # same positives in every row
    order = np.argsort(t.threshold)
    assert np.all(np.diff(t.recall[order]) <= 0)  # higher threshold, lower recall


def test_printout_and_plot(demo: audit.AuditDemo) -> None:
    positions = [demo.text.index(f"[{k}]") for k in range(1, 5)]
    assert positions == sorted(positions)
    assert [p.name for p in demo.figures] == ["audit_reliability.png"]
    assert demo.figures[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_demo_audit(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["demo", "audit"]) == 0
    out = capsys.readouterr().out
    assert "[3]" in out and "[4]" in out


def test_cli_demo_all_runs_every_demo_in_order(
    demo: audit.AuditDemo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the real demos are covered above; here only the dispatch of `veracity demo` is checked
    calls: list[str] = []
    for name, module in (("audit", audit), ("kg", kg), ("splits", splits)):
        def fake(plots: object = None, _name: str = name) -> audit.AuditDemo:
            calls.append(_name)
            return demo
        monkeypatch.setattr(module, "run", fake)
    assert cli_main(["demo"]) == 0
    assert calls == ["audit", "kg", "splits"]
    assert capsys.readouterr().out.count("[1] audit the test rows") == 3


def test_cli_demo_unknown_name_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli_main(["demo", "nope"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize("module", [audit, kg, splits])
def test_demos_touch_the_library_only_through_its_public_api(module: object) -> None:
    # the demos double as integration tests: apart from the one text renderer, they may
    # import veracity only as `import veracity as vc` (plus their own helpers in demos/)
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(module))  # type: ignore[arg-type]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("veracity"):
                assert node.module == "veracity.core._text", node.module
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("veracity"):
                    assert alias.name == "veracity", alias.name


@pytest.mark.parametrize("module", [kg, splits])
def test_a_failed_claim_raises_instead_of_printing_ok(module: object) -> None:
    assert "[ok]" in module._claim(True, "holds")  # type: ignore[attr-defined]
    with pytest.raises(AssertionError, match="claim failed: broken"):
        module._claim(False, "broken")  # type: ignore[attr-defined]
