#!/usr/bin/env python3
"""Interleaved A/B timing of two commands: which of two builds is faster.

    python3 bench/ab.py RUNS STDIN -- COMMAND_A... -- COMMAND_B...

STDIN is a file each run reads, or - for none. The two commands alternate
(A first on even rounds, B first on odd ones) after 5 warm-up runs of each, so
a change in machine load hits both alike; the medians and B/A are printed.
Example, a change to `list` against the build before it:

    python3 bench/ab.py 150 - -- /tmp/old --workspace ws list -- /tmp/new --workspace ws list
"""
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
        f = open(stdin) if stdin != "-" else subprocess.DEVNULL
        t = time.perf_counter()
        subprocess.run(argv, stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - t

    for _ in range(5):
        once(a), once(b)
    ta, tb = [], []
    for k in range(runs):
        if k % 2:
            ta.append(once(a)), tb.append(once(b))
        else:
            tb.append(once(b)), ta.append(once(a))
    ma, mb = statistics.median(ta), statistics.median(tb)
    print(f"A {ma * 1e3:.2f} ms  B {mb * 1e3:.2f} ms  B/A {mb / ma:.3f}")


main()
