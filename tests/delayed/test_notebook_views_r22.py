"""What a notebook shows for vc.ppi_audit and vc.label_plan (round 22): the texts' headers and caveats,
never raw field names, and no 'calibrated yes' above bins far from their scores."""

import re

import numpy as np

import veracity as vc


def _outside_text(html: str) -> str:
    html = re.sub(r"<style>.*?</style>", "", html, flags=re.S)
    return re.sub(r"<details><summary>as text</summary>.*?</details>", "", html, flags=re.S)


def _kv(html: str) -> dict[str, str]:
    block = re.search(r'<div class="vc-kv">(.*?)</div>', html)[1]
    return dict(re.findall(r"<span><b>(.*?)</b>(.*?)</span>", block))


def _headers(html: str) -> list[str]:
    return re.findall(r"<th(?:\s[^>]*)?>(.*?)</th>", html.split("</thead>")[0])


def _overconfident_top():
    """Calibrated in the large (rate - score about 0), but the scores above 0.9 come true 76 % of the time."""
    rng = np.random.default_rng(0)
    f = rng.uniform(0, 1, 4000)
    q = np.where(f >= 0.9, 0.76, np.clip(f + 0.02, 0, 1))
    y = (rng.random(f.size) < q).astype(int)
    return y, f


def test_ppi_audit_summary_says_in_the_large_and_reads_as_the_text():
    y, f = _overconfident_top()
    res = vc.ppi_audit(y[:600], f[:600], f[600:])
    top = res.row("rate in [0.9, 1]")
    assert top["conf"] - top["estimate"] > 0.1 and res.calibrated  # the case the notebook reader met
    html = _outside_text(res._repr_html_())
    kv = _kv(html)
    assert kv.get("calibrated in the large") == "yes" and "calibrated" not in kv
    # no raw field names in the notebook view
    for raw in ("sample_p", "n_effective", "n_labelled", "n_unlabelled", "cost_fp", "cbpe_low", "cbpe_high",
                "classical", "n_excluded", ">valid<"):
        assert raw not in html, raw
    assert kv["level"] == "95%" and kv["labels"] == "600" and kv["scored rows"] == "3,400"
    assert kv["costs"] == "c_FP=1, c_FN=1" and kv["random sample"].startswith("yes (chi-square p = ")
    heads = _headers(html)
    assert heads[:6] == ["quantity", "PPI++", "95% CI", "CBPE", "labels only", "labels"], heads
    # the text's note is shown as a note, the insufficient bins flagged
    few = vc.ppi_audit(y[:150], f[:150], f[150:])
    html = _outside_text(few._repr_html_())
    assert few.note and f'<div class="vc-note">note: {few.note}</div>' in html and "insufficient" in html


def test_ppi_audit_summary_of_weighted_labels_names_their_effective_number():
    y, f = _overconfident_top()
    w = np.random.default_rng(1).uniform(0.5, 2.0, 600)
    res = vc.ppi_audit(y[:600], f[:600], f[600:], sample_weight=w, level=0.9)
    kv = _kv(_outside_text(res._repr_html_()))
    assert kv["effective labels"] == f"{res.n_effective:,.1f}" and kv["level"] == "90%"
    assert "90% CI" in _headers(res._repr_html_())


def test_label_plan_html_keeps_the_texts_headers_saving_and_caveat():
    rng = np.random.default_rng(0)
    f = rng.beta(1, 5, 20000)
    plan = vc.label_plan(f, width=0.02, by=np.repeat(["w1", "w2"], 10000))
    html = _outside_text(plan._repr_html_())
    assert _headers(html) == ["group", "rows", "mean score", "sd", "labels (PPI)", "labels (labels only)",
                              "saving"]
    assert "assumes calibrated scores; miscalibration widens the interval, never biases it" in html
    saving = plan.rows[0]["saving"]
    assert f">{saving:.0%}<" in html and f"{saving:.4f}" not in html
    kv = _kv(html)
    assert kv == {"level": "95%", "width": "0.02"}
    assert "labels_ppi" not in html and "0.9500" not in html
    # the text says the same
    assert f"{saving:.0%}" in str(plan) and plan.CAVEAT in str(plan)
