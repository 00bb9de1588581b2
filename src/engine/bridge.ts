// The bridge: one poller per recorder, one session per surface, each surface bound to the profile that
// fits it best. Surfaces come and go (hot-plug); profiles change (file edits); recorders drop out and
// come back. None of that stops the rest.
import { Subject, Subscription, pairwise, startWith, type Observable } from 'rxjs';
import type { RecorderClient, RequestRecord } from '../api/client.js';
import { messageOf } from '../api/errors.js';
import { checkBindings, chooseProfile, tieOf, type ProfileTie } from './profile-match.js';
import type { LoadedProfile } from '../profiles/schema.js';
import { DEFAULT_DISK_TIME, DiskTimes, type DiskTimeLeft, type DiskTimeSettings } from './disk-time.js';
import { DurationClock } from './duration-clock.js';
import type { EngineTime } from './engine-time.js';
import { SaidOnce } from './log-limit.js';
import type { CommandRecord, Logger } from './log.js';
import { RecorderExtras } from './recorder-extras.js';
import { pollingLink, type RecorderLink } from './recorder-link.js';
import { RecorderPoller } from './recorder-poller.js';
import { declaredGroups, membersOf, type RecorderGroups } from './recorder-group.js';
import { recordersUsedBy } from './recorders-in-use.js';
import type { RecorderState } from './recorder-state.js';
import type { RgbImage, Surface } from './surface.js';
import type { BoundProfile, PictureRenderer, RecorderHandle } from './session-services.js';
import { SurfaceSession } from './surface-session.js';
import { WorkScheduler } from './work-scheduler.js';
import { CpuBudget, type CpuMeter, type CpuQuota } from './cpu-budget.js';
import { meterEvery, previewEvery, statePollEvery } from './picture-pace.js';
import type { CommandActivity } from './alarms/alarm-conditions.js';
import { CommandActivityLog } from './alarms/command-activity.js';
import type { AlarmMonitor } from './alarms/alarm-monitor.js';

const NO_GROUPS: RecorderGroups = new Map();

export interface BridgeOptions {
  /** The first is the default recorder of bindings that name none. */
  recorders: ReadonlyArray<{ name: string; client: RecorderClient } | { name: string; link: RecorderLink }>;
  /** Makes the renderer, given where it finds the decoded previews that channel pictures name. */
  renderer: (thumbnails: (key: string) => RgbImage | undefined) => PictureRenderer;
  decodeThumbnail: (png: Uint8Array) => Promise<RgbImage>;
  log: Logger;
  /** When a disk's time left turns the resources key amber and red, and the window its rate is measured over. */
  diskTime?: Partial<DiskTimeSettings>;
  /** Recorder groups by name (`--recorder-group studio=main,backup`); a profile's own win over these. */
  groups?: RecorderGroups;
  pollMs?: number;
  slowMs?: number;
  thumbnailMs?: number;
  meterMs?: number;
  /** The clock and scheduler of every poll, fetch, frame and timer; real time by default. */
  time: EngineTime;
  /**
   * Under a CPU quota: the process's CPU and the quota now, from which pictures and the page's frames get
   * a budget (cpu-budget.ts) that leaves input and state headroom in every period; absent: no budget.
   */
  cpu?: { meter: CpuMeter; quota: () => CpuQuota | null };
}

export class Bridge {
  private readonly handles = new Map<string, RecorderHandle>();
  private readonly sessions = new Map<string, SurfaceSession>();
  private readonly surfaces = new Map<string, Surface>();
  /** The profile each surface's session was bound to, as given (see bind). */
  private readonly boundTo = new Map<string, LoadedProfile>();
  private readonly commands = new Subject<CommandRecord>();
  private readonly sessionChanges = new Subject<void>();
  private readonly subscription = new Subscription();
  /** The tie last reported per surface, so that a reload leaving it unchanged does not say it again. */
  private readonly reportedTies = new SaidOnce();
  private profiles: readonly LoadedProfile[] = [];
  /** The engine's one clock: what reads the bridge's state beside it (the page, the API, metrics) ages it on this too. */
  readonly time: EngineTime;
  readonly renderer: PictureRenderer;
  /** The order of work (input, state, pictures, page frames) for every session and the page's socket. */
  readonly work: WorkScheduler;
  /** Key sizes whose warm-ups were posted (warmUp). */
  private readonly warmed = new Set<string>();
  /** recdeck's own writes under way to each recorder (the alarm engine tells its stops from others'). */
  private readonly commandActivity: CommandActivityLog;
  /** The alarm engine the sessions show and acknowledge in (attachAlarms); null: none. */
  private alarms: AlarmMonitor | null = null;
  /** Previews decoded so far (each decode's key on the picture line). */
  private decodes = 0;

  constructor(private readonly options: BridgeOptions) {
    if (options.recorders.length === 0) throw new Error('the bridge needs at least one recorder');
    this.time = options.time;
    this.commandActivity = new CommandActivityLog(this.time);
    const cpuBudget = options.cpu ? new CpuBudget(this.time, options.cpu) : undefined;
    this.work = new WorkScheduler(this.time, { onError: (priority, error) => options.log.warn(`${priority} work failed: ${messageOf(error)}`), ...(cpuBudget ? { cpuBudget } : {}) });
    this.renderer = options.renderer((key) => this.thumbnailImage(key));
    for (const recorder of options.recorders) {
      const { name } = recorder;
      // A recorder given by its client is polled here; one given by a link (a bus) brings its own state.
      const link = this.commandActivity.watch('link' in recorder ? recorder.link : pollingLink(new RecorderPoller(name, recorder.client, { pollMs: options.pollMs ?? 250, slowMs: options.slowMs ?? 5000, time: this.time })));
      // Previews are spaced out while pictures take more than their share of the time (the scheduler's
      // pace of what only moves, the one measurement of it): a held bridge spends its share on presses
      // and state, not on pictures nobody reads frame by frame.
      // Meters too, at most half as often (picture-pace.ts meterEvery), from the same one pace.
      const thumbnailEvery = () => previewEvery(this.work.paceMs());
      const metersEvery = () => meterEvery(this.work.paceMs());
      // Sync and dialog too, every other poll at most (picture-pace.ts statePollEvery), from the same one
      // pace; each value is live for three of the intervals it was read at (recorder-state.ts liveForMs),
      // so a key shows them up to one poll older while the bridge is held, never past their age.
      link.paceStatePolls?.(() => statePollEvery(this.work.paceMs()));
      const extras = new RecorderExtras(link, { decodeThumbnail: (png) => this.decodeAsPicture(png), thumbnailMs: options.thumbnailMs ?? 1000, thumbnailEvery, meterMs: options.meterMs ?? 250, meterEvery: metersEvery, time: this.time });
      const durations = new DurationClock();
      const diskTimes = new DiskTimes({ ...DEFAULT_DISK_TIME, ...options.diskTime });
      this.handles.set(name, { name, link, extras, durations, diskTimes });
    }
  }

  /**
   * Decodes a preview as picture work: after input and state, in the scheduler's slices, and measured in
   * its busy share with the renderings it leads to. Outside the scheduler (as before) the decode, most of
   * a preview's cost, was not in the share the pace follows: under a CPU quota the share stayed low
   * while previews held the bridge, and the pace eased back to every preview. Each decode has a key of
   * its own: a preview's fetch waits for its decode (one fetch of a channel at a time), so none is
   * ever replaced unanswered.
   */
  private decodeAsPicture(png: Uint8Array): Promise<RgbImage> {
    const key = `preview-decode:${++this.decodes}`;
    return new Promise<RgbImage>((resolve, reject) => this.work.post('pictures', key, () => this.options.decodeThumbnail(png).then(resolve, reject)));
  }

  /**
   * The alarm engine (made over this bridge, so given after it): every session made from now on shows its
   * alarms and acknowledges them. Given before any surface is added, so no session is left without it.
   */
  attachAlarms(monitor: AlarmMonitor): void {
    if (this.sessions.size > 0) throw new Error('the alarm engine must be attached before surfaces are added: sessions made already would show no alarms');
    this.alarms = monitor;
  }

  /** Emits when a surface gets, changes or loses its session (surfaces come and go, profiles change). */
  get sessionsChanged$(): Observable<void> {
    return this.sessionChanges.asObservable();
  }

  /** Every command carried out or refused, for the audit log. */
  get commands$(): Observable<CommandRecord> {
    return this.commands.asObservable();
  }

  /** recdeck's own writes to a recorder: how many are under way, when the last was answered. */
  commandsOf(recorder: string): CommandActivity {
    return this.commandActivity.of(recorder);
  }

  /**
   * The link the bridge calls a recorder through, its writes counted as recdeck's own (issue 36: a bus
   * poller runs its panels' commands through it, so their stops are no unexpected-stop).
   */
  commandLink(recorder: string): RecorderLink | undefined {
    return this.handles.get(recorder)?.link;
  }

  /** The command line's recorder groups (each profile adds its own). */
  get groups(): RecorderGroups {
    return this.options.groups ?? NO_GROUPS;
  }

  get defaultRecorder(): string {
    return this.options.recorders[0]?.name as string;
  }

  recorderStates(): RecorderState[] {
    return [...this.handles.values()].map((h) => h.link.state);
  }

  recorderState$(name: string): Observable<RecorderState> | undefined {
    return this.handles.get(name)?.link.state$;
  }

  /** Calls `observer` after every request to any recorder; returns the function that stops it. */
  observeRequests(observer: (recorder: string, record: RequestRecord) => void): () => void {
    const stops = [...this.handles.values()].map((h) => h.link.observe((record) => observer(h.name, record)));
    return () => stops.forEach((stop) => stop());
  }

  /** A channel's take duration in seconds, interpolated between polls (null when not recording). */
  durationOf(recorder: string, index: number): number | null {
    return this.handles.get(recorder)?.durations.read(`${index}`, this.time.now()) ?? null;
  }

  /** Time left on each of a recorder's recording disks now (empty while nothing records or for no such recorder). */
  diskTimesLeft(recorder: string): DiskTimeLeft[] {
    return this.handles.get(recorder)?.diskTimes.read(this.time.now()) ?? [];
  }

  /** Each recorder's name and address (never its token). */
  recorderAddresses(): Array<{ name: string; url: string }> {
    return [...this.handles.values()].map((h) => ({ name: h.name, url: h.link.address }));
  }

  /**
   * The recorders the bound profiles use (each binding's own, else the default; see recorders-in-use.ts),
   * configured ones first in their order, then names no recorder is configured by. While no surface is
   * bound, the default recorder: the one a surface plugged in would use.
   */
  recordersInUse(): string[] {
    const bound = new Set(this.surfaceSessions().map((session) => session.profileFile));
    if (bound.size === 0) return [this.defaultRecorder];
    const used = new Set<string>();
    for (const { profile, file } of this.profiles) {
      if (!bound.has(file)) continue;
      const groups = new Map([...this.groups, ...declaredGroups(profile.recorders)]);
      for (const name of recordersUsedBy(profile.pages, this.defaultRecorder)) for (const member of membersOf(name, groups)) used.add(member);
    }
    const configured = [...this.handles.keys()];
    return [...configured.filter((name) => used.has(name)), ...[...used].filter((name) => !this.handles.has(name)).sort()];
  }

  /** A decoded preview by the key a channel picture carries (for the renderer). */
  thumbnailImage(key: string): RgbImage | undefined {
    for (const handle of this.handles.values()) {
      const image = handle.extras.thumbnailImage(key);
      if (image) return image;
    }
    return undefined;
  }

  surfaceSessions(): SurfaceSession[] {
    return [...this.sessions.values()];
  }

  session(surfaceId: string): SurfaceSession | undefined {
    return this.sessions.get(surfaceId);
  }

  start(): void {
    for (const handle of this.handles.values()) {
      this.subscription.add(handle.link.state$.pipe(startWith(null), pairwise()).subscribe(([previous, state]) => state && this.observeDurations(handle, state, previous)));
      this.subscription.add(handle.link.state$.subscribe((state) => handle.diskTimes.observe(state)));
      this.subscription.add(this.trackReachability(handle));
      handle.link.start();
      handle.extras.start();
    }
  }

  /** The current good profiles (a bad edit keeps the last good version, as the watcher delivers it). */
  setProfiles(profiles: readonly LoadedProfile[]): void {
    this.profiles = profiles;
    for (const surface of this.surfaces.values()) this.bind(surface);
  }

  /** Whether a surface of this id is attached (the one list of surfaces is the bridge's). */
  hasSurface(id: string): boolean {
    return this.surfaces.has(id);
  }

  /** The surfaces attached now, in the order they came. */
  surfaceList(): Surface[] {
    return [...this.surfaces.values()];
  }

  addSurface(surface: Surface): void {
    this.surfaces.set(surface.id, surface);
    this.bind(surface);
    this.warmUp(surface);
  }

  /**
   * The renderer's warm-ups for each key size the surface has not seen yet on this bridge, as picture
   * work in line behind its first page, one step a task: so the first recording a key shows after start
   * is drawn from a ready base instead of waiting for sharp (docs/performance.md, "(j) the tail").
   */
  private warmUp(surface: Surface): void {
    for (const control of surface.controls) {
      if (control.kind !== 'key') continue;
      const size = `${control.pixelSize.width}x${control.pixelSize.height}`;
      if (this.warmed.has(size)) continue;
      this.warmed.add(size);
      for (const [i, step] of (this.renderer.warmUps?.(control.pixelSize) ?? []).entries()) this.work.post('pictures', `warm:${size}:${i}`, () => step());
    }
  }

  removeSurface(id: string): void {
    this.sessions.get(id)?.stop();
    this.sessions.delete(id);
    this.surfaces.delete(id);
    this.boundTo.delete(id);
    this.reportedTies.forget(id);
    this.sessionChanges.next();
  }

  /** Blanks every surface and stops polling (on exit). */
  async stop(): Promise<void> {
    this.subscription.unsubscribe();
    for (const session of this.sessions.values()) session.stop();
    for (const handle of this.handles.values()) {
      handle.link.stop();
      handle.extras.stop();
    }
    await Promise.all([...this.surfaces.values()].map((s) => s.output.clear()));
    this.sessions.clear();
  }

  /** The good profiles now (the editor lists which surfaces each one drives, and why). */
  loadedProfiles(): readonly LoadedProfile[] {
    return this.profiles;
  }

  /** Every surface attached, with a profile or without one. */
  attachedSurfaces(): Surface[] {
    return [...this.surfaces.values()];
  }

  /** The profiles that tie for a surface (the one in use and the others), or null when one fits best. */
  profileTie(surfaceId: string): ProfileTie | null {
    const surface = this.surfaces.get(surfaceId);
    return surface ? tieOf(chooseProfile(surface, this.profiles)) : null;
  }

  private bind(surface: Surface): void {
    const choice = chooseProfile(surface, this.profiles);
    this.reportTie(surface, tieOf(choice));
    const chosen = choice?.winner;
    const current = this.sessions.get(surface.id);
    // The very profile it is bound to (not a reload of it): the session is left alone, its holds stand
    // (the Stream Deck plugin gives each action its own surface and profile, and adds others beside it).
    if (current && chosen && this.boundTo.get(surface.id) === chosen) return;
    if (chosen) this.boundTo.set(surface.id, chosen);
    else this.boundTo.delete(surface.id);
    if (!chosen) {
      if (current) {
        current.stop();
        this.sessions.delete(surface.id);
        this.sessionChanges.next();
      }
      this.options.log.warn(`${surface.id} (${surface.name}): no profile fits kind "${surface.kind}", model "${surface.model}"`);
      void surface.output.clear();
      return;
    }
    const bound = boundProfile(chosen);
    for (const problem of checkBindings(chosen.profile, surface.controls)) this.options.log.warn(`${chosen.file}: ${problem}`);
    for (const problem of groupProblems(bound.groups, this.handles)) this.options.log.warn(`${chosen.file}: ${problem}`);
    if (current && current.profileFile === chosen.file) {
      current.setProfile(bound);
      this.sessionChanges.next();
      return;
    }
    current?.stop();
    const session = new SurfaceSession(surface, bound, {
      recorders: this.handles,
      groups: this.groups,
      defaultRecorder: this.defaultRecorder,
      renderer: this.renderer,
      log: this.options.log,
      audit: (record) => this.commands.next(record),
      time: this.time,
      ...(this.alarms ? { alarms: this.alarms } : {}),
      work: this.work,
    });
    this.sessions.set(surface.id, session);
    this.sessionChanges.next();
    this.options.log.info(`${surface.id} (${surface.name}): profile "${chosen.profile.name}" from ${chosen.file}`);
    session.start();
  }

  /**
   * Says once that profiles tie for a surface, naming the one in use; again only when the tie changes
   * (a reload that leaves it as it was says nothing).
   */
  private reportTie(surface: Surface, tie: ProfileTie | null): void {
    const whose = tie?.origin === 'shipped' ? "all in recdeck's own profiles/ folder" : 'none shipped with recdeck';
    const one = tie?.others.length === 1;
    const text =
      tie === null
        ? ''
        : `${surface.id} (${surface.name}): profiles tie: ${tie.winner} is in use; ${tie.others.join(', ')} ${one ? 'fits' : 'fit'} it just as well (as specific a match, ${whose}) and ${one ? 'loses' : 'lose'} by file name only: make the one meant more specific (match: name or serial) or remove the others`;
    if (text === '') this.reportedTies.forget(surface.id);
    else this.reportedTies.say(surface.id, text, (message) => this.options.log.warn(message));
  }

  /** Each new channel read narrows the durations' windows, at the time its answer came. */
  private observeDurations(handle: RecorderHandle, state: RecorderState, previous: RecorderState | null): void {
    const at = state.readAt.channels;
    if (at === null || state.channels === null || at === previous?.readAt.channels) return;
    for (const channel of state.channels) {
      const key = `${channel.Index}`;
      if (!channel.IsRecording) handle.durations.forget(key);
      else handle.durations.observe(key, !channel.IsRecordingPause, channel.RecordingDuration, at);
    }
  }

  /** Says once when a recorder stops answering and once when it is back. */
  private trackReachability(handle: RecorderHandle): Subscription {
    let reachable: boolean | null = null;
    let failures = 0;
    return handle.link.state$.subscribe((state) => {
      if (state.lastGoodAt === null && state.failures === 0) return; // not asked yet
      // Every failed read, below the warnings that wait for three in a row: the poller tries again, backing off.
      if (state.failures > failures) this.options.log.debug?.(`recorder "${handle.name}": a read failed (${state.failures} in a row: ${state.lastError ?? 'no answer'}); tried again`);
      failures = state.failures;
      const now = state.failures === 0 ? state.lastGoodAt !== null : false;
      if (now === reachable || (state.failures > 0 && state.failures < 3)) return;
      reachable = now;
      const where = `recorder "${handle.name}" at ${handle.link.address}`;
      if (now) this.options.log.info(`${where}: answering`);
      // Unreachable (refused, reset, timed out) is a network matter; anything else is the recorder
      // answering with errors or in a form recdeck does not understand, which the message names.
      else if (state.unreachable) this.options.log.warn(`${where}: not answering (${state.lastError ?? 'no answer'}); its keys show stale, then offline`);
      else this.options.log.warn(`${where}: answering with errors (${state.lastError ?? 'unknown'}); its keys show stale until it answers well`);
    });
  }
}

/** A profile's group that shadows a recorder, or names one not configured, is said (its commands would be refused). */
function groupProblems(groups: RecorderGroups, recorders: ReadonlyMap<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [name, members] of groups) {
    if (recorders.has(name)) problems.push(`recorders.${name}: a recorder is configured by this name; the group takes it over in this profile's bindings`);
    const missing = members.filter((m) => !recorders.has(m));
    if (missing.length > 0) problems.push(`recorders.${name}: no recorder is configured as ${missing.map((m) => `"${m}"`).join(', ')}; commands to the group are refused until it is`);
  }
  return problems;
}

function boundProfile({ profile, file }: LoadedProfile): BoundProfile {
  return {
    name: profile.name,
    file,
    pages: profile.pages,
    groups: declaredGroups(profile.recorders),
    ...(profile.brightness === undefined ? {} : { brightness: profile.brightness }),
    ...(profile.overlays?.dialog === undefined ? {} : { dialogPage: profile.overlays.dialog }),
  };
}
