"""``vc.compare_models(..., bins=10**6)``: the refusal's advice can be followed (r33).

It said "Use fewer bins, or bins='auto'" (the words of the metrics' check), but compare_models refuses
``bins='auto'`` ("bins must be a positive integer"): the advice led to a second refusal."""

import pytest

import veracity as vc


def test_too_many_bins_advises_no_auto(error_line):
    models = {"a": [.1, .9, .3], "b": [.2, .8, .3]}
    text = error_line(lambda: vc.compare_models(models, [0, 1, 1], bins=10**6))
    assert text.startswith("bins must be at most 10,000, got 1,000,000"), text
    assert "auto" not in text, text
    with pytest.raises(vc.VeracityError, match="positive integer"):  # what 'auto' would have met
        vc.compare_models({"a": [.1, .9, .3], "b": [.2, .8, .3]}, [0, 1, 1], bins="auto")
    assert vc.compare_models({"a": [.1, .9, .3], "b": [.2, .8, .3]}, [0, 1, 1], bins=10**4,
                             n_resamples=0).bins == 10**4  # the bound itself is allowed
