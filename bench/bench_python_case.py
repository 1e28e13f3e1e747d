"""One bench_python row in a fresh process, for interleaved A/B runs and callgrind:
  python bench_python_case.py PKG_DIR|torch add|tiny N time|count
time: best of 7 repeats of N calls, CPU time (process_time) per call in us.
count: only runs N calls (instructions per call: callgrind at N=11000 minus N=1000, / 10000)."""
import sys, time
side, case, n, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
if side == "torch":
    import torch as T
    T.set_num_threads(1)
    add = T.add
else:
    sys.path.insert(0, side)
    import tc as T
    T.set_num_threads(1)
    add = lambda a, b: a + b
if case == "add":
    a, b = T.ones(1), T.ones(1)
    def f():
        add(a, b)
else:
    x = T.randn(8); w = T.randn(8, requires_grad=True); bb = T.randn(8, requires_grad=True)
    def f():
        w.grad = None
        bb.grad = None
        (x * w + bb).relu().sum().backward()
for _ in range(200): f()
if mode == "count":
    for _ in range(n): f()
else:
    best = 1e9
    for _ in range(7):
        t0 = time.process_time()
        for _ in range(n): f()
        best = min(best, (time.process_time() - t0) / n)
    print("%.4f" % (best * 1e6))
