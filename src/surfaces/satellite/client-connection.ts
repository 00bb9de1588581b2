// The server's end of one Satellite client (a TCP socket or a WebSocket alike): it splits what arrives
// into lines under a bound, checks each against the protocol's schemas, answers every line that is
// wrong with an ERROR naming what is wrong, and keeps the client's devices. When the client goes, its
// devices go with it.
import type { Subscription } from 'rxjs';
import type { EngineTime } from '../../engine/engine-time.js';
import type { Logger } from '../../engine/log.js';
import { layoutOf } from './layout.js';
import { API_VERSION, CLIENT_MESSAGES, MAX_DEVICES_PER_CLIENT, MAX_LINE_LENGTH, NOT_OFFERED, describeIssues, errorLine, formatLine, parseLine, type Params } from './protocol.js';
import { SatelliteSurface } from './satellite-surface.js';
import type { LineSink } from './transport.js';

/** A client's transport: lines out, and the way to hang up. */
export interface ClientLink extends LineSink {
  /** Hangs up; the server then calls `closed()`. */
  hangUp(): void;
}

/** What the server keeps across clients. */
export interface ClientHooks {
  /** Takes a device id for this client; false when another client has it. */
  claim(deviceId: string): boolean;
  release(deviceId: string): void;
  added(surface: SatelliteSurface): void;
  removed(surfaceId: string): void;
}

export interface ClientConnectionOptions {
  /** The client's address, for the log. */
  name: string;
  log: Logger;
  time: EngineTime;
  /** A client silent this long is hung up on (clients PING several times a second); null: never. */
  idleMs: number | null;
  /** recdeck's version, sent in BEGIN. */
  version: string;
}

export class ClientConnection {
  private readonly devices = new Map<string, SatelliteSurface>();
  /** The start of a line whose end has not come yet. */
  private partial = '';
  /** Inside a line past the bound: everything up to its end is dropped. */
  private skipping = false;
  private lastHeard: number;
  private idleTimer: Subscription | null = null;
  private ended = false;

  constructor(
    private readonly link: ClientLink,
    private readonly hooks: ClientHooks,
    private readonly options: ClientConnectionOptions,
  ) {
    this.lastHeard = options.time.now();
  }

  /**
   * Greets the client: BEGIN with the versions, then CAPS, which clients of API 1.10+ wait for before
   * adding devices: no subscriptions, non-square bitmaps (strip cells), raw RGB only, signed rotation amounts.
   */
  begin(): void {
    this.say(formatLine('BEGIN', null, null, { CompanionVersion: `recdeck ${this.options.version}`, ApiVersion: API_VERSION }));
    this.say(formatLine('CAPS', null, null, { SUBSCRIPTIONS: false, NONSQUARE: true, BITMAP_FORMATS: 'rgb', ROTARY_AMOUNT: true }));
    this.watchIdle();
  }

  /** Text from the client, in pieces as they came. */
  receive(text: string): void {
    if (this.ended) return;
    this.lastHeard = this.options.time.now();
    let start = 0;
    for (let end = text.indexOf('\n', start); end !== -1; end = text.indexOf('\n', start)) {
      const piece = text.slice(start, end);
      start = end + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      const line = this.partial + piece;
      this.partial = '';
      if (line.length > MAX_LINE_LENGTH) this.tooLong();
      else this.handle(line.replace(/\r$/, ''));
      if (this.ended) return;
    }
    if (this.skipping) return;
    this.partial += text.slice(start);
    if (this.partial.length > MAX_LINE_LENGTH) {
      this.partial = '';
      this.skipping = true;
      this.tooLong();
    }
  }

  /** The link is gone (the client hung up, or we did): every device goes, firing nothing it held. */
  async closed(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.idleTimer?.unsubscribe();
    this.partial = '';
    const devices = [...this.devices.values()];
    this.devices.clear();
    await Promise.all(devices.map((device) => this.drop(device)));
  }

  get deviceCount(): number {
    return this.devices.size;
  }

  /** The devices this client has added and not removed. */
  get surfaces(): readonly SatelliteSurface[] {
    return [...this.devices.values()];
  }

  private tooLong(): void {
    this.say(errorLine(null, null, `line longer than ${MAX_LINE_LENGTH} characters: dropped`));
  }

  private handle(line: string): void {
    if (line.trim() === '') return;
    const { command, params } = parseLine(line);
    switch (command) {
      case 'PING':
        return this.say(`PONG ${line.slice(5)}\n`.replace(/^PONG \n$/, 'PONG\n'));
      case 'PONG':
        return;
      case 'QUIT':
        return this.link.hangUp();
      case 'ADD-DEVICE':
        return this.addDevice(params);
      case 'REMOVE-DEVICE':
        return this.removeDevice(params);
      case 'KEY-PRESS':
        return this.keyPress(params);
      case 'KEY-ROTATE':
        return this.keyRotate(params);
    }
    const shown = command.slice(0, 40).replace(/[^\x21-\x7e]/g, '?');
    if (NOT_OFFERED.has(command)) return this.say(errorLine(command, deviceIdOf(params), `recdeck does not offer ${command}`));
    this.say(errorLine(null, null, `unknown command ${shown}`));
  }

  private addDevice(params: Params): void {
    const parsed = CLIENT_MESSAGES['ADD-DEVICE'].safeParse(params);
    const id = deviceIdOf(params);
    if (!parsed.success) return this.refuse('ADD-DEVICE', id, describeIssues(parsed.error));
    const message = parsed.data;
    const deviceId = message.DEVICEID;
    if (this.devices.has(deviceId)) return this.refuse('ADD-DEVICE', deviceId, `device ${deviceId} is already added on this connection`);
    if (this.devices.size >= MAX_DEVICES_PER_CLIENT) return this.refuse('ADD-DEVICE', deviceId, `this client has ${MAX_DEVICES_PER_CLIENT} devices already, the most recdeck takes from one client`);
    const layout = layoutOf(message);
    if ('problem' in layout) return this.refuse('ADD-DEVICE', deviceId, layout.problem);
    if (!this.hooks.claim(deviceId)) return this.refuse('ADD-DEVICE', deviceId, `device ${deviceId} is in use by another client`);
    const surface = new SatelliteSurface({ deviceId, productName: message.PRODUCT_NAME, layout, link: this.link, brightness: message.BRIGHTNESS ?? true, log: this.options.log, time: this.options.time });
    this.devices.set(deviceId, surface);
    // OK before the device is bound: its first KEY-STATE lines come after the answer to ADD-DEVICE.
    this.say(formatLine('ADD-DEVICE', 'OK', deviceId));
    this.options.log.info(`satellite ${this.options.name}: added ${surface.id} (${surface.name}, ${surface.model})`);
    this.hooks.added(surface);
  }

  private removeDevice(params: Params): void {
    const parsed = CLIENT_MESSAGES['REMOVE-DEVICE'].safeParse(params);
    if (!parsed.success) return this.refuse('REMOVE-DEVICE', deviceIdOf(params), describeIssues(parsed.error));
    const device = this.devices.get(parsed.data.DEVICEID);
    if (device === undefined) return this.refuse('REMOVE-DEVICE', parsed.data.DEVICEID, `device ${parsed.data.DEVICEID} is not added on this connection`);
    this.devices.delete(parsed.data.DEVICEID);
    this.say(formatLine('REMOVE-DEVICE', 'OK', parsed.data.DEVICEID));
    this.options.log.info(`satellite ${this.options.name}: removed ${device.id}`);
    void this.drop(device);
  }

  private keyPress(params: Params): void {
    const parsed = CLIENT_MESSAGES['KEY-PRESS'].safeParse(params);
    if (!parsed.success) return this.refuse('KEY-PRESS', deviceIdOf(params), describeIssues(parsed.error));
    const found = this.controlOf('KEY-PRESS', parsed.data);
    if (found === null) return;
    if (found.control.role === 'display') return this.refuse('KEY-PRESS', parsed.data.DEVICEID, `${found.control.id} is a display: it takes no presses`);
    found.device.press(found.control, parsed.data.PRESSED);
    this.say(formatLine('KEY-PRESS', 'OK', parsed.data.DEVICEID));
  }

  private keyRotate(params: Params): void {
    const parsed = CLIENT_MESSAGES['KEY-ROTATE'].safeParse(params);
    if (!parsed.success) return this.refuse('KEY-ROTATE', deviceIdOf(params), describeIssues(parsed.error));
    const found = this.controlOf('KEY-ROTATE', parsed.data);
    if (found === null) return;
    if (found.control.role !== 'dial') return this.refuse('KEY-ROTATE', parsed.data.DEVICEID, `${found.control.id} is not a dial`);
    found.device.rotate(found.control, parsed.data.DIRECTION);
    this.say(formatLine('KEY-ROTATE', 'OK', parsed.data.DEVICEID));
  }

  private controlOf(command: string, message: { DEVICEID: string; CONTROLID?: string | undefined; KEY?: string | undefined }) {
    const device = this.devices.get(message.DEVICEID);
    if (device === undefined) {
      this.refuse(command, message.DEVICEID, `device ${message.DEVICEID} is not added on this connection`);
      return null;
    }
    const name = message.CONTROLID ?? (message.KEY as string);
    const control = device.control(name) ?? (message.KEY === undefined ? undefined : device.control(message.KEY));
    if (control === undefined) {
      this.refuse(command, message.DEVICEID, `device ${message.DEVICEID} has no control ${message.CONTROLID !== undefined ? `CONTROLID=${message.CONTROLID}` : `KEY=${message.KEY}`}`);
      return null;
    }
    return { device, control };
  }

  private async drop(device: SatelliteSurface): Promise<void> {
    this.hooks.release(device.serial);
    // Removed first: the session ends with the surface, and nothing it held fires.
    this.hooks.removed(device.id);
    await device.gone();
  }

  private refuse(command: string, deviceId: string | null, message: string): void {
    this.options.log.debug?.(`satellite ${this.options.name}: ${command} refused: ${message}`);
    this.say(errorLine(command, deviceId, message));
  }

  /** A line that needs no waiting for (answers): a link that cannot take it is hung up on by the link itself. */
  private say(line: string): void {
    if (this.ended) return;
    this.link.send(line).catch(() => undefined);
  }

  private watchIdle(): void {
    const idleMs = this.options.idleMs;
    if (idleMs === null || this.ended) return;
    const due = this.lastHeard + idleMs - this.options.time.now();
    this.idleTimer = this.options.time.scheduler.schedule(() => {
      if (this.ended) return;
      if (this.options.time.now() - this.lastHeard >= idleMs) {
        this.options.log.info(`satellite ${this.options.name}: silent for ${idleMs} ms, hung up`);
        this.link.hangUp();
      } else this.watchIdle();
    }, Math.max(0, due));
  }
}

/** The DEVICEID a line names, when it names a usable one, for the answer. */
function deviceIdOf(params: Params): string | null {
  const id = params.DEVICEID;
  return typeof id === 'string' && /^[\x21-\x7e]{1,128}$/.test(id) && !/["\\]/.test(id) ? id : null;
}
