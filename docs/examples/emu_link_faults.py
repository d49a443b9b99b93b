"""The emulated Pico over a lossy USB link: every press still happens exactly once.

emu:// runs the real firmware logic on a pseudo-terminal, in-process, and talks to it with the
same client a real Pico gets. `faults=` makes the link drop, damage and duplicate frames; the
protocol's retransmissions and job ids make sure no press is lost or shot twice, and the cards
the host counts are the cards the emulated mechanism fed. Then we pull the cable out.
"""

from launcher import LauncherError, open_launcher

SPEC = "emu://?fast=1&seed=3&timeout=1&faults=drop:0.05,corrupt:0.03,dup:0.03"

with open_launcher(SPEC) as launcher:
    launcher.load(range(80))
    counts = [launcher.hit().counted for _ in range(30)]
    emulator = launcher.emulator
    print(f"30 presses over a lossy link: {sum(counts)} cards {counts}")
    print(f"link faults injected: {emulator.fault_counts()}")
    jobs = emulator.jobs_executed
    print(f"{len(jobs)} motor jobs ran on the board, {len(set(jobs))} distinct: none ran twice")
    assert len(jobs) == len(set(jobs))
    print(f"cards counted by the host {sum(counts)}, fed by the mechanism {launcher.cards_fed}")
    assert sum(counts) == launcher.cards_fed

    emulator.unplug()  # the USB cable comes out (a bus-powered Pico loses power)
    try:
        launcher.hit()
    except LauncherError as error:  # LinkLost mid-press, or PortNotFound if seen before it
        print(f"unplugged: {type(error).__name__}: {error}")
    emulator.replug()  # plugged back in: the next press reconnects and shakes hands again
    try:
        volley = launcher.hit()
    except LauncherError as error:  # the board lost power: its count of that press died with it
        print(f"restart reported: up to {getattr(error, 'unknown', '?')} card(s) uncounted")
        volley = launcher.hit()
    reconnects = launcher.client.reconnects
    print(f"after the replug: {volley.counted} card(s); reconnects so far: {reconnects}")
    print(launcher.status())
