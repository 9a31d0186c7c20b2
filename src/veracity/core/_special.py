"""scipy.special's functions, imported on first use.

``import scipy.special`` costs about 0.2 s (its array-API layer), more than the rest of
``import veracity``; every module takes these names from here instead, so the import is
paid by the first computation, not by ``import veracity``. Each wrapper forwards its
arguments unchanged and returns exactly what scipy returns; :func:`ndtri` answers the normal
quantiles of the common levels from a table of scipy's own values, so that an interval at such a
level (``veracity audit``'s Wilson intervals) imports no scipy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: scipy.special.ndtri at the probabilities that the common levels ask of it (1 - α/2, 1 - α and
#: 0.5 + level/2 for a level of 0.5 to 0.999, as the callers compute them): the values scipy returns
#: (tests/test_cli_imports_r41.py pins each, bit for bit), so that an interval at such a level needs
#: no import of scipy.special (0.2 s of CPU, some 40 % of ``veracity audit``'s on the demo data)
_NDTRI: dict[float, float] = {
    0.5: 0.0,
    0.6: 0.2533471031357997,
    0.68: 0.4676987991145084,
    0.7: 0.5244005127080407,
    0.75: 0.6744897501960817,
    0.8: 0.8416212335729143,
    0.8400000000000001: 0.9944578832097535,
    0.85: 1.0364333894937898,
    0.875: 1.1503493803760079,
    0.9: 1.2815515655446004,
    0.925: 1.4395314709384563,
    0.95: 1.6448536269514722,
    0.975: 1.959963984540054,
    0.98: 2.0537489106318225,
    0.9875: 2.241402727604947,
    0.99: 2.3263478740408408,
    0.995: 2.5758293035489004,
    0.9975: 2.807033768343811,
    0.999: 3.090232306167813,
    0.9995: 3.2905267314919255,
}


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
    """The normal quantile :math:`\\Phi^{-1}(p)`; a scalar ``p`` of :data:`_NDTRI` from the table (the same
    ``numpy.float64`` scipy returns), anything else from scipy."""
    if len(args) == 1 and not kwargs and type(args[0]) in (float, np.float64):
        z = _NDTRI.get(args[0])
        if z is not None:
            return np.float64(z)
    return _special().ndtri(*args, **kwargs)


def softmax(*args: Any, **kwargs: Any) -> Any:
    return _special().softmax(*args, **kwargs)


def xlogy(*args: Any, **kwargs: Any) -> Any:
    return _special().xlogy(*args, **kwargs)
