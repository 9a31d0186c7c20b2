"""Words of the honest sections: ``bins=1`` printed "1 uniform bins" in the noise floor's, the bootstrap's and
the estimators' lines (Hosmer-Lemeshow's said "1 equal-count bin"); the slope's refusal on one class said
"all 20 weighted labels are 0" of unweighted rows (now as vc.auc says it: "all 20 labels are 0")."""

import numpy as np

import veracity as vc


def _rows() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, 300)
    return p, (rng.random(300) < p).astype(int)


def test_one_bin_is_one_bin() -> None:
    p, y = _rows()
    texts = {
        "noise floor": str(vc.ece_noise_floor(p, y, bins=1, n_resamples=50)),
        "bootstrap": str(vc.bootstrap_intervals(p, y, bins=1, n_resamples=50)),
        "estimators": str(vc.ece_estimates(p, y, bins=1)),
        "noise floor html": vc.ece_noise_floor(p, y, bins=1, n_resamples=50)._repr_html_(),
        "bootstrap html": vc.bootstrap_intervals(p, y, bins=1, n_resamples=50)._repr_html_(),
    }
    for name, text in texts.items():
        assert "1 uniform bin" in text and "1 uniform bins" not in text, (name, text)
    assert "15 uniform bins" in str(vc.ece_noise_floor(p, y, n_resamples=50))


def test_one_class_refusal_names_labels_as_they_are() -> None:
    tests = vc.calibration_tests([0.1, 0.2, 0.3], [0, 0, 0])
    assert tests.skipped["slope"] == "calibration slope needs both classes; all 3 labels are 0"
    weighted = vc.calibration_tests([0.1, 0.2, 0.3], [0, 0, 1], sample_weight=[1.0, 2.0, 0.0])
    assert weighted.skipped["slope"].endswith("all 2 labels of positive weight are 0")


def test_one_row_is_said_in_the_singular() -> None:
    text = str(vc.hosmer_lemeshow([0.3], [1]))  # before: "merged as there are only 1 row"
    assert "9 of bins=10 merged as there is only 1 row" in text, text
