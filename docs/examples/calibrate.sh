#!/bin/sh
# The hobbyist's calibration flow from the shell, rehearsed on simulated launchers:
# plan how many presses you need, record them, fit a profile, compare, use the profile,
# and tune a motor launcher (here gpio://?mock=1) to imitate a target profile.
# With a real toy, record with --manual instead of --launcher (you press, you type the count).
set -eu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

uno-attack calibrate plan --precision 0.1
uno-attack calibrate record toy.jsonl --launcher "sim://?profile=original-1999" --seed 1 --presses 300 \
    --notes "rehearsal: the 1999 launcher" | tail -n 1
uno-attack calibrate fit toy.jsonl --out toy.toml | grep -E "^(fitted profile|profile written)"
uno-attack calibrate compare toy.jsonl web-game | tail -n 1
uno-attack profile show toy.toml | grep -E "^(mean|P\(nothing\))"
uno-attack simulate --games 3 --players 3 --seed 2 --launcher "sim://?profile=$work/toy.toml" \
    | grep -E "mean cards per hit"
uno-attack calibrate tune --target web-game --launcher "gpio://?mock=1" --seed 1 \
    | grep -E "^(ms_per_card|measured distance)"
