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
