"""tc.distributions: probability distributions and sampling, mirroring
torch.distributions (PyTorch 1.13): the Distribution base, constraints,
transforms, kl_divergence with its register_kl registry, and the common
distributions. Everything is composed from tc ops, so that gradients flow
through log_prob, entropy and rsample.

Samplers without a libtc kernel yet (gamma, Poisson, binomial) are
vectorized Python loops over tc tensors (tc.distributions._sampling), drawing
from tc's generator (tc.manual_seed makes them reproducible); log-gamma and
digamma are composed series (tc.distributions._special)."""
from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .constraint_registry import biject_to, transform_to
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403
from .uniform import Uniform

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet", "Distribution",
    "ExponentialFamily", "Exponential", "Gamma", "Geometric", "Gumbel",
    "HalfCauchy", "HalfNormal", "Independent", "Laplace", "LogNormal",
    "MixtureSameFamily", "Multinomial", "MultivariateNormal", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Poisson", "RelaxedBernoulli", "RelaxedOneHotCategorical",
    "StudentT", "TransformedDistribution", "Uniform", "biject_to", "constraints", "transform_to",
    "kl_divergence", "register_kl",
    "transforms",
]
__all__.extend(transforms.__all__)
