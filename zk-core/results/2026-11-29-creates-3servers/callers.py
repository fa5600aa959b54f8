import json, subprocess, sys, collections
f, target = sys.argv[1], sys.argv[2]
depth = int(sys.argv[3]) if len(sys.argv) > 3 else 6
out = subprocess.run(['jfr', 'print', '--json', '--stack-depth', '64', '--events', 'jdk.ExecutionSample', f], capture_output=True, text=True).stdout
ev = json.loads(out)['recording']['events']
c = collections.Counter(); tot = 0
for e in ev:
    fr = e['values']['stackTrace']['frames'] if e['values'].get('stackTrace') else []
    names = [x['method']['type']['name'].split('/')[-1] + '.' + x['method']['name'] + ':' + str(x.get('lineNumber')) for x in fr]
    for i, n in enumerate(names):
        if target in n:
            c[' <- '.join(names[i:i+depth])] += 1; tot += 1; break
print(tot, 'of', len(ev))
for k, v in c.most_common(12): print(v, k)
