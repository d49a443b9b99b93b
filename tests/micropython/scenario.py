# The firmware logic through a scripted session. Runs under CPython and MicroPython; the
# frames it prints must be byte-identical. The HAL here is a scripted board: the motor
# and beam are plain attributes, time is whatever the script says.
import logic
import protocol as P


class ScriptHal:
    def __init__(self, cause):
        self.duty = 0
        self.blocked = False
        self.flash = None
        self.out = []
        self.seed = 0x1234567
        self.cause = cause
        self.motor = []

    def set_motor(self, duty):
        self.duty = duty
        self.motor.append(duty)

    def beam_blocked(self):
        return self.blocked

    def write(self, frame):
        self.out.append(frame)

    def load_profile(self):
        return self.flash

    def save_profile(self, text):
        self.flash = text

    def random32(self):
        self.seed = (self.seed * 1103515245 + 12345) & 0xFFFFFFFF
        return self.seed

    def reset_cause(self):
        return self.cause

    def ticks_diff(self, a, b):
        return a - b

    def ticks_add(self, a, b):
        return a + b


hal = ScriptHal("power")
fw = logic.Firmware(hal)
fw.boot(0)
seq = [0]


def command(verb, fields, now):
    seq[0] = (seq[0] + 1) & 0xFF
    fw.on_line(P.encode("C", seq[0], verb, fields)[:-1], now)


def card(now, transit):
    hal.blocked = True
    fw.on_beam(True, now)
    fw.tick(now + 1)
    hal.blocked = False
    fw.on_beam(False, now + transit)


command("HELLO", [], 1)
command("FEED", [("job", 1), ("n", 3), ("jam_ms", 400)], 10)
frame = P.encode("C", seq[0], "FEED", [("job", 1), ("n", 3), ("jam_ms", 400)])
fw.on_line(frame, 15)  # a retransmission: cached reply, not executed again
for t in range(20, 300, 40):
    fw.tick(t)
card(100, 20)
command("PING", [], 150)
card(200, 20)
fw.tick(260)
card(300, 20)
command("STATUS", [], 320)
command("FEED", [("job", 1), ("n", 3)], 330)  # same job id, new seq: state, not a rerun
command("FEED", [("job", 2), ("n", 2), ("jam_ms", 100)], 400)
for t in range(400, 700, 10):
    fw.tick(t)
command("FEED", [("job", 3), ("n", 1)], 710)
command("CLEAR", [], 720)
command("RUN", [("job", 3), ("ms", 250), ("duty", 60)], 730)
for t in range(730, 1100, 50):
    command("PING", [], t)
    fw.tick(t)
command(
    "PROFILE",
    [("kind", "pattern"), ("cycle", 3), ("fires", P.fires_mask([2, 3])), ("p", [100, 300, 600])],
    1200,
)
for press in range(6):
    start = 1300 + press * 1000
    fw.on_button(start)
    if fw.job is not None:
        for k in range(fw.job.want):
            card(start + 50 + k * 60, 10)
    fw.tick(start + 900)
command("FEED", [("job", 4), ("n", 5), ("max_ms", 10)], 8000)
fw.tick(8005)
fw.tick(8010)
command("DANCE", [], 8020)
command("FEED", [("job", 5)], 8030)
command("STOP", [], 8040)
command("FEED", [("job", 9), ("n", 1), ("boot", "00000000")], 8050)  # an earlier boot's job
command("CLEAR", [], 8055)
command("RUN", [("job", 9), ("ms", 5), ("boot", fw.boot_id)], 8060)
fw.tick(8070)

for frame in hal.out:
    print(repr(frame))
print(repr(hal.motor))
print(repr((fw.total, fw.events, fw.job_starts, fw.fault, hal.flash)))
print("END")
