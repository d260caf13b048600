"""The spreads of trials.csv's figures as psins-calibrate judges them: for each group of three
launches (one calibration's worth), the trials the empty marks keep (20 % tolerance), then per
ping-pong size the interquartile spread (the old judgement) and the core's (the narrowest
majority of the trials, calibrate/src/fit.rs). Usage: python3 spread.py trials.csv"""
import csv, collections, sys

def keep(marks, tol=0.2):
    best = (0, None)
    for c in [m for t in marks for m in t]:
        k = [all(abs(m / c - 1) <= tol for m in t) for t in marks]
        if sum(k) > best[0]:
            best = (sum(k), k)
    return best[1]

def middle(w):
    h = len(w)
    return w[h // 2] if h % 2 else (w[h // 2 - 1] + w[h // 2]) / 2

def judge(v):
    v = sorted(v); n = len(v); h = n // 2 + 1
    med = middle(v)
    iqr = (max(v[(3 * n) // 4], v[n // 4]) - v[n // 4]) / med
    s = min(range(n - h + 1), key=lambda i: (v[i + h - 1] - v[i], i))
    core = v[s:s + h]; width = core[-1] - core[0]
    gap = max(width, 0.2 * middle(core))
    below = [x for x in v if x < core[0] - gap]
    above = [x for x in v if x > core[-1] + gap]
    far = below if len(below) > len(above) else above
    apart = len(far) >= 2 and 5 * len(far) >= n
    return iqr, width / middle(core), apart

rows = list(csv.DictReader(open(sys.argv[1])))
launches = collections.defaultdict(list)
for r in rows:
    launches[int(r['launch'])].append(r)
print('| launches | host | trials kept | worst interquartile spread | worst core spread | sizes with another mode |')
print('|---|---|---|---|---|---|')
for g in range(0, max(launches), 3):
    group = [launches[l] for l in range(g + 1, g + 4)]
    marks, pp = [], collections.defaultdict(list)
    for rs in group:
        trials = sorted({int(r['trial']) for r in rs})
        marks += [[float(r['mark_begin_us']), float(r['mark_end_us'])] for t in trials for r in rs if int(r['trial']) == t][::len(rs) // len(trials)]
        for t in trials:
            for r in rs:
                if int(r['trial']) == t:
                    pp[int(r['bytes'])].append(float(r['half_rtt_us']))
    k = keep(marks)
    res = {b: judge([x for x, kk in zip(v, k) if kk]) for b, v in pp.items()}
    wi = max(res, key=lambda b: res[b][0]); wc = max(res, key=lambda b: res[b][1])
    modes = sum(1 for r in res.values() if r[2])
    print(f"| {g+1}–{g+3} | {group[0][0]['load']} | {sum(k)} of {len(k)} | {res[wi][0]*100:.0f} % at {wi} B | {res[wc][1]*100:.0f} % at {wc} B | {modes} of {len(res)} |")
