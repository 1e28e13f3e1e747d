"""The timing loop the Python benches share (layers, adaptive pools, the GPT
step): run a case a few times to warm it, then time it reps times; the median
wall (time.perf_counter) and CPU (time.process_time) seconds, and the fastest
wall time. On a shared machine the CPU time is the steadier of the two."""
import statistics
import time


def median_times(run, reps, warmup=2):
    """Median wall and CPU seconds of reps calls of run() after warm-up calls.

    Args:
        run: the case, called with no arguments.
        reps (int): how many timed calls.
        warmup (int): how many untimed calls first.

    Returns:
        dict: {"wall": seconds, "cpu": seconds, "min_wall": seconds}.
    """
    for _ in range(warmup):
        run()
    wall, cpu = [], []
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        run()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return {"wall": statistics.median(wall), "cpu": statistics.median(cpu), "min_wall": min(wall)}
