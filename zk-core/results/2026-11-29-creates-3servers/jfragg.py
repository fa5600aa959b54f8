import json, subprocess, sys, collections, re
f = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 25
out = subprocess.run(['jfr', 'print', '--json', '--stack-depth', '64', '--events', 'jdk.ExecutionSample', f], capture_output=True, text=True).stdout
ev = json.loads(out)['recording']['events']
top = collections.Counter(); incl = collections.Counter(); thr = collections.Counter(); pkg = collections.Counter()
for e in ev:
    v = e['values']
    t = re.sub(r'[0-9]+', 'N', (v.get('sampledThread') or {}).get('javaName') or '?')
    thr[t] += 1
    frames = v['stackTrace']['frames'] if v.get('stackTrace') else []
    names = []
    for fr in frames:
        m = fr['method']; cls = m['type']['name']; names.append(cls + '.' + m['name'])
    if names:
        top[names[0]] += 1
        pkg['.'.join(names[0].split('.')[:3])] += 1
    for nm in set(names):
        incl[nm] += 1
tot = len(ev)
print('samples', tot)
print('-- threads'); [print(f'{c/tot*100:5.1f}% {k}') for k, c in thr.most_common(12)]
print('-- top frames'); [print(f'{c/tot*100:5.1f}% {k}') for k, c in top.most_common(n)]
print('-- top pkgs'); [print(f'{c/tot*100:5.1f}% {k}') for k, c in pkg.most_common(15)]
print('-- inclusive (dev.zkr / zookeeper)'); [print(f'{c/tot*100:5.1f}% {k}') for k, c in incl.most_common(400) if ('zkr' in k or 'zookeeper' in k)][:0]
