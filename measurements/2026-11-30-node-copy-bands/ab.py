# The halo's prediction from one calibration file three ways: as written (band C's), without
# the bands' own C (the machine's C for every copy), without any C (no sharing).
import json, re, subprocess, sys
S = '/work/main/target/release/psins-sim'
for lib, d in [('mpich', '/work/halo/val-mpich'), ('openmpi', '/work/halo/val-ompi')]:
    try:
        toml = open(f'{d}/shm.toml').read()
        meas = float(open(f'{d}/halo/shm.span').read())
    except OSError:
        continue
    out, table = [], ''
    for l in toml.split('\n'):
        if l.startswith('['):
            table = l.strip()
        if table == '[[intra.band]]' and l.startswith('memory_bandwidth'):
            continue
        out.append(l)
    machine_only = '\n'.join(out)
    none = '\n'.join(l for l in out if not l.startswith('memory_bandwidth'))
    for name, text in [('as written', toml), ('machine C only', machine_only), ('no C', none)]:
        path = f'{d}/ab-{name.replace(" ", "-")}.toml'
        open(path, 'w').write(text)
        r = subprocess.run([S, f'{d}/halo/halo.psins', '-m', path, '-q', '--no-progress', '--json', '/dev/stdout'], capture_output=True, text=True)
        p = max(t['end_s'] for t in json.loads(r.stdout)['tasks'])
        print(f'{lib:8} {name:16} predicted {p*1e3:9.2f} ms  measured {meas*1e3:9.2f} ms  {100*(p-meas)/meas:+6.1f} %')
