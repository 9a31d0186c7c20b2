"""scipy.special's functions, imported on first use.

``import scipy.special`` costs about 0.2 s (its array-API layer), more than the rest of
``import veracity``; every module takes these names from here instead, so the import is
paid by the first computation, not by ``import veracity``. Each wrapper forwards its
arguments unchanged and returns exactly what scipy returns.
"""

from __future__ import annotations

from typing import Any


def _special() -> Any:
    import scipy.special

    return scipy.special


def betainc(*args: Any, **kwargs: Any) -> Any:
    return _special().betainc(*args, **kwargs)


def betaincinv(*args: Any, **kwargs: Any) -> Any:
    return _special().betaincinv(*args, **kwargs)


def chdtrc(*args: Any, **kwargs: Any) -> Any:
    return _special().chdtrc(*args, **kwargs)


def expit(*args: Any, **kwargs: Any) -> Any:
    return _special().expit(*args, **kwargs)


def log_softmax(*args: Any, **kwargs: Any) -> Any:
    return _special().log_softmax(*args, **kwargs)


def logit(*args: Any, **kwargs: Any) -> Any:
    return _special().logit(*args, **kwargs)


def ndtr(*args: Any, **kwargs: Any) -> Any:
    return _special().ndtr(*args, **kwargs)


def ndtri(*args: Any, **kwargs: Any) -> Any:
    return _special().ndtri(*args, **kwargs)


def softmax(*args: Any, **kwargs: Any) -> Any:
    return _special().softmax(*args, **kwargs)


def xlogy(*args: Any, **kwargs: Any) -> Any:
    return _special().xlogy(*args, **kwargs)
