// One surface bound to one profile: turns its input into actions and keeps every control showing the
// recorder's truth. Pictures are recomputed when the state, the clock or the surface's own state
// (page, selection, hold rings, flashes) changes, and a control is redrawn only when its picture did.
import { Subscription, interval, merge, type Observable } from 'rxjs';
import type { Action, Binding, Page } from '../profiles/schema.js';
import { runCommand, type InputMoment } from './command-runner.js';
import { demandKey, pageDemand } from './extras-demand.js';
import { ControlGestures, type GestureFire } from './gestures.js';
import { BLANK, type Picture, type PictureOverlay } from './picture.js';
import { usesSelection } from './profile-selection.js';
import { freshnessOf } from './recorder-state.js';
import type { BoundProfile, SessionServices } from './session-services.js';
import { pictureFor, showOf, type ShowInputs } from './show.js';
import { SurfaceOutput, type HandedOver } from './surface-output.js';
import type { ControlDefinition, LedState, RgbImage, Surface, SurfaceInput } from './surface.js';

/** Pictures are recomputed at least this often, so clocks tick and data ages show without new answers. */
const FRAME_MS = 100;
const FLASH_MS = 1500;

export class SurfaceSession {
  private pageIndex = 0;
  private selectedChannel = 1;
  private brightness: number;
  private readonly overlays = new Map<string, PictureOverlay>();
  private readonly flashTimers = new Map<string, NodeJS.Timeout>();
  private gestures = new Map<string, ControlGestures>();
  private readonly output: SurfaceOutput;
  private readonly controls: ReadonlyMap<string, ControlDefinition>;
  private subscription: Subscription | null = null;
  private lastDemand = '';
  /** The page, selection and recorders' channel lists the demand was last worked out from. */
  private demandBasis: unknown[] = [];
  private marksSelection: boolean;
  /** Every image and LED state handed to the surface (for mirrors such as the web page's view of a hardware deck). */
  readonly drawn$: Observable<HandedOver>;

  constructor(
    readonly surface: Surface,
    private profile: BoundProfile,
    private readonly services: SessionServices,
  ) {
    this.controls = new Map(surface.controls.map((c) => [c.id, c]));
    this.brightness = profile.brightness ?? 70;
    this.marksSelection = usesSelection(profile);
    this.output = new SurfaceOutput(
      surface,
      services.renderer,
      {
        faderRange: (control) => {
          const fader = this.bindingFor(control)?.fader;
          return fader?.action === 'gain-fader' ? { min: fader.min, max: fader.max } : null;
        },
      },
      services.log,
    );
    this.drawn$ = this.output.drawn$;
  }

  /** What each display shows now, as last handed over. */
  shownImages(): ReadonlyMap<string, RgbImage> {
    return this.output.shownImages();
  }

  /** What each light shows now, as last handed over. */
  shownLeds(): ReadonlyMap<string, LedState> {
    return this.output.shownLeds();
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
    this.output.stop(); // drawings still under way are not handed over
    this.resetGestures();
    for (const timer of this.flashTimers.values()) clearTimeout(timer);
    this.flashTimers.clear();
    for (const handle of this.services.recorders.values()) handle.extras.setDemand(this.surface.id, null);
  }

  /** Drives a control as if pressed on the device (remote API, tests). */
  input(input: SurfaceInput): void {
    this.onInput(input);
  }

  // Pictures ---------------------------------------------------------------------------------------

  refresh(): void {
    for (const [id, picture] of this.computePictures()) this.output.show(id, picture);
    this.updateDemand();
  }

  private computePictures(): Map<string, Picture> {
    const now = this.services.now();
    const page = this.effectivePage();
    // What pictures are made from, once per refresh and recorder (this runs ten times a second).
    const pageInfo = { name: page.name, number: this.profile.pages.indexOf(page) + 1, count: this.profile.pages.length };
    const inputsByRecorder = new Map<string, ShowInputs>();
    const inputsFor = (name: string): ShowInputs => {
      let inputs = inputsByRecorder.get(name);
      if (!inputs) inputsByRecorder.set(name, (inputs = this.showInputs(name, now, pageInfo)));
      return inputs;
    };
    const pictures = new Map<string, Picture>();
    for (const control of this.surface.controls) {
      const binding = this.bindingFor(control.id, page);
      const picture = binding ? pictureFor(showOf(binding), inputsFor(binding.recorder ?? this.services.defaultRecorder)) : BLANK;
      const overlay = this.overlays.get(control.id);
      pictures.set(control.id, overlay ? { ...picture, overlay: { ...picture.overlay, ...overlay } } : picture);
    }
    return pictures;
  }

  private showInputs(name: string, now: number, page: ShowInputs['page']): ShowInputs {
    const handle = this.services.recorders.get(name);
    return {
      recorder: handle?.poller.state,
      recorderName: name,
      now,
      durationOf: (index) => handle?.durations.read(`${index}`, now) ?? null,
      thumbnailOf: (index) => handle?.extras.thumbnailKey(index) ?? null,
      meterOf: (source) => handle?.extras.meter(source) ?? null,
      selectedChannel: this.selectedChannel,
      marksSelection: this.marksSelection,
      page,
      flashPhase: Math.floor(now / 500) % 2 === 0,
    };
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
    // The demand depends only on these; most refreshes (clock ticks) change none of them.
    const basis = [page, this.selectedChannel, ...[...this.services.recorders.values()].map((h) => h.poller.state.channels)];
    if (basis.length === this.demandBasis.length && basis.every((item, i) => item === this.demandBasis[i])) return;
    this.demandBasis = basis;
    const demand = pageDemand(page, {
      defaultRecorder: this.services.defaultRecorder,
      stateOf: (name) => this.services.recorders.get(name)?.poller.state,
      selectedChannel: this.selectedChannel,
    });
    const text = demandKey(demand);
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
        return runCommand(action, {
          surface: this.surface.id,
          control,
          binding,
          at,
          input,
          selectedChannel: this.selectedChannel,
          recorders: this.services.recorders,
          defaultRecorder: this.services.defaultRecorder,
          now: this.services.now,
          log: this.services.log,
          audit: this.services.audit,
          flash: (kind) => this.flash(control, kind),
        });
    }
  }

  private setBrightness(percent: number): void {
    this.brightness = Math.min(100, Math.max(0, Math.round(percent)));
    void this.surface.setBrightness(this.brightness).catch((e: unknown) => this.services.log.warn(`${this.surface.id}: brightness: ${(e as Error).message}`));
  }
}
