#!/bin/sh
# Journal a game, watch it again, and resume it after a crash.
#
# --journal writes one flushed, fsync'd JSON line per decision and per launcher press, so a
# power cut loses nothing; `replay` shows every move and press again; `--resume` continues the
# game from the journal and ends exactly where the uninterrupted game ended (same digest).
# Three bots play one round here, so nothing waits for a person to type.
set -eu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

uno-attack play --seats "bot:greedy,bot:random,bot:greedy" --seed 7 --rounds 1 \
    --journal game.jsonl </dev/null > played.txt
full=$(tail -n 1 played.txt)
echo "played:  $full"
echo "journal: $(wc -l < game.jsonl) lines, starting with"
head -n 1 game.jsonl

# Watch it again, every hand revealed (add --step to wait for Enter after each move).
uno-attack replay game.jsonl | tail -n 1 | sed 's/^/replay:  /'

# A power cut: the journal ends after 12 lines and half of the 13th.
head -n 12 game.jsonl > crashed.jsonl
sed -n 13p game.jsonl | head -c 10 >> crashed.jsonl
uno-attack play --resume crashed.jsonl </dev/null > resumed.txt
grep -m 1 "Resuming" resumed.txt || true
resumed=$(tail -n 1 resumed.txt)
echo "resumed: $resumed"
if [ "$resumed" = "$full" ]; then
    echo "the resumed game ended exactly like the uninterrupted one"
else
    echo "the resumed game ended differently" >&2
    exit 1
fi
