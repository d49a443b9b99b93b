#!/bin/bash
# A/B of our engine loop (bench_engine.OURS): A = this tree, B = $BASE (default /tmp/main-tree,
# e.g. `git archive main | tar -x -C /tmp/main-tree`). Python: $PYTHON (default .venv/bin/python).
#
#   bench/ab_engine.sh REPS PLAYERS DRIVER        CPU time, 500 hands per block, A B B A x REPS
#   MODE=callgrind bench/ab_engine.sh HANDS PLAYERS DRIVER
#       instructions (valgrind --tool=callgrind) of HANDS hands minus those of 0 hands, for A
#       and B: the same count whatever the load on the machine
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
BASE=${BASE:-/tmp/main-tree}
run() { $PY -c "
import sys; sys.argv=['x','$2','${4:-500}','1','$3']
import importlib.util
spec=importlib.util.spec_from_file_location('b','bench/bench_engine.py'); m=importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
exec(m.OURS.replace('ROOT', repr('$1')))
"; }
instructions() {  # TREE PLAYERS DRIVER HANDS -> instructions executed by the whole process
  valgrind --tool=callgrind --callgrind-out-file=/dev/null $PY -c "
import sys; sys.argv=['x','$2','$4','1','$3']
import importlib.util
spec=importlib.util.spec_from_file_location('b','bench/bench_engine.py'); m=importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
exec(m.OURS.replace('ROOT', repr('$1')))
" 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
if [ "${MODE:-cpu}" = callgrind ]; then
  export PYTHONHASHSEED=0
  cache="$BASE/.callgrind-$1-$2-$3"  # B's count, kept: B is a fixed tree
  for tree in "$PWD" "$BASE"; do
    if [ "$tree" = "$BASE" ] && [ -s "$cache" ]; then cat "$cache"; continue; fi
    full=$(instructions "$tree" $2 $3 $1); empty=$(instructions "$tree" $2 $3 0)
    echo "$tree $(( (full - empty) / $1 ))" | tee -a /dev/null $([ "$tree" = "$BASE" ] && echo "$cache")
  done | python3 -c "
import sys
rows = [line.split() for line in sys.stdin]
for tree, per in rows: print(f'{tree}: {int(per):,} instructions per hand ($1 hands, $2 players, $3)')
print(f'A/B instructions: {int(rows[0][1]) / int(rows[1][1]):.3f} (B/A = speed-up {int(rows[1][1]) / int(rows[0][1]):.2f}x)')"
  exit
fi
for r in $(seq $1); do
  a1=$(run "$PWD" $2 $3); b1=$(run "$BASE" $2 $3); b2=$(run "$BASE" $2 $3); a2=$(run "$PWD" $2 $3)
  python3 -c "
import json,sys
a=[json.loads(x) for x in sys.argv[1:3]]; b=[json.loads(x) for x in sys.argv[3:5]]
ra=sum(x['steps'] for x in a)/sum(x['seconds'] for x in a); rb=sum(x['steps'] for x in b)/sum(x['seconds'] for x in b)
print(f'A {ra:,.0f}  B {rb:,.0f}  A/B {ra/rb:.2f}')" "$a1" "$a2" "$b1" "$b2"
done
