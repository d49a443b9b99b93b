#!/bin/bash
# Instructions a hand of the fair bench's loop (bench_engine.OURS, `chance` driver) for a tree:
#
#   bench/instr_hand.sh [TREE] [PLAYERS]     (TREE: default this checkout; PLAYERS: default 2)
#
# valgrind's callgrind counts every instruction of a run of 300 hands and of one of 100,
# each a fresh process with PYTHONHASHSEED=0; the difference over 200 is one hand's cost
# with start-up and the first hand's one-off work left out. The count does not depend on
# the load of the machine (repeated runs of one tree at one path agree within about 0.1 %;
# the same code in a clone elsewhere counted up to 0.5 % apart at 4 players in an outside
# rerun, session 12: compare trees side by side, not with a figure from another day).
# Per turn step too: the fair bench's unit (RLCard's step), and comparable across bench
# scripts that deal different hands (session 14's deals hands from one stream a run).
# Python: $PYTHON, default .venv/bin/python of this checkout.
cd "$(dirname "$0")/.."
TREE=$(cd "${1:-.}" && pwd); P=${2:-2}
PY=${PYTHON:-$PWD/.venv/bin/python}
[ -x "$PY" ] || { echo "instr_hand.sh: no Python at $PY (set PYTHON=...)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "instr_hand.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
export PYTHONHASHSEED=0
loop() {  # the fair bench's loop for N hands, as a -c program (prints its JSON line)
  echo "
import sys; sys.argv=['x','$P','$1','1','chance']
import importlib.util
spec=importlib.util.spec_from_file_location('b','$TREE/bench/bench_engine.py'); m=importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
exec(m.OURS.replace('ROOT', repr('$TREE')))
"
}
count() {  # the instructions of a run of N hands
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$PY" -c "$(loop "$1")" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
steps() {  # the turn steps of the same run, without valgrind (the loop's JSON line)
  "$PY" -c "$(loop "$1")" | sed -n 's/.*"steps": \([0-9]*\).*/\1/p'
}
many=$(count 300); few=$(count 100); turns=$(( $(steps 300) - $(steps 100) ))
echo "$TREE, $P players: $(( (many - few) / 200 )) instructions a hand, $(( (many - few) / turns )) a turn step ($turns steps in hands 100-300)"
