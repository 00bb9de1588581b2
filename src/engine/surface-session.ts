// One surface bound to one profile. Its whole state (page, selection, brightness, held controls,
// double presses, flashes, running macros) is one value changed only by `transition` (session/), from
// events: the surface's input, timers, commands' answers, the recorder's state and the clock. This class
// runs that loop and carries out the effects (timers on the injected scheduler, commands through the
// runner); what is shown is derived from the state by the files it hands the refresh to, one job each:
// the pictures (session-pictures.ts), when they next change by time alone (refresh-schedule.ts), and
// which previews and meters to fetch (surface-demand.ts).
//
// When pictures are derived: every event that changes what they are made of refreshes them all (the
// recorder's state, a gain written, input, a command's answer, the session's timers, fetched previews
// and meters); between those only the clock moves them, and each picture says when it next changes by
// time alone (next-change.ts): the session refreshes that control at that moment, with one timer for
// the earliest, instead of recomputing every picture at a fixed frame rate.
import { EMPTY, Subscription, auditTime, map, merge, of, switchMap, tap, type Observable } from 'rxjs';
import { messageOf } from '../api/errors.js';
import type { Binding } from '../profiles/schema.js';
import { runCommand, type InputMoment } from './command-runner.js';
import { BLANK, type Picture } from './picture.js';
import { usesSelection } from './profile-selection.js';
import { REASON_PAGE_MS } from './session/session-overlays.js';
import { bindingOn, effectivePage, keptPage, pageInfo, type SessionWorld } from './session/session-pages.js';
import { initialSessionState, type SessionEffect, type SessionState } from './session/session-state.js';
import { transition, type SessionEvent } from './session/session-transition.js';
import type { BoundProfile, SessionServices } from './session-services.js';
import { flashReason } from './show.js';
import { PicturePainter } from './picture-painter.js';
import { RefreshSchedule } from './refresh-schedule.js';
import { SessionPictures, type DerivedPicture } from './session-pictures.js';
import { SurfaceDemand } from './surface-demand.js';
import type { RecorderGroups } from './recorder-group.js';
import type { ControlDefinition, Surface } from './surface.js';
import type { Slice } from './work-scheduler.js';

/** Changes that arrive within this long of each other are drawn together. */
const COALESCE_MS = 10;
/**
 * Fetched previews and meter reads that arrive within this long of the first are drawn together: they
 * come many times a second (16 previews, a meter 4 times, with a page of them) and nobody waits for
 * them. So each shows within a tenth of a second of its arrival, and a page of them costs at most ten
 * refreshes a second, each of only the controls whose picture reads a preview or a meter.
 */
const FETCHED_MS = 100;

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
  /** A refresh waits in the WorkScheduler's line. */
  private refreshInLine = false;
  /** The rest of a refresh (its slice ran out) waits in line, under the refresh's key. */
  private refreshRestInLine = false;
  /**
   * The controls a refresh cut short (its slice ran out) has not derived yet, and likewise for a fetch's
   * refresh. A newer refresh takes the rest's place in line but derives these first: under a steady
   * stream of changes (a poll's answers come 12 a second) on a loaded machine, where a slice has time for
   * only a few controls, a refresh begun again from the first control at each change never reached the
   * last ones (a Satellite deck of 15 keys not all drawn, beside a second suite).
   */
  private refreshLeft: readonly ControlDefinition[] = [];
  private fetchedLeft: readonly ControlDefinition[] = [];
  /**
   * The controls whose picture, when last derived, read a fetched preview or meter: the only ones a
   * fetch can change (everything else a picture is made of refreshes them all when it changes).
   */
  private readonly readsFetched = new Set<string>();
  /** A refresh of those waits in the WorkScheduler's line. */
  private fetchedInLine = false;
  /** The controls' pictures, derived from the state (session-pictures.ts). */
  private readonly pictures: SessionPictures;
  /** When the pictures shown next change by time alone, and the one timer for it (refresh-schedule.ts). */
  private readonly schedule: RefreshSchedule;
  /** The previews and meters this surface asks its recorders to fetch (surface-demand.ts). */
  private readonly demand: SurfaceDemand;
  /** Someone can see the surface (always, for a device): otherwise nothing is drawn or fetched for it. */
  private watched = true;
  private marksSelection: boolean;
  /** Work done so far, for the benchmark and tests: refreshes (of all controls or the ones due) and pictures derived. */
  readonly stats = { refreshes: 0, pictures: 0 };

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
      { work: services.work, time: services.time, log: services.log },
    );
    this.pictures = new SessionPictures(surface.controls, services);
    this.schedule = new RefreshSchedule(surface.id, services.time, services.work, (slice) => this.refreshDue(slice));
    this.demand = new SurfaceDemand(surface.id, services.recorders, services.defaultRecorder);
  }

  /** The recorder groups this session's bindings may name: the command line's, and its profile's (which win). */
  private get groups(): RecorderGroups {
    return this.profile.groups.size === 0 ? this.services.groups : new Map([...this.services.groups, ...this.profile.groups]);
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
    return !this.refreshInLine && !this.refreshRestInLine && !this.fetchedInLine && this.painter.idle;
  }

  /** The session's state, for tests and diagnostics (read only: it changes only through events). */
  get sessionState(): SessionState {
    return this.state;
  }

  /** What each control shows and does on the page in front of the operator (for the remote API). */
  describeControls(): Array<{ control: ControlDefinition; picture: Picture; binding: Binding | null }> {
    const pictures = this.computePictures(this.surface.controls);
    // The page in front worked out once for all the controls, not once per control (each a new world and
    // a search of the pages): the same page, since nothing changes the state between them.
    const page = this.pageInFront();
    return this.surface.controls.map((control) => ({ control, picture: pictures.get(control.id)?.picture ?? BLANK, binding: bindingOn(page, control.id, this.controls) ?? null }));
  }

  start(): void {
    if (this.subscription || this.stopped) return;
    this.applyBrightness(this.state.brightness);
    const { scheduler } = this.services.time;
    // The recorders' state is drawn as soon as it answers (a command's effect must show at once), and so
    // is a gain this bridge writes; the three state reads answer moments apart, so one refresh covers a
    // burst of them. Fetched previews and meters are drawn together, at most every FETCHED_MS.
    const changes: Observable<unknown>[] = [];
    const fetched: Observable<unknown>[] = [];
    for (const handle of this.services.recorders.values()) {
      changes.push(handle.link.state$, handle.extras.gainWritten$);
      fetched.push(handle.extras.fetched$);
    }
    // A raise, an acknowledgement or a clear redraws the alarms keys at once (they read the monitor's book).
    if (this.services.alarms) changes.push(this.services.alarms.changed$);
    // A fetch changes no state (only pictures): what reads one is derived again, not the whole surface.
    const triggers = merge(merge(...changes).pipe(auditTime(COALESCE_MS, scheduler), map(() => 'state' as const)), merge(...fetched).pipe(auditTime(FETCHED_MS, scheduler), map(() => 'fetched' as const)));
    this.subscription = new Subscription();
    // A surface nobody sees is not drawn and follows no state: it is picked up again when seen.
    const watched$ = this.surface.watched$ ?? of(true);
    this.subscription.add(
      watched$
        .pipe(
          tap((watched) => {
            this.watched = watched;
            this.refresh();
          }),
          switchMap((watched) => (watched ? triggers : EMPTY)),
        )
        .subscribe((trigger) => (trigger === 'state' ? this.post('state', { type: 'observe' }) : this.refreshFetched())),
    );
    this.subscription.add(
      this.surface.input.subscribe({
        next: (input) => this.post('input', { type: 'input', input }),
        // Input that ends can report no more releases: what is held is let go without firing.
        error: (error: unknown) => {
          this.services.log.warn(`${this.surface.id}: input failed: ${messageOf(error)}`);
          this.post('input', { type: 'input', input: { type: 'lost' } });
        },
        complete: () => this.post('input', { type: 'input', input: { type: 'lost' } }),
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
    this.schedule.stop();
    for (const scheduled of this.timers.values()) scheduled.unsubscribe();
    this.timers.clear();
    this.services.work.cancel(`refresh:${this.surface.id}`);
    this.services.work.cancel(`fetched:${this.surface.id}`);
    this.refreshInLine = false;
    this.refreshRestInLine = false;
    this.fetchedInLine = false;
    this.refreshLeft = [];
    this.fetchedLeft = [];
    this.subscription?.unsubscribe();
    this.subscription = null;
    this.painter.stop(); // renderings still under way are not handed over
    this.demand.forget();
  }

  // Events and effects ----------------------------------------------------------------------------

  /**
   * An event, through the bridge's WorkScheduler at its priority: input and state run at once (or right
   * after a task running now), never behind pictures; what they change is drawn as picture work.
   */
  private post(priority: 'input' | 'state', event: SessionEvent): void {
    this.services.work.post(priority, '', () => this.dispatch(event));
  }

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
    return { now, profile: this.profile, dialogUp, controls: this.controls, alarmEngine: this.services.alarms !== undefined };
  }

  private carryOut(effect: SessionEffect, at: InputMoment): void {
    switch (effect.type) {
      case 'command':
        void this.command(effect, at);
        return;
      case 'start-timer': {
        this.timers.get(effect.timer)?.unsubscribe();
        const { scheduler } = this.services.time;
        const fire = () => {
          this.timers.delete(effect.timer);
          this.post('state', { type: 'timer', timer: effect.timer });
        };
        // The timer's event goes one turn of the clock after it falls due, so that the input which had
        // come by then is handled first. Node runs a timer that fell due while the thread was held (a
        // collector's pause, a CPU quota's hold) in its loop's timers phase, BEFORE it reads the sockets
        // and devices: a release that came 20 ms into a 1 s hold, with the thread held 1.2 s, would be
        // read after the hold fired, and a tap would do the hold's action (a rec-stop). A zero-delay step
        // set from a timer runs after that read (checked with two processes: a stall of 1.2 s after a
        // down, its up sent 20 ms later, the 1 s hold's timer ran first; its zero-delay step after the up).
        // The release then cancels the step with the hold (cancel-timer). Should the release truly have
        // come after the hold's moment, during the stall, it is taken as a tap all the same: which came
        // first cannot be known once both wait, and the key was let go by the time the bridge looked.
        const scheduled = scheduler.schedule(() => this.timers.set(effect.timer, scheduler.schedule(fire, 0)), effect.ms);
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
      case 'ack-alarms': {
        // The monitor acknowledges, emits each ack (audit, webhooks, pages) and its change redraws the keys.
        const { acked, asked } = this.services.alarms?.ackAll(`${this.surface.id} ${effect.control}`) ?? { acked: 0, asked: 0 };
        const count = (n: number) => (n === 1 ? '1 alarm' : `${n} alarms`);
        const what = acked === 0 && asked === 0 ? 'acknowledged no alarm (none was waiting)' : [acked > 0 ? `acknowledged ${count(acked)}` : '', asked > 0 ? `asked the pollers that judge them to acknowledge ${count(asked)}` : ''].filter((part) => part !== '').join(', and ');
        this.services.log.info(`${this.surface.id}: ${effect.control}: alarm-ack ${what}`);
        return;
      }
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
      groups: this.groups,
      defaultRecorder: this.services.defaultRecorder,
      time: this.services.time,
      log: this.services.log,
      audit: this.services.audit,
    });
    const reason = message === null ? null : flashReason(message);
    const shown = reason === null ? {} : { reason, readMs: this.readingMs(effect.control, reason) };
    this.post('state', { type: 'command-done', control: effect.control, page: effect.page, macro: effect.macro, outcome: result, ...shown });
  }

  /** How long a reason takes to read on the display that shows the control's marks: a page per period. */
  private readingMs(control: string, reason: string): number {
    const own = this.controls.get(control);
    const shownOn = own?.kind === 'encoder' && own.lcd !== undefined ? this.controls.get(own.lcd) : own;
    const size = shownOn?.kind === 'key' || shownOn?.kind === 'lcd' ? shownOn.pixelSize : null;
    return size === null ? 0 : this.services.renderer.reasonPages(reason, size) * REASON_PAGE_MS;
  }

  private applyBrightness(percent: number): void {
    // A profile's brightness (or the default) is for the devices that have one: a web deck, a MIDI
    // controller or a pedal shows none, and is not told it (the output would refuse it, rightly).
    if (this.surface.output.offers('brightness')) this.surface.output.show({ type: 'brightness', percent });
  }

  // Refreshes: pictures, their schedule and the demand -------------------------------------------------

  /**
   * Derives every control's picture again (something they are made of changed) and shows what differs:
   * picture work, in line on the WorkScheduler (one refresh waits at most; it derives from what is then).
   * It derives what its slice has time for; the rest waits in line under the same key, where a newer
   * refresh takes its place (and derives them all).
   */
  refresh(): void {
    if (this.stopped) return;
    this.refreshInLine = true;
    this.refreshRestInLine = false;
    // In the first picture line: a refresh derives what changed (a channel's REC -> STOP is found here),
    // so it goes ahead of the redraws of what only moves, as the changes it finds do.
    this.services.work.post('meaning', `refresh:${this.surface.id}`, (slice) => {
      this.refreshInLine = false;
      this.refreshNow(slice);
    });
  }

  private refreshNow(slice: Slice): void {
    if (this.stopped) return;
    if (!this.watched) {
      this.schedule.forget();
      this.demand.forget();
      this.refreshLeft = [];
      return;
    }
    this.demand.update(this.pageInFront(), this.state.selectedChannel, this.groups, this.profile.dialogPage !== undefined);
    this.refreshRest(leftFirst(this.refreshLeft, this.surface.controls), slice, false);
  }

  /** Part of a refresh: what the slice has time for now, the rest in line (nothing changed meanwhile, or a newer refresh took its place). */
  private refreshRest(controls: readonly ControlDefinition[], slice: Slice, isRest = true): void {
    const rest = this.showPictures(controls, slice, isRest);
    this.refreshLeft = rest;
    if (rest.length === 0) return;
    this.refreshRestInLine = true;
    this.services.work.post('meaning', `refresh:${this.surface.id}`, (next) => {
      this.refreshRestInLine = false;
      if (!this.stopped && this.watched) this.refreshRest(rest, next);
    });
  }

  /**
   * A fetched preview or meter read came: the pictures that read one are derived again, as picture work
   * (nothing, when a whole refresh waits in line: it derives them all), as many as the slice has time for
   * at a time.
   */
  private refreshFetched(): void {
    if (this.stopped || this.refreshInLine || this.readsFetched.size === 0) return;
    this.fetchedRest(null);
  }

  /** The controls that read a fetch (null: all of them, when the turn comes), or the rest of them. */
  private fetchedRest(controls: readonly ControlDefinition[] | null): void {
    this.fetchedInLine = true;
    // A newer fetch's refresh takes the place of a rest in line: it derives them all.
    this.services.work.post('pictures', `fetched:${this.surface.id}`, (slice) => {
      this.fetchedInLine = false;
      if (this.stopped || !this.watched || this.refreshInLine) return;
      const toShow = controls ?? leftFirst(this.fetchedLeft, this.surface.controls.filter((control) => this.readsFetched.has(control.id)));
      if (toShow.length === 0) return;
      const rest = this.showPictures(toShow, slice, controls !== null);
      this.fetchedLeft = rest;
      if (rest.length > 0) this.fetchedRest(rest);
    });
  }

  /**
   * Derives again the pictures whose moment to change by time alone has come. Nothing else changed since
   * the others were derived: every change of what pictures are made of refreshes them all.
   */
  private refreshDue(slice: Slice): void {
    if (this.stopped) return;
    const due = this.schedule.due(this.surface.controls);
    // A timer may fire a moment early by the wall clock: it is set again for what is still to come.
    if (due.length === 0) this.schedule.schedule();
    // The slice ran out: the rest are still due (the ones derived are noted anew), in line again.
    else if (this.showPictures(due, slice, false).length > 0) this.schedule.again();
  }

  /**
   * Derives the controls' pictures in order, as many as the slice has time for (at least one), and shows
   * them; returns the controls not derived yet. `isRest`: the rest of a refresh counted already.
   */
  private showPictures(controls: readonly ControlDefinition[], slice: Slice, isRest: boolean): readonly ControlDefinition[] {
    const derived = this.computePictures(controls, () => slice.spent());
    if (!isRest) this.stats.refreshes++;
    this.stats.pictures += derived.size;
    for (const [id, { picture, changesAt, readsFetched }] of derived) {
      this.painter.show(id, picture);
      this.schedule.note(id, changesAt);
      if (readsFetched) this.readsFetched.add(id);
      else this.readsFetched.delete(id);
    }
    this.schedule.schedule();
    return derived.size < controls.length ? controls.slice(derived.size) : [];
  }

  private computePictures(controls: readonly ControlDefinition[], spent?: () => boolean): Map<string, DerivedPicture> {
    return this.pictures.derive(controls, { profile: this.profile, state: this.state, page: this.pageInFront(), groups: this.groups, marksSelection: this.marksSelection }, spent);
  }

  private pageInFront() {
    return effectivePage(this.world(), this.state.page);
  }

  private bindingInFront(control: string): Binding | undefined {
    return bindingOn(this.pageInFront(), control, this.controls);
  }
}

/** `controls` in an order that puts those `left` (by a refresh cut short) first, each once. */
function leftFirst(left: readonly ControlDefinition[], controls: readonly ControlDefinition[]): readonly ControlDefinition[] {
  if (left.length === 0) return controls;
  const ids = new Set(controls.map((control) => control.id));
  const first = left.filter((control) => ids.has(control.id));
  const firstIds = new Set(first.map((control) => control.id));
  return [...first, ...controls.filter((control) => !firstIds.has(control.id))];
}
