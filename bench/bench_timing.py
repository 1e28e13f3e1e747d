"""The timing loop the Python layer benches share: run a case twice to warm
it, then time it reps times; the median wall (time.perf_counter) and CPU
(time.process_time) seconds. On a shared machine the CPU time is the steadier
of the two."""
import statistics
import time


def median_times(run, reps):
    """Median wall and CPU seconds of reps calls of run() after two warm-up calls.

    Args:
        run: the case, called with no arguments.
        reps (int): how many timed calls.

    Returns:
        dict: {"wall": seconds, "cpu": seconds}.
    """
    run()
    run()
    wall, cpu = [], []
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        run()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return {"wall": statistics.median(wall), "cpu": statistics.median(cpu)}
