// The web deck's live link. The server pushes everything (the page never polls): on connect the web
// surfaces' layouts, every image they show, the state and the recent commands; then each new image
// (binary: a small header and raw RGB, drawn with putImageData, no encoding on either side), each
// state change and each command. The page sends back input, checked before it reaches a surface.
import { Subscription, interval, merge } from 'rxjs';
import type { WebSocket } from 'ws';
import * as z from 'zod';
import type { Bridge } from '../engine/bridge.js';
import type { CommandRecord, Logger } from '../engine/log.js';
import type { RgbImage } from '../engine/surface.js';
import type { WebSurface } from '../surfaces/web/web-surface.js';
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

/** Header of an image frame: version, surface index, control index, width, height (uint16, big-endian). */
export function imageFrame(surfaceIndex: number, controlIndex: number, image: RgbImage): Buffer {
  const header = Buffer.alloc(10);
  header.writeUInt16BE(1, 0);
  header.writeUInt16BE(surfaceIndex, 2);
  header.writeUInt16BE(controlIndex, 4);
  header.writeUInt16BE(image.width, 6);
  header.writeUInt16BE(image.height, 8);
  return Buffer.concat([header, image.data]);
}

export class DeckSocket {
  private readonly clients = new Set<WebSocket>();
  private readonly recent: CommandRecord[] = [];
  private readonly subscription = new Subscription();
  private lastState = '';

  constructor(
    private readonly bridge: Bridge,
    private readonly surfaces: readonly WebSurface[],
    private readonly log: Logger,
  ) {
    surfaces.forEach((surface, surfaceIndex) => {
      this.subscription.add(
        surface.changes$.subscribe((change) => {
          if (change.type === 'image') {
            const controlIndex = surface.controls.findIndex((c) => c.id === change.control);
            this.broadcast(imageFrame(surfaceIndex, controlIndex, change.image));
          } else {
            this.broadcast(JSON.stringify({ ...change, surface: surface.id }));
          }
        }),
      );
    });
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
    socket.on('close', () => this.clients.delete(socket));
    socket.on('error', () => this.clients.delete(socket));
    socket.on('message', (data, isBinary) => this.receive(socket, isBinary ? null : data.toString()));
    socket.send(JSON.stringify({ type: 'hello', surfaces: this.surfaces.map((s) => ({ id: s.id, name: s.name, model: s.model, layout: s.layout, controls: s.controls, brightness: s.brightness })) }));
    socket.send(JSON.stringify({ type: 'state', state: stateView(this.bridge), commands: this.recent.slice(-50) }));
    this.surfaces.forEach((surface, surfaceIndex) => {
      surface.controls.forEach((control, controlIndex) => {
        const image = surface.images.get(control.id);
        if (image) socket.send(imageFrame(surfaceIndex, controlIndex, image));
      });
    });
  }

  close(): void {
    this.subscription.unsubscribe();
    for (const client of this.clients) client.close(1001, 'the bridge is stopping');
    this.clients.clear();
  }

  private pushState(): void {
    if (this.clients.size === 0) return;
    const text = JSON.stringify({ type: 'state', state: stateView(this.bridge) });
    if (text === this.lastState) return;
    this.lastState = text;
    this.broadcast(text);
  }

  private receive(socket: WebSocket, text: string | null): void {
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
    const surface = this.surfaces.find((s) => s.id === id);
    if (!surface) return reject(`no web surface "${id}"`);
    if (!surface.controls.some((c) => c.id === input.control)) return reject(`surface "${id}" has no control "${input.control}"`);
    surface.send(input);
  }

  private broadcast(message: string | Buffer): void {
    for (const client of this.clients) if (client.readyState === client.OPEN) client.send(message);
  }
}
