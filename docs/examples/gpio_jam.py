"""A GPIO launcher on gpiozero's mock pins: a jam, what it tells you, and clearing it.

gpio://?mock=1 runs the real GPIO driver on gpiozero's MockFactory with a model of the
mechanism behind the pins, on a virtual clock (nothing sleeps). `catch=` makes cards catch in
the mouth: the beam stays blocked, the driver stops the motor and latches a LauncherJam.
The cards counted before the jam are on `error.volley`, so no card goes missing from a game.
"""

from launcher import LauncherJam, Volley, open_launcher

SPEC = "gpio://?mock=1&catch=0.3&seed=2&mseed=5&profile=irc-bot"

with open_launcher(SPEC) as launcher:
    launcher.load(range(40))
    handed_out = 0
    for press in range(1, 5):
        try:
            volley = launcher.hit()
        except LauncherJam as jam:
            assert isinstance(jam.volley, Volley)  # the cards that came out before the jam
            handed_out += jam.volley.counted
            print(f"press {press}: JAM ({jam.fault}) after {jam.volley.counted} card(s): {jam}")
            print(f"  hint: {jam.hint}")
            motor_on = launcher.rig.duty() > 0
            print(f"  motor stopped after {jam.motor_ms:.0f} ms; motor on now: {motor_on}")
            try:
                launcher.hit()
            except LauncherJam:
                print("  the fault is latched: pressing again is refused until it is cleared")
            print(f"  cleared: {launcher.clear_fault()}; fault now: {launcher.fault}")
        else:
            handed_out += volley.counted
            print(
                f"press {press}: {volley.counted} card(s), motor {volley.meta['motor_ms']:.0f} ms, "
                f"stopped by {volley.meta['stopped']}"
            )
    mechanism = launcher.rig.mechanism
    print(
        f"cards handed out {handed_out}, ejected by the mechanism {mechanism.ejected}; "
        f"hopper model {launcher.remaining}, real hopper {mechanism.hopper}"
    )
    assert handed_out == mechanism.ejected and launcher.remaining == mechanism.hopper

# For long simulations, attendant=1 is a simulated person who clears every jam at once.
with open_launcher(SPEC + "&attendant=1") as launcher:
    launcher.load(range(40))
    counts = [launcher.hit().counted for _ in range(6)]
    print(f"with an attendant: {counts}; faults cleared for us: {launcher.attended}")
