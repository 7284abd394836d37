"""W-D-L, score with a 95% interval over paired openings, and mean margin of the engine built
now (the non-GTP side) in a trial's games file."""
import json,math,sys
games=[json.loads(l) for l in open(sys.argv[1])]
pts=[];margins=[]
for g in games:
    black_new = not g['black'].startswith('gtp')
    p={'1-0':1,'0-1':0}.get(g['result'],0.5)
    if not black_new: p=1-p
    m=g['score'] if black_new else -g['score']
    pts.append(p); margins.append(m)
pairs=[(pts[i]+pts[i+1])/2 for i in range(0,len(pts),2)]
n=len(pairs); mean=sum(pairs)/n; sd=math.sqrt(sum((x-mean)**2 for x in pairs)/(n-1))
w=sum(p==1 for p in pts); d=sum(p==0.5 for p in pts); l=sum(p==0 for p in pts)
print(f"{len(pts)} games: {w}-{d}-{l}, score {100*mean:.1f}% +/- {100*1.96*sd/math.sqrt(n):.1f} (95%, over {n} pairs), margin {sum(margins)/len(margins):+.2f} discs")
