"""StepLR, MultiStepLR, ExponentialLR and OneCycleLR, with torch 1.13's
formulas (chainable get_lr, closed forms for step(epoch)). Imported into
tc.optim.lr_scheduler."""
import math
from bisect import bisect_right
from collections import Counter
from typing import Any, Iterable, List, Optional, Union

from . import Optimizer
from .lr_scheduler import LRScheduler


class StepLR(LRScheduler):
    """Multiplies each group's lr by gamma every step_size steps.

    Args:
        optimizer: the optimizer.
        step_size: steps between decays.
        gamma: the factor.
        last_epoch: the index of the last step (-1: start).
        verbose: print each update.
    """

    def __init__(self, optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1, verbose: bool = False):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self) -> List[float]:
        """Returns the learning rate of each parameter group for the current epoch.

        Returns:
            list of float: one rate per parameter group.
        """
        self._warn_get_lr()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [g["lr"] for g in self.optimizer.param_groups]
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> List[float]:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiplies each group's lr by gamma at each milestone.

    Args:
        optimizer: the optimizer.
        milestones: step indices (a milestone listed twice decays twice).
        gamma: the factor.
        last_epoch: the index of the last step (-1: start).
        verbose: print each update.
    """

    def __init__(self, optimizer, milestones: Iterable[int], gamma: float = 0.1, last_epoch: int = -1,
                 verbose: bool = False):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self) -> List[float]:
        """Returns the learning rate of each parameter group for the current epoch.

        Returns:
            list of float: one rate per parameter group.
        """
        self._warn_get_lr()
        if self.last_epoch not in self.milestones:
            return [g["lr"] for g in self.optimizer.param_groups]
        return [g["lr"] * self.gamma ** self.milestones[self.last_epoch] for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> List[float]:
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch) for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiplies each group's lr by gamma every step.

    Args:
        optimizer: the optimizer.
        gamma: the factor.
        last_epoch: the index of the last step (-1: start).
        verbose: print each update.
    """

    def __init__(self, optimizer, gamma: float, last_epoch: int = -1, verbose: bool = False):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self) -> List[float]:
        """Returns the learning rate of each parameter group for the current epoch.

        Returns:
            list of float: one rate per parameter group.
        """
        self._warn_get_lr()
        if self.last_epoch == 0:
            return [g["lr"] for g in self.optimizer.param_groups]
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> List[float]:
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


def _per_group(name: str, optimizer, value: Union[float, List[float], tuple]) -> List[float]:
    n = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError("expected {} values for {}, got {}".format(n, name, len(value)))
        return list(value)
    return [value] * n


class OneCycleLR(LRScheduler):
    """The 1cycle policy: lr warms up from max_lr / div_factor to max_lr, then
    anneals to initial_lr / final_div_factor (momentum cycles inversely).

    Args:
        optimizer: the optimizer.
        max_lr: the peak lr (one, or one per group).
        total_steps: the cycle's steps (or epochs * steps_per_epoch).
        epochs, steps_per_epoch: the other way to give total_steps.
        pct_start: the share of the cycle spent warming up.
        anneal_strategy: "cos" or "linear".
        cycle_momentum: cycle momentum (or Adam's beta1) between max_momentum and base_momentum.
        base_momentum, max_momentum: its bounds.
        div_factor: initial_lr = max_lr / div_factor.
        final_div_factor: min_lr = initial_lr / final_div_factor.
        three_phase: warm up, come back down to initial_lr, then anneal.
        last_epoch: the index of the last step (-1: start).
        verbose: print each update.
    """

    def __init__(self, optimizer, max_lr, total_steps: Optional[int] = None, epochs: Optional[int] = None,
                 steps_per_epoch: Optional[int] = None, pct_start: float = 0.3, anneal_strategy: str = "cos",
                 cycle_momentum: bool = True, base_momentum: Any = 0.85, max_momentum: Any = 0.95,
                 div_factor: float = 25.0, final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1, verbose: bool = False):
        if not isinstance(optimizer, Optimizer):
            raise TypeError("{} is not an Optimizer".format(type(optimizer).__name__))
        self.optimizer = optimizer
        if total_steps is None and epochs is None and steps_per_epoch is None:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError("Expected positive integer total_steps, but got {}".format(total_steps))
            self.total_steps = total_steps
        else:
            if epochs is None or epochs <= 0 or not isinstance(epochs, int):
                raise ValueError("Expected positive integer epochs, but got {}".format(epochs))
            if steps_per_epoch is None or steps_per_epoch <= 0 or not isinstance(steps_per_epoch, int):
                raise ValueError("Expected positive integer steps_per_epoch, but got {}".format(steps_per_epoch))
            self.total_steps = epochs * steps_per_epoch
        if three_phase:
            self._schedule_phases = [
                {"end_step": float(pct_start * self.total_steps) - 1, "start_lr": "initial_lr",
                 "end_lr": "max_lr", "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": float(2 * pct_start * self.total_steps) - 2, "start_lr": "max_lr",
                 "end_lr": "initial_lr", "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"},
            ]
        else:
            self._schedule_phases = [
                {"end_step": float(pct_start * self.total_steps) - 1, "start_lr": "initial_lr",
                 "end_lr": "max_lr", "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
            ]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError("Expected float between 0 and 1 pct_start, but got {}".format(pct_start))
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must by one of 'cos' or 'linear', instead got {}".format(
                anneal_strategy))
        self.anneal_func = self._annealing_cos if anneal_strategy == "cos" else self._annealing_linear
        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for idx, group in enumerate(optimizer.param_groups):
                group["initial_lr"] = max_lrs[idx] / div_factor
                group["max_lr"] = max_lrs[idx]
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum with `cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for m_momentum, b_momentum, group in zip(max_momentums, base_momentums, optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (m_momentum, *group["betas"][1:])
                    else:
                        group["momentum"] = m_momentum
                    group["max_momentum"] = m_momentum
                    group["base_momentum"] = b_momentum
        super().__init__(optimizer, last_epoch, verbose)

    @staticmethod
    def _annealing_cos(start: float, end: float, pct: float) -> float:
        cos_out = math.cos(math.pi * pct) + 1
        return end + (start - end) / 2.0 * cos_out

    @staticmethod
    def _annealing_linear(start: float, end: float, pct: float) -> float:
        return (end - start) * pct + start

    def get_lr(self) -> List[float]:
        """Returns the learning rate of each parameter group for the current epoch.

        Returns:
            list of float: one rate per parameter group.
        """
        self._warn_get_lr()
        lrs = []
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError("Tried to step {} times. The specified number of total steps is {}".format(
                step_num + 1, self.total_steps))
        for group in self.optimizer.param_groups:
            start_step = 0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    computed_lr = self.anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        computed_momentum = self.anneal_func(group[phase["start_momentum"]],
                                                             group[phase["end_momentum"]], pct)
                    break
                start_step = phase["end_step"]
            lrs.append(computed_lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    group["betas"] = (computed_momentum, *group["betas"][1:])
                else:
                    group["momentum"] = computed_momentum
        return lrs
