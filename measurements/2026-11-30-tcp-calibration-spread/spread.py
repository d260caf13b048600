"""The spreads of trials.csv's figures as psins-calibrate judges them: for each group of three
launches (one calibration's worth; with --six, of six), the trials the empty marks keep (20 %
tolerance), then per ping-pong size the interquartile spread (an older judgement), the core's
spread (the narrowest majority of the trials), whether a fifth of the trials lie apart (another
mode), the width of the 95 % interval of the 20 % trimmed mean (Yuen's, the judgement of
calibrate/src/fit.rs) and how far the trimmed mean is from the median.
Usage: python3 spread.py trials.csv [--six]"""
import csv, collections, math, sys

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

T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042]

def trimmed(v):
    v = sorted(v); n = len(v); g = int(0.2 * n); h = n - 2 * g
    mean = sum(v[g:n - g]) / h
    w = [v[min(max(i, g), n - 1 - g)] for i in range(n)]; wm = sum(w) / n
    var = sum((x - wm) ** 2 for x in w) / (n - 1)
    t = T975[h - 2] if h - 1 <= 30 else 1.96
    return mean, 2 * t * math.sqrt((n - 1) * var / (h * (h - 1))) / mean

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
    tm, interval = trimmed(v)
    return iqr, width / middle(core), apart, interval, abs(tm / med - 1)

rows = list(csv.DictReader(open(sys.argv[1])))
launches = collections.defaultdict(list)
for r in rows:
    launches[int(r['launch'])].append(r)
size = 6 if '--six' in sys.argv else 3
print('| launches | host | trials kept | worst interquartile spread | worst core spread | sizes with another mode | worst trimmed-mean interval | trimmed mean from median, at most |')
print('|---|---|---|---|---|---|---|---|')
for g in range(0, max(launches), size):
    group = [launches[l] for l in range(g + 1, g + 1 + size) if l in launches]
    if len(set(r['load'] for rs in group for r in rs)) > 1:
        continue
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
    wt = max(res, key=lambda b: res[b][3]); dev = max(r[4] for r in res.values())
    print(f"| {g+1}–{g+len(group)} | {group[0][0]['load']} | {sum(k)} of {len(k)} | {res[wi][0]*100:.0f} % at {wi} B | {res[wc][1]*100:.0f} % at {wc} B | {modes} of {len(res)} | {res[wt][3]*100:.0f} % at {wt} B | {dev*100:.1f} % |")
