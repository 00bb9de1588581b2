// The web page's live link. The server pushes everything (the page never polls): on connect, every
// surface the bridge drives (web decks to use, hardware decks to watch and press remotely), every image
// they show, the state and the recent commands; then each new image (binary: a small header and raw
// RGB, drawn with putImageData, no encoding on either side), each state change and each command. When
// surfaces come or go the page is sent the new set. Input from the page is checked before it reaches a
// surface.
import { Subscription, interval, merge } from 'rxjs';
import type { WebSocket } from 'ws';
import * as z from 'zod';
import type { Bridge } from '../engine/bridge.js';
import type { CommandRecord, Logger } from '../engine/log.js';
import type { SurfaceSession } from '../engine/surface-session.js';
import type { RgbImage, SurfaceInput } from '../engine/surface.js';
import type { WebSurface } from '../surfaces/web/web-surface.js';
import { panelLayout } from './panel-layout.js';
import { stateView } from './state-view.js';

const PageInput = z.strictObject({
  type: z.literal('input'),
  surface: z.string(),
  input: z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('down'), control: z.string() }),
    z.strictObject({ type: z.literal('up'), control: z.string() }),
    z.strictObject({ type: z.literal('rotate'), control: z.string(), amount: z.number().int().min(-100).max(100) }),
    z.strictObject({ type: z.literal('touch'), control: z.string(), gesture: z.enum(['tap', 'long', 'swipe-left', 'swipe-right']) }),
  ]),
});

/** Header of an image frame: version, panel index, control index, width, height (uint16, big-endian). */
export function imageFrame(panelIndex: number, controlIndex: number, image: RgbImage): Buffer {
  const header = Buffer.alloc(10);
  header.writeUInt16BE(1, 0);
  header.writeUInt16BE(panelIndex, 2);
  header.writeUInt16BE(controlIndex, 4);
  header.writeUInt16BE(image.width, 6);
  header.writeUInt16BE(image.height, 8);
  return Buffer.concat([header, image.data]);
}

export class DeckSocket {
  private readonly clients = new Set<WebSocket>();
  /** Numbers the clients, so that each one's presses carry an origin of their own. */
  private clientCount = 0;
  private readonly recent: CommandRecord[] = [];
  private readonly subscription = new Subscription();
  /** The sessions shown, in page order; rebuilt when surfaces come and go. */
  private panels: SurfaceSession[] = [];
  private panelSubscription = new Subscription();
  private lastState = '';

  constructor(
    private readonly bridge: Bridge,
    private readonly webSurfaces: readonly WebSurface[],
    private readonly log: Logger,
  ) {
    this.follow();
    this.subscription.add(bridge.sessionsChanged$.subscribe(() => this.follow()));
    for (const surface of webSurfaces) {
      this.subscription.add(
        surface.changes$.subscribe((change) => this.broadcast(JSON.stringify({ ...change, surface: surface.id }))),
      );
    }
    this.subscription.add(
      bridge.commands$.subscribe((record) => {
        this.recent.push(record);
        if (this.recent.length > 200) this.recent.shift();
        this.broadcast(JSON.stringify({ type: 'command', record }));
      }),
    );
    // Ages and clocks move without any new answer, so the state is also re-sent each second when changed.
    const states = bridge.recorderStates().map((s) => bridge.recorderState$(s.name)).filter((s) => s !== undefined);
    this.subscription.add(merge(interval(1000), ...states).subscribe(() => this.pushState()));
  }

  attach(socket: WebSocket): void {
    this.clients.add(socket);
    // Presses carry the client as their origin: when its link goes, what it holds is let go without
    // firing (a hold must never complete for a release that can no longer arrive).
    const origin = `web-client-${++this.clientCount}`;
    const pressed = new Set<string>();
    let gone = false;
    const leave = () => {
      this.clients.delete(socket);
      if (gone) return;
      gone = true;
      for (const id of pressed) this.deliver(id, { type: 'lost', origin });
    };
    socket.on('close', leave);
    socket.on('error', leave);
    socket.on('message', (data, isBinary) => this.receive(socket, isBinary ? null : data.toString(), origin, pressed));
    this.sendPanels(socket);
    socket.send(JSON.stringify({ type: 'state', state: stateView(this.bridge), commands: this.recent.slice(-50) }));
  }

  close(): void {
    this.subscription.unsubscribe();
    this.panelSubscription.unsubscribe();
    for (const client of this.clients) client.close(1001, 'the bridge is stopping');
    this.clients.clear();
  }

  /** Web decks first (the ones to use), then the others, each in a stable order. */
  private follow(): void {
    const sessions = this.bridge.surfaceSessions();
    const web = sessions.filter((s) => s.surface.kind === 'web').sort((a, b) => a.surface.id.localeCompare(b.surface.id));
    const others = sessions.filter((s) => s.surface.kind !== 'web').sort((a, b) => a.surface.id.localeCompare(b.surface.id));
    const next = [...web, ...others];
    if (next.length === this.panels.length && next.every((s, i) => s === this.panels[i])) return;
    this.panels = next;
    this.panelSubscription.unsubscribe();
    this.panelSubscription = new Subscription();
    this.panels.forEach((session, panelIndex) => {
      const index = new Map(session.surface.controls.map((c, i) => [c.id, i]));
      this.panelSubscription.add(
        session.drawn$.subscribe((output) =>
          this.broadcast('image' in output ? imageFrame(panelIndex, index.get(output.control) ?? 0, output.image) : JSON.stringify({ type: 'led', surface: session.surface.id, control: output.control, state: output.led })),
        ),
      );
    });
    for (const client of this.clients) this.sendPanels(client);
  }

  private sendPanels(socket: WebSocket): void {
    const panels = this.panels.map((session) => {
      const { surface } = session;
      const web = this.webSurfaces.find((w) => w.id === surface.id);
      return { id: surface.id, kind: surface.kind, name: surface.name, model: surface.model, layout: web ? { columns: web.layout.columns, keySize: web.layout.keySize } : panelLayout(surface.controls), controls: surface.controls };
    });
    socket.send(JSON.stringify({ type: 'hello', surfaces: panels }));
    this.panels.forEach((session, panelIndex) => {
      const shown = session.shownImages();
      session.surface.controls.forEach((control, controlIndex) => {
        const image = shown.get(control.id);
        if (image) socket.send(imageFrame(panelIndex, controlIndex, image));
      });
      for (const [control, state] of session.shownLeds()) socket.send(JSON.stringify({ type: 'led', surface: session.surface.id, control, state }));
    });
  }

  private pushState(): void {
    if (this.clients.size === 0) return;
    const text = JSON.stringify({ type: 'state', state: stateView(this.bridge) });
    if (text === this.lastState) return;
    this.lastState = text;
    this.broadcast(text);
  }

  private receive(socket: WebSocket, text: string | null, origin: string, pressed: Set<string>): void {
    const reject = (message: string) => {
      this.log.warn(`web deck: ignored a message: ${message}`);
      socket.send(JSON.stringify({ type: 'error', message }));
    };
    if (text === null) return reject('binary messages are not expected');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return reject('not JSON');
    }
    const parsed = PageInput.safeParse(value);
    if (!parsed.success) return reject(parsed.error.issues.map((i) => `${i.path.join('.') || 'message'}: ${i.message}`).join('; '));
    const { surface: id, input } = parsed.data;
    const session = this.bridge.session(id);
    if (!session) return reject(`no surface "${id}"`);
    if (!session.surface.controls.some((c) => c.id === input.control)) return reject(`surface "${id}" has no control "${input.control}"`);
    if (input.type === 'down') pressed.add(id);
    this.deliver(id, input.type === 'down' || input.type === 'up' ? { ...input, origin } : input);
  }

  /** A web deck is pressed as a device is; any other surface is pressed remotely, as through the API. */
  private deliver(id: string, input: SurfaceInput): void {
    const web = this.webSurfaces.find((w) => w.id === id);
    if (web) web.send(input);
    else this.bridge.session(id)?.input(input);
  }

  private broadcast(message: string | Buffer): void {
    for (const client of this.clients) if (client.readyState === client.OPEN) client.send(message);
  }
}
