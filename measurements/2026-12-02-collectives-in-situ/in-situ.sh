#!/bin/bash
# in-situ.sh TRACE: per kind of collective of a 2-rank trace, the median over its calls of the
# shorter of the two ranks' times in the call (the later arrival's: what pmac's curve stands
# for, the time from the last arrival to the end), past the first 100 calls.
B=${B:-target/release}
for t in 0 1; do
  $B/psins-dump --task $t "$1" | grep ' coll ' | sed -E 's/.*dur_ns=([0-9]+) coll=([A-Za-z]+).*instance=([0-9]+).*/\2 \3 \1/' > /tmp/in-situ-$t.txt
done
python3 - <<'PY'
import statistics as st
d = {}
for t in (0, 1):
    for l in open(f'/tmp/in-situ-{t}.txt'):
        c, i, x = l.split()
        d.setdefault((c, int(i)), []).append(int(x))
by = {}
for (c, i), v in sorted(d.items(), key=lambda kv: kv[0][1]):
    if len(v) == 2:
        by.setdefault(c, []).append(min(v))
for c, v in by.items():
    v = v[100:]
    print(f"{c}: {len(v)} calls, median {st.median(v) / 1e3:.2f} us, first quartile {sorted(v)[len(v) // 4] / 1e3:.2f} us")
PY
