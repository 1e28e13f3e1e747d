"""tc.compat and the launcher `python3 -m tc.run`: unchanged PyTorch scripts
run on tc through the import hook; what tc lacks fails with a
NotImplementedError naming the PyTorch name and the script's line; `import
tc` alone installs nothing."""
import os
import subprocess
import sys
import textwrap
import types

import pytest

import tc

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PKG = os.path.join(REPO, "bindings", "python_ctypes")


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = PKG + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("OMP_NUM_THREADS", "1")
    env["TC_LIBRARY"] = tc.library_path
    return env


def _run(tmp_path, source, *args, launcher=True, name="prog.py"):
    script = tmp_path / name
    script.write_text(textwrap.dedent(source))
    cmd = [sys.executable] + (["-m", "tc.run"] if launcher else []) + [str(script)] + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(), cwd=str(tmp_path), timeout=120)


TRAIN = """
    import sys
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import torch.optim as optim
    from torch.optim.lr_scheduler import StepLR
    from torch.utils.data import DataLoader, TensorDataset

    print("module", type(torch.zeros(1)).__module__.split(".")[0], __name__, sys.argv[1:])
    x = torch.arange(12, dtype=torch.float32).reshape(6, 2) / 10
    y = (x[:, :1] * 2 - x[:, 1:]).clone()
    model = nn.Linear(2, 1)
    with torch.no_grad():
        model.weight.copy_(torch.tensor([[0.5, -0.25]]))
        model.bias.fill_(0.1)
    opt = optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=2, gamma=0.5)
    loader = DataLoader(TensorDataset(x, y), batch_size=3, shuffle=False)
    for epoch in range(3):
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.mse_loss(model(xb), yb)
            loss.backward()
            opt.step()
            print("loss %.6f" % loss.item())
        sched.step()
"""


def _losses(out):
    return [float(line.split()[1]) for line in out.splitlines() if line.startswith("loss ")]


def test_launcher_runs_an_unchanged_torch_script_like_torch(tmp_path, torch):
    r = _run(tmp_path, TRAIN, "--flag", "3")
    assert r.returncode == 0, r.stderr
    assert "module tc __main__ ['--flag', '3']" in r.stdout
    ref = _run(tmp_path, TRAIN, "--flag", "3", launcher=False, name="ref.py")
    assert ref.returncode == 0, ref.stderr
    assert "module torch __main__" in ref.stdout
    got, want = _losses(r.stdout), _losses(ref.stdout)
    assert len(got) == len(want) == 6
    assert got == pytest.approx(want, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("line, name", [
    ("y = torch.fft.hfft2(x)", "torch.fft.hfft2"),
    ("from torch.fft import hfft2", "torch.fft.hfft2"),
    ("y = torch.definitely_not_a_tc_function(x)", "torch.definitely_not_a_tc_function"),
    ("from torch.nn import DefinitelyNotAModule", "torch.nn.DefinitelyNotAModule"),
    ("y = x.definitely_not_a_method()", "torch.Tensor.definitely_not_a_method"),
])
def test_missing_name_is_reported_with_the_script_line(tmp_path, line, name):
    r = _run(tmp_path, """
        import torch
        x = torch.ones(4)
        %s
        print("unreachable")
    """ % line)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "unreachable" not in r.stdout
    assert "%s is not implemented in tc" % name in r.stderr
    assert "prog.py:4" in r.stderr


def test_missing_name_inside_a_helper_module_points_at_the_helper(tmp_path):
    (tmp_path / "helper.py").write_text("import torch\n\ndef f(x):\n    return torch.fft.ihfft2(x)\n")
    r = _run(tmp_path, """
        import torch
        import helper
        helper.f(torch.ones(2))
    """)
    assert r.returncode == 1
    assert "torch.fft.ihfft2 is not implemented in tc" in r.stderr
    assert "helper.py:4" in r.stderr


def test_script_can_catch_the_error_and_probe_features(tmp_path):
    r = _run(tmp_path, """
        import torch
        try:
            torch.fft.hfft2(torch.ones(4))
        except NotImplementedError as e:
            print("caught:", e)
        print("hasattr", hasattr(torch, "definitely_missing"), hasattr(torch, "zeros"))
        print("mps", torch.backends.mps.is_available())
        torch.backends.cudnn.benchmark = True
        print("cudnn", torch.backends.cudnn.benchmark)
        try:
            import torch.definitely_missing_module
        except ImportError as e:
            print("import error:", e)
        print("cuda", torch.cuda.is_available() in (True, False))
    """)
    assert r.returncode == 0, r.stderr
    assert "caught: torch.fft.hfft2 is not implemented in tc" in r.stdout
    assert "hasattr False True" in r.stdout
    assert "mps False" in r.stdout
    assert "cudnn True" in r.stdout
    assert "import error: torch.definitely_missing_module is not implemented in tc" in r.stdout
    assert "cuda True" in r.stdout


def test_other_errors_and_exit_codes_pass_through(tmp_path):
    r = _run(tmp_path, "import sys\nimport torch\nsys.exit(3)\n")
    assert r.returncode == 3
    r = _run(tmp_path, "import torch\nraise ValueError('boom')\n")
    assert r.returncode == 1
    assert "ValueError: boom" in r.stderr and "not implemented in tc" not in r.stderr


def test_torchvision_is_not_faked(tmp_path):
    r = _run(tmp_path, """
        import sys
        try:
            import torchvision
        except ImportError:
            print("no torchvision")
        else:
            print("real" if not type(torchvision).__name__ == "TorchProxy" else "fake")
        print(any(n.startswith("torchvision") and type(m).__name__ == "TorchProxy"
                  for n, m in sys.modules.items()))
    """)
    # Where torchvision is installed, it imports the hooked torch and may fail
    # inside; what matters is that the hook never answers its name.
    assert "fake" not in r.stdout
    assert "True" not in r.stdout


def test_import_tc_alone_installs_nothing(tmp_path):
    r = _run(tmp_path, """
        import sys
        import tc
        import tc.nn, tc.optim, tc.utils.data
        print("hooked", [type(f).__name__ for f in sys.meta_path if "Torch" in type(f).__name__])
        print("torch modules", [n for n in sys.modules if n == "torch" or n.startswith("torch.")])
        print("compat loaded", "tc.compat" in sys.modules)
    """, launcher=False)
    assert r.returncode == 0, r.stderr
    assert "hooked []" in r.stdout
    assert "torch modules []" in r.stdout
    assert "compat loaded False" in r.stdout


def test_install_uninstall_in_process_and_generic_mapping():
    import importlib

    import tc.compat as compat
    real = sys.modules.get("torch")
    extra = types.ModuleType("tc.zz_compat_probe")
    extra.answer = 42
    sys.modules["tc.zz_compat_probe"] = extra
    try:
        compat.install()
        assert compat.is_installed()
        torch_ = importlib.import_module("torch")
        assert torch_.zeros is tc.zeros and torch_.Tensor is tc.Tensor
        nn_ = importlib.import_module("torch.nn")
        assert nn_.Linear is tc.nn.Linear
        assert importlib.import_module("torch.nn.functional").relu is tc.nn.functional.relu
        assert torch_.nn is nn_
        # a module that appears in tc later is found under its PyTorch name
        assert importlib.import_module("torch.zz_compat_probe").answer == 42
        with pytest.raises(NotImplementedError, match=r"torch\.fft\.hfft2 is not implemented in tc"):
            importlib.import_module("torch.fft").hfft2
        with pytest.raises(NotImplementedError, match=r"torch\.linalg_zz is not implemented in tc"):
            torch_.linalg_zz
    finally:
        compat.uninstall()
        del sys.modules["tc.zz_compat_probe"]
    assert not compat.is_installed()
    assert not any(type(m).__name__ == "TorchProxy" for m in sys.modules.values())
    assert sys.modules.get("torch") is real


def test_launcher_usage_errors(tmp_path):
    r = subprocess.run([sys.executable, "-m", "tc.run"], capture_output=True, text=True, env=_env())
    assert r.returncode == 2 and "usage" in r.stderr
    r = subprocess.run([sys.executable, "-m", "tc.run", str(tmp_path / "nope.py")], capture_output=True,
                       text=True, env=_env())
    assert r.returncode == 2 and "nope.py" in r.stderr
