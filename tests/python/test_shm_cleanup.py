"""No shared memory outlives its users: many short DataLoader runs with worker
processes, each ending by an exception in a worker, by a break, or by a
SIGKILLed worker, then count what is left in /dev/shm (file_system
strategy: named segments; 0 must remain once the program and its cleanup
process are gone) and the program's open file descriptors (file_descriptor
strategy: each segment is a descriptor until its last user lets go).

The default suite runs 12 loaders per strategy (4 of each ending); TC_SLOW=1
runs the full 100 per strategy (34 + 33 + 33)."""
import os
import subprocess
import sys
import textwrap
import time

import pytest

RUNS = 100 if os.environ.get("TC_SLOW") == "1" else 12

_SCRIPT = textwrap.dedent("""
    import os, signal, sys
    import tc
    import tc.multiprocessing as tmp
    from tc.utils.data import DataLoader, Dataset

    class Data(Dataset):
        def __init__(self, ending):
            self.ending = ending
        def __len__(self):
            return 64
        def __getitem__(self, i):
            if i == 20 and self.ending == "exception":
                raise ValueError("planned")
            if i == 20 and self.ending == "sigkill":
                os.kill(os.getpid(), signal.SIGKILL)
            return tc.full((256,), float(i))

    strategy, runs = sys.argv[1], int(sys.argv[2])
    tmp.set_sharing_strategy(strategy)
    fds_before = len(os.listdir("/proc/self/fd"))
    endings = {"exception": 0, "break": 0, "sigkill": 0}
    for r in range(runs):
        ending = ("exception", "break", "sigkill")[r % 3]
        batch = None
        loader = DataLoader(Data(ending), batch_size=4, num_workers=2, multiprocessing_context="fork")
        try:
            for k, batch in enumerate(loader):
                assert batch.is_shared()
                if ending == "break" and k == 3:
                    break
        except (ValueError, RuntimeError) as e:
            assert ("planned" in str(e)) == (ending == "exception"), e
            endings[ending] += 1
        else:
            assert ending == "break"
            endings[ending] += 1
        del loader, batch
    import gc
    gc.collect()
    print("fds", len(os.listdir("/proc/self/fd")) - fds_before)
    print("endings", endings["exception"], endings["break"], endings["sigkill"])
""")


def _tc_segments():
    return {n for n in os.listdir("/dev/shm") if n.startswith("tc_")}


@pytest.mark.parametrize("strategy", ["file_system", "file_descriptor"])
def test_no_segment_or_descriptor_left_after_runs(strategy):
    before = _tc_segments()
    import tc
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(tc.__file__)))
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=pkg + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # Its own cleanup process: this test process's (started by other tests)
    # sweeps only when this process exits.
    env.pop("TC_SHM_MANAGER", None)
    out = subprocess.run([sys.executable, "-c", _SCRIPT, strategy, str(RUNS)], capture_output=True, text=True,
                         timeout=300, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in out.stdout.strip().splitlines())
    n_exc, n_break, n_kill = map(int, lines["endings"].split())
    assert n_exc + n_break + n_kill == RUNS and min(n_exc, n_break, n_kill) >= RUNS // 3
    # Descriptors: none kept for segments nobody uses (a few may be the runtime's own).
    assert int(lines["fds"]) <= 2, out.stdout
    # Segments: the killed workers' leftovers are the cleanup process's to remove.
    deadline = time.monotonic() + 20
    while _tc_segments() - before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _tc_segments() - before == set()
