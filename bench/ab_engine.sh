#!/bin/bash
# usage: bench/ab_engine.sh REPS PLAYERS DRIVER ; A = this tree, B = $BASE (default /tmp/speed3-base)
cd "$(dirname "$0")/.."
run() { .venv/bin/python -c "
import sys; sys.argv=['x','$2','500','1','$3']
import importlib.util
spec=importlib.util.spec_from_file_location('b','bench/bench_engine.py'); m=importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
exec(m.OURS.replace('ROOT', repr('$1')))
"; }
for r in $(seq $1); do
  a1=$(run "$PWD" $2 $3); b1=$(run "${BASE:-/tmp/speed3-base}" $2 $3); b2=$(run "${BASE:-/tmp/speed3-base}" $2 $3); a2=$(run "$PWD" $2 $3)
  python3 -c "
import json,sys
a=[json.loads(x) for x in sys.argv[1:3]]; b=[json.loads(x) for x in sys.argv[3:5]]
ra=sum(x['steps'] for x in a)/sum(x['seconds'] for x in a); rb=sum(x['steps'] for x in b)/sum(x['seconds'] for x in b)
print(f'A {ra:,.0f}  B {rb:,.0f}  A/B {ra/rb:.2f}')" "$a1" "$a2" "$b1" "$b2"
done
