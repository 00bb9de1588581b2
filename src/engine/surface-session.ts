// One surface bound to one profile: turns its input into actions and keeps every control showing the
// recorder's truth. Pictures are recomputed when the state, the clock or the surface's own state
// (page, selection, hold rings, flashes) changes, and a control is redrawn only when its picture did.
import { Subject, Subscription, interval, merge, type Observable } from 'rxjs';
import { GAIN_DB } from '../api/scalars.js';
import type { Action, Binding, Page } from '../profiles/schema.js';
import { describeCall, planCommand, sendCall } from './command-plan.js';
import { ControlGestures, type GestureFire } from './gestures.js';
import type { CommandRecord, Logger } from './log.js';
import { LatestWinsQueue } from './output-queue.js';
import { BLANK, pictureKey, type Picture, type PictureOverlay } from './picture.js';
import type { RecorderExtras } from './recorder-extras.js';
import type { DurationClock } from './duration-clock.js';
import type { RecorderPoller } from './recorder-poller.js';
import { freshnessOf } from './recorder-state.js';
import { pictureFor, showOf, type ShowInputs } from './show.js';
import type { ControlDefinition, LedState, PixelSize, RgbImage, Surface, SurfaceInput } from './surface.js';

export interface RecorderHandle {
  name: string;
  poller: RecorderPoller;
  extras: RecorderExtras;
  durations: DurationClock;
}

/** Turns pictures into what controls take; supplied by the render layer. */
export interface PictureRenderer {
  render(picture: Picture, size: PixelSize): Promise<RgbImage>;
  led(picture: Picture): LedState;
  /** Work done so far, for metrics: image-making calls, answers from the cache, cheap repaints. */
  readonly stats?: { renders: number; cacheHits: number; fastPaths: number };
}

export interface SessionServices {
  recorders: ReadonlyMap<string, RecorderHandle>;
  defaultRecorder: string;
  renderer: PictureRenderer;
  log: Logger;
  audit: (record: CommandRecord) => void;
  now: () => number;
}

export interface BoundProfile {
  name: string;
  file: string;
  pages: readonly Page[];
  brightness?: number;
  dialogPage?: string;
}

/** Pictures are recomputed at least this often, so clocks tick and data ages show without new answers. */
const FRAME_MS = 100;
const FLASH_MS = 1500;

type Output = { picture: Picture; key: string };

/** What the session handed to its surface: an image for a display, or a state for a light. */
export type HandedOver = { control: string; image: RgbImage } | { control: string; led: LedState };

/** When an input happened: wall clock for the audit log, a monotonic sub-ms clock for latencies. */
interface InputMoment {
  wall: number;
  precise: number;
}

export class SurfaceSession {
  private pageIndex = 0;
  private selectedChannel = 1;
  private brightness: number;
  private readonly overlays = new Map<string, PictureOverlay>();
  private readonly flashTimers = new Map<string, NodeJS.Timeout>();
  private gestures = new Map<string, ControlGestures>();
  private readonly sent = new Map<string, string>();
  private readonly sentImages = new Map<string, RgbImage>();
  private readonly sentLeds = new Map<string, LedState>();
  private readonly queue: LatestWinsQueue<Output>;
  private readonly controls: ReadonlyMap<string, ControlDefinition>;
  private subscription: Subscription | null = null;
  private lastDemand = '';
  private marksSelection: boolean;
  private readonly handedOver = new Subject<HandedOver>();
  /** Every image and LED state handed to the surface (for mirrors such as the web page's view of a hardware deck). */
  readonly drawn$: Observable<HandedOver> = this.handedOver.asObservable();

  constructor(
    readonly surface: Surface,
    private profile: BoundProfile,
    private readonly services: SessionServices,
  ) {
    this.controls = new Map(surface.controls.map((c) => [c.id, c]));
    this.brightness = profile.brightness ?? 70;
    this.marksSelection = usesSelection(profile);
    this.queue = new LatestWinsQueue((id, output) => this.write(id, output), (id, error) => services.log.warn(`${surface.id}: drawing ${id} failed: ${(error as Error).message}`));
  }

  /** What each display shows now, as last handed over. */
  shownImages(): ReadonlyMap<string, RgbImage> {
    return this.sentImages;
  }

  /** What each light shows now, as last handed over. */
  shownLeds(): ReadonlyMap<string, LedState> {
    return this.sentLeds;
  }

  get profileName(): string {
    return this.profile.name;
  }

  get profileFile(): string {
    return this.profile.file;
  }

  get currentPage(): { name: string; number: number; count: number } {
    const page = this.effectivePage();
    return { name: page.name, number: this.profile.pages.indexOf(page) + 1, count: this.profile.pages.length };
  }

  /** What each control shows and does on the page in front of the operator (for the remote API). */
  describeControls(): Array<{ control: ControlDefinition; picture: Picture; binding: Binding | null }> {
    const pictures = this.computePictures();
    return this.surface.controls.map((control) => ({ control, picture: pictures.get(control.id) ?? BLANK, binding: this.bindingFor(control.id) ?? null }));
  }

  start(): void {
    if (this.subscription) return;
    void this.surface.setBrightness(this.brightness).catch((e: unknown) => this.services.log.warn(`${this.surface.id}: brightness: ${(e as Error).message}`));
    const triggers: Observable<unknown>[] = [interval(FRAME_MS)];
    for (const handle of this.services.recorders.values()) triggers.push(handle.poller.state$, handle.extras.changed$);
    this.subscription = new Subscription();
    this.subscription.add(merge(...triggers).subscribe(() => this.refresh()));
    this.subscription.add(
      this.surface.input.subscribe({
        next: (input) => this.onInput(input),
        error: (error: unknown) => this.services.log.warn(`${this.surface.id}: input failed: ${(error as Error).message}`),
      }),
    );
    this.refresh();
  }

  /** A new version of the profile (reloaded file): keep the page by name when it still exists. */
  setProfile(profile: BoundProfile): void {
    const pageName = this.profile.pages[this.pageIndex]?.name;
    this.profile = profile;
    this.marksSelection = usesSelection(profile);
    const kept = profile.pages.findIndex((p) => p.name === pageName);
    this.pageIndex = kept >= 0 ? kept : 0;
    this.resetGestures();
    if (profile.brightness !== undefined && profile.brightness !== this.brightness) this.setBrightness(profile.brightness);
    this.refresh();
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = null;
    this.sent.clear(); // drawings still under way see this and are not handed over
    this.resetGestures();
    for (const timer of this.flashTimers.values()) clearTimeout(timer);
    this.flashTimers.clear();
    this.queue.clear();
    for (const handle of this.services.recorders.values()) handle.extras.setDemand(this.surface.id, null);
  }

  /** Drives a control as if pressed on the device (remote API, tests). */
  input(input: SurfaceInput): void {
    this.onInput(input);
  }

  // Pictures ---------------------------------------------------------------------------------------

  refresh(): void {
    const pictures = this.computePictures();
    for (const [id, picture] of pictures) {
      const key = pictureKey(picture);
      if (this.sent.get(id) === key) continue;
      this.sent.set(id, key);
      this.queue.push(id, { picture, key });
    }
    this.updateDemand();
  }

  private computePictures(): Map<string, Picture> {
    const now = this.services.now();
    const page = this.effectivePage();
    const pictures = new Map<string, Picture>();
    for (const control of this.surface.controls) {
      const binding = this.bindingFor(control.id, page);
      const picture = binding ? this.pictureOf(binding, now) : BLANK;
      const overlay = this.overlays.get(control.id);
      pictures.set(control.id, overlay ? { ...picture, overlay: { ...picture.overlay, ...overlay } } : picture);
    }
    return pictures;
  }

  private pictureOf(binding: Binding, now: number): Picture {
    const name = binding.recorder ?? this.services.defaultRecorder;
    const handle = this.services.recorders.get(name);
    const inputs: ShowInputs = {
      recorder: handle?.poller.state,
      recorderName: name,
      now,
      durationOf: (index) => handle?.durations.read(`${index}`, now) ?? null,
      thumbnailOf: (index) => handle?.extras.thumbnailKey(index) ?? null,
      meterOf: (source) => handle?.extras.meter(source) ?? null,
      selectedChannel: this.selectedChannel,
      marksSelection: this.marksSelection,
      page: this.currentPage,
      flashPhase: Math.floor(now / 500) % 2 === 0,
    };
    return pictureFor(showOf(binding), inputs);
  }

  private async write(id: string, { picture, key }: Output): Promise<void> {
    const control = this.controls.get(id);
    if (!control || this.sent.get(id) !== key) return; // superseded while waiting
    switch (control.kind) {
      case 'key':
      case 'lcd': {
        const image = await this.services.renderer.render(picture, control.pixelSize);
        if (this.sent.get(id) !== key) return; // superseded, or the session stopped, while drawing
        if (this.sentImages.get(id) === image) return; // the device already shows exactly this
        this.sentImages.set(id, image);
        await (control.kind === 'key' ? this.surface.drawKey(id, image) : this.surface.drawLcd(id, image));
        this.handedOver.next({ control: id, image });
        return;
      }
      case 'button': {
        if (control.feedback === 'none') return;
        const led = this.services.renderer.led(picture);
        if (this.sentLeds.get(id) === led) return;
        this.sentLeds.set(id, led);
        await this.surface.setLed(id, led);
        this.handedOver.next({ control: id, led });
        return;
      }
      case 'encoder':
      case 'fader': {
        const lcd = control.kind === 'encoder' ? control.lcd : undefined;
        const cell = lcd === undefined ? undefined : this.controls.get(lcd);
        if (cell?.kind === 'lcd' && !this.ownBinding(lcd as string)) {
          const image = await this.services.renderer.render(picture, cell.pixelSize);
          if (this.sent.get(id) !== key) return;
          if (this.sentImages.get(cell.id) !== image) {
            this.sentImages.set(cell.id, image);
            await this.surface.drawLcd(cell.id, image);
            this.handedOver.next({ control: cell.id, image });
          }
        }
        // Where the gain is, on the control's own scale: a fader bound to gain-fader maps its travel to
        // that binding's min..max, so the level must too (motorised faders move there; the others use
        // it for soft takeover). Rings show the whole gain range.
        const fader = this.bindingFor(id)?.fader;
        const range = fader?.action === 'gain-fader' ? { min: fader.min, max: fader.max } : { min: GAIN_DB.min, max: GAIN_DB.max };
        const level = picture.kind === 'meter' && picture.gainDb !== null ? (picture.gainDb - range.min) / (range.max - range.min) : null;
        const wantsLevel = control.kind === 'encoder' ? control.ring : true;
        if (wantsLevel && level !== null) await this.surface.setLevel(id, Math.min(1, Math.max(0, level)));
        return;
      }
    }
  }

  /** Redraw everything on the next refresh (after the device came back). */
  redrawAll(): void {
    this.sent.clear();
    this.sentImages.clear();
    this.sentLeds.clear();
    this.refresh();
  }

  // Pages and bindings -----------------------------------------------------------------------------

  private effectivePage(): Page {
    const overlayName = this.profile.dialogPage;
    if (overlayName !== undefined) {
      const state = this.services.recorders.get(this.services.defaultRecorder)?.poller.state;
      const dialogUp = state !== undefined && freshnessOf(state, this.services.now()) === 'live' && state.dialog?.IsDialog === true;
      const overlay = this.profile.pages.find((p) => p.name === overlayName);
      if (dialogUp && overlay) return overlay;
    }
    return this.profile.pages[this.pageIndex] ?? (this.profile.pages[0] as Page);
  }

  private ownBinding(id: string, page = this.effectivePage()): Binding | undefined {
    return page.controls[id];
  }

  /** A control's binding; an LCD cell with none of its own shows its encoder's. */
  private bindingFor(id: string, page = this.effectivePage()): Binding | undefined {
    const own = this.ownBinding(id, page);
    if (own) return own;
    const control = this.controls.get(id);
    if (control?.kind !== 'lcd') return undefined;
    const encoder = this.surface.controls.find((c) => c.kind === 'encoder' && c.lcd === id);
    return encoder ? this.ownBinding(encoder.id, page) : undefined;
  }

  private goToPage(index: number): void {
    const count = this.profile.pages.length;
    this.pageIndex = ((index % count) + count) % count;
    this.resetGestures();
    this.refresh();
  }

  private updateDemand(): void {
    const page = this.effectivePage();
    const demand = new Map<string, { thumbnails: Set<number>; meters: Set<string> }>();
    const want = (recorder: string) => {
      let entry = demand.get(recorder);
      if (!entry) demand.set(recorder, (entry = { thumbnails: new Set(), meters: new Set() }));
      return entry;
    };
    for (const binding of Object.values(page.controls)) {
      const name = binding.recorder ?? this.services.defaultRecorder;
      const state = this.services.recorders.get(name)?.poller.state;
      const channelOf = (ref: number | 'selected') => (ref === 'selected' ? this.selectedChannel : ref);
      const show = showOf(binding);
      if (typeof show === 'object' && 'channel' in show && show.thumbnail) want(name).thumbnails.add(channelOf(show.channel) - 1);
      if (typeof show === 'object' && 'meter' in show) {
        const source = state?.channels?.[channelOf(show.meter) - 1]?.SourceName;
        if (source) want(name).meters.add(source);
      }
      for (const action of [binding.press, binding.turn, binding.fader, binding.hold?.do]) {
        if (action?.action === 'gain-step' || action?.action === 'gain-set' || action?.action === 'gain-fader') {
          const gain = action;
          const source = gain.source ?? (gain.channel === undefined ? undefined : state?.channels?.[channelOf(gain.channel) - 1]?.SourceName);
          if (source) want(gain.recorder ?? name).meters.add(source);
        }
      }
    }
    const text = JSON.stringify([...demand].map(([name, d]) => [name, [...d.thumbnails].sort(), [...d.meters].sort()]));
    if (text === this.lastDemand) return;
    this.lastDemand = text;
    for (const [name, handle] of this.services.recorders) handle.extras.setDemand(this.surface.id, demand.get(name) ?? null);
  }

  // Input ------------------------------------------------------------------------------------------

  private onInput(input: SurfaceInput): void {
    const binding = this.bindingFor(input.control);
    if (!binding) return;
    const at = this.moment();
    switch (input.type) {
      case 'down':
        this.gesturesFor(input.control, binding).down();
        return;
      case 'up':
        this.gesturesFor(input.control, binding).up();
        return;
      case 'rotate':
        if (binding.turn) void this.perform(binding.turn, binding, input.control, at, { amount: input.amount, position: null });
        return;
      case 'fader':
        if (binding.fader) void this.perform(binding.fader, binding, input.control, at, { amount: 1, position: input.position });
        return;
      case 'touch': {
        const action = binding.touch?.[input.gesture];
        if (action) void this.perform(action, binding, input.control, at, { amount: 1, position: null });
        return;
      }
    }
  }

  private moment(): InputMoment {
    return { wall: this.services.now(), precise: performance.now() };
  }

  private gesturesFor(id: string, binding: Binding): ControlGestures {
    let gestures = this.gestures.get(id);
    if (!gestures) {
      const fire = (what: GestureFire) => {
        const action = what === 'press' ? binding.press : what === 'hold' ? binding.hold?.do : binding.release;
        if (action) void this.perform(action, binding, id, this.moment(), { amount: 1, position: null });
      };
      gestures = new ControlGestures(binding, fire, (overlay) => this.setOverlay(id, overlay), this.services.now);
      this.gestures.set(id, gestures);
    }
    return gestures;
  }

  private resetGestures(): void {
    for (const gestures of this.gestures.values()) gestures.dispose();
    this.gestures = new Map();
    for (const [id, overlay] of this.overlays) if (overlay.hold !== undefined || overlay.armed) this.overlays.delete(id);
  }

  private setOverlay(id: string, overlay: PictureOverlay | null): void {
    if (overlay === null) this.overlays.delete(id);
    else this.overlays.set(id, overlay);
    this.refresh();
  }

  private flash(id: string, kind: 'failed' | 'refused'): void {
    clearTimeout(this.flashTimers.get(id));
    this.setOverlay(id, { flash: kind });
    this.flashTimers.set(
      id,
      setTimeout(() => {
        this.flashTimers.delete(id);
        this.setOverlay(id, null);
      }, FLASH_MS),
    );
  }

  // Actions ----------------------------------------------------------------------------------------

  /** Carries out one action; true when it (and, for a macro, every step) succeeded. */
  private async perform(action: Action, binding: Binding, control: string, at: InputMoment, input: { amount: number; position: number | null }): Promise<boolean> {
    switch (action.action) {
      case 'macro':
        for (const step of action.steps) {
          if ('wait' in step) await new Promise((r) => setTimeout(r, step.wait));
          else if (!(await this.perform(step, binding, control, at, input))) return false;
        }
        return true;
      case 'page-next':
        this.goToPage(this.pageIndex + Math.sign(input.amount || 1));
        return true;
      case 'page-previous':
        this.goToPage(this.pageIndex - Math.sign(input.amount || 1));
        return true;
      case 'page': {
        const index = typeof action.page === 'number' ? action.page - 1 : this.profile.pages.findIndex((p) => p.name === action.page);
        if (index < 0 || index >= this.profile.pages.length) {
          this.services.log.warn(`${this.surface.id}: ${control}: no page ${JSON.stringify(action.page)} in ${this.profile.file}`);
          this.flash(control, 'refused');
          return false;
        }
        this.goToPage(index);
        return true;
      }
      case 'select-channel':
        this.selectedChannel = action.channel;
        this.refresh();
        return true;
      case 'brightness':
        this.setBrightness(action.set ?? this.brightness + (action.step ?? 0) * input.amount);
        return true;
      default:
        return this.command(action, binding, control, at, input);
    }
  }

  private setBrightness(percent: number): void {
    this.brightness = Math.min(100, Math.max(0, Math.round(percent)));
    void this.surface.setBrightness(this.brightness).catch((e: unknown) => this.services.log.warn(`${this.surface.id}: brightness: ${(e as Error).message}`));
  }

  private async command(action: Exclude<Action, { action: 'macro' | 'page-next' | 'page-previous' | 'page' | 'select-channel' | 'brightness' }>, binding: Binding, control: string, at: InputMoment, input: { amount: number; position: number | null }): Promise<boolean> {
    const name = action.recorder ?? binding.recorder ?? this.services.defaultRecorder;
    const handle = this.services.recorders.get(name);
    let requestAfterMs: number | null = null;
    const record = (result: CommandRecord['result'], request: string | null, message: string | null) =>
      this.services.audit({ at: at.wall, surface: this.surface.id, control, action: action.action, recorder: handle ? name : null, request, result, message, requestAfterMs, latencyMs: performance.now() - at.precise });
    if (!handle) {
      this.services.log.warn(`${this.surface.id}: ${control}: ${action.action}: no recorder named "${name}"`);
      this.flash(control, 'refused');
      record('refused', null, `no recorder named "${name}"`);
      return false;
    }
    const state = handle.poller.state;
    const plan = planCommand(action, {
      state,
      live: freshnessOf(state, this.services.now()) === 'live',
      selectedChannel: this.selectedChannel,
      amount: input.amount,
      position: input.position,
      knownGain: (index) => handle.extras.knownGain(index),
    });
    if (plan.kind === 'refuse') {
      this.services.log.warn(`${this.surface.id}: ${control}: ${action.action} refused: ${plan.reason}`);
      this.flash(control, 'refused');
      record('refused', null, plan.reason);
      return false;
    }
    const request = describeCall(plan.call);
    if (plan.gain) handle.extras.noteGain(plan.gain.sourceIndex, plan.gain.db);
    try {
      requestAfterMs = performance.now() - at.precise;
      await sendCall(handle.poller.client, plan.call);
      record('ok', request, null);
      return true;
    } catch (error) {
      const message = (error as { serviceMessage?: string }).serviceMessage ?? (error as Error).message;
      this.services.log.warn(`${this.surface.id}: ${control}: ${action.action} failed: ${request}: ${message}`);
      this.flash(control, 'failed');
      record('failed', request, message);
      return false;
    } finally {
      handle.poller.refresh(plan.touchesSlowState);
    }
  }
}

/** Whether any binding selects a channel or acts on, or shows, the selected one. */
function usesSelection(profile: BoundProfile): boolean {
  const selects = (action: Action | undefined): boolean => {
    if (action === undefined) return false;
    if (action.action === 'macro') return action.steps.some((step) => !('wait' in step) && selects(step));
    return action.action === 'select-channel' || ('channel' in action && action.channel === 'selected');
  };
  return profile.pages.some((page) =>
    Object.values(page.controls).some((b) => {
      const show = b.show;
      const showsSelected = typeof show === 'object' && (('channel' in show && show.channel === 'selected') || ('meter' in show && show.meter === 'selected'));
      return showsSelected || [b.press, b.release, b.hold?.do, b.turn, b.fader, ...Object.values(b.touch ?? {})].some(selects);
    }),
  );
}
