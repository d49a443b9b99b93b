"""Open a launcher from a spec, load it and press it.

Every launcher -- simulated, GPIO, serial, emulated -- is opened from one URL-like spec and
answers the same four calls: load(), hit(), unload() and remaining. This recipe uses the
simulated launcher; swap the spec for "gpio://?mock=1" or "emu://?fast=1" and it runs unchanged.
"""

from launcher import BadSpec, open_launcher

SPEC = "sim://?profile=bookmarklet&seed=7"

with open_launcher(SPEC) as launcher:
    launcher.load(range(20))  # any objects; a game loads Card objects, bottom card first
    for press in range(1, 6):
        volley = launcher.hit()
        cards = list(volley.cards)
        print(f"press {press}: {volley.counted} card(s) {cards}, {launcher.remaining} left")
    print(launcher)
    rest = launcher.unload()
    print(f"unloaded {len(rest)} cards; the hopper now holds {launcher.remaining}")

# A typo in a spec is an error that names the option and shows the expected form.
try:
    open_launcher("sim://?profle=web-game")
except BadSpec as error:
    print(f"error: {error}")
    print(f"hint: {error.hint}")
