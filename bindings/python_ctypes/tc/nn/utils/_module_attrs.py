"""Attribute bookkeeping on tc Modules that the reparametrizations of
tc.nn.utils need: tc's Module keeps parameters, buffers and submodules both
in its dicts and as instance attributes, so deleting one clears both."""


def delete_attr(module, name: str) -> None:
    """Removes ``name`` from the module's parameters, buffers, submodules and
    attributes (torch's Module.__delattr__)."""
    found = False
    for table in (module._parameters, module._buffers, module._modules):
        if name in table:
            del table[name]
            found = True
    if name in module.__dict__:
        del module.__dict__[name]
        found = True
    if not found:
        raise AttributeError("'%s' object has no attribute '%s'" % (type(module).__name__, name))


def forward_pre_hooks(module):
    """The module's forward pre-hooks: an ordered dict key -> hook that may be edited."""
    return module._hook_dict("_forward_pre_hooks")


def refuse_second_hook(module, kind, name: str, what: str) -> None:
    """RuntimeError as torch when ``module`` already has a ``kind`` pre-hook
    (named ``what`` in the message) on parameter ``name``."""
    for hook in forward_pre_hooks(module).values():
        if isinstance(hook, kind) and hook.name == name:
            raise RuntimeError("Cannot register two {} hooks on the same parameter {}".format(what, name))


def remove_hook(module, kind, name: str, what: str):
    """Undoes the ``kind`` reparametrization of ``module.<name>`` (its hook's
    remove(), then the hook dropped); ValueError as torch where there is none.
    Returns module."""
    hooks = forward_pre_hooks(module)
    for key, hook in list(hooks.items()):
        if isinstance(hook, kind) and hook.name == name:
            hook.remove(module)
            del hooks[key]
            return module
    raise ValueError("{} of '{}' not found in {}".format(what, name, module))
