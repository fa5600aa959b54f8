import sys, collections, re
# usage: perfagg.py ntxn file...
n = float(sys.argv[1])
for f in sys.argv[2:]:
    by = collections.defaultdict(collections.Counter); tot = collections.Counter()
    for line in open(f):
        if not line.strip() or line.startswith('#'): continue
        p = line.strip().split(',')
        if len(p) < 4: continue
        th = re.sub(r'[0-9]+', 'N', p[0].rsplit('-', 1)[0]); 
        try: v = float(p[1])
        except: continue
        ev = p[3].replace('syscalls:sys_enter_', '').replace('raw_syscalls:sys_enter', 'ALL')
        by[th][ev] += v; tot[ev] += v
    print(f, ' '.join(f'{k}={v/n:.2f}' for k, v in sorted(tot.items()) if v))
    for th, c in sorted(by.items(), key=lambda x: -x[1]['ALL'])[:8]:
        if c['ALL'] / n < 0.02: continue
        print(f'   {th:24s}', ' '.join(f'{k}={v/n:.3f}' for k, v in sorted(c.items()) if v / n >= 0.005))
