"""MultiplicativeLR, ConstantLR, PolynomialLR, ChainedScheduler,
ReduceLROnPlateau, CyclicLR and CosineAnnealingWarmRestarts, with torch
1.13's formulas (chainable get_lr, closed forms for step(epoch)) and state
dicts. Imported into tc.optim.lr_scheduler."""
import math
import warnings
import weakref

from . import Optimizer
from .lr_scheduler import (EPOCH_DEPRECATION_WARNING, LRScheduler, _LambdaScheduler, _SchedulerOfSchedulers,
                           _enable_get_lr_call)


class MultiplicativeLR(_LambdaScheduler):
    """Multiplies each group's lr by lr_lambda(epoch) at every step after the first.

    Args:
        optimizer (Optimizer): the optimizer.
        lr_lambda (callable or list): the factor as a function of the epoch (one, or one per group).
        last_epoch (int): the index of the last epoch (-1 to start).
        verbose (bool): print each update.
    """

    def get_lr(self):
        """Returns the learning rate of each parameter group for the current epoch.

        Returns:
            list of float: one rate per parameter group.
        """
        self._warn_get_lr()
        if self.last_epoch > 0:
            return [g["lr"] * f(self.last_epoch) for f, g in zip(self.lr_lambdas, self.optimizer.param_groups)]
        return [g["lr"] for g in self.optimizer.param_groups]


class ConstantLR(LRScheduler):
    """Multiplies the lr by factor until epoch total_iters, then restores it.

    Args:
        optimizer (Optimizer): the optimizer.
        factor (float): the factor, in [0, 1].
        total_iters (int): the epochs it applies to.
        last_epoch (int): the index of the last epoch (-1 to start).
        verbose (bool): print each update.
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1, verbose=False):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        """Returns the learning rate of each parameter group for the current epoch.

        Returns:
            list of float: one rate per parameter group.
        """
        self._warn_get_lr()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [g["lr"] * self.factor for g in groups]
        if self.last_epoch != self.total_iters:
            return [g["lr"] for g in groups]
        return [g["lr"] * (1.0 / self.factor) for g in groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decays the lr as (1 - epoch / total_iters) ** power, reaching 0 at total_iters.

    Args:
        optimizer (Optimizer): the optimizer.
        total_iters (int): the epochs of the decay.
        power (float): the polynomial's power.
        last_epoch (int): the index of the last epoch (-1 to start).
        verbose (bool): print each update.
    """

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1, verbose=False):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        """Returns the learning rate of each parameter group for the current epoch.

        Returns:
            list of float: one rate per parameter group.
        """
        self._warn_get_lr()
        if self.last_epoch == 0 or self.last_epoch > self.total_iters:
            return [g["lr"] for g in self.optimizer.param_groups]
        decay = ((1.0 - self.last_epoch / self.total_iters) /
                 (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [g["lr"] * decay for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for base_lr in self.base_lrs]


class ChainedScheduler(_SchedulerOfSchedulers, LRScheduler):
    """Steps several chainable schedulers of one optimizer together, in order.

    Args:
        schedulers (list): the schedulers.
    """

    def __init__(self, schedulers):
        for i in range(1, len(schedulers)):
            if schedulers[i].optimizer != schedulers[0].optimizer:
                raise ValueError("ChainedScheduler expects all schedulers to belong to the same optimizer, but "
                                 "got schedulers at index {} and {} to be different".format(0, i))
        self._schedulers = list(schedulers)
        self.optimizer = schedulers[0].optimizer
        self._last_lr = [g["lr"] for g in self._schedulers[-1].optimizer.param_groups]

    def step(self):
        """Steps every scheduler once."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = [g["lr"] for g in self._schedulers[-1].optimizer.param_groups]



class ReduceLROnPlateau:
    """Multiplies the lr by factor once a metric has not improved for patience epochs.

    Args:
        optimizer (Optimizer): the optimizer.
        mode (str): 'min' (the metric should decrease) or 'max'.
        factor (float): the factor (< 1).
        patience (int): epochs without improvement tolerated.
        threshold (float): the smallest change that counts as an improvement.
        threshold_mode (str): 'rel' (relative to the best) or 'abs'.
        cooldown (int): epochs to wait after a reduction.
        min_lr (float or list): the lowest lr (one, or one per group).
        eps (float): a reduction smaller than this is skipped.
        verbose (bool): print each reduction.
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8, verbose=False):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError("{} is not an Optimizer".format(type(optimizer).__name__))
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError("expected {} min_lrs, got {}".format(len(optimizer.param_groups), len(min_lr)))
            self.min_lrs = list(min_lr)
        else:
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        self.best = None
        self.num_bad_epochs = None
        self.mode_worse = None
        self.eps = eps
        self.last_epoch = 0
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        """Records a metric value and reduces the lr when it has stalled.

        Args:
            metrics (float or Tensor): the metric (a 0-dim tensor is read with float()).
            epoch (int, optional): deprecated: the epoch number.
        """
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning)
        self.last_epoch = epoch
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def _reduce_lr(self, epoch):
        for i, group in enumerate(self.optimizer.param_groups):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr
                if self.verbose:
                    epoch_str = ("%.2f" if isinstance(epoch, float) else "%.5d") % epoch
                    print("Epoch {}: reducing learning rate of group {} to {:.4e}.".format(epoch_str, i, new_lr))

    @property
    def in_cooldown(self):
        """Whether the scheduler is waiting after a reduction."""
        return self.cooldown_counter > 0

    def is_better(self, a, best):
        """Whether metric value a improves on best (by the threshold).

        Args:
            a (float): the new value.
            best (float): the best so far.

        Returns:
            bool: a counts as an improvement.
        """
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1. - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def get_last_lr(self):
        """Returns the learning rates after the last step, one per parameter group."""
        return self._last_lr

    def state_dict(self):
        """Returns the scheduler's state: every attribute but the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restores the scheduler from a :meth:`state_dict`.

        Args:
            state_dict (dict): the saved state.
        """
        self.__dict__.update(state_dict)
        self._init_is_better(mode=self.mode, threshold=self.threshold, threshold_mode=self.threshold_mode)


def _per_group(name, optimizer, param):
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError("expected {} values for {}, got {}".format(len(optimizer.param_groups), name,
                                                                         len(param)))
        return param
    return [param] * len(optimizer.param_groups)


class CyclicLR(LRScheduler):
    """The cyclical learning-rate policy (Smith, 2017): the lr goes between
    base_lr and max_lr (momentum inversely), step by step.

    Args:
        optimizer (Optimizer): the optimizer.
        base_lr (float or list): the lower bound (one, or one per group).
        max_lr (float or list): the upper bound.
        step_size_up (int): steps of the rising half.
        step_size_down (int, optional): steps of the falling half (default: step_size_up).
        mode (str): 'triangular', 'triangular2' or 'exp_range' (ignored with scale_fn).
        gamma (float): exp_range's factor.
        scale_fn (callable, optional): a custom amplitude scaling.
        scale_mode (str): scale_fn's argument: 'cycle' or 'iterations'.
        cycle_momentum (bool): cycle the momentum too.
        base_momentum (float or list): the lower momentum bound.
        max_momentum (float or list): the upper momentum bound.
        last_epoch (int): the index of the last batch (-1 to start).
        verbose (bool): print each update.
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1., scale_fn=None, scale_mode="cycle", cycle_momentum=True, base_momentum=0.8,
                 max_momentum=0.9, last_epoch=-1, verbose=False):
        if not isinstance(optimizer, Optimizer):
            raise TypeError("{} is not an Optimizer".format(type(optimizer).__name__))
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        if scale_fn is None:
            self._scale_fn_custom = None
            # A weak method, as torch: the state dict must not hold a bound
            # method of the scheduler itself.
            if self.mode == "triangular":
                self._scale_fn_ref = weakref.WeakMethod(self._triangular_scale_fn)
                self.scale_mode = "cycle"
            elif self.mode == "triangular2":
                self._scale_fn_ref = weakref.WeakMethod(self._triangular2_scale_fn)
                self.scale_mode = "cycle"
            else:
                self._scale_fn_ref = weakref.WeakMethod(self._exp_range_scale_fn)
                self.scale_mode = "iterations"
        else:
            self._scale_fn_custom = scale_fn
            self._scale_fn_ref = None
            self.scale_mode = scale_mode
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum with `cycle_momentum` option enabled")
            base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for momentum, group in zip(base_momentums, optimizer.param_groups):
                    group["momentum"] = momentum
            self.base_momentums = [group["momentum"] for group in optimizer.param_groups]
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
        super().__init__(optimizer, last_epoch, verbose)
        self.base_lrs = base_lrs

    def scale_fn(self, x):
        """The amplitude's scale at x (a cycle number or an iteration).

        Args:
            x (float): the argument.

        Returns:
            float: the scale.
        """
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref()(x)

    def _triangular_scale_fn(self, x):
        return 1.

    def _triangular2_scale_fn(self, x):
        return 1 / (2. ** (x - 1))

    def _exp_range_scale_fn(self, x):
        return self.gamma ** x

    def get_lr(self):
        """Returns the learning rate of each parameter group at the current batch (and cycles the momentum).

        Returns:
            list of float: one rate per parameter group.
        """
        self._warn_get_lr()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1. + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        arg = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [base_lr + (max_lr - base_lr) * scale_factor * self.scale_fn(arg)
               for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            momentums = [max_m - (max_m - base_m) * scale_factor * self.scale_fn(arg)
                         for base_m, max_m in zip(self.base_momentums, self.max_momentums)]
            for group, momentum in zip(self.optimizer.param_groups, momentums):
                group["momentum"] = momentum
        return lrs


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from initial_lr to eta_min over T_i epochs, restarting
    with T_i multiplied by T_mult (SGDR).

    Args:
        optimizer (Optimizer): the optimizer.
        T_0 (int): the first period.
        T_mult (int): the period's growth factor at each restart.
        eta_min (float): the lowest lr.
        last_epoch (int): the index of the last epoch (-1 to start).
        verbose (bool): print each update.
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError("Expected positive integer T_0, but got {}".format(T_0))
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError("Expected integer T_mult >= 1, but got {}".format(T_mult))
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        """Returns the learning rate of each parameter group for the current epoch.

        Returns:
            list of float: one rate per parameter group.
        """
        self._warn_get_lr()
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base_lr in self.base_lrs]

    def step(self, epoch=None):
        """Advances one epoch, or jumps to epoch (a float allows steps within an epoch).

        Args:
            epoch (float, optional): the epoch to jump to.
        """
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur - self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError("Expected non-negative epoch, but got {}".format(epoch))
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        with _enable_get_lr_call(self):
            for i, (group, lr) in enumerate(zip(self.optimizer.param_groups, self.get_lr())):
                group["lr"] = lr
                self.print_lr(self.verbose, i, lr, epoch)
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]
