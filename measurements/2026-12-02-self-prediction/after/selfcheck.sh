#!/bin/bash
# selfcheck.sh FILE: the model's ping-pong half round trip and 1-D exchange (2 ranks, one node)
# at each calibrated size against the file's own measured figures (its comments).
B=/work/main/target/release; f=$1
ps() { $B/psins-sim "$1" -m $f -q --no-progress --json - 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['predicted_seconds'])"; }
for S in 0 8 64 256 1024 2048 4096 8192 16384 65536 262144 1048576; do
  h=$(ps gen:pingpong:ranks=2,iters=2000,bytes=$S,compute=0ns)

  mh=$(grep -E "^# +$S B " $f | awk '{print $4}')
  python3 -c "print('%8d B: half round trip model %.3f us measured %s us (%+.1f %%)' % ($S, $h/4000*1e6, '$mh', 100*($h/4000*1e6/float('$mh')-1)))"
done
