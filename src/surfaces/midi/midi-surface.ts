// One MIDI controller as a Surface: easymidi's parsed messages in, checked bytes out, with the device's
// wiring taken from its MIDI map. No MIDI input can crash the process: raw input is screened before
// easymidi parses it (input-guard.ts), every event handler runs in a try/catch, and garbage is dropped
// with a (rate-limited) log line.
import { Subject, type Observable } from 'rxjs';
import type { Logger } from '../../engine/log.js';
import type { ControlDefinition, LedState, RgbImage, Surface, SurfaceInput } from '../../engine/surface.js';
import { controlDefinitions } from './controls.js';
import { ControlIndex, decode, fromEasymidi, type EasymidiEvent } from './decode.js';
import { easymidiCall, type EasymidiInput, type EasymidiOutput } from './easymidi.js';
import { checkedMessage, encodeLed, encodeLevel, hex, MidiValueError } from './encode.js';
import { guardEasymidiInput } from './input-guard.js';
import { LogLimiter } from './log-limit.js';
import type { MidiControl, MidiMap } from './midi-map.js';
import { MotorFollower, SoftTakeover } from './soft-takeover.js';

export interface MidiSurfaceOptions {
  map: MidiMap;
  /** The input port's name; it is the surface's name. */
  portName: string;
  input: EasymidiInput;
  /** null when the device has no output port (or it could not be opened): no LEDs, no motors. */
  output: EasymidiOutput | null;
  log: Logger;
  now?: () => number;
  /** How long after a fader move its levels count as echoes (soft takeover) or the hand is on it (motors). */
  graceMs?: number;
}

interface Motor {
  follower: MotorFollower;
  /** The latest level not yet sent (held back while the hand is on the fader). */
  pending: number | null;
  timer: NodeJS.Timeout | null;
}

const EVENTS: readonly EasymidiEvent[] = ['noteon', 'noteoff', 'cc', 'pitch'];

export class MidiSurface implements Surface {
  readonly id: string;
  readonly kind = 'midi' as const;
  readonly model: string;
  readonly name: string;
  readonly controls: readonly ControlDefinition[];
  readonly input: Observable<SurfaceInput>;
  /** False when easymidi's inside was not as expected and only its events are checked. */
  readonly rawInputGuarded: boolean;
  private readonly inputs = new Subject<SurfaceInput>();
  private readonly byId: ReadonlyMap<string, MidiControl>;
  private readonly index: ControlIndex;
  private readonly takeovers = new Map<string, SoftTakeover>();
  private readonly motors = new Map<string, Motor>();
  private readonly garbage: LogLimiter;
  private readonly now: () => number;
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
    this.now = options.now ?? Date.now;
    this.garbage = new LogLimiter((message) => options.log.warn(message), 5, 10_000, this.now);
    for (const control of map.controls) {
      if (control.role !== 'fader' && control.role !== 'knob') continue;
      if (control.motorised) this.motors.set(control.id, { follower: new MotorFollower(options.graceMs), pending: null, timer: null });
      else this.takeovers.set(control.id, new SoftTakeover(options.graceMs === undefined ? {} : { graceMs: options.graceMs }));
    }
    this.rawInputGuarded = this.listen(options.input);
  }

  /** Sends the map's init messages (mode switches); the session then sends every LED. */
  async open(): Promise<void> {
    for (const [i, message] of this.options.map.init.entries()) {
      this.send(`init[${i}]`, checkedMessage(this.id, `init[${i}]`, message));
    }
  }

  async drawKey(control: string, _image: RgbImage): Promise<void> {
    throw new Error(`${this.id}: "${control}" is not a key; a MIDI controller has no displays`);
  }

  async drawLcd(control: string, _image: RgbImage): Promise<void> {
    throw new Error(`${this.id}: "${control}" is not an LCD; a MIDI controller has no displays`);
  }

  async setLed(control: string, state: LedState): Promise<void> {
    const midi = this.controlOf(control);
    if (midi.led === undefined) return;
    // Encoded (and checked) even without an output, so a bad map shows up before the device is plugged.
    this.send(control, encodeLed(midi, state));
  }

  async setLevel(control: string, level: number): Promise<void> {
    const midi = this.controlOf(control);
    if (midi.role !== 'fader' && midi.role !== 'knob') return;
    if (typeof level !== 'number' || !Number.isFinite(level) || level < 0 || level > 1) throw new MidiValueError(control, `level ${String(level)} is not a number from 0 to 1`);
    const motor = this.motors.get(control);
    if (motor) {
      motor.pending = level;
      this.driveMotor(midi, motor);
      return;
    }
    this.takeovers.get(control)?.setTarget(level, this.now());
  }

  /** MIDI has no common brightness message; maps pick LED brightness per state (channel or palette). */
  async setBrightness(): Promise<void> {}

  async clear(): Promise<void> {
    this.stopMotors();
    const failures: string[] = [];
    for (const control of this.options.map.controls) {
      if (control.led === undefined) continue;
      try {
        this.send(control.id, encodeLed(control, 'off'));
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
    if (failures.length > 0) throw new Error(`${this.id}: clearing failed: ${failures.join('; ')}`);
  }

  /** The device went away (or the bridge stops): ports closed, input completed. Never throws. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopMotors();
    const { input, output } = this.options;
    for (const step of [() => input.removeAllListeners(), () => input.close(), () => output?.close()]) {
      try {
        step();
      } catch {
        // A port of an unplugged device may refuse to close; it is gone either way.
      }
    }
    this.inputs.complete();
  }

  // Input -------------------------------------------------------------------------------------------

  private listen(input: EasymidiInput): boolean {
    const guarded = guardEasymidiInput(input, {
      garbage: (reason, bytes) => this.reportGarbage(reason, bytes),
      // Device replies (identity, mode reports): nothing in the bridge reads them.
      sysex: () => undefined,
    });
    for (const event of EVENTS) input.on(event, (message) => this.safely(() => this.onMessage(event, message)));
    // Reached only when the guard could not be installed: then easymidi hands these over as they came.
    input.on('sysex', (message) => this.safely(() => this.checkSysexEvent(message)));
    input.on('message', (message) =>
      this.safely(() => {
        if ((message as { _type?: unknown } | null)?._type === undefined) this.reportGarbage('a message of no known type');
      }),
    );
    return guarded;
  }

  private onMessage(event: EasymidiEvent, raw: unknown): void {
    if (this.closed) return;
    const screened = fromEasymidi(event, raw);
    if (!screened.ok) {
      this.reportGarbage(screened.reason);
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

  private positionFor(control: MidiControl, position: number): number | null {
    const motor = this.motors.get(control.id);
    if (motor) {
      motor.follower.moved(this.now());
      return position;
    }
    const takeover = this.takeovers.get(control.id);
    return takeover === undefined ? position : takeover.move(position, this.now());
  }

  private checkSysexEvent(message: unknown): void {
    const bytes = (message as { bytes?: unknown } | null)?.bytes;
    const valid = Array.isArray(bytes) && bytes[0] === 0xf0 && bytes.at(-1) === 0xf7 && bytes.slice(1, -1).every((b) => Number.isInteger(b) && b >= 0 && b <= 0x7f);
    if (!valid) this.reportGarbage('a malformed SysEx message', bytes);
  }

  private safely(handle: () => void): void {
    try {
      handle();
    } catch (error) {
      this.reportGarbage(`input that could not be handled (${error instanceof Error ? error.message : String(error)})`);
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

  /** Sends checked bytes; without an output port there is nowhere to send them. */
  private send(what: string, bytes: number[]): void {
    const output = this.options.output;
    if (output === null || this.closed) return;
    const [type, args] = easymidiCall(bytes);
    try {
      output.send(type, args);
    } catch (error) {
      throw new Error(`${this.id}: ${what}: sending ${hex(bytes)} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private driveMotor(control: MidiControl, motor: Motor): void {
    const wait = motor.follower.waitMs(this.now());
    if (wait > 0) {
      motor.timer ??= setTimeout(() => {
        motor.timer = null;
        try {
          this.driveMotor(control, motor);
        } catch (error) {
          this.options.log.warn(error instanceof Error ? error.message : String(error));
        }
      }, wait);
      return;
    }
    const level = motor.pending;
    if (level === null) return;
    motor.pending = null;
    this.send(control.id, encodeLevel(control, level));
  }

  private stopMotors(): void {
    for (const motor of this.motors.values()) {
      if (motor.timer !== null) clearTimeout(motor.timer);
      motor.timer = null;
      motor.pending = null;
    }
  }
}
