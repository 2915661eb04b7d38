"""StudentT and FisherSnedecor: ratios of chi-squared (gamma) draws, reparameterized through
the gamma draws' implicit gradient; their moments exist only for enough degrees of freedom
(nan, or inf, where they do not)."""

from __future__ import annotations

import math
import numbers
from typing import Any

from symgrad import creation, type_info
from symgrad._data import Size
from symgrad.distributions import constraints
from symgrad.distributions.distribution import Distribution
from symgrad.distributions.gamma_family import Chi2, Gamma
from symgrad.distributions.utils import _assign_where, broadcast_all
from symgrad.ops.math import log, log1p
from symgrad.tensor import Tensor

__all__ = ["StudentT", "FisherSnedecor"]


def _finish(new: Distribution, old: Distribution, batch_shape: Size) -> Any:
    Distribution.__init__(new, batch_shape, validate_args=False)
    new._validate_args = old._validate_args
    return new


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, location ``loc`` and scale
    ``scale``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.StudentT(3.0)
    >>> d.log_prob(symgrad.tensor(1.0)), d.variance
    (tensor(-1.5763), tensor(3.))
    """

    arg_constraints = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0, validate_args: Any = None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> StudentT:
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = Size(batch_shape)
        new.df, new.loc = self.df.expand(batch_shape), self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        return _finish(new, self, batch_shape)

    mode = property(lambda self: self.loc)

    @property
    def mean(self) -> Tensor:
        return _assign_where(self.loc.clone(), self.df <= 1, math.nan)

    @property
    def variance(self) -> Tensor:
        # PyTorch's masked assignments into a copy of df: the formula on the finite entries
        df = self.df
        finite = df > 2
        m = df.clone()
        m[finite] = self.scale[finite].pow(2) * df[finite] / (df[finite] - 2)
        m[(df <= 2) & (df > 1)] = math.inf
        m[df <= 1] = math.nan
        return m

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        x = creation.randn(shape, dtype=self.df.dtype)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * (x * (z / self.df).rsqrt())

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        norm = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + (0.5 * self.df).lgamma()
            - (0.5 * (self.df + 1.0)).lgamma()
        )
        return -0.5 * (self.df + 1.0) * (y**2.0 / self.df).log1p() - norm

    def entropy(self) -> Tensor:
        half, half_next = 0.5 * self.df, 0.5 * (self.df + 1)
        lbeta = half.lgamma() + math.lgamma(0.5) - half_next.lgamma()
        return (
            self.scale.log()
            + half_next * (half_next.digamma() - half.digamma())
            + 0.5 * self.df.log()
            + lbeta
        )


class FisherSnedecor(Distribution):
    """Fisher-Snedecor's F distribution with ``df1`` and ``df2`` degrees of freedom.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.FisherSnedecor(4.0, 6.0)
    >>> d.log_prob(symgrad.tensor(1.0)), d.mean
    (tensor(-0.8802), tensor(1.5000))
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1: Any, df2: Any, validate_args: Any = None) -> None:
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        numbers_only = isinstance(df1, numbers.Number) and isinstance(df2, numbers.Number)
        batch = Size() if numbers_only else self.df1.shape
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> FisherSnedecor:
        new = self._get_checked_instance(FisherSnedecor, _instance)
        batch_shape = Size(batch_shape)
        new.df1, new.df2 = self.df1.expand(batch_shape), self.df2.expand(batch_shape)
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        return _finish(new, self, batch_shape)

    @property
    def mean(self) -> Tensor:
        df2 = self.df2.clone()  # PyTorch's masked assignment into a copy
        return _assign_where(df2, df2 <= 2, math.nan) / (df2 - 2)

    @property
    def mode(self) -> Tensor:
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return _assign_where(mode, self.df1 <= 2, math.nan)

    @property
    def variance(self) -> Tensor:
        df2 = self.df2.clone()
        df2 = _assign_where(df2, df2 <= 4, math.nan)
        top = 2 * df2.pow(2) * (self.df1 + df2 - 2)
        return top / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        x1 = self._gamma1.rsample(sample_shape).view(shape)
        x2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = type_info.finfo(x2.dtype).tiny
        # in place, as PyTorch clamps them (the nodes of a write into a view)
        x2.clamp_(min=tiny)
        y = x1 / x2
        y.clamp_(min=tiny)
        return y

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        half1, half2 = self.df1 * 0.5, self.df2 * 0.5
        ratio = self.df1 / self.df2
        t1 = (half1 + half2).lgamma() - half1.lgamma() - half2.lgamma()
        t2 = half1 * ratio.log() + (half1 - 1) * log(value)
        t3 = (half1 + half2) * log1p(ratio * value)
        return t1 + t2 - t3
