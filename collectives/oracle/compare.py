"""Runs each CASE of the dump through the MPICH harness and compares the records per rank.

Sends and receives are compared as two ordered sequences per rank, plus the full interleaved
order except where MPICH posts a batch of nonblocking operations at once (scattered
alltoall(v/w), linear gatherv/scatterv), whose interleaving is not an ordering.
Usage: compare.py ORACLE DUMP; exits 1 if any case differs.
"""
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

oracle, dump = sys.argv[1], sys.argv[2]
cases = []
for line in open(dump):
    line = line.rstrip("\n")
    if line.startswith("CASE "):
        cases.append((line[5:].split(), []))
    elif line.startswith("rank "):
        cases[-1][1].append(line.split(":", 1)[1].split())


def halves(tokens):
    return [t for t in tokens if t[0] == "S"], [t for t in tokens if t[0] == "R"]


def run(case):
    args, mine = case
    algo = args[0]
    out = subprocess.run([oracle] + args, capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        return f"harness failed on {' '.join(args[:8])}: {out.stderr[:300]}"
    theirs = [l.split(":", 1)[1].split() for l in out.stdout.splitlines() if l.startswith("rank ")]
    batched = "scattered" in algo or algo in ("gatherv_linear", "scatterv_linear")
    for r, (m, t) in enumerate(zip(mine, theirs)):
        if halves(m) != halves(t) or (not batched and m != t):
            return (f"DIFF {' '.join(args[:8])} rank {r}:\n  psins {' '.join(m)[:400]}\n"
                    f"  mpich {' '.join(t)[:400]}")
    if len(mine) != len(theirs):
        return f"DIFF {' '.join(args[:8])}: {len(mine)} ranks vs {len(theirs)}"
    return None


with ThreadPoolExecutor(4) as ex:
    bad = [x for x in ex.map(run, cases) if x]
algos = sorted({c[0][0] for c in cases})
print(f"{len(cases)} cases over {len(algos)} algorithms, {len(bad)} differ")
for b in bad[:20]:
    print(b)
sys.exit(1 if bad else 0)
