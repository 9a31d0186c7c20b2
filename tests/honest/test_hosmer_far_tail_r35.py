"""Above 20,000 rows Hosmer–Lemeshow keeps the chi-square law even when a group expects far less than one
event, and there its far tail is far too light: calibrated rare-event scores read p <= 0.001 about 20 times
as often as they should, with only "chi-square approximate" printed beside "p = 0.0000" (H = 140 for one
event in a group expecting 0.008). A chi-square p-value below 0.01 there now prints the measured fact
(round 35)."""
import functools

import numpy as np

import veracity as vc

_N = 25_000  # above the 20,000 rows of the Monte-Carlo p-value


def _calibrated(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    p = rng.beta(0.2, 20, _N)  # 1 % events: the lowest groups expect 1e-4 to 0.1 events
    return p, (rng.uniform(size=_N) < p).astype(int)


@functools.lru_cache(maxsize=1)
def _results() -> tuple:
    rng = np.random.default_rng(1)
    return tuple(vc.hosmer_lemeshow(*_calibrated(rng)) for _ in range(250))


def test_the_chi_square_far_tail_is_too_light_on_calibrated_rare_events():
    assert all(r.method == "chi-square" and r.min_expected < 5 for r in _results())
    p_values = np.array([r.p_value for r in _results()])
    # the note's claim: about 3 % at the 1 % level and 2 % at the 0.1 % level (the exact law: 1 % and 0.1 %)
    assert np.mean(p_values <= 0.01) >= 0.02 and np.mean(p_values <= 0.001) >= 0.01, p_values[p_values < 0.05]


def test_a_small_chi_square_p_value_there_says_so():
    result = next(r for r in _results() if r.p_value < 0.01)  # a calibrated model's sample
    assert result.min_expected < 1
    text = str(result)
    assert "chi-square approximate; its far tail is too light here" in text and "noise floor" in text
    assert "p <= 0.001 in 2 % of samples" in text and text.endswith("which is exact)")
    moderate = next(r for r in _results() if r.p_value >= 0.01)
    assert "chi-square approximate" in str(moderate) and "far tail" not in str(moderate)


def test_no_such_note_without_small_groups():
    rng = np.random.default_rng(2)
    p = rng.uniform(0.2, 0.8, _N)
    y = (rng.uniform(size=_N) < p).astype(int)
    assert "far tail" not in str(vc.hosmer_lemeshow(p, y))  # every group expects hundreds of events
