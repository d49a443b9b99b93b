"""The values the CLI fuzzer (tests/test_cli_fuzz.py) draws: good first, then hostile.

Every pool lists good values first; the fuzzer's draws favour the first third of a pool,
so most lines get past argument checking and reach the command's work. Paths name the
files of the seeded user folder (see ``_seed_folder`` in the fuzzer).
"""

from __future__ import annotations

LATIN1_NAME = "caf\udce9.toml"  # b"caf\xe9.toml": a file name that is not UTF-8
HOSTILE_TEXT = ["x", "é", "", " ", "-", "\udcff", "a" * 300]
INTS = ["1", "2", "7", "0", "-1", "99999999999999999999", "1e3", "x", ""]
FLOATS = ["0.5", "1", "0", "-1", "nan", "inf", "-inf", "1e308", "1e-9", "x", ""]
INPUTS = [
    "toy.jsonl",
    "good.toml",
    "game.jsonl",
    "web-game",
    "latin1.toml",
    LATIN1_NAME,
    "custom.toml",
    "notes.txt",
    "empty.jsonl",
    "adir",
    "devnull",
    "devzero",
    "missing.jsonl",
    "missing/x.toml",
    "fifo",
    "",
]
OUTPUTS = [
    "new.png",
    "new.svg",
    "new.toml",
    "new.jsonl",
    "plot.txt",
    "out.jsonl",
    "toy.jsonl",
    "game.jsonl",
    "good.toml",
    "notes.txt",
    "empty.jsonl",
    "stale.pid",
    "adir",
    "devnull",
    "missing/dir/x.png",
    "fifo",
    "",
    "a" * 300,
]
SPECS = [
    "sim://",
    "sim://?seed=3",
    "sim://?profile=good.toml",
    "sim://?profile=latin1.toml",
    "sim://?profile=adir",
    "sim://?profile=devzero",
    "sim://?seed=x",
    "sim://?nope=1",
    "gpio://?mock=1",
    "gpio://?mock=yes&cards=20",
    "gpio://?mock=1&config=pins.toml",
    "gpio://?mock=1&config=latin1.toml",
    "gpio://?mock=1&config=adir",
    "gpio://?mock=1&motor=17,17",
    "serial:///dev/nonexistent-port",
    "nope://",
    "sim",
    "",
]
PROFILES = ["web-game", "original-1999", "escalating", "good.toml", "latin1.toml", LATIN1_NAME]
PROFILES += ["adir", "devnull", "devzero", "notes.txt", "nope", "missing/x.toml", ""]

#: Pools by option (dest); anything else falls back on its type.
POOLS: dict[str, list[str]] = {
    "launcher": SPECS,
    "profile": PROFILES,
    "target": PROFILES,
    "ruleset": ["attack", "classic", "pocket", "attack-mega", "nope", ""],
    "option": ["hit_fire_cap=20", "x", "=1", "nope=2", "hit_fire_cap=-1", ""],
    "custom": ["custom.toml", "latin1.toml", "adir", "notes.txt", "devzero", "missing/x.toml"],
    "seats": ["bot:greedy,bot:random", "You,bot:greedy", "Ann,Bob", "A,A", "bot:nope", ","],
    "bots": ["random", "greedy", "random,greedy", ",", "nope", ""],
    "faults": ["", "drop:0.02", "reboot@30s", "nope", "drop:nan"],
    "mechanism": ["cps=8", "", "cps=-1", "cps=nan", "slip=2", "x"],
    "port": ["devnull", "/dev/ttyNONE", "", "adir"],
    "players": ["Ann,Sam,Kim", "Ann,Bob", "A", "A,A", ",", ""],
    "sessions": INPUTS,
    "a": INPUTS,
    "b": INPUTS,
    "file": INPUTS,
    "session": INPUTS,
    "resume": INPUTS,
    "config": INPUTS,
    "out": OUTPUTS,
    "log": OUTPUTS,
    "plot": OUTPUTS,
    "journal": OUTPUTS,
    "pid_file": OUTPUTS,
    "link": OUTPUTS + ["dangling-link"],
}
#: Small counts by (command, dest), so nothing runs long; the refused huge values stay in.
COUNTS: dict[tuple[str, str], list[str]] = {
    ("simulate", "games"): ["1", "2", "0", "-1", "1000001"],
    ("simulate", "players"): ["2", "3", "0", "1", "11", "1000000"],
    ("simulate", "workers"): ["1", "0", "-1", "65"],
    ("play", "rounds"): ["1", "0", "-1"],
    ("referee", "rounds"): ["1", "0", "-1"],
    ("play", "delay"): ["0", "-1", "nan", "6"],  # a longer delay is asked-for slowness
    ("referee", "delay"): ["0", "-1", "nan", "6"],
    ("record", "presses"): ["1", "5", "0", "-1", "100001"],
    ("replay", "file"): ["game.jsonl", "toy.jsonl", "notes.txt", "empty.jsonl", "adir", "fifo"],
    ("record", "session"): ["new.jsonl", "toy.jsonl", "game.jsonl", "notes.txt", "adir"]
    + ["devnull", "missing/dir/x.jsonl", "fifo", ""],
    ("record", "cards"): ["1", "20", "0", "-1", "10001", "99999999999999999999"],
    ("record", "reload_below"): ["0", "5", "-1"],
    ("sample", "presses"): ["1", "100", "0", "-1", "10000001", "2000000000"],
    ("fire", "presses"): ["1", "3", "0", "-1", "10001"],
    ("fire", "cards"): ["0", "5", "-1", "10001", "99999999999999999999"],
    ("serve", "cards"): ["0", "5", "-1", "10001"],
    ("serve", "max_presses"): ["1", "0", "-1"],
    ("serve", "idle"): ["0", "0.01", "-1", "nan"],
    ("tune", "probe_repeats"): ["1", "2", "0"],
    ("tune", "verify_presses"): ["5", "0", "-1"],
    ("fit", "lags"): ["1", "3", "0", "-1"],
    ("plan", "precision"): ["0.05", "0.1", "0", "0.6", "nan", "-1"],
    ("plan", "counts"): ["2", "11", "1", "-1"],
    ("compare", "alpha"): ["0.05", "0", "1", "nan"],
    ("test", "spin_ms"): ["100", "0", "-1", "nan"],
    ("test", "button_timeout"): ["0", "0.1", "-1", "inf"],
    ("emulate", "cards"): ["0", "90", "-1", "99999999999999999999"],
    ("run", "games"): ["1", "2", "0", "-1", "1000001"],  # experiment run
    ("run", "chunk"): ["1", "0", "-1"],
    ("run", "workers"): ["1", "0", "-1", "65"],
    ("tune", "games"): ["2", "1", "0", "-1"],  # experiment tune
    ("tune", "steps"): ["0", "1", "-1"],
    ("tune", "workers"): ["1", "0", "65"],
    ("paper", "games"): ["1", "0", "-1"],  # experiment paper
    ("paper", "workers"): ["1", "0", "65"],
}
#: Flags some commands always get, so they cannot reach hardware or wait forever.
FORCED: dict[tuple[str, ...], list[str]] = {
    ("firmware", "install"): ["--dry-run"],
    ("play",): ["--rounds", "1"],
    ("simulate",): ["--games", "2"],
    ("experiment", "run"): ["--games", "1"],
    ("experiment", "tune"): ["--games", "2", "--steps", "0"],
    ("experiment", "paper"): ["--games", "1"],
    ("launcher", "serve"): ["--idle", "0.2"],  # a button-driven serve runs until Ctrl-C
    ("launcher", "acceptance"): ["--report", "acceptance.json"],  # its default is an output
}
#: Outputs a command may replace (only with --force, never when they are inputs too).
REPLACED = {"out", "plot", "pid_file", "link", "report"}
#: Outputs a command appends to (the old bytes stay a prefix).
APPENDED = {"journal", "resume"}
INPUT_DESTS = {"sessions", "a", "b", "file", "custom", "profile", "target", "session", "config"}
