"""The ``required`` sentinel of optimizer defaults (torch.optim.optimizer.required):
an option every parameter group must give (SGD's lr)."""


class _RequiredParameter:
    """The type of :data:`required`: a default that must be overridden."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()
