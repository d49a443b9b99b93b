#!/bin/bash
# Why the CPU-time ratio trails the instruction ratio: what each loop makes the processor
# wait for, counted by valgrind's cachegrind (its simulated caches and branch predictor).
#
#   bench/stalls.sh hand [PLAYERS]   the fair bench's hand (bench_engine.OURS and RLCARD), 600 hands minus 100
#   bench/stalls.sh env              the environment loops (bench_rl.py: env() and RLCard's), 9,000 steps minus 3,000
#
# Each count is a run of N2 units minus a run of N1, each a fresh process with
# PYTHONHASHSEED=0, divided by N2 - N1: start-up and one-off work are left out, and the
# counts do not depend on the load of the machine. Columns: instructions, L1 instruction-cache
# misses, L1 data-cache misses, mispredicted branches (conditional + indirect), per unit, then
# RLCard's over ours. The simulated predictor is simpler than a real processor's, so the
# mispredict counts are a relative measure only (docs/performance.md, "Time is not
# instructions"). Needs valgrind; $PYTHON (default .venv/bin/python) and $RLCARD_PYTHON
# (default /tmp/rlc/bin/python, a venv with rlcard==1.2.0 and numpy).
cd "$(dirname "$0")/.."
TREE=$PWD
PY=${PYTHON:-$PWD/.venv/bin/python}
RL=${RLCARD_PYTHON:-/tmp/rlc/bin/python}
WHAT=${1:-hand}; P=${2:-2}
for exe in "$PY" "$RL"; do
  [ -x "$exe" ] || { echo "stalls.sh: no Python at $exe (set PYTHON / RLCARD_PYTHON)" >&2; exit 2; }
done
command -v valgrind >/dev/null || { echo "stalls.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
export PYTHONHASHSEED=0

# counts PYTHON N: "Ir I1mr D1mr Bm" of one run of N units
counts() {
  local exe=$1 n=$2 side=$3
  local code
  if [ "$WHAT" = hand ]; then
    code="
import sys; ours = '$side' == 'ours'
sys.argv = ['x', '$P', '$n', '1', 'chance'] if ours else ['x', '$P', '$n', '1']  # RLCARD: no driver
import importlib.util
spec=importlib.util.spec_from_file_location('b','$TREE/bench/bench_engine.py'); m=importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
exec(m.OURS.replace('ROOT', repr('$TREE')) if ours else m.RLCARD, {'__name__': '__main__'})"
  elif [ "$side" = ours ]; then
    code="
import sys; sys.argv=['bench_rl.py','count','env','$n','--seed','7']
sys.path.insert(0, '$TREE/bench'); import runpy; runpy.run_path('$TREE/bench/bench_rl.py', run_name='__main__')"
  else
    code="$("$PY" -c "import sys; sys.path.insert(0, '$TREE/bench'); sys.argv=['x']; import bench_rl; print(bench_rl.RLCARD_COUNT)")
"
  fi
  local args=()
  [ "$WHAT" = env ] && [ "$side" = rlcard ] && args=(7 "$n")
  valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes --cachegrind-out-file=/dev/null \
    "$exe" -c "$code" "${args[@]}" 2>&1 >/dev/null | awk '
    /I +refs:/ {gsub(",","",$4); ir=$4}
    /I1 +misses:/ {gsub(",","",$4); i1=$4}
    /D1 +misses:/ {gsub(",","",$4); d1=$4}
    /Mispredicts:/ {gsub(",","",$3); bm=$3}
    END {print ir, i1, d1, bm}'
}

if [ "$WHAT" = hand ]; then N1=100; N2=600; UNIT="a hand, $P players"; else N1=3000; N2=9000; UNIT="a step"; fi
per() {  # per SIDE EXE
  local a b
  a=$(counts "$2" $N2 "$1"); b=$(counts "$2" $N1 "$1")
  paste -d' ' <(echo "$a" | tr ' ' '\n') <(echo "$b" | tr ' ' '\n') |
    awk -v d=$((N2 - N1)) '{printf "%d ", ($1 - $2) / d}'
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
per ours "$PY" >"$tmp/ours" & per rlcard "$RL" >"$tmp/rlcard" & wait  # the two sides at once
ours=$(cat "$tmp/ours"); theirs=$(cat "$tmp/rlcard")
printf '%s (%s):\n' "$WHAT" "$UNIT"
printf '%-8s %12s %10s %10s %12s\n' "" instructions "I1 misses" "D1 misses" mispredicts
printf '%-8s %12s %10s %10s %12s\n' ours $ours
printf '%-8s %12s %10s %10s %12s\n' RLCard $theirs
paste -d' ' <(echo $theirs | tr ' ' '\n') <(echo $ours | tr ' ' '\n') |
  awk '{printf "%.2fx ", $1 / $2} END {print ""}' | xargs printf '%-8s %12s %10s %10s %12s\n' "RLCard/ours"
