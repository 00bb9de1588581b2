// One MIDI controller as a Surface: raw messages in, checked bytes out (over a MidiPort), with the
// device's wiring taken from its MIDI map (MMC commands from a DAW among them, mmc.ts, and MMC sent to
// it as a control's state changes, mmc-follow.ts). No MIDI input can crash the process: raw input is screened
// (input-guard.ts) and decoded inside a try/catch, and garbage is dropped with a (rate-limited) log line.
// LEDs, motors and rings go out through its DeviceOutput, which writes only what the device does not
// show: a level comes again at every meter read with the gain unchanged, and sends nothing. The hand
// changes what the device shows too: a fader or knob moved is recorded where the hand left it, and
// nothing is written to it while the hand is on it (a motor would fight the hand).
import { Subject, type Observable } from 'rxjs';
import { messageOf } from '../../api/errors.js';
import { DeviceOutput } from '../../engine/device-output.js';
import type { EngineTime } from '../../engine/engine-time.js';
import type { Logger } from '../../engine/log.js';
import { LogLimiter } from '../../engine/log-limit.js';
import type { ControlDefinition, LedState, Surface, SurfaceInput } from '../../engine/surface.js';
import { controlDefinitions } from './controls.js';
import { ControlIndex, decode, fromBytes } from './decode.js';
import { hex, hexByte } from './bytes.js';
import { checkedMessage, encodeLed, encodeLevel, encodeMmc, levelValue, MidiValueError } from './encode.js';
import { RawScreen } from './input-guard.js';
import type { MidiControl, MidiMap, MmcSend } from './midi-map.js';
import type { MidiInputPort, MidiOutputPort } from './midi-port.js';
import { MMC_ALL_DEVICES, mmcFromSysex, mmcIsFor, type MmcCommand } from './mmc.js';
import { followStep, type TransportMeaning } from './mmc-follow.js';
import { DEFAULT_GRACE_MS, SoftTakeover } from './soft-takeover.js';

export interface MidiSurfaceOptions {
  map: MidiMap;
  /** The input port's name; it is the surface's name. */
  portName: string;
  input: MidiInputPort;
  /** null when the device has no output port (or it could not be opened): no LEDs, no motors. */
  output: MidiOutputPort | null;
  log: Logger;
  time: EngineTime;
  /** How long after a fader move its levels count as echoes (soft takeover) or the hand is on it (motors). */
  graceMs?: number;
}

export class MidiSurface implements Surface {
  readonly id: string;
  readonly kind = 'midi' as const;
  readonly model: string;
  readonly name: string;
  readonly controls: readonly ControlDefinition[];
  readonly input: Observable<SurfaceInput>;
  readonly output: DeviceOutput;
  private readonly inputs = new Subject<SurfaceInput>();
  private readonly byId: ReadonlyMap<string, MidiControl>;
  private readonly index: ControlIndex;
  /** MMC command → the id of the control bound to it. */
  private readonly mmcControls: ReadonlyMap<MmcCommand, string>;
  /** The controls MMC is sent from, by id. */
  private readonly mmcSends: ReadonlyMap<string, MmcSend>;
  /**
   * What the DAW was last told through each of them (or was taken to follow from): the one record of
   * the DAW's transport, owned here; what the control shows is the output's (a stale state among them).
   */
  private readonly told = new Map<string, TransportMeaning>();
  private readonly takeovers = new Map<string, SoftTakeover>();
  private readonly garbage: LogLimiter;
  private readonly screen = new RawScreen();
  private readonly time: EngineTime;
  private readonly graceMs: number;
  private closed = false;

  constructor(private readonly options: MidiSurfaceOptions) {
    const { map } = options;
    this.id = `midi:${map.name}`;
    this.model = map.model;
    this.name = options.portName;
    this.controls = controlDefinitions(map);
    this.input = this.inputs.asObservable();
    this.byId = new Map(map.controls.map((control) => [control.id, control]));
    this.index = new ControlIndex(map);
    this.mmcControls = new Map((map.mmc?.controls ?? []).map((control) => [control.command, control.id]));
    this.mmcSends = new Map((map.mmc?.send ?? []).map((send) => [send.id, send]));
    this.time = options.time;
    this.graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    this.garbage = new LogLimiter((message) => options.log.warn(message), this.time.now);
    for (const control of map.controls) {
      if ((control.role === 'fader' || control.role === 'knob') && !control.motorised) this.takeovers.set(control.id, new SoftTakeover({ graceMs: this.graceMs }));
    }
    this.output = new DeviceOutput(
      // A MIDI controller has no displays, and no common brightness message (maps pick an LED's
      // brightness per state, by channel or palette): it has lights and levels.
      {
        lights: { led: async (control, state) => this.light(control, state) },
        levels: {
          level: async (control, level) => this.level(control, level),
          levelShown: (control, level) => {
            const midi = this.byId.get(control);
            return midi === undefined ? level : levelValue(midi, level);
          },
        },
        clearing: { clear: async () => this.lightsOff() },
      },
      { name: this.id, log: options.log, time: this.time },
    );
    options.input.onMessage((bytes) => this.safely(() => this.onRaw(bytes)));
  }

  /** Sends the map's init messages (mode switches); the session then sends every LED. */
  async open(): Promise<void> {
    for (const [i, message] of this.options.map.init.entries()) {
      this.send(`init[${i}]`, checkedMessage(this.id, `init[${i}]`, message));
    }
  }

  inject(input: SurfaceInput): void {
    this.inputs.next(input);
  }

  /**
   * The device went away (or the bridge stops): the map's exit messages sent (a device still there goes
   * back to its own mode), ports closed, input completed. Never throws.
   */
  close(): void {
    if (this.closed) return;
    void this.output.close(); // its writes are synchronous: none is under way
    for (const [i, message] of this.options.map.exit.entries()) {
      try {
        this.send(`exit[${i}]`, checkedMessage(this.id, `exit[${i}]`, message));
      } catch (error) {
        this.options.log.warn(messageOf(error));
      }
    }
    this.closed = true;
    const { input, output } = this.options;
    for (const step of [() => input.close(), () => output?.close()]) {
      try {
        step();
      } catch {
        // A port of an unplugged device may refuse to close; it is gone either way.
      }
    }
    this.inputs.complete();
  }

  // Input -------------------------------------------------------------------------------------------

  private onRaw(raw: readonly number[]): void {
    if (this.closed) return;
    const verdict = this.screen.screen(raw);
    for (const reason of verdict.garbage) this.reportGarbage(reason, raw);
    if (verdict.sysex !== null) this.onSysex(verdict.sysex);
    // Device replies (identity, mode reports) are complete SysEx messages: nothing else here reads them.
    if (!verdict.forward) return;
    const screened = fromBytes(raw);
    if (screened === null) return;
    if (!screened.ok) {
      this.reportGarbage(screened.reason, raw);
      return;
    }
    // A message for no control of the map (another layer, a key the map leaves out) means nothing here.
    const control = this.index.find(screened.message);
    if (!control) return;
    const decoded = decode(control, screened.message);
    if (decoded === null) return;
    if (decoded.type !== 'fader') {
      this.inputs.next(decoded);
      return;
    }
    const position = this.positionFor(control, decoded.position);
    if (position !== null) this.inputs.next({ ...decoded, position });
  }

  /**
   * MMC from a DAW, when the map binds any: each command bound is a press and its release at once (a
   * command has no duration, so a hold binding never fires from one). A message to another device, or
   * one that is malformed in part, fires nothing at all.
   */
  private onSysex(bytes: readonly number[]): void {
    const mmc = this.options.map.mmc;
    if (mmc === undefined) return;
    const message = mmcFromSysex(bytes);
    if (message === null) return;
    if (!message.ok) {
      this.reportGarbage(message.reason, bytes);
      return;
    }
    if (!mmcIsFor(message.device, mmc.device)) {
      const own = mmc.device === undefined ? 'only MMC to all devices (7F)' : `MMC to device ${hexByte(mmc.device)} and to all (7F)`;
      this.reportGarbage(`an MMC message to device ${hexByte(message.device)}: this map answers ${own}`, bytes);
      return;
    }
    for (const command of message.commands) {
      const control = this.mmcControls.get(command);
      if (control === undefined) continue;
      this.inputs.next({ type: 'down', control });
      this.inputs.next({ type: 'up', control });
    }
  }

  private positionFor(control: MidiControl, position: number): number | null {
    const takeover = this.takeovers.get(control.id);
    if (takeover === undefined) {
      // A motorised fader (or a ring's knob) shows where the hand left it.
      this.output.handOn(control.id, position, this.graceMs);
      return position;
    }
    const passed = takeover.move(position, this.time.now());
    // A fader that moves the gain: the levels that come while the hand is on it are the echo of its
    // moves, and the first after it says whether the gain followed (soft-takeover.ts). The level it was
    // last given no longer says anything, so the next one is given whatever it is.
    if (passed !== null) this.output.handOn(control.id, null, this.graceMs);
    return passed;
  }

  /** Runs inside the native backend's callback: anything thrown here would end the process. */
  private safely(handle: () => void): void {
    try {
      handle();
    } catch (error) {
      try {
        this.reportGarbage(`input that could not be handled (${messageOf(error)})`);
      } catch {
        // The log itself failed: nothing is left to tell, and throwing here would end the process.
      }
    }
  }

  private reportGarbage(reason: string, bytes?: unknown): void {
    const shown = Array.isArray(bytes) ? ` [${hex(bytes.slice(0, 16) as number[])}${bytes.length > 16 ? ' …' : ''}]` : '';
    this.garbage.say(`${this.id}: ignored ${reason}${shown}`);
  }

  // Output ------------------------------------------------------------------------------------------

  private controlOf(control: string): MidiControl {
    const midi = this.byId.get(control);
    if (!midi) throw new Error(`${this.id}: no control "${control}" in the MIDI map`);
    return midi;
  }

  /** Sends checked bytes; without an output port there is nowhere to send them (false). */
  private send(what: string, bytes: number[]): boolean {
    const output = this.options.output;
    if (output === null || this.closed) return false;
    try {
      output.send(bytes);
    } catch (error) {
      throw new Error(`${this.id}: ${what}: sending ${hex(bytes)} failed: ${messageOf(error)}`);
    }
    return true;
  }

  private light(control: string, state: LedState): void {
    const follow = this.mmcSends.get(control);
    if (follow !== undefined) return this.followed(follow, state);
    const midi = this.controlOf(control);
    if (midi.led === undefined) return;
    // Encoded (and checked) even without an output, so a bad map shows up before the device is plugged.
    this.send(control, encodeLed(midi, state));
  }

  /**
   * A control MMC is sent from was given a state: its meaning's commands go to the DAW when it changed
   * (mmc-follow.ts has the rule). Told only once the port took every command: a send that throws leaves
   * the output not knowing what the control shows, so the next state is written and tried again.
   */
  private followed(follow: MmcSend, state: LedState): void {
    const step = followStep(this.told.get(follow.id), state);
    if (step.type === 'none') return;
    if (step.type === 'send') {
      const device = this.options.map.mmc?.device ?? MMC_ALL_DEVICES;
      // Encoded (and checked) before the first is sent, so a bad one sends none of them.
      const messages = follow[step.meaning].map((command) => ({ command, bytes: encodeMmc(follow.id, device, command) }));
      for (const { command, bytes } of messages) {
        // Without an output port there is no DAW to tell: nothing is taken as told.
        if (!this.send(`${follow.id}: MMC ${command} (${step.meaning})`, bytes)) return;
      }
      // Rare (a take starting or ending) and what a DAW's engineer asks about first: said each time.
      if (messages.length > 0) this.options.log.info(`${this.id}: ${follow.id} ${step.meaning}: sent MMC ${messages.map((m) => m.command).join(', ')} to device ${hexByte(device)}`);
    }
    this.told.set(follow.id, step.meaning);
  }

  /** A motor or ring is moved there; a fader without a motor takes it as the gain to pick up (soft takeover). */
  private level(control: string, level: number): void {
    const midi = this.controlOf(control);
    if (midi.role !== 'fader' && midi.role !== 'knob') return;
    if (typeof level !== 'number' || !Number.isFinite(level) || level < 0 || level > 1) throw new MidiValueError(control, `level ${String(level)} is not a number from 0 to 1`);
    const takeover = this.takeovers.get(control);
    if (takeover) takeover.setTarget(level, this.time.now());
    else this.send(control, encodeLevel(midi, level));
  }

  private lightsOff(): void {
    const failures: string[] = [];
    for (const control of this.options.map.controls) {
      if (control.led === undefined) continue;
      try {
        this.send(control.id, encodeLed(control, 'off'));
      } catch (error) {
        failures.push(messageOf(error));
      }
    }
    if (failures.length > 0) throw new Error(`${this.id}: clearing failed: ${failures.join('; ')}`);
  }
}
