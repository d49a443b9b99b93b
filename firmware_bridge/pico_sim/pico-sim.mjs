#!/usr/bin/env node
// pico-sim.mjs - run a Raspberry Pi Pico (RP2040) UF2 firmware (e.g. MicroPython)
// on the rp2040js emulator (npm rp2040js@1.4.1, MIT) and bridge its USB CDC serial
// port to stdin/stdout and/or a TCP socket (and optionally a pty via socat).
//
// Additions on top of stock rp2040js 1.4.1:
//   * a SPI NOR flash model behind the XIP SSI + IO_QSPI chip-select, so the
//     bootrom flash_range_erase/flash_range_program calls MicroPython makes
//     really modify flash (littlefs filesystem works: mpremote fs cp, main.py);
//   * watchdog-triggered reboot (machine.reset(), machine.WDT timeout): the chip
//     is re-created with flash, watchdog REASON and SCRATCH registers preserved;
//   * host->device flow control (rp2040js' CDC FIFO silently drops bytes past 512);
//   * pad pull-ups/pull-downs: an input pin nothing drives reads its pad's pull, and levels
//     driven through the control port stay driven across watchdog reboots;
//   * a ROSC RANDOMBIT that is random, so os.urandom() and boot ids differ between boots;
//   * a line-based control port to read/drive GPIOs and read emulated time;
//   * (uno-attack) lockstep: `hold` stops emulated time at a horizon that `step MS` moves on,
//     so an outside model (the launcher mechanism) sees every millisecond; `duty N` reads the
//     PWM duty a pin outputs; `power` power-cycles the chip (a brown-out); `faults` drops or
//     corrupts whole lines of the serial stream; emulated time is monotonic across reboots;
//   * (uno-attack) exact lockstep `x.hold PINS` / `x.step NS` / `x.in PIN 0|1` / `x.time`: the
//     caller owns emulated time to the nanosecond and gets the output pins' on/off edges.
//
// Usage: node pico-sim.mjs --uf2 firmware.uf2 [--port 5555] [--stdio]
//          [--ctl-port 5556] [--pty ./ttyPICO] [--flash flash.bin] [--bootrom bootrom-b1.bin]
//          [--watch 25,15] [--realtime] [--verbose]
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { randomInt } from 'node:crypto';
import { Simulator, USBCDC, ConsoleLogger, LogLevel, GPIOPinState, GPIOPin, BasePeripheral } from 'rp2040js';

const here = path.dirname(fileURLToPath(import.meta.url));

// ---------------------------------------------------------------- args
const args = { port: 0, ctlPort: 0, bootrom: path.join(here, 'bootrom-b1.bin'), watch: [] };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  const next = () => process.argv[++i];
  if (a === '--uf2') args.uf2 = next();
  else if (a === '--port') args.port = Number(next());
  else if (a === '--ctl-port') args.ctlPort = Number(next());
  else if (a === '--stdio') args.stdio = true;
  else if (a === '--pty') args.pty = next();
  else if (a === '--flash') args.flash = next();
  else if (a === '--bootrom') args.bootrom = next();
  else if (a === '--watch') args.watch = next().split(',').map(Number);
  else if (a === '--realtime') args.realtime = true;
  else if (a === '--verbose') args.verbose = true;
  else if (a === '--no-flash-model') args.noFlashModel = true;
  else if (a === '--poll-usb') args.pollUsb = true;
  else if (a === '--lockstep') args.lockstep = true;
  else if (a === '--exit-with-stdin') args.exitWithStdin = true;
  else {
    console.error(`unknown argument ${a}`);
    process.exit(2);
  }
}
if (!args.uf2 && !(args.flash && fs.existsSync(args.flash))) {
  console.error('usage: node pico-sim.mjs --uf2 firmware.uf2 [--port N] [--stdio] [--ctl-port N] [--pty PATH] [--flash FILE]');
  process.exit(2);
}
const log = (...m) => process.stderr.write(`[pico-sim] ${m.join(' ')}\n`);

// ---------------------------------------------------------------- images
const FLASH_BASE = 0x10000000;
const FLASH_SIZE = 2 * 1024 * 1024; // Pico has 2 MB; rp2040js allocates 16 MB
const bootromBuf = fs.readFileSync(args.bootrom);
const bootrom = new Uint32Array(bootromBuf.buffer, bootromBuf.byteOffset, bootromBuf.length / 4);

function loadUF2(file, flash) {
  const data = fs.readFileSync(file);
  let blocks = 0;
  for (let off = 0; off + 512 <= data.length; off += 512) {
    const b = data.subarray(off, off + 512);
    const magic0 = b.readUInt32LE(0), magic1 = b.readUInt32LE(4), magicEnd = b.readUInt32LE(508);
    if (magic0 !== 0x0a324655 || magic1 !== 0x9e5d5157 || magicEnd !== 0x0ab16f30) continue;
    const flags = b.readUInt32LE(8);
    if (flags & 1) continue; // "not main flash"
    const addr = b.readUInt32LE(12), size = b.readUInt32LE(16);
    if (addr < FLASH_BASE || addr + size > FLASH_BASE + flash.length) continue;
    flash.set(b.subarray(32, 32 + size), addr - FLASH_BASE);
    blocks++;
  }
  return blocks;
}

// ---------------------------------------------------------------- SPI NOR flash model
// rp2040js' SSI is a stub and IO_QSPI is unimplemented, so the bootrom flash routines
// (used by MicroPython's rp2.Flash / littlefs) do nothing. This models a W25Q16-like
// flash: chip select comes from IO_QSPI GPIO_QSPI_SS_CTRL.OUTOVER (forced by the
// bootrom / SDK) or, when not forced, each SSI burst ends at the next SR poll.
class IOQSPI extends BasePeripheral {
  constructor(rp2040, flashModel) {
    super(rp2040, 'IO_QSPI_BASE');
    this.ctrl = new Uint32Array(6);
    this.flashModel = flashModel;
  }
  readUint32(offset) {
    const idx = offset >> 3;
    if (idx < 6) return offset & 4 ? this.ctrl[idx] : 0;
    return 0;
  }
  writeUint32(offset, value) {
    const idx = offset >> 3;
    if (idx < 6 && offset & 4) {
      const old = this.ctrl[idx];
      this.ctrl[idx] = value;
      if (idx === 1 && ((old >> 8) & 3) !== ((value >> 8) & 3)) this.flashModel.csOverride((value >> 8) & 3);
    }
  }
}

class FlashModel {
  constructor(mcu) {
    this.mcu = mcu;
    this.rx = [];
    this.cur = null; // bytes of the current transaction
    this.forced = false;
    this.wel = false;
    this.writes = 0;
    this.erases = 0;
  }
  csOverride(v) {
    // 0 = normal (SSI drives CS), 2 = force low (select), 3 = force high (deselect)
    this.end();
    this.forced = v === 2;
    if (v === 2) this.cur = [];
  }
  end() {
    if (this.cur && this.cur.length) this.execute(this.cur);
    this.cur = null;
  }
  addr(t) {
    return ((t[1] << 16) | (t[2] << 8) | t[3]) % FLASH_SIZE;
  }
  // called for each byte shifted out; returns the byte shifted in
  xfer(byte) {
    if (!this.cur) this.cur = [];
    const t = this.cur;
    t.push(byte);
    const n = t.length - 1; // index of this byte
    const cmd = t[0];
    const flash = this.mcu.flash;
    switch (cmd) {
      case 0x05: // read status 1: never busy, report WEL
        return n >= 1 ? (this.wel ? 2 : 0) : 0;
      case 0x35: // read status 2: QE set
        return n >= 1 ? 0x02 : 0;
      case 0x03: // read data
        return n >= 4 ? flash[(this.addr(t) + n - 4) % FLASH_SIZE] : 0;
      case 0x0b: // fast read (1 dummy)
        return n >= 5 ? flash[(this.addr(t) + n - 5) % FLASH_SIZE] : 0;
      case 0x9f: // JEDEC id: Winbond W25Q16JV
        return [0, 0xef, 0x40, 0x15][n] ?? 0;
      case 0x4b: // unique id: 4 dummy bytes then 8 id bytes
        return n >= 5 ? [0xe6, 0x61, 0x38, 0x97, 0x5f, 0x4a, 0x2c, 0x2b][(n - 5) % 8] : 0;
      default:
        return 0;
    }
  }
  execute(t) {
    const cmd = t[0];
    const flash = this.mcu.flash;
    if (cmd === 0x06) this.wel = true;
    else if (cmd === 0x04) this.wel = false;
    else if (cmd === 0x02 && t.length > 4) {
      // page program: AND bits in, wrapping within the 256-byte page
      if (this.wel) {
        const a = this.addr(t);
        const page = a & ~0xff;
        for (let i = 4; i < t.length; i++) {
          const p = page + ((a + i - 4) & 0xff);
          flash[p] &= t[i];
        }
        this.writes++;
      }
      this.wel = false;
    } else if ((cmd === 0x20 || cmd === 0x52 || cmd === 0xd8) && t.length >= 4) {
      if (this.wel) {
        const size = cmd === 0x20 ? 4096 : cmd === 0x52 ? 32768 : 65536;
        const a = this.addr(t) & ~(size - 1);
        flash.fill(0xff, a, a + size);
        this.erases++;
      }
      this.wel = false;
    } else if (cmd === 0xc7 || cmd === 0x60) {
      if (this.wel) flash.fill(0xff, 0, FLASH_SIZE);
      this.wel = false;
    } else if (cmd === 0x01 || cmd === 0x31) this.wel = false;
  }
}

function installFlashModel(mcu) {
  const model = new FlashModel(mcu);
  const ssi = mcu.peripherals[0x18000];
  const origRead = ssi.readUint32.bind(ssi);
  const origWrite = ssi.writeUint32.bind(ssi);
  const SSIENR = 0x08, TXFLR = 0x20, RXFLR = 0x24, SR = 0x28, DR0 = 0x60;
  ssi.readUint32 = (offset) => {
    switch (offset) {
      case SR:
        if (!model.forced) model.end(); // SSI-driven CS: a status poll ends the burst
        return 0x6 | (model.rx.length ? 0x8 : 0); // TFE | TFNF | RFNE, never BUSY
      case TXFLR:
        return 0;
      case RXFLR:
        return Math.min(model.rx.length, 16);
      case DR0:
        return model.rx.length ? model.rx.shift() : 0;
    }
    return origRead(offset);
  };
  ssi.writeUint32 = (offset, value) => {
    if (offset === DR0) {
      model.rx.push(model.xfer(value & 0xff));
      if (model.rx.length > 64) model.rx.shift();
      return;
    }
    if (offset === SSIENR && !(value & 1)) {
      model.rx.length = 0; // disabling the SSI clears its FIFOs
      if (!model.forced) model.end();
    }
    origWrite(offset, value);
  };
  mcu.peripherals[0x40018] = new IOQSPI(mcu, model);
  return model;
}

// ---------------------------------------------------------------- host side I/O
const clients = new Set(); // connected TCP clients (output goes to all, input from any)
const outBacklog = []; // device output while no TCP client is connected (bounded)
let outBacklogBytes = 0;
const pending = []; // host -> device bytes not yet in the CDC FIFO
let pendingPos = 0;

function deviceOutput(raw) {
  const buf = faultLines('out', raw);
  if (!buf.length) return;
  if (args.stdio) process.stdout.write(buf);
  if (args.port) {
    if (clients.size) for (const c of clients) c.write(Buffer.from(buf));
    else {
      outBacklog.push(Buffer.from(buf));
      outBacklogBytes += buf.length;
      while (outBacklogBytes > 65536) outBacklogBytes -= outBacklog.shift().length;
    }
  }
}
function hostInput(raw) {
  const buf = faultLines('in', raw);
  for (const b of buf) pending.push(b);
  refill();
}

// ---------------------------------------------------------------- pads and ROSC
// rp2040js 1.4.1 reads an input that nothing drives as 0 whatever its pad's pull, so a button or
// break-beam receiver wired open-collector to GND with the internal pull-up would read "pressed" /
// "blocked". Model the pulls: an undriven pin reads its pull (pull-up 1, pull-down or none 0;
// both = bus keeper, holding its last level); a pin driven through the control port reads the
// driven level until `release N`.
const pulledLevel = (pin) => pin.pullupEnabled && (!pin.pulldownEnabled || pin.rawInputValue);
const applyOverride = (value, type) => (type === 0 ? value : type === 1 ? !value : type === 3);
const setInputRaw = GPIOPin.prototype.setInputValue;
Object.defineProperty(GPIOPin.prototype, 'inputValue', {
  configurable: true,
  get() {
    const raw = this.externallyDriven ? this.rawInputValue : pulledLevel(this);
    return applyOverride(raw && this.inputEnable, this.inputOverride);
  },
});
GPIOPin.prototype.setInputValue = function (value) {
  this.externallyDriven = true;
  setInputRaw.call(this, value);
};
GPIOPin.prototype.releaseInput = function () {
  this.externallyDriven = false;
  this.refreshInput();
};
GPIOPin.prototype.refreshInput = function () {
  // pad register writes (pull on/off, input enable) re-evaluate the level and its IRQ edges
  setInputRaw.call(this, this.externallyDriven ? this.rawInputValue : pulledLevel(this));
};
const driven = new Map(); // pin -> level driven from outside; survives watchdog reboots

// ROSC: only RANDOMBIT (offset 0x1c) is modelled, with real random bits, so the firmware's
// os.urandom() differs between boots as on a real chip; other registers read as before.
class RoscRandom extends BasePeripheral {
  readUint32(offset) {
    return offset === 0x1c ? randomInt(2) : 0xffffffff;
  }
  writeUint32() {}
}

// ---------------------------------------------------------------- emulated chip
let sim, mcu, cdc, flashModel;
let resets = 0;
let baseNanos = 0; // emulated time of the chips before the last reboot (each boot's clock starts at 0)
// Lockstep: with a horizon set, emulated time never runs past it; `step MS` moves it on.
let horizon = args.lockstep ? 0 : null; // absolute emulated nanos, or null = free running
let parkedStep = null; // the run loop, parked at the horizon
const stepWaiters = []; // {at, resolve}: replies to `step` waiting for emulated time
const totalNanos = () => baseNanos + (mcu ? mcu.clock.nanos : 0);
function resolveSteps() {
  while (stepWaiters.length && totalNanos() >= stepWaiters[0].at) stepWaiters.shift().resolve();
}
function unpark() {
  const run = parkedStep;
  parkedStep = null;
  if (run) setImmediate(run);
}
const pinStats = new Map(); // pin -> {transitions, highNanos, lastNanos, level}
const t0 = Date.now();
let bootWall = Date.now();

let parkedRead = null;
function refill() {
  if (!cdc) return;
  while (pendingPos < pending.length && !cdc.txFIFO.full) cdc.sendSerialByte(pending[pendingPos++]);
  if (pendingPos === pending.length) {
    pending.length = 0;
    pendingPos = 0;
  }
  if (parkedRead && !cdc.txFIFO.empty) {
    const r = parkedRead;
    parkedRead = null;
    r();
  }
}

function boot(prev) {
  if (prev) baseNanos += prev.nanos;
  parkedStep = null;
  sim = new Simulator();
  mcu = sim.rp2040;
  mcu.logger = new ConsoleLogger(args.verbose ? LogLevel.Warn : LogLevel.Error);
  mcu.loadBootrom(bootrom); // (this also erases flash, so fill it afterwards)
  if (prev) {
    mcu.flash.set(prev.flash);
  } else {
    if (args.flash && fs.existsSync(args.flash)) {
      mcu.flash.set(fs.readFileSync(args.flash).subarray(0, FLASH_SIZE));
      log(`loaded flash image ${args.flash}`);
    }
    if (args.uf2) log(`loaded ${loadUF2(args.uf2, mcu.flash)} UF2 blocks from ${args.uf2}`);
  }
  if (!args.noFlashModel) flashModel = installFlashModel(mcu);
  mcu.peripherals[0x40060] = new RoscRandom(mcu, 'ROSC_BASE');
  for (const [pin, level] of driven) mcu.gpio[pin].setInputValue(level);

  const wdt = mcu.peripherals[0x40058];
  if (prev) {
    wdt.reason = prev.reason;
    wdt.scratchData.set(prev.scratch);
  }
  let rebooting = false;
  wdt.onWatchdogTrigger = () => {
    if (rebooting) return;
    rebooting = true;
    // rp2040js' watchdog alarm is periodic and would re-fire immediately: stop it
    wdt.alarm.enable = false;
    wdt.timer.enable = false;
    const reason = wdt.reason;
    log(`watchdog reboot (reason=${reason === 1 ? 'TIMER' : 'FORCE'}) at emulated t=${(mcu.clock.nanos / 1e9).toFixed(3)}s`);
    sim.stopped = true;
    const state = { flash: mcu.flash.slice(0, FLASH_SIZE), reason, scratch: wdt.scratchData.slice(), nanos: mcu.clock.nanos };
    resets++;
    saveFlash(state.flash);
    setImmediate(() => boot(state));
  };

  for (const [pin, st] of pinStats) st.level = null;
  for (let i = 0; i < 30; i++) {
    mcu.gpio[i].addListener((state) => {
      const now = mcu.clock.nanos;
      let st = pinStats.get(i);
      if (!st) pinStats.set(i, (st = { transitions: 0, highNanos: 0, lastNanos: now, level: null, since: now }));
      const level = state === GPIOPinState.High ? 1 : state === GPIOPinState.Low ? 0 : null;
      if (st.level === 1) st.highNanos += now - st.lastNanos;
      if (level !== st.level) st.transitions++;
      st.level = level;
      st.lastNanos = now;
      if (args.watch.includes(i)) log(`GPIO${i} -> ${GPIOPinState[state]} at emulated t=${(now / 1e9).toFixed(6)}s`);
    });
  }

  installDeviceSOF(mcu);
  cdc = new USBCDC(mcu.usbCtrl);
  // Host->device: rp2040js answers an armed bulk OUT endpoint immediately, with a
  // zero-length packet when its FIFO is empty, so the device re-arms and polls every
  // 10 us of emulated time. Like a real host, we instead leave the OUT buffer armed
  // until there is data (use --poll-usb to get the stock behaviour).
  const origRead = mcu.usbCtrl.onEndpointRead;
  parkedRead = null;
  mcu.usbCtrl.onEndpointRead = (ep, size) => {
    refill();
    if (!args.pollUsb && ep === cdc.outEndpoint && ep > 0 && cdc.txFIFO.empty) {
      parkedRead = () => origRead(ep, size);
      return;
    }
    origRead(ep, size);
  };
  cdc.onDeviceConnected = () => {
    log(`USB CDC connected after ${((Date.now() - bootWall) / 1000).toFixed(2)}s wall, emulated t=${(mcu.clock.nanos / 1e9).toFixed(3)}s`);
  };
  cdc.onSerialData = (buf) => deviceOutput(buf);
  installHostReading(mcu);

  bootWall = Date.now();
  mcu.core.PC = FLASH_BASE; // like the rp2040js demo: start boot2 directly
  runLoop(sim);
}

// A host that stops reading (`hostread 0`): its program hangs with the port open, the OS
// buffer fills and the host controller stops taking the device's IN packets. We hold the
// completion of every IN transfer on the CDC data endpoint until `hostread 1`, so TinyUSB's
// TX FIFO fills and MicroPython's writes block (up to its 500 ms CDC timeout), as on a PC.
// The host's state outlives a reboot of the device (its program still hangs); the held
// completions belong to the old chip and go with it.
const hostReading = { on: true, held: [], release: null };
function installHostReading(mcu) {
  const usb = mcu.usbCtrl;
  const origReady = usb.indicateBufferReady.bind(usb);
  hostReading.held = [];
  usb.indicateBufferReady = (endpoint, out) => {
    if (!out && !hostReading.on && cdc && endpoint === cdc.inEndpoint) {
      hostReading.held.push(endpoint);
      return;
    }
    origReady(endpoint, out);
  };
  hostReading.release = () => {
    for (const endpoint of hostReading.held.splice(0)) origReady(endpoint, false);
  };
}
function setHostReading(on) {
  const held = hostReading.held.length; // IN transfers held back until now
  hostReading.on = on;
  if (on && hostReading.release) hostReading.release();
  return { ok: true, reading: on, held };
}

// Device-mode USB start-of-frame. rp2040js 1.4.1 only generates SOF in host mode, but
// MicroPython (shared/tinyusb/mp_usbd_cdc.c) enables the SOF interrupt when the host
// sets DTR and flushes its buffered output (e.g. the REPL banner) a few frames later.
// We raise DEV_SOF every 1 ms of emulated time only while the firmware has it enabled
// (so an idle device still lets the emulated clock stop), and clear it on SOF_RD reads.
function installDeviceSOF(mcu) {
  const usb = mcu.usbCtrl;
  const INTE = 0x90, SOF_RD = 0x48, INTR_DEV_SOF = 1 << 17;
  const alarm = mcu.clock.createAlarm(() => {
    if (!(usb.intEnable & INTR_DEV_SOF)) return;
    usb.sofFrameNumber = (usb.sofFrameNumber + 1) & 0x7ff;
    usb.intRaw |= INTR_DEV_SOF;
    usb.checkInterrupts();
    alarm.schedule(1e6);
  });
  const origWrite = usb.writeUint32.bind(usb);
  usb.writeUint32 = (offset, value) => {
    origWrite(offset, value);
    if (offset === INTE && usb.intEnable & INTR_DEV_SOF && !alarm.scheduled) alarm.schedule(1e6);
  };
  const origRead = usb.readUint32.bind(usb);
  usb.readUint32 = (offset) => {
    const v = origRead(offset);
    if (offset === SOF_RD && usb.intRaw & INTR_DEV_SOF) {
      usb.intRaw &= ~INTR_DEV_SOF;
      usb.checkInterrupts();
    }
    return v;
  };
}

// Run loop (replaces Simulator.execute so that idle time can be handled):
//  * default ("virtual time"): run as fast as possible; while the core sleeps (WFI/WFE)
//    the clock jumps to the next timer alarm, so time.sleep() costs almost no wall time;
//    when the core sleeps with no alarm pending, emulated time stands still and the
//    host process idles until serial input arrives.
//  * --realtime: emulated time never runs ahead of wall-clock time, and advances with
//    wall-clock time while the core is idle (CPU-bound code still runs slower than real).
function runLoop(mySim) {
  const clock = mcu.clock;
  const core = mcu.core;
  const cycleNanos = 1e9 / 125e6;
  const wallStartNanos = Date.now() * 1e6 - clock.nanos;
  const step = () => {
    if (mySim !== sim || mySim.stopped) return;
    if (XS && XS.held) { XS.parked = step; return; } // exact lockstep: only x.step moves time
    const sliceEnd = Date.now() + 25;
    let delay = 0;
    outer: for (;;) {
      let target = args.realtime ? Date.now() * 1e6 - wallStartNanos : Infinity;
      const hold = horizon === null ? Infinity : horizon - baseNanos;
      const held = horizon !== null && hold <= target; // lockstep, not the wall clock, is the limit now
      if (held) target = hold;
      if (held && clock.nanos >= target) {
        delay = -1;
        break outer;
      }
      for (let i = 0; i < 50000; i++) {
        if (mySim.stopped) return;
        if (core.waiting) {
          const next = clock.nextAlarm;
          if (next == null || next.nanos > target) {
            if (target !== Infinity && target > clock.nanos) clock.tick(target - clock.nanos);
            delay = held ? -1 : args.realtime ? 1 : 2;
            break outer;
          }
          clock.tick(Math.max(0, next.nanos - clock.nanos));
        } else {
          clock.tick(core.executeInstruction() * cycleNanos);
          if (clock.nanos >= target) {
            delay = held ? -1 : 1;
            break outer;
          }
        }
      }
      if (Date.now() >= sliceEnd) break;
    }
    resolveSteps();
    if (delay < 0) parkedStep = step; // wait for the next `step` to move the horizon
    else setTimeout(step, delay);
  };
  mySim.stopped = false;
  step();
}

// A power cycle (brown-out, replug): flash is kept, REASON and the scratch registers are not.
function powerCycle() {
  sim.stopped = true;
  const state = { flash: mcu.flash.slice(0, FLASH_SIZE), reason: 0, scratch: new Uint32Array(8), nanos: mcu.clock.nanos };
  resets++;
  saveFlash(state.flash);
  log(`power cycle at emulated t=${(totalNanos() / 1e9).toFixed(3)}s`);
  setImmediate(() => boot(state));
}

// The level a pin drives, as a duty cycle 0..1: a PWM pin's CC/(TOP+1), else 0 or 1.
function pinDuty(n) {
  const pin = mcu.gpio[n];
  const high = pin.value === GPIOPinState.High ? 1 : 0;
  if (pin.functionSelect !== 4) return high;
  const ch = mcu.pwm.channels[(n >> 1) & 7];
  if (!(ch.csr & 1)) return high;
  const cc = n & 1 ? ch.cc >>> 16 : ch.cc & 0xffff;
  return Math.min(1, cc / (ch.top + 1));
}

// ---------------------------------------------------------------- serial line faults
// `faults drop=P corrupt=P seed=N`: each complete line (either direction) is dropped with
// probability P, or has one byte changed; deterministic from the seed. `faults off` stops.
const faults = { drop: 0, corrupt: 0, rng: 1, counts: { dropped: 0, corrupted: 0, lines: 0 } };
const partial = { in: [], out: [] };
function faultRandom() {
  // xorshift32
  let x = faults.rng;
  x ^= x << 13;
  x ^= x >>> 17;
  x ^= x << 5;
  faults.rng = x >>> 0;
  return faults.rng / 4294967296;
}
function faultLines(dir, buf) {
  if (!faults.drop && !faults.corrupt) return buf;
  const out = [];
  for (const b of buf) {
    partial[dir].push(b);
    if (b !== 10) continue;
    const line = partial[dir];
    partial[dir] = [];
    faults.counts.lines++;
    const r = faultRandom();
    if (r < faults.drop) {
      faults.counts.dropped++;
      continue;
    }
    if (r < faults.drop + faults.corrupt && line.length > 1) {
      const at = Math.floor(faultRandom() * (line.length - 1));
      line[at] = line[at] === 0x30 ? 0x31 : 0x30;
      faults.counts.corrupted++;
    }
    out.push(...line);
  }
  return Buffer.from(out);
}

function saveFlash(data) {
  if (args.flash) fs.writeFileSync(args.flash, data ?? mcu.flash.subarray(0, FLASH_SIZE));
}

// ---------------------------------------------------------------- servers
if (args.port) {
  const server = net.createServer((sock) => {
    clients.add(sock);
    sock.setNoDelay(true);
    log(`serial client connected from ${sock.remoteAddress}:${sock.remotePort}`);
    for (const b of outBacklog.splice(0)) sock.write(b);
    outBacklogBytes = 0;
    sock.on('data', hostInput);
    sock.on('close', () => {
      clients.delete(sock);
    });
    sock.on('error', () => {});
  });
  server.listen(args.port, '127.0.0.1', () => {
    log(`USB CDC serial bridged to tcp 127.0.0.1:${args.port} (pyserial: socket://127.0.0.1:${args.port})`);
    if (args.pty) {
      const socat = spawn('socat', [`pty,link=${args.pty},raw,echo=0`, `tcp:127.0.0.1:${args.port}`], { stdio: 'inherit' });
      log(`socat pty at ${args.pty} (pid ${socat.pid})`);
      process.on('exit', () => socat.kill());
    }
  });
}

if (args.ctlPort) {
  net
    .createServer((sock) => {
      sock.setNoDelay(true); // one reply per command: no waiting for the client's delayed ACK
      let line = '';
      let queue = Promise.resolve(); // replies go out in command order, `step` waits for time
      sock.on('data', (d) => {
        line += d.toString();
        let i;
        while ((i = line.indexOf('\n')) >= 0) {
          const cmd = line.slice(0, i).trim().split(/\s+/);
          line = line.slice(i + 1);
          queue = queue.then(async () => {
            const reply = await control(cmd);
            if (!sock.destroyed) sock.write(JSON.stringify(reply) + '\n');
          });
        }
      });
      sock.on('error', () => {});
    })
    .listen(args.ctlPort, '127.0.0.1', () => log(`control port on tcp 127.0.0.1:${args.ctlPort}`));
}

// `step MS [PINS]`: let emulated time run MS further (lockstep), reply once it has, with the
// duty of each pin in PINS (comma separated) at that moment.
function stepTime(ms, pins) {
  if (horizon === null) horizon = totalNanos();
  horizon = Math.max(horizon, totalNanos()) + Math.round(ms * 1e6);
  const at = horizon;
  const done = new Promise((resolve) => stepWaiters.push({ at, resolve }));
  unpark();
  return done.then(() => ({
    t: totalNanos() / 1e9,
    resets,
    duty: Object.fromEntries(pins.map((n) => [n, pinDuty(n)])),
  }));
}

// Control commands (one per line, JSON reply):
//   gpio N          -> state of GPIO N (Low/High/Input/...) + transition statistics
//   input N 0|1     -> drive GPIO N input level (kept across watchdog reboots)
//   release N       -> stop driving GPIO N: it reads its pad's pull again
//   time            -> emulated seconds, wall seconds since start, resets
//   flash           -> flash-model counters
//   save            -> write flash image to --flash file
//   hold / free     -> lockstep on (emulated time stops at a horizon) / off
//   step MS [PINS]  -> (lockstep) run MS more emulated ms; reply then, with the PINS' duty
//   duty N          -> the duty cycle (0..1) GPIO N drives (PWM CC/(TOP+1), else its level)
//   power           -> power-cycle the chip (flash kept, reset cause power-on)
//   hostread 0|1    -> the USB host stops / starts again taking the device's output (writes block)
//   faults drop=P corrupt=P seed=N | faults off -> damage whole serial lines; counts
//   x.hold PINS / x.step NS / x.in PIN 0|1 / x.time -> exact lockstep (see the end of this file)
function control(cmd) {
  if (cmd[0] && cmd[0].startsWith('x.')) return xControl(cmd);
  try {
    switch (cmd[0]) {
      case 'gpio': {
        const n = Number(cmd[1]);
        const st = pinStats.get(n);
        const now = mcu.clock.nanos;
        let highNanos = st ? st.highNanos + (st.level === 1 ? now - st.lastNanos : 0) : 0;
        return {
          pin: n,
          state: GPIOPinState[mcu.gpio[n].value],
          functionSelect: mcu.gpio[n].functionSelect,
          transitions: st ? st.transitions : 0,
          highFraction: st ? highNanos / Math.max(1, now - st.since) : null,
          statsSinceSeconds: st ? st.since / 1e9 : null,
        };
      }
      case 'resetstats':
        pinStats.clear();
        return { ok: true };
      case 'input':
        driven.set(Number(cmd[1]), cmd[2] === '1');
        mcu.gpio[Number(cmd[1])].setInputValue(cmd[2] === '1');
        return { ok: true };
      case 'release':
        driven.delete(Number(cmd[1]));
        mcu.gpio[Number(cmd[1])].releaseInput();
        return { ok: true };
      case 'hold':
        if (horizon === null) horizon = totalNanos();
        return { ok: true, t: totalNanos() / 1e9 };
      case 'free':
        horizon = null;
        unpark();
        for (const w of stepWaiters.splice(0)) w.resolve();
        return { ok: true };
      case 'step':
        return stepTime(Number(cmd[1] || 1), cmd[2] ? cmd[2].split(',').map(Number) : []);
      case 'duty':
        return { pin: Number(cmd[1]), duty: pinDuty(Number(cmd[1])) };
      case 'hostread':
        return setHostReading(cmd[1] !== '0');
      case 'power':
        powerCycle();
        return { ok: true };
      case 'faults': {
        const opts = Object.fromEntries(cmd.slice(1).map((kv) => kv.split('=')));
        if (cmd[1] === 'off') faults.drop = faults.corrupt = 0;
        else if (cmd.length > 1 && cmd[1] !== 'keep') {
          faults.drop = Number(opts.drop || 0);
          faults.corrupt = Number(opts.corrupt || 0);
          if (opts.seed) faults.rng = Number(opts.seed) >>> 0 || 1;
        }
        return { ...faults.counts };
      }
      case 'time':
        return { totalSeconds: totalNanos() / 1e9, emulatedSeconds: mcu.clock.nanos / 1e9, wallSeconds: (Date.now() - t0) / 1000, sinceBootWallSeconds: (Date.now() - bootWall) / 1000, resets };
      case 'flash':
        return flashModel ? { pagePrograms: flashModel.writes, sectorErases: flashModel.erases } : { model: false };
      case 'save':
        saveFlash();
        return { ok: true };
      default:
        return { error: `unknown command ${cmd[0]}` };
    }
  } catch (e) {
    return { error: String(e) };
  }
}

// ---------------------------------------------------------------- stdio
if (args.stdio) {
  if (process.stdin.isTTY) process.stdin.setRawMode(true);
  process.stdin.on('data', (chunk) => {
    if (process.stdin.isTTY && chunk[0] === 24) process.exit(0); // Ctrl+X quits on a TTY
    hostInput(chunk);
  });
}

// --exit-with-stdin: the parent holds our stdin open; when it dies, even by SIGKILL, we go too.
if (args.exitWithStdin && !args.stdio) {
  process.stdin.on('data', () => {});
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
}

process.on('SIGINT', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
process.on('exit', () => {
  if (mcu) saveFlash();
});

boot(null);


// ---- exact lockstep: the caller owns emulated time (control port commands x.*) ----
// x.hold PINS   stop emulated time here (the run loop parks); record on/off edges of PINS
// x.step NS     run exactly NS more emulated nanoseconds now; reply with the recorded pins' on/off
//               edges since the last reply, [t_ns, pin, 0|1], t in total emulated ns
// x.in PIN 0|1  drive an input now (kept across reboots, like `input`)
// x.time        that clock, resets
// A recorded pin is "on" from a rising edge until it has stayed low XS.offNs (1 ms): a PWM output
// (20 kHz per docs/firmware.md) reads as one run; the off edge is dated where the pin fell.
// Adapted from the shared firmware-sim bridge; emulated time is totalNanos() (monotonic).
var XS = { held: false, parked: null, chip: null, horizon: 0, last: 0, pins: [], rec: new Map(),
           events: [], offNs: 1e6 };
function xNow() { return totalNanos(); }
function xEdge(chip, n, state) {
  if (XS.chip !== chip) return;
  const r = XS.rec.get(n), t = xNow();
  if (state === GPIOPinState.High) {
    if (r.on && r.lowSince !== null && t - r.lowSince >= XS.offNs) {
      XS.events.push([r.lowSince, n, 0]);
      r.on = false;
    }
    r.lowSince = null;
    if (!r.on) { r.on = true; XS.events.push([t, n, 1]); }
  } else if (r.lowSince === null) r.lowSince = t;
}
function xSettle() {
  const t = xNow();
  for (const [n, r] of XS.rec)
    if (r.on && r.lowSince !== null && t - r.lowSince >= XS.offNs) {
      XS.events.push([r.lowSince, n, 0]);
      r.on = false;
      r.lowSince = null;
    }
}
function xAttach() {
  if (XS.chip === sim) return;
  if (XS.chip !== null)  // a reboot: the new chip's pins start low
    for (const [n, r] of XS.rec) if (r.on) { XS.events.push([XS.last, n, 0]); r.on = false; }
  const chip = XS.chip = sim;
  for (const n of XS.pins) {
    const high = mcu.gpio[n].value === GPIOPinState.High;
    if (high && !(XS.rec.get(n) || {}).on) XS.events.push([xNow(), n, 1]);
    XS.rec.set(n, { on: high, lowSince: null });
    mcu.gpio[n].addListener((state) => xEdge(chip, n, state));
  }
}
function xStep(ns) {
  if (sim.stopped) return { rebooting: true, t: XS.last, resets, ev: [] };
  xAttach();
  const chip = sim, clock = mcu.clock, core = mcu.core, cycle = 1e9 / 125e6;
  XS.horizon = Math.max(XS.horizon, xNow()) + ns;
  const end = XS.horizon - baseNanos;
  while (clock.nanos < end && !chip.stopped) {
    if (core.waiting) {
      const next = clock.nextAlarm;
      if (next == null || next.nanos > end) { clock.tick(end - clock.nanos); break; }
      clock.tick(Math.max(0, next.nanos - clock.nanos));
    } else clock.tick(core.executeInstruction() * cycle);
  }
  XS.last = xNow();
  xSettle();
  const ev = XS.events.splice(0).sort((a, b) => a[0] - b[0]);
  return { t: XS.last, resets, ev, rebooted: chip.stopped };
}
function xControl(cmd) {
  try {
    switch (cmd[0]) {
      case 'x.hold':
        XS.pins = (cmd[1] || '').split(',').filter((s) => s !== '').map(Number);
        XS.held = true;
        XS.chip = null;
        XS.rec = new Map();
        XS.events = [];
        xAttach();
        XS.horizon = XS.last = xNow();
        return { t: XS.last, resets };
      case 'x.free':
        XS.held = false;
        if (XS.parked) { const run = XS.parked; XS.parked = null; setImmediate(run); }
        return { t: xNow(), resets };
      case 'x.step':
        return xStep(Number(cmd[1]));
      case 'x.in': {
        const n = Number(cmd[1]), level = cmd[2] === '1', pin = mcu.gpio[n];
        const now = pin.externallyDriven ? pin.rawInputValue : pulledLevel(pin);
        driven.set(n, level);
        if (now === level) { pin.externallyDriven = true; pin.rawInputValue = level; }
        else pin.setInputValue(level);
        return { t: xNow() };
      }
      case 'x.time':
        return { t: xNow(), resets, held: XS.held };
      default:
        return { error: `unknown command ${cmd[0]}` };
    }
  } catch (e) {
    return { error: String(e) };
  }
}
// ---- end of exact lockstep ----
