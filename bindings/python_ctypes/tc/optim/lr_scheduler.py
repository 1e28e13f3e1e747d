"""tc.optim.lr_scheduler: learning-rate schedules with PyTorch's semantics
(torch 1.13): make the scheduler after the optimizer (it sets each group's
"initial_lr" and takes its first step), call scheduler.step() after each
optimizer.step(), read get_last_lr(). The chainable formulas are PyTorch's,
so a schedule gives the same learning rates step by step. They work with the
C-backed optimizers and the Python ones alike (through param_groups[i]["lr"])."""
import math
import warnings
import weakref
from bisect import bisect_right
from functools import wraps

from . import Optimizer

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
           "SequentialLR", "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR",
           "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR", "LRScheduler"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)

_GET_LR_WARNING = "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."


def _count_optimizer_steps(method):
    """Wraps an optimizer's bound step so that each call counts in its
    ``_step_count`` (the scheduler warns when it is stepped first, as torch);
    a weak reference keeps the optimizer collectable."""
    if getattr(method, "_with_counter", False):
        return method
    instance_ref = weakref.ref(method.__self__)
    func = method.__func__
    cls = instance_ref().__class__
    del method

    @wraps(func)
    def wrapper(*args, **kwargs):
        instance = instance_ref()
        instance._step_count += 1
        return func.__get__(instance, cls)(*args, **kwargs)

    wrapper._with_counter = True
    return wrapper


class _enable_get_lr_call:
    """Marks get_lr() calls made by step() (a direct call warns, as torch)."""

    def __init__(self, o):
        self.o = o

    def __enter__(self):
        self.o._get_lr_called_within_step = True
        return self

    def __exit__(self, *exc):
        self.o._get_lr_called_within_step = False


class LRScheduler:
    """Base class of learning-rate schedulers (torch 1.13's ``_LRScheduler``):
    sets each group's ``lr`` at every :meth:`step`.

    Args:
        optimizer (Optimizer): the optimizer.
        last_epoch (int): the index of the last epoch (-1 to start).
        verbose (bool): print each update.
    """

    def __init__(self, optimizer, last_epoch=-1, verbose=False):
        if not isinstance(optimizer, Optimizer):
            raise TypeError("{} is not an Optimizer".format(type(optimizer).__name__))
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError("param 'initial_lr' is not specified in param_groups[{}] when resuming an "
                                   "optimizer".format(i))
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.optimizer.step = _count_optimizer_steps(self.optimizer.step)
        self.verbose = verbose
        self._initial_step()

    def _initial_step(self):
        """Resets the step counts and takes the first step."""
        self.optimizer._step_count = 0
        self._step_count = 0
        self.step()

    def state_dict(self):
        """Returns the scheduler's state: every attribute but the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restores the scheduler from a :meth:`state_dict`.

        Args:
            state_dict (dict): the saved state.
        """
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """Returns the learning rates last set, one per parameter group."""
        return self._last_lr

    def get_lr(self):
        """Returns the learning rates for the current epoch; subclasses override it."""
        raise NotImplementedError

    def print_lr(self, is_verbose, group, lr, epoch=None):
        """Prints the new learning rate of a group when is_verbose.

        Args:
            is_verbose (bool): print or not.
            group (int): the group's index.
            lr (float): its learning rate.
            epoch (int or float, optional): the epoch given to step().
        """
        if is_verbose:
            if epoch is None:
                print("Adjusting learning rate of group {} to {:.4e}.".format(group, lr))
            else:
                epoch_str = ("%.2f" if isinstance(epoch, float) else "%.5d") % epoch
                print("Epoch {}: adjusting learning rate of group {} to {:.4e}.".format(epoch_str, group, lr))

    def step(self, epoch=None):
        """Advances one epoch and updates the learning rates.

        Args:
            epoch (int, optional): deprecated: the epoch to jump to (the closed form is used where there is one).
        """
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_with_counter"):
                warnings.warn("Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                              "initialization. Please, make sure to call `optimizer.step()` before "
                              "`lr_scheduler.step()`. See more details at "
                              "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate", UserWarning)
            elif self.optimizer._step_count < 1:
                warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
                              "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
                              "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                              "will result in PyTorch skipping the first value of the learning rate schedule. "
                              "See more details at "
                              "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate", UserWarning)
        self._step_count += 1
        with _enable_get_lr_call(self):
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning)
                self.last_epoch = epoch
                if hasattr(self, "_get_closed_form_lr"):
                    values = self._get_closed_form_lr()
                else:
                    values = self.get_lr()
        for i, (group, lr) in enumerate(zip(self.optimizer.param_groups, values)):
            group["lr"] = lr
            self.print_lr(self.verbose, i, lr, epoch)
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _warn_get_lr(self):
        if not getattr(self, "_get_lr_called_within_step", False):
            warnings.warn(_GET_LR_WARNING, UserWarning)


_LRScheduler = LRScheduler


def _lambdas_state(scheduler):
    """The scheduler's state with its lambdas: plain functions are not saved
    (None), callable objects as a copy of their __dict__, as torch."""
    import types
    state = {k: v for k, v in scheduler.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
    state["lr_lambdas"] = [None if isinstance(f, types.FunctionType) else f.__dict__.copy()
                           for f in scheduler.lr_lambdas]
    return state


def _load_lambdas_state(scheduler, state_dict):
    lr_lambdas = state_dict.pop("lr_lambdas")
    scheduler.__dict__.update(state_dict)
    state_dict["lr_lambdas"] = lr_lambdas  # the caller's dict is left as it was
    for f, saved in zip(scheduler.lr_lambdas, lr_lambdas):
        if saved is not None:
            f.__dict__.update(saved)


def _lambdas_for(optimizer, lr_lambda):
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError("Expected {} lr_lambdas, but got {}".format(len(optimizer.param_groups), len(lr_lambda)))
    return list(lr_lambda)


class _LambdaScheduler(LRScheduler):
    """Base of LambdaLR and MultiplicativeLR: a scheduler driven by
    ``lr_lambda``, one function or one per group, whose state dict keeps the
    lambdas that are callable objects (torch's layout)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1, verbose=False):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas_for(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch, verbose)

    def state_dict(self):
        """Returns the state; the lambdas only when they are callable objects (their __dict__)."""
        return _lambdas_state(self)

    def load_state_dict(self, state_dict):
        """Restores the state (and the callable objects' attributes).

        Args:
            state_dict (dict): the saved state.
        """
        _load_lambdas_state(self, state_dict)


class LambdaLR(_LambdaScheduler):
    """lr = initial_lr * lr_lambda(epoch) (one function, or one per group).

    Args:
        optimizer (Optimizer): the optimizer.
        lr_lambda (callable or list): the factor as a function of the epoch.
        last_epoch (int): the index of the last epoch (-1 to start).
        verbose (bool): print each update.
    """

    def get_lr(self):
        """Returns the learning rate of each parameter group for the current epoch.

        Returns:
            list of float: one rate per parameter group.
        """
        self._warn_get_lr()
        return [base_lr * lmbda(self.last_epoch) for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class LinearLR(LRScheduler):
    """Multiplies the lr by a factor going linearly from start_factor to
    end_factor over total_iters steps.

    Args:
        optimizer (Optimizer): the optimizer.
        start_factor (float): the first factor.
        end_factor (float): the last factor.
        total_iters (int): the steps to go from one to the other.
        last_epoch (int): the index of the last epoch (-1 to start).
        verbose (bool): print each update.
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1,
                 verbose=False):
        if start_factor > 1.0 or start_factor < 0:
            raise ValueError("Starting multiplicative factor expected to be between 0 and 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        """Returns the learning rate of each parameter group for the current epoch.

        Returns:
            list of float: one rate per parameter group.
        """
        self._warn_get_lr()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [g["lr"] * self.start_factor for g in groups]
        if self.last_epoch > self.total_iters:
            return [g["lr"] for g in groups]
        return [g["lr"] * (1. + (self.end_factor - self.start_factor) /
                           (self.total_iters * self.start_factor + (self.last_epoch - 1) *
                            (self.end_factor - self.start_factor))) for g in groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor) *
                           min(self.total_iters, self.last_epoch) / self.total_iters) for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """eta_min + (initial_lr - eta_min) (1 + cos(pi epoch / T_max)) / 2, in
    PyTorch's recursive form.

    Args:
        optimizer (Optimizer): the optimizer.
        T_max (int): the half period.
        eta_min (float): the lowest lr.
        last_epoch (int): the index of the last epoch (-1 to start).
        verbose (bool): print each update.
    """

    def __init__(self, optimizer, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        """Returns the learning rate of each parameter group for the current epoch.

        Returns:
            list of float: one rate per parameter group.
        """
        self._warn_get_lr()
        groups, e, t = self.optimizer.param_groups, self.last_epoch, self.T_max
        if e == 0:
            return [g["lr"] for g in groups]
        if self._step_count == 1 and e > 0:
            return [self.eta_min + (b - self.eta_min) * (1 + math.cos(e * math.pi / t)) / 2 for b in self.base_lrs]
        if (e - 1 - t) % (2 * t) == 0:
            return [g["lr"] + (b - self.eta_min) * (1 - math.cos(math.pi / t)) / 2
                    for b, g in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t)) *
                (g["lr"] - self.eta_min) + self.eta_min for g in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (b - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for b in self.base_lrs]


class _SchedulerOfSchedulers:
    """Mixin of SequentialLR and ChainedScheduler: their state dict holds
    their own attributes and, under '_schedulers', each child's state dict."""

    def state_dict(self):
        """Returns the state of this scheduler and of its children."""
        d = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        d["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return d

    def load_state_dict(self, state_dict):
        """Restores the scheduler and its children from a :meth:`state_dict`.

        Args:
            state_dict (dict): the saved state.
        """
        schedulers = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = schedulers
        for s, sd in zip(self._schedulers, schedulers):
            s.load_state_dict(sd)


class SequentialLR(_SchedulerOfSchedulers, LRScheduler):
    """schedulers[i] runs from milestones[i - 1] on (each restarted at its
    milestone).

    Args:
        optimizer (Optimizer): the optimizer.
        schedulers (list): the schedulers, in order.
        milestones (list of int): the epochs at which the next one takes over.
        last_epoch (int): the index of the last epoch (-1 to start).
        verbose (bool): accepted as torch (the children print).
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1, verbose=False):
        for i, s in enumerate(schedulers):
            if s.optimizer != optimizer:
                raise ValueError("Sequential Schedulers expects all schedulers to belong to the same optimizer, "
                                 "but got schedulers at index {} to be different than the optimizer passed in."
                                 .format(i))
            if s.optimizer != schedulers[0].optimizer:
                raise ValueError("Sequential Schedulers expects all schedulers to belong to the same optimizer, "
                                 "but got schedulers at index {} and {} to be different.".format(0, i))
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than "
                             "the number of milestone points, but got number of schedulers {} and the number "
                             "of milestones to be equal to {}".format(len(schedulers), len(milestones)))
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for s in self._schedulers:  # undo the step each scheduler took when made
            s.last_epoch -= 1
        self._schedulers[0]._initial_step()
        self._last_lr = schedulers[0].get_last_lr()

    def step(self):
        """Advances one epoch, switching to the next scheduler at each milestone."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler.step(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


from .lr_scheduler_more import ExponentialLR, MultiStepLR, OneCycleLR, StepLR  # noqa: E402,F401

# ---- the rest of torch 1.13's schedulers ----
from .lr_scheduler_extra import (ChainedScheduler, ConstantLR, CosineAnnealingWarmRestarts,  # noqa: E402,F401
                                 CyclicLR, MultiplicativeLR, PolynomialLR, ReduceLROnPlateau)
