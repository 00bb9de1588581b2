// A fake Stream Deck app, written from Elgato's documented plugin protocol (not from the SDK's code): it
// starts a plugin's CodePath with real Node as the app does (`-port -pluginUUID -registerEvent -info`;
// or a test starts the plugin's wiring in its own process with those arguments, in-process-plugin.ts),
// takes its registration over a WebSocket on 127.0.0.1, sends it the app's events (willAppear, keyDown,
// dialRotate, didReceiveGlobalSettings, …) and records every command the plugin sends (setImage,
// showOk, setFeedback, getGlobalSettings, …). A property inspector may connect too (registerPropertyInspector):
// its setSettings and setGlobalSettings reach the plugin as the app would pass them on.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { until } from '../support/until.js';

export interface PluginMessage {
  event: string;
  /** What the test's stamp said when the message arrived (e.g. the recorder's request count). */
  stamp?: number;
  context?: string;
  payload?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface FakeDevice {
  id: string;
  name: string;
  /** 0 Stream Deck, 7 Stream Deck + (the app's DeviceType). */
  type: number;
  size: { columns: number; rows: number };
}

export class FakeStreamDeckApp {
  /** Every message the plugin sent, in order. */
  readonly received: PluginMessage[] = [];
  /** Every message a property inspector sent. */
  readonly fromInspector: PluginMessage[] = [];
  globalSettings: Record<string, unknown> = {};
  private readonly settings = new Map<string, Record<string, unknown>>();
  private plugin: WebSocket | null = null;
  private inspector: WebSocket | null = null;
  /** The action instance whose property inspector is being opened (inspectorArguments). */
  private inspecting: { action: string; context: string; device: string } | null = null;
  private child: ChildProcess | null = null;
  stderr = '';
  /** Marks each message from the plugin as it arrives (a test counts the recorder's requests with it). */
  stamp: () => number = () => 0;

  private constructor(
    private readonly server: WebSocketServer,
    readonly port: number,
    readonly pluginUuid: string,
  ) {
    server.on('connection', (socket) => {
      socket.once('message', (data) => {
        const first = JSON.parse(String(data)) as PluginMessage;
        if (first.event === 'registerPlugin') {
          this.plugin = socket;
          socket.on('message', (more) => this.fromPlugin(JSON.parse(String(more)) as PluginMessage));
        } else if (first.event === 'registerPropertyInspector') {
          this.inspector = socket;
          socket.on('message', (more) => this.fromPropertyInspector(JSON.parse(String(more)) as PluginMessage));
          // As the app does: the plugin is told whose inspector is showing, and when it goes.
          const shown = this.inspecting;
          if (shown !== null && this.plugin !== null) {
            this.send({ event: 'propertyInspectorDidAppear', ...shown });
            socket.once('close', () => {
              if (this.plugin !== null) this.send({ event: 'propertyInspectorDidDisappear', ...shown });
            });
          }
        }
      });
    });
  }

  static async start(pluginUuid: string): Promise<FakeStreamDeckApp> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
    return new FakeStreamDeckApp(server, address.port, pluginUuid);
  }

  /** What the app passes a plugin it starts: `-port -pluginUUID -registerEvent -info`, the devices in the info. */
  registrationArguments(devices: FakeDevice[]): string[] {
    const info = {
      application: { font: '', language: 'en', platform: 'windows', platformVersion: '10.0.19045', version: '7.1.0.0' },
      plugin: { uuid: this.pluginUuid, version: '0.1.0.0' },
      devicePixelRatio: 2,
      colors: {},
      devices,
    };
    return ['-port', String(this.port), '-pluginUUID', this.pluginUuid, '-registerEvent', 'registerPlugin', '-info', JSON.stringify(info)];
  }

  /** Starts the plugin folder's CodePath (from its manifest) with real Node as the app does, and waits for its registration. */
  async launch(folder: string, devices: FakeDevice[]): Promise<void> {
    const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as { CodePath: string };
    this.child = spawn(process.execPath, [join(folder, manifest.CodePath), ...this.registrationArguments(devices)], { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stderr?.on('data', (data: Buffer) => (this.stderr += String(data)));
    this.child.stdout?.on('data', () => undefined);
    await this.registered();
  }

  /** Waits for a plugin (launched, or started in this process) to register. */
  async registered(): Promise<void> {
    await until(() => this.plugin !== null, 'the plugin to register');
  }

  get exited(): boolean {
    return this.child?.exitCode !== null && this.child?.exitCode !== undefined;
  }

  send(message: Record<string, unknown>): void {
    this.raw(JSON.stringify(message));
  }

  /** Text as the app would send it, well formed or not. */
  raw(text: string): void {
    if (this.plugin === null) throw new Error('no plugin registered');
    this.plugin.send(text);
  }

  setGlobalSettings(settings: Record<string, unknown>): void {
    this.globalSettings = settings;
    this.send({ event: 'didReceiveGlobalSettings', payload: { settings } });
  }

  willAppear(options: { action: string; context: string; device: string; settings: Record<string, unknown>; controller?: 'Keypad' | 'Encoder'; row?: number; column?: number }): void {
    this.settings.set(options.context, options.settings);
    this.send({
      event: 'willAppear',
      action: options.action,
      context: options.context,
      device: options.device,
      payload: { settings: options.settings, coordinates: { column: options.column ?? 0, row: options.row ?? 0 }, controller: options.controller ?? 'Keypad', isInMultiAction: false, state: 0 },
    });
  }

  willDisappear(action: string, context: string, device: string): void {
    this.send({ event: 'willDisappear', action, context, device, payload: { settings: this.settings.get(context) ?? {}, coordinates: { column: 0, row: 0 }, controller: 'Keypad', isInMultiAction: false } });
  }

  /** keyDown, keyUp, dialDown, dialUp: an action event with the instance's settings. */
  actionEvent(event: 'keyDown' | 'keyUp' | 'dialDown' | 'dialUp', action: string, context: string, device: string, controller: 'Keypad' | 'Encoder' = 'Keypad'): void {
    this.send({ event, action, context, device, payload: { settings: this.settings.get(context) ?? {}, coordinates: { column: 0, row: 0 }, controller, isInMultiAction: false, state: 0 } });
  }

  dialRotate(action: string, context: string, device: string, ticks: number): void {
    this.send({ event: 'dialRotate', action, context, device, payload: { settings: this.settings.get(context) ?? {}, coordinates: { column: 0, row: 0 }, controller: 'Encoder', ticks, pressed: false } });
  }

  didReceiveSettings(action: string, context: string, device: string, settings: Record<string, unknown>): void {
    this.settings.set(context, settings);
    this.send({ event: 'didReceiveSettings', action, context, device, payload: { settings, coordinates: { column: 0, row: 0 }, controller: 'Keypad', isInMultiAction: false } });
  }

  /** The property inspector of an instance opens: the app calls its connectElgatoStreamDeckSocket with these. */
  inspectorArguments(action: string, context: string, device: string): [number, string, string, string, string] {
    this.inspecting = { action, context, device };
    const info = { application: { language: 'en', platform: 'windows', version: '7.1.0.0' }, plugin: { uuid: this.pluginUuid, version: '0.1.0.0' }, devicePixelRatio: 2, colors: {}, devices: [] };
    const actionInfo = { action, context, device, payload: { settings: this.settings.get(context) ?? {}, coordinates: { column: 0, row: 0 } } };
    return [this.port, context, 'registerPropertyInspector', JSON.stringify(info), JSON.stringify(actionInfo)];
  }

  /** Messages of one event (for one context, when given) the plugin sent after a mark. */
  sent(event: string, context?: string, since = 0): PluginMessage[] {
    return this.received.slice(since).filter((m) => m.event === event && (context === undefined || m.context === context));
  }

  /** The SVG text of the images the plugin set on a context (newest last). */
  images(context: string, since = 0): string[] {
    return this.sent('setImage', context, since).map((m) => decodeImage(String(m.payload?.['image'] ?? '')));
  }

  async close(): Promise<void> {
    if (this.child !== null && !this.exited) {
      const child = this.child;
      const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await ended;
    }
    for (const client of this.server.clients) client.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private fromPlugin(message: PluginMessage): void {
    this.received.push({ ...message, stamp: this.stamp() });
    if (message.event === 'getGlobalSettings') this.send({ event: 'didReceiveGlobalSettings', payload: { settings: this.globalSettings } });
    else if (message.event === 'setGlobalSettings') this.globalSettings = message.payload ?? {};
    else if (message.event === 'setSettings' && message.context !== undefined) this.settings.set(message.context, message.payload ?? {});
    else if (message.event === 'sendToPropertyInspector') this.inspector?.send(JSON.stringify({ event: 'sendToPropertyInspector', action: message['action'], context: message.context, payload: message.payload }));
  }

  /** What the app does with an inspector's messages: keeps settings and tells the plugin, answers reads. */
  private fromPropertyInspector(message: PluginMessage): void {
    this.fromInspector.push(message);
    const context = message.context ?? '';
    if (message.event === 'getGlobalSettings') this.inspector?.send(JSON.stringify({ event: 'didReceiveGlobalSettings', payload: { settings: this.globalSettings } }));
    else if (message.event === 'setGlobalSettings') this.setGlobalSettings(message.payload ?? {});
    else if (message.event === 'setSettings') {
      const settings = message.payload ?? {};
      this.settings.set(context, settings);
      this.send({ event: 'didReceiveSettings', action: message['action'] ?? '', context, device: 'DEV1', payload: { settings, coordinates: { column: 0, row: 0 }, controller: 'Keypad', isInMultiAction: false } });
    } else if (message.event === 'sendToPlugin') this.send({ event: 'sendToPlugin', action: message['action'], context, payload: message.payload });
  }
}

/** An image data URL's SVG text (the plugin sends SVG; anything else comes back as it is). */
export function decodeImage(url: string): string {
  const svg = /^data:image\/svg\+xml;charset=utf8,(.*)$/s.exec(url);
  if (svg !== null) return decodeURIComponent(svg[1] as string);
  const base64 = /^data:image\/svg\+xml;base64,(.*)$/s.exec(url);
  return base64 === null ? url : Buffer.from(base64[1] as string, 'base64').toString('utf8');
}

/** The title (what the tile shows, in words) of an SVG tile. */
export function titleOf(svg: string): string {
  return /<title>([^<]*)<\/title>/.exec(svg)?.[1] ?? '';
}
