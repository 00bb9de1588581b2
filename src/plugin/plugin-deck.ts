// The plugin's engine side: the app's visible action instances, made into engine surfaces and run by the
// engine's Bridge, the same sessions as on the bridge's own decks. State has one owner each: the app owns
// which instances are visible and their settings (this keeps its last word), the global settings own the
// recorders, and each recorder in use has one Bridge (one poller) for every instance that names it, on
// every device. A recorder no visible instance names is not polled; nothing is polled while none is
// visible. Each visible instance is a surface of its own (a key, or a dial and its strip cell) with a
// profile of its own, made again only when its own settings or place change: another action appearing or
// disappearing beside it (a page turned in the app, an action dragged in) leaves its session alone, so a
// key held at that moment still fires, or is let go, as its own hold decides.
import { Subscription } from 'rxjs';
import { RecorderClient } from '../api/client.js';
import { messageOf } from '../api/errors.js';
import { Bridge } from '../engine/bridge.js';
import type { EngineTime } from '../engine/engine-time.js';
import type { CommandRecord, Logger } from '../engine/log.js';
import { onDemandLink, type RecorderLink } from '../engine/recorder-link.js';
import type { LabelPicture } from '../engine/picture.js';
import type { Binding, LoadedProfile } from '../profiles/schema.js';
import { KEY_SIZE, AppSurface, STRIP_SIZE, type VisibleInstance } from './app-surface.js';
import { svgDataUrl, type AppCommands } from './app-transport.js';
import { bindingOf, pluginActionOf } from './plugin-actions.js';
import { FacilityJoinError } from './facility-join-error.js';
import { checkActionSettings, checkGlobalSettings, describeIssue, type FacilityEntry, type RecorderEntry } from './settings.js';
import { previewThumbnail } from './preview-thumbnail.js';
import { SvgTileRenderer, svgOf } from './svg-tiles.js';

/** What the plugin asks of the app beyond drawing: the result marks on a key. */
export interface AppFeedback extends AppCommands {
  showOk(context: string): Promise<void>;
  showAlert(context: string): Promise<void>;
}

/** An action instance as the app last described it. */
export interface AppInstance extends VisibleInstance {
  /** The app's action UUID. */
  uuid: string;
  device: string;
  settings: unknown;
}

export interface PluginDeckOptions {
  app: AppFeedback;
  log: Logger;
  time: EngineTime;
  /** State polls' interval (default the engine's 250 ms). */
  pollMs?: number;
  /** Makes the client of a recorder polled directly (default: recdeck's RecorderClient on `time`); tests count its requests. */
  clientOf?: (entry: RecorderEntry) => RecorderClient;
  /** Joins a facility as a panel (facility-panel.ts); without it, global settings naming a facility are refused. */
  joinFacility?: (entry: FacilityEntry) => Promise<FacilityPanel>;
}

/** This desk on a facility's state bus: each recorder followed there, no token held. */
export interface FacilityPanel {
  id: string;
  /** A new link following `recorder` on the bus (its Bridge starts and stops it). */
  link(recorder: string): RecorderLink;
  /** The facility's recorders as seen on the bus (a poller of each signed its lease), sorted. */
  recorders(): string[];
  close(): Promise<void>;
}

/**
 * Where the recorders are: polled here with their tokens (direct), or on a facility's bus, joined or
 * being joined (panel null) or not joinable (problem: the short word its keys show and the log's words).
 */
type RecorderSource =
  | { kind: 'direct'; recorders: Map<string, RecorderEntry> }
  | { kind: 'facility'; entry: FacilityEntry; generation: number; panel: FacilityPanel | null; problem: { short: string; message: string } | null };

/** One recorder in use: its Bridge and the surfaces (one per action instance naming it) it runs. */
interface Desk {
  /** What it was made from (the recorder's entry, or the facility joined): another is another desk. */
  origin: string;
  bridge: Bridge;
  /** By the instance's context. */
  surfaces: Map<string, { surface: AppSurface; signature: string; profile: LoadedProfile }>;
  subscription: Subscription;
}

export class PluginDeck {
  private readonly instances = new Map<string, AppInstance>();
  private source: RecorderSource = { kind: 'direct', recorders: new Map() };
  /** Counts the facilities joined, so that a join superseded by newer settings is closed, never used. */
  private joins = 0;
  private readonly desks = new Map<string, Desk>();
  /** What each instance that cannot run shows (its problem), so it is said once, not at every change. */
  private readonly problems = new Map<string, string>();
  private readonly renderer = new SvgTileRenderer();
  /**
   * Recorders that refused their token: their keys say so and they are not polled (another read would be
   * refused the same way) until the global settings change.
   */
  private readonly refused = new Set<string>();
  private globalsKnown = false;

  constructor(private readonly options: PluginDeckOptions) {}

  /** The plugin's global settings as the app sent them; bad ones are refused whole and the last good kept. */
  setGlobalSettings(raw: unknown): { ok: true } | { ok: false; problems: string[] } {
    const parsed = checkGlobalSettings(raw ?? {});
    if (!parsed.success) {
      const problems = parsed.error.issues.map(describeIssue);
      // The problems name paths and rules, never the values: a token is never written to the log.
      this.options.log.warn(`global settings refused (the last good ones stay in use): ${problems.join('; ')}`);
      return { ok: false, problems };
    }
    this.refused.clear();
    this.globalsKnown = true;
    void this.leaveFacility();
    const settings = parsed.data;
    if ('mqtt' in settings) {
      this.join(settings.mqtt);
    } else {
      this.source = { kind: 'direct', recorders: new Map(settings.recorders.map((entry) => [entry.name, entry])) };
      this.options.log.info(`recorders: ${settings.recorders.map((r) => `"${r.name}" at ${r.url}`).join(', ') || 'none'}`);
    }
    this.reconcile();
    return { ok: true };
  }

  /** Joins the facility; until it is joined no recorder is followed, and a join that fails is said on every key. */
  private join(entry: FacilityEntry): void {
    const generation = ++this.joins;
    this.source = { kind: 'facility', entry, generation, panel: null, problem: null };
    this.options.log.info(`facility: joining the state bus ${entry.url} as the panel "${entry.id}"`);
    const joining = this.options.joinFacility?.(entry) ?? Promise.reject(new FacilityJoinError('NO BUS', 'this plugin cannot join a facility'));
    joining.then(
      (panel) => {
        const current = this.source;
        if (current.kind !== 'facility' || current.generation !== generation) {
          void panel.close();
          return;
        }
        this.source = { ...current, panel };
        this.reconcile();
      },
      (error: unknown) => {
        const current = this.source;
        if (current.kind !== 'facility' || current.generation !== generation) return;
        const problem = error instanceof FacilityJoinError ? { short: error.short, message: error.message } : { short: 'NO BUS', message: messageOf(error) };
        this.options.log.error(`facility: cannot join as "${entry.id}": ${problem.message}`);
        this.source = { ...current, problem };
        this.reconcile();
      },
    );
  }

  /** Leaves the facility joined (its desks are closed by the next reconcile: their origin is gone). */
  private async leaveFacility(): Promise<void> {
    const previous = this.source;
    if (previous.kind !== 'facility' || previous.panel === null) return;
    this.source = { kind: 'direct', recorders: new Map() };
    await Promise.all([...this.desks.keys()].map((name) => this.closeDesk(name)));
    await previous.panel.close();
  }

  /** What a desk for `name` is made from now, or null when it cannot be made (unknown, or the facility not joined). */
  private originOf(name: string): string | null {
    const source = this.source;
    if (source.kind === 'facility') return source.panel === null ? null : `facility ${source.generation}`;
    const entry = source.recorders.get(name);
    return entry === undefined ? null : JSON.stringify(entry);
  }

  appear(instance: AppInstance): void {
    if (pluginActionOf(instance.uuid) === undefined) {
      this.options.log.warn(`${instance.context}: action "${instance.uuid}" is not one of this plugin's; ignored`);
      return;
    }
    this.instances.set(instance.context, instance);
    this.reconcile();
  }

  disappear(context: string): void {
    if (!this.instances.delete(context)) return;
    this.problems.delete(context);
    this.reconcile();
  }

  settingsChanged(context: string, settings: unknown): void {
    const instance = this.instances.get(context);
    if (instance === undefined) return;
    this.instances.set(context, { ...instance, settings });
    this.reconcile();
  }

  /** A key or dial pressed or released, a dial turned: to its session; an instance that cannot run says why. */
  input(context: string, input: { type: 'down' } | { type: 'up' } | { type: 'rotate'; amount: number } | { type: 'touch' }): void {
    const instance = this.instances.get(context);
    if (instance === undefined) {
      this.options.log.warn(`${context}: input for an action the app never showed; ignored`);
      return;
    }
    const problem = this.problems.get(context);
    if (problem !== undefined) {
      if (input.type === 'down' || input.type === 'rotate') {
        this.options.log.warn(`${context}: ${problem}: nothing sent`);
        void this.options.app.showAlert(context);
      }
      return;
    }
    const surface = this.surfaceOf(instance);
    if (surface === undefined) return;
    if (input.type === 'rotate') surface.inject({ type: 'rotate', control: context, amount: input.amount });
    else if (input.type === 'touch') surface.inject({ type: 'touch', control: `${context}/strip`, gesture: 'tap' });
    else surface.inject({ type: input.type, control: context });
  }

  /** Every poll and session stopped (the plugin is quitting). */
  async stop(): Promise<void> {
    await Promise.all([...this.desks.keys()].map((name) => this.closeDesk(name)));
    const source = this.source;
    this.joins++;
    if (source.kind === 'facility' && source.panel !== null) await source.panel.close();
  }

  /** Why an instance cannot run (its settings, its recorder), or null when it runs or is not visible. */
  problemOf(context: string): string | null {
    return this.problems.get(context) ?? null;
  }

  /**
   * The recorders an action may name: those in the global settings, or a facility's as this panel has
   * seen them on the bus (none until it has joined).
   */
  get knownRecorders(): string[] {
    const source = this.source;
    if (source.kind === 'direct') return [...source.recorders.keys()];
    return source.panel?.recorders() ?? [];
  }

  /** How many recorders are polled now (one per recorder a visible instance names). */
  get polledRecorders(): string[] {
    return [...this.desks.keys()];
  }

  // Derived: desks and surfaces from the instances and the recorders ----------------------------------

  private reconcile(): void {
    // recorder → instances that run, in a stable order.
    const wanted = new Map<string, Array<{ instance: AppInstance; binding: Binding }>>();
    for (const instance of [...this.instances.values()].sort((a, b) => (a.context < b.context ? -1 : 1))) {
      const runnable = this.runnable(instance);
      if (runnable === null) continue;
      const list = wanted.get(runnable.recorder) ?? [];
      wanted.set(runnable.recorder, list);
      list.push({ instance, binding: runnable.binding });
    }
    for (const [name, desk] of this.desks) {
      if (!wanted.has(name) || this.originOf(name) !== desk.origin) void this.closeDesk(name);
    }
    for (const [name, list] of wanted) this.updateDesk(name, list);
  }

  /** The recorder and binding an instance runs with, or null after drawing why it cannot run. */
  private runnable(instance: AppInstance): { recorder: string; binding: Binding } | null {
    const action = pluginActionOf(instance.uuid);
    if (action === undefined) return null;
    const checked = checkActionSettings(action.name, instance.settings);
    let problem: string | null = null;
    let picture: LabelPicture | null = null;
    if (!checked.ok) {
      problem = `settings: ${checked.problems.join('; ')}`;
      picture = errorPicture(`SETTINGS\n${checked.problems[0]?.split(':')[0] ?? '?'}`);
    } else if (this.refused.has(checked.value.recorder)) {
      problem = `recorder "${checked.value.recorder}" refuses its token: correct it in the plugin's global settings`;
      picture = errorPicture(`WRONG TOKEN\n${checked.value.recorder}`);
    } else if (this.source.kind === 'facility') {
      const { problem: joinProblem, panel } = this.source;
      if (joinProblem !== null) {
        problem = `facility: ${joinProblem.message}`;
        picture = errorPicture(`${joinProblem.short}\n${checked.value.recorder}`);
      } else if (panel === null) {
        // Still joining: nothing to say yet; the key is drawn when the join ends.
        this.problems.delete(instance.context);
        return null;
      }
    } else if (!this.source.recorders.has(checked.value.recorder)) {
      // Before the global settings arrive, a recorder is not yet known: nothing is said until they do.
      problem = `no recorder "${checked.value.recorder}" in the plugin's global settings`;
      picture = errorPicture(`NO RECORDER\n${checked.value.recorder}`);
    }
    if (problem === null || picture === null) {
      this.problems.delete(instance.context);
      return checked.ok ? { recorder: checked.value.recorder, binding: bindingOf(checked.value, instance.controller === 'Encoder' ? 'dial' : 'key') } : null;
    }
    if (this.problems.get(instance.context) !== problem) {
      this.problems.set(instance.context, problem);
      if (this.globalsKnown || !problem.startsWith('no recorder')) this.options.log.warn(`${instance.context} (${action.name}): ${problem}`);
      void this.drawProblem(instance, picture);
    }
    return null;
  }

  private async drawProblem(instance: AppInstance, picture: LabelPicture): Promise<void> {
    const dial = instance.controller === 'Encoder';
    const tile = await this.renderer.render(picture, dial ? STRIP_SIZE : KEY_SIZE);
    const url = svgDataUrl(svgOf(tile));
    try {
      if (dial) await this.options.app.setFeedback(instance.context, { 'full-canvas': url, title: '' });
      else await this.options.app.setImage(instance.context, url);
    } catch (error) {
      this.options.log.warn(`${instance.context}: drawing its problem failed: ${messageOf(error)}`);
    }
  }

  /**
   * The desk's surfaces made to match its instances: one made for each instance that is new or whose
   * settings or place changed, one dropped for each gone. The others keep their session (and the very
   * profile object it is bound to, which the Bridge leaves alone), so a hold on them goes on.
   */
  private updateDesk(name: string, list: ReadonlyArray<{ instance: AppInstance; binding: Binding }>): void {
    const desk = this.desks.get(name) ?? this.openDesk(name);
    const visible = new Set(list.map(({ instance }) => instance.context));
    let changed = false;
    for (const context of [...desk.surfaces.keys()]) {
      if (visible.has(context)) continue;
      this.dropSurface(desk, context);
      changed = true;
    }
    const made: AppSurface[] = [];
    for (const { instance, binding } of list) {
      const signature = JSON.stringify([instance.device, instance.controller, instance.row, instance.column, binding]);
      if (desk.surfaces.get(instance.context)?.signature === signature) continue;
      this.dropSurface(desk, instance.context);
      const id = `app:${instance.device}:${instance.context}`;
      const surface = new AppSurface(id, `Stream Deck app device ${instance.device}`, [instance], this.options.app, this.options);
      const profile: LoadedProfile = {
        file: `stream-deck-app:${instance.context}`,
        origin: 'operator',
        profile: { name: `Stream Deck app (${name})`, match: { kind: 'streamdeck', serial: id }, pages: [{ name: 'app', controls: { [instance.context]: binding } }] },
      };
      desk.surfaces.set(instance.context, { surface, signature, profile });
      made.push(surface);
    }
    if (made.length === 0 && !changed) return;
    desk.bridge.setProfiles([...desk.surfaces.values()].map((s) => s.profile));
    for (const surface of made) desk.bridge.addSurface(surface);
  }

  private dropSurface(desk: Desk, context: string): void {
    const current = desk.surfaces.get(context);
    if (current === undefined) return;
    desk.surfaces.delete(context);
    desk.bridge.removeSurface(current.surface.id);
    void current.surface.close();
  }

  private openDesk(name: string): Desk {
    const source = this.source;
    const origin = this.originOf(name) as string;
    const link = source.kind === 'facility' ? (source.panel as FacilityPanel).link(name) : null;
    const client = source.kind === 'direct' ? this.clientOf(source.recorders.get(name) as RecorderEntry) : null;
    // Polled here, only the parts its visible actions need (parts-needed.ts); followed on a bus, as the facility reads it.
    const recorder = { name, link: link ?? onDemandLink(name, client as RecorderClient, { time: this.options.time, ...(this.options.pollMs === undefined ? {} : { pollMs: this.options.pollMs }) }) };
    const where = link !== null ? link.address : (client as RecorderClient).url;
    const bridge = new Bridge({
      recorders: [recorder],
      // Tiles as SVG; a key that asks for its channel's preview shows it behind the state, decoded in
      // plain JS (no native module on the app's Node) once per new preview, at the key's size.
      renderer: (thumbnails) => new SvgTileRenderer({ thumbnails }),
      decodeThumbnail: previewThumbnail,
      log: this.options.log,
      time: this.options.time,
      ...(this.options.pollMs === undefined ? {} : { pollMs: this.options.pollMs }),
    });
    const subscription = bridge.commands$.subscribe((record) => this.showResult(record));
    subscription.add(
      bridge.recorderState$(name)?.subscribe((state) => {
        if (state.failures === 0 || state.lastError === null || !TOKEN_REFUSED.test(state.lastError) || this.refused.has(name)) return;
        this.refused.add(name);
        this.options.log.warn(`recorder "${name}" at ${where} refuses the token (${state.lastError}); its keys say WRONG TOKEN until the global settings change`);
        this.reconcile();
      }),
    );
    const desk: Desk = { origin, bridge, surfaces: new Map(), subscription };
    this.desks.set(name, desk);
    bridge.start();
    this.options.log.info(`recorder "${name}" at ${where}: ${source.kind === 'facility' ? 'followed on the bus' : 'polled'} while its actions are visible`);
    return desk;
  }

  private clientOf(entry: RecorderEntry): RecorderClient {
    if (this.options.clientOf !== undefined) return this.options.clientOf(entry);
    return new RecorderClient({ url: entry.url, token: entry.token, clock: this.options.time });
  }

  private async closeDesk(name: string): Promise<void> {
    const desk = this.desks.get(name);
    if (desk === undefined) return;
    this.desks.delete(name);
    for (const context of [...desk.surfaces.keys()]) this.dropSurface(desk, context);
    desk.subscription.unsubscribe();
    await desk.bridge.stop();
    this.options.log.info(`recorder "${name}": no visible action names it; not polled`);
  }

  /** A command's result on its key: the app's own mark, beside the tile's flash and the log. */
  private showResult(record: CommandRecord): void {
    const context = record.control;
    const instance = this.instances.get(context);
    if (instance === undefined) return;
    if (record.result === 'ok') {
      if (instance.controller === 'Keypad') void this.options.app.showOk(context).catch(() => undefined);
      return;
    }
    this.options.log.warn(`${context} (${record.action}): ${record.result}: ${record.message ?? 'no reason given'}`);
    void this.options.app.showAlert(context).catch(() => undefined);
  }

  private surfaceOf(instance: AppInstance): AppSurface | undefined {
    const checked = checkActionSettings(pluginActionOf(instance.uuid)?.name ?? '', instance.settings);
    if (!checked.ok) return undefined;
    return this.desks.get(checked.value.recorder)?.surfaces.get(instance.context)?.surface;
  }
}

/** How a recorder's refusal of the token reads in a failed request's message (401 or 403, or its own words). */
const TOKEN_REFUSED = /failed with 40[13]\b|authori[sz]ation|token/i;

function errorPicture(text: string): LabelPicture {
  return { kind: 'label', text, icon: null, color: '#000000', active: null };
}
