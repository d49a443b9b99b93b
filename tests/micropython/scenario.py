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
        self.timeline = []  # motor changes and frame kinds+verbs, in the order they happened
        self.button = False
        self.wdt = False

    def set_motor(self, duty):
        self.duty = duty
        self.motor.append(duty)
        self.timeline.append("motor=" + str(duty))

    def beam_blocked(self):
        return self.blocked

    def write(self, frame):
        self.out.append(frame)
        self.timeline.append(frame[:1].decode() + frame.split(b"*")[0].split(b" ")[1].decode())

    def load_profile(self):
        return self.flash

    def save_profile(self, text):
        self.flash = text

    def random32(self):
        self.seed = (self.seed * 1103515245 + 12345) & 0xFFFFFFFF
        return self.seed

    def reset_cause(self):
        return self.cause

    def button_pressed(self):
        return self.button

    def arm_watchdog(self):
        self.timeline.append("wdt")
        self.wdt = True

    def watchdog_armed(self):
        return self.wdt

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
    if verb in ("FEED", "RUN") and not [1 for key, _ in fields if key == "boot"]:
        fields = list(fields) + [("boot", fw.boot_id)]  # what the host sends since issue 17
    fields = [(key, value) for key, value in fields if value is not None]
    fw.on_line(P.encode("C", seq[0], verb, fields)[:-1], now)


def card(now, transit):
    hal.blocked = True
    fw.on_beam(True, now)
    fw.tick(now + 1)
    hal.blocked = False
    fw.on_beam(False, now + transit)


command("HELLO", [], 1)
command("FEED", [("job", 1), ("n", 3), ("jam_ms", 400)], 10)
frame = P.encode("C", seq[0], "FEED", [("job", 1), ("n", 3), ("jam_ms", 400), ("boot", fw.boot_id)])
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
fw.on_button(True, 1250)  # a host holds the link: hold 2 s to give the button back
fw.tick(1250 + logic.LONG_PRESS_MS)
fw.on_button(False, 1260 + logic.LONG_PRESS_MS)
for press in range(6):
    start = 4300 + press * 600
    fw.on_button(True, start - 30)
    fw.on_button(False, start - 29)  # a 1 ms bounce: nothing
    fw.on_button(True, start - 20)
    fw.tick(start)  # 20 ms low: the press
    fw.on_button(False, start + 30)
    fw.on_button(True, start + 31)  # release bounce: never a second press
    fw.on_button(False, start + 33)
    if fw.job is not None:
        for k in range(fw.job.want):
            card(start + 50 + k * 60, 10)
    fw.tick(start + 500)
command("SELFTEST", [], 7950)
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
# issue 17 / 11 / 12: boot= required, STOP per job, PROFILE refused mid-job, empty hopper
command("FEED", [("job", 10), ("n", 1), ("boot", None)], 8100)  # no boot=: bad_arg
command("FEED", [("job", 10), ("n", 2), ("jam_ms", 300)], 8110)
command("PROFILE", [("kind", "iid"), ("p", [0, 1000])], 8120)  # busy
card(8150, 5)
command("STOP", [("job", 10), ("boot", fw.boot_id)], 8200)
command("STOP", [("job", 10), ("boot", fw.boot_id)], 8210)  # a retransmission: dup=1
command("STOP", [("job", 11), ("boot", fw.boot_id)], 8220)  # never arrived: fenced
command("FEED", [("job", 11), ("n", 1)], 8230)  # ...and never runs
command("STOP", [("job", 12), ("boot", "DEADBEEF")], 8240)  # an earlier boot's job
command("FEED", [("job", 12), ("n", 1), ("jam_ms", 50)], 8300)
for t in range(8300, 8400, 10):
    fw.tick(t)  # not one card: DONE reason=empty, nothing latched
command("FEED", [("job", 13), ("n", 1)], 8400)
card(8420, 5)  # the last card: motor off before its CARD is written
command("STATUS", [], 8500)

for frame in hal.out:
    print(repr(frame))
print(repr(hal.motor))
print(repr(hal.timeline))
print(repr((fw.total, fw.events, fw.job_starts, fw.fault, hal.flash)))
print("END")
