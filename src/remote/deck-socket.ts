// The web page's live link. The server pushes everything (the page never polls): on connect, every
// surface the bridge drives (web decks to use, hardware decks to watch and press remotely), what they
// show, the state and the recent commands; then each new image (binary: a small header and raw RGB,
// drawn with putImageData, no encoding on either side), light, level, state change and command. When
// surfaces come or go the page is sent the new set. Input from the page is checked before it reaches a
// surface, and is injected into it as any remote press is.
//
// What a deck shows comes from its surface's DeviceOutput, a web deck's as a hardware deck's: what the
// device shows (`shown()`) when the page starts to follow it, then every change the device takes
// (`drawn$`), read in the same turn so nothing falls between them. For a web deck the pages are the
// device; for a hardware deck they mirror it. Each page keeps its own record of what it was sent of
// each key (the image it shows), against which only what changed is framed.
//
// A page says which decks it has in view (a phone shows the one picked; a desk page the decks on
// screen; a hidden tab none): a web deck is drawn and fed previews only while some page views it, and a
// page is sent images only of the decks it views, with what they show now when one comes into view.
// A page that never says is taken to view every deck.
//
// Each page's key images go through the one latest-wins queue (engine/latest-wins.ts, in a TurnBatch (turn-batch.ts) on the
// injected clock): images drawn in one turn (a refresh redraws many keys at once) leave in one message,
// frames laid end to end, each the change from what the page shows of the key (image-frames.ts). What
// the page shows is the deck's own record: the image the output showed before (its changed$), kept as
// the base while a newer image replaces one still waiting; a key sent whole (on connect, into view) has
// no base. No second record of what a page was sent is kept.
//
// A client that reads slower than the bridge draws (a phone on bad Wi-Fi, a tab in the background, a
// socket that never reads) must not make the bridge hold ever more data for it: over a bound of
// unsent bytes its key images wait in its queue (the newest of each key, so at most one per key) and its
// state is skipped and remembered; once it has caught up it is sent the latest of each (latest picture
// wins); if it stays over the bound it is closed. Unsent bytes do not see a page that reads but draws
// slowly (a phone's or a starved browser's page): the kernel's and the browser's buffers between them
// took megabytes, seconds of old images the page then drew one by one while its keys showed the past
// (measured with chromium held to 10 % of a core: 3.4 MB waiting in its socket). So a page that counts
// what it draws (PageDrawn) is also over the bound while it is `imagesAhead` image messages behind, and
// catches up as it says it has drawn them: the device's own pace, as a USB deck's writes set its queue's.
// A ping each heartbeat finds the clients that have gone without closing, and the number of clients is
// capped.
import { Subscription, auditTime, interval, merge } from 'rxjs';
import type { WebSocket } from 'ws';
import type { Bridge } from '../engine/bridge.js';
import type { EngineTime } from '../engine/engine-time.js';
import { TurnBatch } from '../engine/turn-batch.js';
import type { Slice } from '../engine/work-scheduler.js';
import { LogLimiter } from '../engine/log-limit.js';
import type { OutputItem } from '../engine/device-output.js';
import type { CommandRecord, Logger } from '../engine/log.js';
import type { SurfaceSession } from '../engine/surface-session.js';
import type { RgbImage, Surface } from '../engine/surface.js';
import { WebSurface } from '../surfaces/web/web-surface.js';
import type { AlarmMonitor } from '../engine/alarms/alarm-monitor.js';
import { alarmsMessage } from './alarm-message.js';
import { type EncodedServerMessage, PageMessage, type ServerMessage, encodeServerMessage, sendServerMessage } from './deck-protocol.js';
import { SharedFrames } from './image-frames.js';
import { panelLayout } from './panel-layout.js';
import { stateView } from './state-view.js';

export interface DeckSocketLimits {
  /** Clients at once (default 32); the next is refused. */
  maxClients: number;
  /** Unsent bytes above which a client's images and state are skipped (default 1 MiB). */
  bufferBytes: number;
  /** Image messages a page that counts what it draws may be behind before its images and state are skipped (default 2: one drawn while the next travels). */
  imagesAhead: number;
  /** A client over the bound this long is closed (default 10 s). */
  stalledMs: number;
  /** Ping period; a client that has not answered the last ping by the next one is closed (default 15 s). */
  heartbeatMs: number;
}

/** How often a client over the bound is looked at again, to catch up as soon as it has drained. */
const DRAIN_CHECK_MS = 200;
/**
 * The recorders' state answers a dozen times a second (three reads each): the page's status line is
 * brought up to date at most this often, the newest state each time. The keys do not wait for it.
 */
const STATE_PUSH_MS = 250;

export const DEFAULT_DECK_SOCKET_LIMITS: DeckSocketLimits = { maxClients: 32, bufferBytes: 1024 * 1024, imagesAhead: 2, stalledMs: 10_000, heartbeatMs: 15_000 };

interface Client {
  socket: WebSocket;
  /** Answered the last ping. */
  alive: boolean;
  /** When its unsent bytes went over the bound; null while under. */
  overSince: number | null;
  /** Images to send at the end of this turn (or once it is under the bound), the newest per panel and control index ("panel:control"). */
  images: TurnBatch<string, PendingImage>;
  /** While over the bound: the next look at whether it has drained (it catches up then, even if nothing new is drawn). */
  drainCheck: Subscription | null;
  skippedState: boolean;
  /** Image messages sent on this link. */
  imagesSent: number;
  /** Image messages the page says it has drawn; null while it has not said (a client that does not count is bounded by unsent bytes alone). */
  imagesDrawn: number | null;
  /** Its presses carry this origin; when its link goes, what it holds is let go without firing. */
  origin: string;
  /** Surfaces it pressed a control on. */
  pressed: Set<string>;
  /** The decks it has in view, by surface id; null until it says (every deck). */
  view: ReadonlySet<string> | null;
}

interface PendingImage {
  panelIndex: number;
  controlIndex: number;
  /** What the page shows of the key, the base of the frame; undefined: sent whole. */
  from: RgbImage | undefined;
  image: RgbImage;
}

/** A newer image replaces one still waiting; the page still shows the waiting one's base. */
const keepBase = (waiting: PendingImage, newer: PendingImage): PendingImage => ({ ...newer, from: waiting.from });

const views = (client: Client, surface: string): boolean => client.view === null || client.view.has(surface);

export class DeckSocket {
  private readonly clients = new Map<WebSocket, Client>();
  /** Clients attached so far, to give each its own origin. */
  private clientsEver = 0;
  private readonly recent: CommandRecord[] = [];
  private readonly subscription = new Subscription();
  /** The sessions shown, in page order; rebuilt when surfaces come and go. */
  private panels: SurfaceSession[] = [];
  private panelSubscription = new Subscription();
  private lastState: EncodedServerMessage | null = null;
  /** The alarm engine whose alarms pages are sent (followAlarms); null: none. */
  private alarms: AlarmMonitor | null = null;
  /** Each key's change framed once for all the pages it goes to. */
  private readonly frames = new SharedFrames();
  /** A page that sends bad messages in a loop (a bug, or someone probing) writes a line now and then, not one each. */
  private readonly badMessages: LogLimiter;

  constructor(
    private readonly bridge: Bridge,
    private readonly log: Logger,
    private readonly limits: DeckSocketLimits = DEFAULT_DECK_SOCKET_LIMITS,
    /** The clock and scheduler of its pings, drain checks and state pushes (tests move it by hand). */
    private readonly time: EngineTime,
  ) {
    const { scheduler } = time;
    this.badMessages = new LogLimiter((line) => this.log.warn(line), () => time.now());
    this.follow();
    this.subscription.add(bridge.sessionsChanged$.subscribe(() => this.follow()));
    this.subscription.add(
      bridge.commands$.subscribe((record) => {
        this.recent.push(record);
        if (this.recent.length > 200) this.recent.shift();
        this.broadcast({ kind: 'always', message: { type: 'command', record } });
      }),
    );
    // Ages and clocks move without any new answer, so the state is also re-sent each second when changed.
    const states = bridge.recorderStates().map((s) => bridge.recorderState$(s.name)).filter((s) => s !== undefined);
    this.subscription.add(merge(interval(1000, scheduler), merge(...states).pipe(auditTime(STATE_PUSH_MS, scheduler))).subscribe(() => this.pushState()));
    this.subscription.add(interval(limits.heartbeatMs, scheduler).subscribe(() => this.heartbeat()));
  }

  /**
   * Pages are sent the alarms (alarm-message.ts) as they connect and after every raise, ack and clear:
   * small, and each one matters, so always sent, like commands.
   */
  followAlarms(monitor: AlarmMonitor): void {
    this.alarms = monitor;
    this.subscription.add(monitor.changed$.subscribe(() => this.broadcast({ kind: 'always', message: alarmsMessage(monitor) })));
  }

  /**
   * The web decks served: derived from the bridge's one list of surfaces (the panels follow its sessions),
   * never kept here as well, so a deck added later (its profile fixed after the start) is served as the
   * bridge binds it.
   */
  private webSurfaces(): WebSurface[] {
    return this.panels.flatMap(({ surface }) => (surface instanceof WebSurface ? [surface] : []));
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** True when another client would be one too many. */
  get full(): boolean {
    return this.clients.size >= this.limits.maxClients;
  }

  attach(socket: WebSocket): void {
    const origin = `web-client-${++this.clientsEver}`;
    const client: Client = {
      socket,
      alive: true,
      overSince: null,
      // Page frames: the least urgent work on the bridge's WorkScheduler, after input, state and pictures.
      images: new TurnBatch<string, PendingImage>(this.bridge.work, `frames:${origin}`, (images, slice) => this.flushImages(client, images, slice), keepBase),
      drainCheck: null,
      skippedState: false,
      imagesSent: 0,
      imagesDrawn: null,
      origin,
      pressed: new Set(),
      view: null,
    };
    this.clients.set(socket, client);
    this.followWatchers();
    socket.on('close', () => this.leave(client));
    socket.on('error', () => this.leave(client));
    socket.on('pong', () => (client.alive = true));
    socket.on('message', (data, isBinary) => this.receive(client, isBinary ? null : data.toString()));
    this.sendPanels(client);
    sendServerMessage(socket, { type: 'state', state: stateView(this.bridge), commands: this.recent.slice(-50) });
    if (this.alarms) sendServerMessage(socket, alarmsMessage(this.alarms));
  }

  close(): void {
    this.subscription.unsubscribe();
    this.panelSubscription.unsubscribe();
    for (const { socket, drainCheck, images } of this.clients.values()) {
      drainCheck?.unsubscribe();
      images.clear();
      socket.close(1001, 'the bridge is stopping');
    }
    this.clients.clear();
  }

  /**
   * Closes every page's link (the password changed: each logs in again). What a page held is let go
   * without firing, as for any link that ends.
   */
  closeClients(reason: string): void {
    for (const client of [...this.clients.values()]) {
      this.leave(client);
      client.socket.close(1008, reason);
    }
  }

  /** Closes the clients that did not answer the last ping or stay over the bound; pings the others. */
  private heartbeat(): void {
    for (const client of this.clients.values()) {
      if (!client.alive) {
        this.drop(client, `no answer to a ping within ${this.limits.heartbeatMs} ms`);
        continue;
      }
      if (!this.underBound(client)) continue;
      client.alive = false;
      client.socket.ping();
    }
  }

  /**
   * A hold must never complete for a release that can no longer arrive: a client whose link goes
   * (closed, failed, or cut for not reading or not answering pings) lets go of what it holds.
   */
  private leave(client: Client): void {
    if (!this.clients.delete(client.socket)) return;
    client.drainCheck?.unsubscribe();
    client.images.clear();
    this.followWatchers();
    for (const id of client.pressed) this.bridge.session(id)?.surface.inject({ type: 'lost', origin: client.origin });
  }

  private drop(client: Client, why: string): void {
    this.log.warn(`web deck: closed a client: ${why}`);
    this.leave(client);
    client.socket.terminate();
  }

  /**
   * Whether the client may be sent more now. Over the bound it is not (and is closed when it has been
   * over too long); back under it, it is first sent the latest of what it missed.
   */
  private underBound(client: Client): boolean {
    const { socket } = client;
    const unsent = socket.bufferedAmount > this.limits.bufferBytes;
    const undrawn = client.imagesDrawn !== null && client.imagesSent - client.imagesDrawn >= this.limits.imagesAhead;
    if (unsent || undrawn) {
      client.overSince ??= this.time.now();
      if (this.time.now() - client.overSince > this.limits.stalledMs) {
        const why = unsent ? `it stopped reading (${socket.bufferedAmount} bytes unsent` : `it stopped drawing (${client.imagesSent - (client.imagesDrawn ?? 0)} image messages not drawn`;
        this.drop(client, `${why} for over ${this.limits.stalledMs} ms)`);
      } else {
        client.drainCheck ??= this.time.scheduler.schedule(() => {
          client.drainCheck = null;
          if (this.clients.has(socket)) this.underBound(client);
        }, DRAIN_CHECK_MS);
      }
      return false;
    }
    client.overSince = null;
    this.catchUp(client);
    return true;
  }

  /** Under the bound again: what waited of its images goes at the end of the turn, the state now. */
  private catchUp(client: Client): void {
    client.images.schedule();
    if (client.skippedState) {
      client.skippedState = false;
      sendServerMessage(client.socket, { type: 'state', state: stateView(this.bridge) });
    }
  }

  /** A web deck is seen while some page has it in view: drawn and fed only then. */
  private followWatchers(): void {
    for (const web of this.webSurfaces()) web.setWatched([...this.clients.values()].some((client) => views(client, web.id)));
  }

  /** Web decks first (the ones to use), then the others, each in a stable order. */
  private follow(): void {
    const sessions = this.bridge.surfaceSessions();
    const web = sessions.filter((s) => s.surface.kind === 'web').sort((a, b) => a.surface.id.localeCompare(b.surface.id));
    const others = sessions.filter((s) => s.surface.kind !== 'web').sort((a, b) => a.surface.id.localeCompare(b.surface.id));
    const next = [...web, ...others];
    if (next.length === this.panels.length && next.every((s, i) => s === this.panels[i])) return;
    this.panels = next;
    this.frames.clear();
    this.panelSubscription.unsubscribe();
    this.panelSubscription = new Subscription();
    this.panels.forEach(({ surface }, panelIndex) => {
      const index = new Map(surface.controls.map((c, i) => [c.id, i]));
      this.panelSubscription.add(
        surface.output.changed$.subscribe(({ item, before }) => {
          // A hardware deck is drawn whether a page is open or not: with none, nothing is framed.
          if (this.clients.size === 0) return;
          if (item.type === 'image') {
            const from = before?.type === 'image' ? before.image : undefined;
            return this.broadcast({ kind: 'image', surface: surface.id, pending: { panelIndex, controlIndex: index.get(item.control) ?? 0, from, image: item.image } });
          }
          // The page shows no brightness (a deck on screen is as bright as the screen), nor encoded pictures (only the plugin's app surfaces draw those, and no page views them).
          if (item.type === 'led' || item.type === 'level') this.broadcast({ kind: 'always', message: marksMessage(surface, item) });
        }),
      );
    });
    for (const client of this.clients.values()) this.sendPanels(client);
    // A web deck that came after the pages (its profile fixed later) is in view of every page that views
    // every deck: watched from now on, so it is drawn and fed.
    this.followWatchers();
  }

  private sendPanels(client: Client): void {
    const { socket } = client;
    // A new set of panels is sent whole (the page builds its decks afresh, with blank keys); what waited
    // of the old set no longer applies.
    client.images.clear();
    const panels = this.panels.map((session) => {
      const { surface } = session;
      const web = surface instanceof WebSurface ? surface : undefined;
      return { id: surface.id, kind: surface.kind, name: surface.name, model: surface.model, layout: web ? { columns: web.layout.columns, keySize: web.layout.keySize } : panelLayout(surface.controls), controls: [...surface.controls] };
    });
    sendServerMessage(socket, { type: 'hello', surfaces: panels });
    this.panels.forEach(({ surface }, panelIndex) => {
      if (views(client, surface.id)) this.sendShown(client, surface, panelIndex);
      const { leds, levels } = surface.output.shown();
      for (const [control, state] of leds) sendServerMessage(socket, marksMessage(surface, { type: 'led', control, state }));
      for (const [control, level] of levels) sendServerMessage(socket, marksMessage(surface, { type: 'level', control, level }));
    });
  }

  /**
   * What a panel's device shows now, every key of it, whole (on connect, as it comes into a client's
   * view); what it takes after this comes on its output's changed$.
   */
  private sendShown(client: Client, surface: Surface, panelIndex: number): void {
    const { images } = surface.output.shown();
    surface.controls.forEach((control, controlIndex) => {
      const image = images.get(control.id);
      if (image) client.images.push(`${panelIndex}:${controlIndex}`, { panelIndex, controlIndex, from: undefined, image });
    });
  }

  private pushState(): void {
    if (this.clients.size === 0) return;
    const text = encodeServerMessage({ type: 'state', state: stateView(this.bridge) });
    if (text === this.lastState) return;
    this.lastState = text;
    this.broadcast({ kind: 'state', message: text });
  }

  private receive(client: Client, text: string | null): void {
    const { socket, origin, pressed } = client;
    const reject = (message: string) => {
      this.badMessages.say(`web deck: ignored a message: ${message}`);
      sendServerMessage(socket, { type: 'error', message });
    };
    if (text === null) return reject('binary messages are not expected');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return reject('not JSON');
    }
    const parsed = PageMessage.safeParse(value);
    if (!parsed.success) return reject(parsed.error.issues.map((i) => `${i.path.join('.') || 'message'}: ${i.message}`).join('; '));
    if (parsed.data.type === 'view') return this.setView(client, new Set(parsed.data.surfaces));
    if (parsed.data.type === 'drawn') return this.drawn(client, parsed.data.images, reject);
    const { surface: id, input } = parsed.data;
    const session = this.bridge.session(id);
    if (!session) return reject(`no surface "${id}"`);
    if (!session.surface.controls.some((c) => c.id === input.control)) return reject(`surface "${id}" has no control "${input.control}"`);
    if (input.type === 'down') pressed.add(id);
    // A cancelled press (a touch that turned into a scroll) is this client's release of that key that
    // will never come: that key is let go without firing, the client's other holds stay.
    if (input.type === 'cancel') return session.surface.inject({ type: 'lost', origin, control: input.control });
    session.surface.inject(input.type === 'down' || input.type === 'up' ? { ...input, origin } : input);
  }

  /**
   * The page has drawn `images` image messages: counted from the link's first, never more than were sent
   * nor fewer than it said before (either is a page that has lost count: said, and the count kept). Back
   * within `imagesAhead`, it is sent the latest of what waited.
   */
  private drawn(client: Client, images: number, reject: (message: string) => void): void {
    if (images > client.imagesSent) return reject(`drawn: ${images} image messages, but ${client.imagesSent} were sent`);
    if (client.imagesDrawn !== null && images < client.imagesDrawn) return reject(`drawn: ${images} image messages, fewer than the ${client.imagesDrawn} it said before`);
    client.imagesDrawn = images;
    this.underBound(client);
  }

  /** The decks a client has in view from now on: those that come into view are sent what they show now. */
  private setView(client: Client, view: ReadonlySet<string>): void {
    const before = client.view;
    client.view = view;
    this.followWatchers();
    this.panels.forEach(({ surface }, panelIndex) => {
      if (view.has(surface.id) && before !== null && !before.has(surface.id)) this.sendShown(client, surface, panelIndex);
    });
  }

  /**
   * Images and state are pictures of now: skipped for a client over the bound, the latest sent once it
   * has caught up. Commands, LEDs and page changes are small and each one matters: always sent.
   */
  private broadcast(item: { kind: 'always' | 'state'; message: ServerMessage | EncodedServerMessage } | { kind: 'image'; surface: string; pending: PendingImage }): void {
    // A message is encoded once, for every page it goes to.
    const text = item.kind === 'image' || typeof item.message === 'string' ? null : encodeServerMessage(item.message);
    for (const client of this.clients.values()) {
      if (client.socket.readyState !== client.socket.OPEN) continue;
      // Images are bounded as they leave (flushImages).
      if (item.kind === 'image') {
        if (views(client, item.surface)) client.images.push(`${item.pending.panelIndex}:${item.pending.controlIndex}`, item.pending);
        continue;
      }
      if (item.kind === 'always' || this.underBound(client)) {
        sendServerMessage(client.socket, text ?? item.message);
        continue;
      }
      client.skippedState = true;
    }
  }

  /**
   * A turn's images for a client, in one message, as many as the slice has time for (at least one; the
   * rest go in the next slice, after any input that came); kept waiting (0 taken) while it is over the
   * bound, to go once it has caught up. A client gone or closing is sent nothing. Returns how many it took.
   */
  private flushImages(client: Client, images: ReadonlyArray<[string, PendingImage]>, slice: Slice): number {
    if (!this.clients.has(client.socket) || client.socket.readyState !== client.socket.OPEN) return images.length;
    if (!this.underBound(client)) return 0;
    const frames: Buffer[] = [];
    let taken = 0;
    for (const [, { panelIndex, controlIndex, from, image }] of images) {
      if (taken > 0 && slice.spent()) break;
      taken++;
      const frame = this.frames.update(panelIndex, controlIndex, from, image);
      if (frame) frames.push(frame);
    }
    if (frames.length > 0) {
      client.socket.send(frames.length === 1 ? (frames[0] as Buffer) : Buffer.concat(frames));
      client.imagesSent++;
    }
    return taken;
  }
}

/** A light's state or a level, for the page (a pad's light, a dial's ring). */
function marksMessage(surface: Surface, item: Extract<OutputItem, { type: 'led' | 'level' }>): ServerMessage {
  return { ...item, surface: surface.id };
}
