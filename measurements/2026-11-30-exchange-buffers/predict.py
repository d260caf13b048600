import json, subprocess, re, sys, glob
S='/work/main/target/release/psins-sim'
def table(path):
    out={}
    for l in open(path):
        if not l.startswith('|') or l.startswith('| app') or '---' in l: continue
        c=[x.strip() for x in l.strip().strip('|').split('|')]
        out[c[0]]=float(c[1])
    return out
sets={'mpich':('/work/main/build/validation-mpich','/work/main/measurements/2026-11-30-validation-mpich/table.txt'),
      'ompi':('/work/main/build/validation-openmpi','/work/main/measurements/2026-11-30-validation-openmpi-codes/table.txt')}
apps=['pingpong','ring','halo','stencil2d','stencil3d','cg','is','master_worker','tealeaf','cloverleaf3d','minighost','quicksilver','nekbone','kripke']
for lib,(bd,tab) in sets.items():
    meas=table(tab)
    files=sorted(glob.glob(f'/work/notes/ab/{lib}-shm-*.toml'))
    files=[f for f in files if not f.endswith('curves.toml')]
    print(lib, 'C and one-copy band per file:')
    for f in files:
        t=open(f).read()
        c=re.search(r'memory_bandwidth = "([^"]+)"',t); 
        print('  ',f.split('/')[-1], c.group(1) if c else None)
    print('%-14s %9s '%('app','measured')+' '.join('%14s'%f.split('/')[-1].replace('.toml','').replace(lib+'-shm-','') for f in files))
    for a in apps:
        if a not in meas: continue
        tr=f'{bd}/{a}/{a}.psins'
        row=[]
        for f in files:
            r=subprocess.run([S,tr,'-m',f,'-q','--json','/dev/stdout'],capture_output=True,text=True)
            try: p=json.loads(r.stdout)['predicted_seconds']*1000; row.append('%+13.1f%%'%((p/meas[a]-1)*100))
            except Exception as e: row.append('%14s'%'err')
        print('%-14s %9.2f '%(a,meas[a])+' '.join(row))
