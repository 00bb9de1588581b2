// One surface bound to one profile. Its whole state (page, selection, brightness, held controls,
// double presses, flashes, running macros) is one value changed only by `transition` (session/), from
// events: the surface's input, timers, commands' answers, the recorder's state and the clock. This class
// carries out the effects (timers on the injected scheduler, commands through the runner) and derives
// everything shown from the state: pictures, the page, and which previews and meters to fetch.
import { EMPTY, Subscription, auditTime, merge, of, switchMap, tap, timer, type Observable } from 'rxjs';
import { messageOf } from '../api/errors.js';
import type { Binding } from '../profiles/schema.js';
import { runCommand, type InputMoment } from './command-runner.js';
import { demandKey, pageDemand } from './extras-demand.js';
import { BLANK, type Picture } from './picture.js';
import { usesSelection } from './profile-selection.js';
import { REASON_PAGE_MS, overlayOf } from './session/session-overlays.js';
import { bindingOn, effectivePage, encoderOf, keptPage, pageInfo, type SessionWorld } from './session/session-pages.js';
import { initialSessionState, type SessionEffect, type SessionState } from './session/session-state.js';
import { transition, type SessionEvent } from './session/session-transition.js';
import type { BoundProfile, SessionServices } from './session-services.js';
import { flashReason, pictureFor, questionKeys, showOf, type ResolvedShow, type ShowInputs } from './show.js';
import { PicturePainter } from './picture-painter.js';
import type { ControlDefinition, Surface } from './surface.js';

/** Pictures are recomputed at least this often, so clocks tick and data ages show without new answers. */
const FRAME_MS = 100;
/** Changes that arrive within this long of each other are drawn together. */
const COALESCE_MS = 10;

export class SurfaceSession {
  private state: SessionState;
  /** The scheduled actions behind the state's timers, by the name the transition gave them. */
  private readonly timers = new Map<string, Subscription>();
  private readonly painter: PicturePainter;
  private readonly controls: ReadonlyMap<string, ControlDefinition>;
  private subscription: Subscription | null = null;
  private stopped = false;
  /** A refresh asked for by input, not yet run. */
  private refreshScheduled: Subscription | null = null;
  /** Someone can see the surface (always, for a device): otherwise nothing is drawn or fetched for it. */
  private watched = true;
  private lastDemand = '';
  /** The page, selection and recorders' channel lists the demand was last worked out from. */
  private demandBasis: unknown[] = [];
  private marksSelection: boolean;

  constructor(
    readonly surface: Surface,
    private profile: BoundProfile,
    private readonly services: SessionServices,
  ) {
    this.controls = new Map(surface.controls.map((c) => [c.id, c]));
    this.state = initialSessionState(keptPage(profile, profile.pages[0]?.name ?? ''), profile.brightness ?? 70);
    this.marksSelection = usesSelection(profile);
    this.painter = new PicturePainter(
      surface,
      services.renderer,
      {
        faderRange: (control) => {
          const fader = this.bindingInFront(control)?.fader;
          return fader?.action === 'gain-fader' ? { min: fader.min, max: fader.max } : null;
        },
      },
      services.log,
    );
  }

  get profileName(): string {
    return this.profile.name;
  }

  get profileFile(): string {
    return this.profile.file;
  }

  /** The page in front of the operator (the dialog overlay while one is up), numbered in the page cycle. */
  get currentPage(): { name: string; number: number; count: number } {
    return pageInfo(this.profile, this.state.page, this.pageInFront());
  }

  /** Every picture handed to the surface has been drawn (nothing queued, nothing being drawn). */
  get idle(): boolean {
    return this.painter.idle;
  }

  /** The session's state, for tests and diagnostics (read only: it changes only through events). */
  get sessionState(): SessionState {
    return this.state;
  }

  /** What each control shows and does on the page in front of the operator (for the remote API). */
  describeControls(): Array<{ control: ControlDefinition; picture: Picture; binding: Binding | null }> {
    const pictures = this.computePictures();
    return this.surface.controls.map((control) => ({ control, picture: pictures.get(control.id) ?? BLANK, binding: this.bindingInFront(control.id) ?? null }));
  }

  start(): void {
    if (this.subscription || this.stopped) return;
    this.applyBrightness(this.state.brightness);
    const { scheduler } = this.services.time;
    // The recorders' state is drawn as soon as it answers (a command's effect must show at once), and so
    // is a gain this bridge writes; the three state reads answer moments apart, so one refresh covers a
    // burst of them. Fetched previews and meters ride on the next frame (see RecorderExtras).
    const changes: Observable<unknown>[] = [];
    for (const handle of this.services.recorders.values()) changes.push(handle.link.state$, handle.extras.gainWritten$);
    const triggers = [timer(FRAME_MS, FRAME_MS, scheduler), merge(...changes).pipe(auditTime(COALESCE_MS, scheduler))];
    this.subscription = new Subscription();
    // A surface nobody sees gets no frames and follows no state: it is picked up again when seen.
    const watched$ = this.surface.watched$ ?? of(true);
    this.subscription.add(
      watched$
        .pipe(
          tap((watched) => {
            this.watched = watched;
            this.refresh();
          }),
          switchMap((watched) => (watched ? merge(...triggers) : EMPTY)),
        )
        .subscribe(() => this.dispatch({ type: 'observe' })),
    );
    this.subscription.add(
      this.surface.input.subscribe({
        next: (input) => this.dispatch({ type: 'input', input }),
        // Input that ends can report no more releases: what is held is let go without firing.
        error: (error: unknown) => {
          this.services.log.warn(`${this.surface.id}: input failed: ${messageOf(error)}`);
          this.dispatch({ type: 'input', input: { type: 'lost' } });
        },
        complete: () => this.dispatch({ type: 'input', input: { type: 'lost' } }),
      }),
    );
    this.refresh();
  }

  /** A new version of the profile (reloaded file): the page is kept by name when it still exists. */
  setProfile(profile: BoundProfile): void {
    this.profile = profile;
    this.marksSelection = usesSelection(profile);
    this.dispatch({ type: 'profile', ...(profile.brightness === undefined ? {} : { brightness: profile.brightness }) });
  }

  stop(): void {
    if (this.stopped) return;
    this.dispatch({ type: 'stop' });
    this.stopped = true;
    this.refreshScheduled?.unsubscribe();
    for (const scheduled of this.timers.values()) scheduled.unsubscribe();
    this.timers.clear();
    this.subscription?.unsubscribe();
    this.subscription = null;
    this.painter.stop(); // renderings still under way are not handed over
    this.forgetDemand();
  }

  // Events and effects ----------------------------------------------------------------------------

  private dispatch(event: SessionEvent): void {
    if (this.stopped) return;
    const at: InputMoment = { wall: this.services.time.now(), precise: this.services.time.precise() };
    const { state, effects } = transition(this.state, event, this.world());
    this.state = state;
    for (const effect of effects) this.carryOut(effect, at);
    // After input the request leaves first: the keys are redrawn a moment later (coalesced, within the
    // same 10 ms as other changes), not in the way of a press's command and its answer.
    if (event.type === 'input') this.refreshSoon();
    else this.refresh();
  }

  /** One refresh, soon, for any number of asks until then. */
  private refreshSoon(): void {
    if (this.refreshScheduled) return;
    this.refreshScheduled = this.services.time.scheduler.schedule(() => {
      this.refreshScheduled = null;
      this.refresh();
    }, COALESCE_MS);
  }

  private world(): SessionWorld {
    const now = this.services.time.now();
    const recorder = this.services.recorders.get(this.services.defaultRecorder)?.link.state;
    // The last known dialog keeps its overlay up when the data gets old (its keys say how old): the
    // main page in front would claim there is no dialog.
    const dialogUp = recorder?.dialog?.IsDialog === true;
    return { now, profile: this.profile, dialogUp, controls: this.controls };
  }

  private carryOut(effect: SessionEffect, at: InputMoment): void {
    switch (effect.type) {
      case 'command':
        void this.command(effect, at);
        return;
      case 'start-timer': {
        this.timers.get(effect.timer)?.unsubscribe();
        const scheduled = this.services.time.scheduler.schedule(() => {
          this.timers.delete(effect.timer);
          this.dispatch({ type: 'timer', timer: effect.timer });
        }, effect.ms);
        this.timers.set(effect.timer, scheduled);
        return;
      }
      case 'cancel-timer':
        this.timers.get(effect.timer)?.unsubscribe();
        this.timers.delete(effect.timer);
        return;
      case 'brightness':
        this.applyBrightness(effect.percent);
        return;
      case 'warn':
        this.services.log.warn(`${this.surface.id}: ${effect.message} (${this.profile.file})`);
        return;
    }
  }

  private async command(effect: Extract<SessionEffect, { type: 'command' }>, at: InputMoment): Promise<void> {
    // The command's outcome carries the recorder's message (or the refusal); its key shows it in short.
    const { result, message } = await runCommand(effect.action, {
      surface: this.surface.id,
      control: effect.control,
      binding: effect.binding,
      at,
      input: effect.input,
      recorders: this.services.recorders,
      defaultRecorder: this.services.defaultRecorder,
      time: this.services.time,
      log: this.services.log,
      audit: this.services.audit,
    });
    const reason = message === null ? null : flashReason(message);
    const shown = reason === null ? {} : { reason, readMs: this.readingMs(effect.control, reason) };
    this.dispatch({ type: 'command-done', control: effect.control, page: effect.page, macro: effect.macro, outcome: result, ...shown });
  }

  /** How long a reason takes to read on the display that shows the control's marks: a page per period. */
  private readingMs(control: string, reason: string): number {
    const own = this.controls.get(control);
    const shownOn = own?.kind === 'encoder' && own.lcd !== undefined ? this.controls.get(own.lcd) : own;
    const size = shownOn?.kind === 'key' || shownOn?.kind === 'lcd' ? shownOn.pixelSize : null;
    return size === null ? 0 : this.services.renderer.reasonPages(reason, size) * REASON_PAGE_MS;
  }

  private applyBrightness(percent: number): void {
    this.surface.output.show({ type: 'brightness', percent });
  }

  // Derived: pictures and demand --------------------------------------------------------------------

  refresh(): void {
    if (this.stopped) return;
    if (!this.watched) {
      this.forgetDemand();
      return;
    }
    for (const [id, picture] of this.computePictures()) this.painter.show(id, picture);
    this.updateDemand();
  }

  /** Nothing to fetch for this surface (stopped, or nobody sees it). */
  private forgetDemand(): void {
    if (this.lastDemand === '' && this.demandBasis.length === 0) return;
    this.lastDemand = '';
    this.demandBasis = [];
    for (const handle of this.services.recorders.values()) handle.extras.setDemand(this.surface.id, null);
  }

  private pageInFront() {
    return effectivePage(this.world(), this.state.page);
  }

  private bindingInFront(control: string): Binding | undefined {
    return bindingOn(this.pageInFront(), control, this.controls);
  }

  private computePictures(): Map<string, Picture> {
    const now = this.services.time.now();
    const page = this.pageInFront();
    const shownPage = pageInfo(this.profile, this.state.page, page);
    // The keys that together show the dialog's question, each its share in reading order.
    const question = questionKeys(page, this.surface.controls, page.name === this.profile.dialogPage);
    // What pictures are made from, once per refresh and recorder (this runs ten times a second).
    const inputsByRecorder = new Map<string, ShowInputs>();
    const inputsFor = (name: string): ShowInputs => {
      let inputs = inputsByRecorder.get(name);
      if (!inputs) inputsByRecorder.set(name, (inputs = this.showInputs(name, now, shownPage, question.length > 0)));
      return inputs;
    };
    const pictures = new Map<string, Picture>();
    for (const control of this.surface.controls) {
      const binding = bindingOn(page, control.id, this.controls);
      const slot = question.indexOf(control.id);
      const show: ResolvedShow | null = slot >= 0 ? { question: { slot, slots: question.length } } : binding ? showOf(binding) : null;
      const picture = show !== null ? pictureFor(show, inputsFor(binding?.recorder ?? this.services.defaultRecorder)) : BLANK;
      // An LCD cell that shows its encoder's binding shows that encoder's ring and marks too.
      const marked = control.kind === 'lcd' && page.controls[control.id] === undefined ? (encoderOf(control.id, this.controls) ?? control.id) : control.id;
      const overlay = overlayOf(this.state, marked, page.name, now, binding);
      pictures.set(control.id, overlay ? { ...picture, overlay: { ...picture.overlay, ...overlay } } : picture);
    }
    return pictures;
  }

  private showInputs(name: string, now: number, page: ShowInputs['page'], questionShown: boolean): ShowInputs {
    const handle = this.services.recorders.get(name);
    return {
      recorder: handle?.link.state,
      recorderName: name,
      now,
      durationOf: (index) => handle?.durations.read(`${index}`, now) ?? null,
      thumbnailOf: (index) => handle?.extras.thumbnailKey(index) ?? null,
      meterOf: (source) => handle?.extras.meter(source) ?? null,
      selectedChannel: this.state.selectedChannel,
      marksSelection: this.marksSelection,
      page,
      flashPhase: Math.floor(now / 500) % 2 === 0,
      questionShown,
    };
  }

  private updateDemand(): void {
    const page = this.pageInFront();
    const selected = this.state.selectedChannel;
    // The demand depends only on these; most refreshes (clock ticks) change none of them.
    const basis = [page, selected, ...[...this.services.recorders.values()].map((h) => h.link.state.channels)];
    if (basis.length === this.demandBasis.length && basis.every((item, i) => item === this.demandBasis[i])) return;
    this.demandBasis = basis;
    const demand = pageDemand(page, {
      defaultRecorder: this.services.defaultRecorder,
      stateOf: (name) => this.services.recorders.get(name)?.link.state,
      selectedChannel: selected,
    });
    const text = demandKey(demand);
    if (text === this.lastDemand) return;
    this.lastDemand = text;
    for (const [name, handle] of this.services.recorders) handle.extras.setDemand(this.surface.id, demand.get(name) ?? null);
  }
}
