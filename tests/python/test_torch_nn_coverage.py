"""tc.nn has every public class of torch 1.13's torch.nn: the list
torch_nn_1_13.txt (one name a line, made from dir(torch.nn) under torch 1.13:
the names not starting with "_" that are classes) is checked against tc.nn.
A line "Name  # absent: reason" marks a class deliberately left out."""
import os

import pytest

import tc.nn

LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_nn_1_13.txt")


def _entries():
    """[(name, absent reason or None)] from the list file."""
    out = []
    with open(LIST) as f:
        for line in f:
            text, _, comment = line.partition("#")
            name = text.strip()
            if not name:
                continue
            comment = comment.strip()
            reason = comment[len("absent:"):].strip() if comment.startswith("absent:") else None
            out.append((name, reason))
    return out


def test_list_is_well_formed():
    entries = _entries()
    names = [n for n, _ in entries]
    assert len(names) == len(set(names)), "duplicate names"
    assert names == sorted(names), "the list is kept sorted"
    assert all(n.isidentifier() and not n.startswith("_") for n in names)
    for name, reason in entries:
        assert reason is None or reason, "%s: an absent mark needs a reason" % name
    assert len(names) >= 150  # torch 1.13 has 158


def test_list_matches_installed_torch_1_13():
    torch = pytest.importorskip("torch")
    if not torch.__version__.startswith("1.13"):
        pytest.skip("the list is torch 1.13's; torch %s is installed" % torch.__version__)
    import inspect
    expected = sorted(n for n in dir(torch.nn) if not n.startswith("_") and inspect.isclass(getattr(torch.nn, n)))
    assert [n for n, _ in _entries()] == expected


def test_tc_nn_has_every_torch_nn_class():
    entries = _entries()
    absent = [n for n, reason in entries if reason is not None]
    missing = [n for n, reason in entries if reason is None and not hasattr(tc.nn, n)]
    present = len(entries) - len(absent) - len(missing)
    print("tc.nn coverage of torch 1.13's torch.nn classes: %d of %d present, %d marked absent, %d missing"
          % (present, len(entries), len(absent), len(missing)))
    assert not missing, "tc.nn lacks %d torch.nn classes: %s" % (len(missing), ", ".join(missing))
    for name in absent:
        assert not hasattr(tc.nn, name), "%s is marked absent but tc.nn has it: drop the mark" % name
