// The alarm engine running: once a poll, on the engine's clock, it gathers what the bridge knows (each
// recorder's state with its ages, recdeck's own commands under way, disks' time left, the recorder
// groups), lets the pure decision (alarm-decision.ts) judge it, and hands the raises, acks and clears to
// whoever delivers them (audit, webhooks, metrics, pages, keys). It owns the alarm book; everything else
// reads it from here. A recorder followed on the state bus is judged by its poller, not here: its alarms
// come from there (follow) and are merged into what this monitor gives (followed-alarms.ts).
import { Subject, Subscription, interval, type Observable } from 'rxjs';
import type { LoadedProfile } from '../../profiles/schema.js';
import type { DiskTimeLeft } from '../disk-time.js';
import type { EngineTime } from '../engine-time.js';
import { declaredGroups, type RecorderGroups } from '../recorder-group.js';
import type { RecorderState } from '../recorder-state.js';
import { alarmWire, worstFirst, type Alarm, type AlarmEvent, type AlarmList } from './alarm.js';
import type { AlarmObservation, CommandActivity } from './alarm-conditions.js';
import { EMPTY_BOOK, acknowledge, acknowledgeAll, evaluate, type AlarmBook, type AlarmDecision } from './alarm-decision.js';
import type { AlarmReading } from './alarm-picture.js';
import { mergedReading, type AckRefusal, type FollowedAlarms } from './followed-alarms.js';
import type { AlarmSettings } from './alarm-settings.js';

/** What the alarm engine reads (the bridge has all of it). */
export interface AlarmSource {
  readonly time: EngineTime;
  readonly groups: RecorderGroups;
  recorderStates(): RecorderState[];
  commandsOf(recorder: string): CommandActivity;
  diskTimesLeft(recorder: string): DiskTimeLeft[];
  loadedProfiles(): readonly LoadedProfile[];
}

/** An acknowledgement done (the alarm as it is now), or why not (refusal: of a followed alarm, where it is judged). */
export type AckOutcome = { ok: true; alarm: Alarm } | { ok: false; reason: string; refusal?: AckRefusal };

export class AlarmMonitor {
  private book: AlarmBook = EMPTY_BOOK;
  private readonly events = new Subject<AlarmEvent>();
  private readonly changes = new Subject<void>();
  private ticking: Subscription | null = null;
  /** When the book was last judged against the recorders (null: not yet), and how often it is. */
  private judgedAt: number | null = null;
  private judgeEveryMs: number | null = null;
  /** Alarms judged elsewhere (a poller on the bus), for recorders this monitor does not judge. */
  private readonly followed: FollowedAlarms[] = [];
  private readonly following = new Subscription();
  /** The groups last merged, and from which lists (groups()). */
  private merged: { groups: RecorderGroups; profiles: readonly LoadedProfile[]; merged: RecorderGroups } | null = null;

  constructor(
    private readonly source: AlarmSource,
    readonly settings: AlarmSettings,
  ) {}

  /** Every raise, ack and clear, in order. */
  get events$(): Observable<AlarmEvent> {
    return this.events.asObservable();
  }

  /** Emits after every event (what keys and pages show derives from the book). */
  get changed$(): Observable<void> {
    return this.changes.asObservable();
  }

  /** Judges once a poll (the fastest recorder's interval), on the engine's scheduler. */
  start(): void {
    if (this.ticking) return;
    const pollMs = Math.min(...this.source.recorderStates().map((s) => s.pollMs));
    this.judgeEveryMs = pollMs;
    this.ticking = interval(pollMs, this.source.time.scheduler).subscribe(() => this.evaluate());
  }

  stop(): void {
    this.ticking?.unsubscribe();
    this.ticking = null;
    this.following.unsubscribe();
  }

  /**
   * Takes the alarms of `followed`'s recorders from it instead of judging them here: they are shown,
   * listed and acknowledged with this monitor's own, and change what changed$ says.
   */
  follow(followed: FollowedAlarms): void {
    if (followed.recorders.size === 0) return; // nothing followed: nothing to merge (an empty reading was never judged)
    this.followed.push(followed);
    this.following.add(followed.changed$.subscribe(() => this.changes.next()));
  }

  /** Active alarms, worst first: this monitor's own and those it follows. */
  active(): Alarm[] {
    return this.followed.length === 0 ? this.activeJudgedHere() : mergedReading(this.readings()).active.slice();
  }

  /** Only the alarms this monitor judged (its metrics: a followed alarm is the poller's to export). */
  activeJudgedHere(): Alarm[] {
    return [...this.book.active.values()].sort(worstFirst);
  }

  /** Cleared alarms kept, newest first. */
  cleared(): readonly Alarm[] {
    if (this.followed.length === 0) return this.book.cleared;
    const all = [...this.book.cleared, ...this.followed.flatMap((f) => f.cleared())];
    return all.sort((a, b) => (b.clearedAt ?? 0) - (a.clearedAt ?? 0)).slice(0, this.settings.clearedKept);
  }

  /** GET /alarms. */
  list(): AlarmList {
    return { active: this.active().map(alarmWire), cleared: this.cleared().map(alarmWire) };
  }

  /**
   * What keys show (alarm-picture.ts): the active alarms, worst first, with when the book was last judged
   * and how often it should be, so a key can tell an alarm book it can trust from one nobody keeps up.
   */
  reading(): AlarmReading {
    return mergedReading(this.readings());
  }

  private readings(): AlarmReading[] {
    return [{ active: this.activeJudgedHere(), judgedAt: this.judgedAt, judgeEveryMs: this.judgeEveryMs }, ...this.followed.map((f) => f.reading())];
  }

  /**
   * Acknowledges one alarm: here when it is judged here, else where it is judged (a poller on the bus;
   * then the outcome comes once it answers). The reason when it cannot (no such alarm, cleared already;
   * for a followed alarm, its refusal).
   */
  ack(id: string, by: string): AckOutcome | Promise<AckOutcome> {
    if (!this.book.active.has(id)) {
      for (const followed of this.followed) {
        const outcome = followed.ack(id, by);
        if (outcome !== null) return outcome;
      }
    }
    return this.ackJudgedHere(id, by);
  }

  /** Acknowledges one alarm this monitor judges (a poller, for a panel's acknowledgement from the bus). */
  ackJudgedHere(id: string, by: string): AckOutcome {
    const decision = acknowledge(this.book, id, by, this.source.time.now());
    if ('error' in decision) return { ok: false, reason: decision.error };
    this.apply(decision);
    return { ok: true, alarm: this.book.active.get(id) as Alarm };
  }

  /**
   * Acknowledges every active alarm (a key or pedal): how many were acknowledged here, and how many were
   * asked of pollers that judge followed recorders (their answer comes later, over the bus, and is
   * logged there; the keys change when their alarm lists come back).
   */
  ackAll(by: string): { acked: number; asked: number } {
    const decision = acknowledgeAll(this.book, by, this.source.time.now());
    this.apply(decision);
    return { acked: decision.events.length, asked: this.followed.reduce((sum, followed) => sum + followed.ackAll(by), 0) };
  }

  private evaluate(): void {
    const now = this.source.time.now();
    this.judgedAt = now;
    const judgedElsewhere = (name: string) => this.followed.some((f) => f.recorders.has(name));
    const recorders = this.source.recorderStates().filter((state) => !judgedElsewhere(state.name)).map((state) => ({ state, commands: this.source.commandsOf(state.name), disks: this.source.diskTimesLeft(state.name) }));
    const observation: AlarmObservation = { now, recorders, groups: this.groups() };
    this.apply(evaluate(this.book, observation, this.settings));
  }

  /**
   * The command line's groups and every loaded profile's (a profile's own win, as in the bridge). Kept
   * while neither list is another (the bridge replaces its profiles' list whole on a reload), so a poll
   * does not merge them again.
   */
  private groups(): RecorderGroups {
    const from = { groups: this.source.groups, profiles: this.source.loadedProfiles() };
    if (this.merged?.groups === from.groups && this.merged.profiles === from.profiles) return this.merged.merged;
    const groups = new Map(from.groups);
    for (const { profile } of from.profiles) for (const [name, members] of declaredGroups(profile.recorders)) groups.set(name, members);
    this.merged = { ...from, merged: groups };
    return groups;
  }

  private apply(decision: AlarmDecision): void {
    this.book = decision.book;
    for (const event of decision.events) this.events.next(event);
    if (decision.events.length > 0) this.changes.next();
  }
}
