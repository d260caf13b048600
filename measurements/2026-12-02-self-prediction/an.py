import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
apps = []
for r in rows:
    if r['app'] not in apps: apps.append(r['app'])
def f(x):
    try: return float(x)
    except: return None
print("app | net | n | validation error (shm trace, paired untraced) | self-prediction / traced | traced / untraced | own-trace prediction / untraced")
for a in apps:
    for net in ['shm', 'tcp']:
        R = [r for r in rows if r['app'] == a and r['net'] == net]
        S = {r['round']: r for r in rows if r['app'] == a and r['net'] == 'shm'}
        val, selfp, dil, own = [], [], [], []
        for r in R:
            u, t = f(r['untraced']), f(r['traced'])
            ps = f(S[r['round']]['pred_on_' + net])
            po = f(r['pred_on_' + net])
            if None in (u, t, ps, po): continue
            val.append(ps / u - 1); selfp.append(po / t - 1); dil.append(t / u - 1); own.append(po / u - 1)
        m = lambda v: f"{100*st.median(v):+.1f} %" if v else "-"
        print(f"{a} | {net} | {len(val)} | {m(val)} | {m(selfp)} | {m(dil)} | {m(own)}")
