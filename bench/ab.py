#!/usr/bin/env python3
"""Interleaved A/B timing of two commands: which of two builds is faster.

    python3 bench/ab.py RUNS STDIN -- COMMAND_A... -- COMMAND_B...

STDIN is a file each run reads, or - for none. The two commands alternate
(A first on even rounds, B first on odd ones) after 5 warm-up runs of each, so
a change in machine load hits both alike; the medians and B/A are printed,
of the wall time, then of the CPU time each process used and of its minor
page faults. On a busy machine the CPU time moves less than the wall time,
and the faults not at all: a start-up change shows in them first.
Example, a change to `list` against the build before it:

    python3 bench/ab.py 150 - -- /tmp/old --workspace ws list -- /tmp/new --workspace ws list
"""
import os
import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 6 or sys.argv[3] != "--" or "--" not in sys.argv[4:]:
        sys.exit(__doc__)
    runs, stdin, rest = int(sys.argv[1]), sys.argv[2], sys.argv[4:]
    i = rest.index("--")
    a, b = rest[:i], rest[i + 1:]

    def once(argv):
        """The wall time, the CPU time (user + system) and the minor page
        faults of one run of argv."""
        f = open(stdin) if stdin != "-" else subprocess.DEVNULL
        t = time.perf_counter()
        p = subprocess.Popen(argv, stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        if f is not subprocess.DEVNULL:
            f.close()
        return wall, ru.ru_utime + ru.ru_stime, ru.ru_minflt

    for _ in range(5):
        once(a), once(b)
    ta, tb = [], []
    for k in range(runs):
        if k % 2:
            ta.append(once(a)), tb.append(once(b))
        else:
            tb.append(once(b)), ta.append(once(a))
    med = lambda runs, k: statistics.median(r[k] for r in runs)
    ma, mb = med(ta, 0), med(tb, 0)
    print(f"A {ma * 1e3:.2f} ms  B {mb * 1e3:.2f} ms  B/A {mb / ma:.3f}")
    ca, cb = med(ta, 1), med(tb, 1)
    fa, fb = med(ta, 2), med(tb, 2)
    print(f"  CPU A {ca * 1e3:.2f} ms  B {cb * 1e3:.2f} ms  B/A {cb / ca:.3f};  page faults A {fa:.0f}  B {fb:.0f}")


main()
