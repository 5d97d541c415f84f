import re,sys,collections
calls=collections.Counter(); frames=collections.Counter(); combos=collections.Counter(); fds=collections.Counter()
n=0
for line in open(sys.argv[1]):
    m=re.match(r'^(\d+\s+)?(write|writev)\((\d+),',line)
    if not m: continue
    fd=int(m.group(3))
    types=re.findall(r'\\"type\\":\\"(\w+)\\"|"type":"(\w+)"',line)
    types=[a or b for a,b in types]
    if not types: 
        types=['?']
    n+=1
    calls[m.group(2)]+=1
    for t in types: frames[t]+=1
    combos['+'.join(types)]+=1
print('syscalls',n,dict(calls))
print('frames',frames.most_common())
for k,v in combos.most_common(25): print('%6d %s'%(v,k))
