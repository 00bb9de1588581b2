// One MIDI controller as a Surface: raw messages in, checked bytes out (over a MidiPort), with the
// device's wiring taken from its MIDI map. No MIDI input can crash the process: raw input is screened
// (input-guard.ts) and decoded inside a try/catch, and garbage is dropped with a (rate-limited) log line.
// LEDs reach it only when their state changes (the session's output compares them); motors and rings
// are compared here, against what the device shows, which the hand changes too.
import { Subject, type Observable } from 'rxjs';
import type { Logger } from '../../engine/log.js';
import { LogLimiter } from '../../engine/log-limit.js';
import type { ControlDefinition, LedState, RgbImage, Surface, SurfaceInput } from '../../engine/surface.js';
import { controlDefinitions } from './controls.js';
import { ControlIndex, decode, fromBytes } from './decode.js';
import { checkedMessage, encodeLed, encodeLevel, hex, MidiValueError } from './encode.js';
import { RawScreen } from './input-guard.js';
import type { MidiControl, MidiMap } from './midi-map.js';
import type { MidiInputPort, MidiOutputPort } from './midi-port.js';
import { MotorFollower, SoftTakeover } from './soft-takeover.js';

export interface MidiSurfaceOptions {
  map: MidiMap;
  /** The input port's name; it is the surface's name. */
  portName: string;
  input: MidiInputPort;
  /** null when the device has no output port (or it could not be opened): no LEDs, no motors. */
  output: MidiOutputPort | null;
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
  /**
   * What the device shows now, as the message that would set it: the last level sent, or where the hand
   * left the fader or knob. A level is sent only when its message differs (levels come again at every
   * meter read with the gain unchanged); a device opened again is a new surface, so it gets every level.
   */
  shown: string | null;
}

export class MidiSurface implements Surface {
  readonly id: string;
  readonly kind = 'midi' as const;
  readonly model: string;
  readonly name: string;
  readonly controls: readonly ControlDefinition[];
  readonly input: Observable<SurfaceInput>;
  private readonly inputs = new Subject<SurfaceInput>();
  private readonly byId: ReadonlyMap<string, MidiControl>;
  private readonly index: ControlIndex;
  private readonly takeovers = new Map<string, SoftTakeover>();
  private readonly motors = new Map<string, Motor>();
  private readonly garbage: LogLimiter;
  private readonly screen = new RawScreen();
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
    this.garbage = new LogLimiter((message) => options.log.warn(message), this.now);
    for (const control of map.controls) {
      if (control.role !== 'fader' && control.role !== 'knob') continue;
      if (control.motorised) this.motors.set(control.id, { follower: new MotorFollower(options.graceMs), pending: null, timer: null, shown: null });
      else this.takeovers.set(control.id, new SoftTakeover(options.graceMs === undefined ? {} : { graceMs: options.graceMs }));
    }
    options.input.onMessage((bytes) => this.safely(() => this.onRaw(bytes)));
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

  /**
   * The device went away (or the bridge stops): the map's exit messages sent (a device still there goes
   * back to its own mode), ports closed, input completed. Never throws.
   */
  close(): void {
    if (this.closed) return;
    this.stopMotors();
    for (const [i, message] of this.options.map.exit.entries()) {
      try {
        this.send(`exit[${i}]`, checkedMessage(this.id, `exit[${i}]`, message));
      } catch (error) {
        this.options.log.warn(error instanceof Error ? error.message : String(error));
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
    // Device replies (identity, mode reports) are complete SysEx messages: nothing in the bridge reads them.
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

  private positionFor(control: MidiControl, position: number): number | null {
    const motor = this.motors.get(control.id);
    if (motor) {
      motor.follower.moved(this.now());
      motor.shown = hex(encodeLevel(control, position));
      return position;
    }
    const takeover = this.takeovers.get(control.id);
    return takeover === undefined ? position : takeover.move(position, this.now());
  }

  /** Runs inside the native backend's callback: anything thrown here would end the process. */
  private safely(handle: () => void): void {
    try {
      handle();
    } catch (error) {
      try {
        this.reportGarbage(`input that could not be handled (${error instanceof Error ? error.message : String(error)})`);
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

  /** Sends checked bytes; without an output port there is nowhere to send them. */
  private send(what: string, bytes: number[]): void {
    const output = this.options.output;
    if (output === null || this.closed) return;
    try {
      output.send(bytes);
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
    const message = encodeLevel(control, level);
    if (hex(message) === motor.shown) return;
    this.send(control.id, message);
    motor.shown = hex(message);
  }

  private stopMotors(): void {
    for (const motor of this.motors.values()) {
      if (motor.timer !== null) clearTimeout(motor.timer);
      motor.timer = null;
      motor.pending = null;
    }
  }
}
