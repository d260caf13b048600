import json, sys
for a in sys.argv[1:]:
    for net in ['shm', 'tcp']:
        t = json.load(open(f'w/{a}/{net}-prof.json')); p = json.load(open(f'w/{a}/{net}-pred-prof.json'))
        print(f"== {a} on {net}: span traced {t['span_s']*1e3:.2f} ms predicted {p['span_s']*1e3:.2f} ms ({100*(p['span_s']/t['span_s']-1):+.1f} %); bursts {sum(r['bursts_s'] for r in t['per_rank'])*1e3:.2f} vs {sum(r['bursts_s'] for r in p['per_rank'])*1e3:.2f} ms")
        for fn, v in sorted(t['functions'].items(), key=lambda kv: -kv[1]['total_s']):
            q = p['functions'].get(fn, {'total_s': 0, 'mean_s': 0})
            if v['total_s'] < 1e-4: continue
            print(f"   {fn:16} n={v['count']:7} traced {v['total_s']*1e3:8.2f} ms ({v['mean_s']*1e9:8.0f} ns)  predicted {q['total_s']*1e3:8.2f} ms ({q['mean_s']*1e9:8.0f} ns)  diff {1e3*(q['total_s']-v['total_s']):+7.2f} ms")
