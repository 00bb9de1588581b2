// The desk bench's own client of the web deck's socket (src/remote/deck-socket.ts), beside the page in
// chromium: it says it views one deck, keeps that deck's key images as the page has them (key-frames.ts),
// tells when a key's image shows a state, and sends presses as the page sends them.
import { once } from 'node:events';
import { WebSocket } from 'ws';
import { applyFrames, channelKeyState, type KeyImage, type ShownState } from './key-frames.js';
import { preciseNow, sleep } from './stats.js';

/** The page's socket, as the bench's own client of it: presses sent, the deck's key images kept as the page has them. */
export class DeckLink {
  private readonly images = new Map<string, KeyImage>();
  private panel = -1;
  private controls: string[] = [];
  private waiters: Array<{ control: string; state: ShownState; resolve: (at: number) => void }> = [];
  private failure: Error | null = null;
  private frameMessages = 0;

  private constructor(
    private readonly socket: WebSocket,
    /** The deck read and pressed, by surface id. */
    private readonly deck: string,
  ) {
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      const at = preciseNow();
      try {
        if (isBinary) this.frames(data, at);
        else this.text(data.toString());
      } catch (error) {
        this.failure = error as Error;
      }
    });
  }

  static async open(web: string, deck: string): Promise<DeckLink> {
    const socket = new WebSocket(`${web.replace('http', 'ws')}/ws`);
    // Listening before the link opens: the bridge sends the hello (which says the deck's panel index) as
    // it accepts the link, and when it arrives with the upgrade's answer ws emits it on the next tick,
    // before an `await` on 'open' resumes. A listener added after that misses it, and every key of the
    // deck then reads as having no image (what stopped each run at the warm-up).
    const link = new DeckLink(socket, deck);
    await once(socket, 'open');
    socket.send(JSON.stringify({ type: 'view', surfaces: [deck] }));
    return link;
  }

  private text(text: string): void {
    const message = JSON.parse(text) as { type: string; surfaces?: Array<{ id: string; controls: Array<{ id: string }> }> };
    if (message.type !== 'hello' || !message.surfaces) return;
    this.panel = message.surfaces.findIndex((s) => s.id === this.deck);
    this.controls = message.surfaces[this.panel]?.controls.map((c) => c.id) ?? [];
    this.images.clear(); // a new set of panels comes with whole images
  }

  private frames(data: Buffer, at: number): void {
    this.frameMessages++;
    // Without the hello the frames cannot be placed: say so rather than read every key as blank.
    if (this.panel < 0) throw new Error(`key images came before the page's hello named the panels (or ${this.deck} is not among them)`);
    for (const key of applyFrames(data, this.images)) {
      const [panel, index] = key.split(':').map(Number) as [number, number];
      if (panel !== this.panel) continue;
      const control = this.controls[index];
      const image = this.images.get(key) as KeyImage;
      this.waiters = this.waiters.filter((w) => (w.control === control && channelKeyState(image) === w.state ? (w.resolve(at), false) : true));
    }
  }

  /** For an error: whether the hello came, how many messages of frames, which keys of the deck have an image. */
  describe(): string {
    const keys = this.controls.filter((_, i) => this.images.has(`${this.panel}:${i}`));
    return `hello ${this.panel < 0 ? 'not heard' : `heard (panel ${this.panel})`}, ${this.frameMessages} messages of key images, keys with an image: ${keys.join(' ') || 'none'}`;
  }

  check(): void {
    if (this.failure) throw this.failure;
  }

  /** What a key's image shows now, or null before it has one. */
  shown(control: string): ShownState | null {
    const index = this.controls.indexOf(control);
    const image = this.images.get(`${this.panel}:${index}`);
    return image === undefined ? null : channelKeyState(image);
  }

  /** When the key's image (next) shows `state`: the moment its frame arrived; null if not within `ms`. */
  async shows(control: string, state: ShownState, ms: number): Promise<number | null> {
    if (this.shown(control) === state) return preciseNow();
    let resolve: (at: number) => void = () => undefined;
    const arrived = new Promise<number>((r) => (resolve = r));
    const waiter = { control, state, resolve };
    this.waiters.push(waiter);
    const result = await Promise.race([arrived, sleep(ms).then(() => null)]);
    this.waiters = this.waiters.filter((w) => w !== waiter);
    return result;
  }

  press(control: string, type: 'down' | 'up'): void {
    this.socket.send(JSON.stringify({ type: 'input', surface: this.deck, input: { type, control } }));
  }

  close(): void {
    this.socket.close();
  }
}

