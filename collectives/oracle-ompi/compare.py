"""Runs each CASE of the dump through the Open MPI harness and compares, per case, the ALG
name and each rank's token sequence (exact order). The rings, whose receive for the next
block is posted before the send of the previous one while the harness prints a receive
followed by one blocking send as a send-receive (send first), are compared as two ordered
sequences per rank: its sends and its receives.

DUMP: per case a line `CASE <coll> P ROOT BYTES COUNT ELEM COMMUTATIVE INPLACE [COUNTS...]`,
a line `ALG <name>`, then `rank R: tokens` lines.
Usage: compare.py DRIVER DUMP; exits 1 if any case differs or fails.
"""
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

TIMEOUT = 120
HALVES = {"ompi_allreduce_ring", "ompi_allreduce_segmented_ring", "ompi_reduce_scatter_ring"}


def halves(tokens):
    return [t for t in tokens if t[0] == "S"], [t for t in tokens if t[0] == "R"]
driver, dump = sys.argv[1], sys.argv[2]
cases = []
for line in open(dump):
    line = line.rstrip("\n")
    if line.startswith("CASE "):
        cases.append({"args": line[5:].split(), "alg": None, "ranks": []})
    elif line.startswith("ALG ") and cases:
        cases[-1]["alg"] = line[4:].strip()
    elif line.startswith("rank ") and cases:
        cases[-1]["ranks"].append(line.split(":", 1)[1].split())


def short(tokens):
    text = " ".join(tokens)
    return text if len(text) <= 300 else text[:300] + " ..."


def run(case):
    args = case["args"]
    name = " ".join(args[:8]) + (" +counts" if len(args) > 8 else "")
    try:
        out = subprocess.run([driver] + args, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"TIMEOUT (deadlock in the harness?) after {TIMEOUT}s: {name}"
    if out.returncode == 3:
        return f"DEADLOCK in the harness: {name}\n  {out.stderr[:600]}"
    if out.returncode != 0:
        return f"harness failed ({out.returncode}) on {name}: {out.stderr[:300]}"
    lines = out.stdout.splitlines()
    alg = next((l[4:].strip() for l in lines if l.startswith("ALG ")), None)
    theirs = [l.split(":", 1)[1].split() for l in lines if l.startswith("rank ")]
    if alg != case["alg"]:
        return f"DIFF {name}: ALG psins {case['alg']} / ompi {alg}"
    if len(theirs) != len(case["ranks"]):
        return f"DIFF {name}: {len(case['ranks'])} ranks (psins) vs {len(theirs)} (ompi)"
    for r, (m, t) in enumerate(zip(case["ranks"], theirs)):
        if m != t and not (alg in HALVES and halves(m) == halves(t)):
            return f"DIFF {name} [{alg}] rank {r}:\n  psins {short(m)}\n  ompi  {short(t)}"
    return None


with ThreadPoolExecutor(4) as ex:
    bad = [x for x in ex.map(run, cases) if x]
algs = sorted({c["alg"] for c in cases if c["alg"]})
print(f"{len(cases)} cases over {len(algs)} algorithms, {len(bad)} differ")
for b in bad[:20]:
    print(b)
sys.exit(1 if bad else 0)
