import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
apps = []
for r in rows:
    if r['app'] not in apps: apps.append(r['app'])
f = lambda x: float(x) if x not in ('', None) else None
m = lambda v: f"{100*st.median(v):+.1f} %" if v else "-"
print("| app | network | rounds | self-prediction, with the posting | without (p in the crossing cost) | validation error (shm trace, untraced run of the same round), with | without | traced / untraced |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for a in apps:
    for net in ['shm', 'tcp']:
        S = {r['round']: r for r in rows if r['app'] == a and r['net'] == 'shm'}
        cols = [[] for _ in range(5)]
        for r in rows:
            if r['app'] != a or r['net'] != net: continue
            u, t = f(r['untraced']), f(r['traced'])
            vals = [f(r['pred_on_' + net]), f(r['pred_on_' + net + '0']), f(S[r['round']]['pred_on_' + net]), f(S[r['round']]['pred_on_' + net + '0'])]
            if None in (u, t) or None in vals: continue
            cols[0].append(vals[0] / t - 1); cols[1].append(vals[1] / t - 1)
            cols[2].append(vals[2] / u - 1); cols[3].append(vals[3] / u - 1); cols[4].append(t / u - 1)
        print(f"| {a} | {net} | {len(cols[0])} | " + " | ".join(m(c) for c in cols) + " |")
