// Acknowledging a followed alarm from a panel. An alarm has one owner, the alarm engine of the poller
// that holds its recorder's lease (bus-alarms.ts), so a panel's acknowledgement (its POST /alarms/{id}/ack,
// its alarm-ack key) travels there as a command of its own on the panel's command topic
// (AlarmAckMessage): signed, admitted as the other commands are (rate, the facility's leave: `control` on
// the recorder, deadline), run once per id, under the lease term it names, and answered on the panel's
// reply topic (AlarmAckReply). The holder acknowledges in its engine, which audits who (the panel, as the
// signature says, and who at the panel, as the panel says) and publishes the alarms again: every panel,
// the one that asked included, shows the acknowledgement only when that list comes back. Nothing is set
// at the panel.
//
// Each alarm goes with the raise the panel showed: one raised again since (cleared and raised, or worse
// now, which wants a new acknowledgement) is not acknowledged unseen. An alarm already acknowledged or
// cleared is answered as done (a second press, a copy sent again: the same outcome).
import type { Alarm } from '../engine/alarms/alarm.js';
import { alarmWire } from '../engine/alarms/alarm.js';
import type { AckOutcome } from '../engine/alarms/alarm-monitor.js';
import type { AlarmAckMessage, AlarmAckReply } from './topics.js';

/** What the holder's alarm engine (AlarmMonitor) does for the bus. */
export interface AckableAlarms {
  activeJudgedHere(): Alarm[];
  cleared(): readonly Alarm[];
  ackJudgedHere(id: string, by: string): AckOutcome;
}

/** How the holder's engine records who acknowledged: the panel the signature names, then who at it. */
export const ackedByOnBus = (panel: string, by: string): string => `bus:${panel}: ${by}`;

/**
 * Acknowledges in the holder's engine what a panel asked for, each alarm only if it is about this
 * recorder and is the raise the panel showed; what became of each. Synchronous: checked and applied in
 * one turn, after the caller's lease and deadline checks.
 */
export function acknowledgeFromBus(engine: AckableAlarms, recorder: string, panel: string, ack: AlarmAckMessage['ack']): AlarmAckReply['acks'] {
  const active = new Map(engine.activeJudgedHere().filter((alarm) => alarm.recorder === recorder).map((alarm) => [alarm.id, alarm]));
  const by = ackedByOnBus(panel, ack.by);
  return ack.alarms.map(({ id, raisedAt }) => {
    const alarm = active.get(id);
    if (alarm === undefined) {
      const cleared = engine.cleared().find((c) => c.id === id && c.recorder === recorder && c.raisedAt === raisedAt);
      return cleared === undefined ? { id, outcome: 'not-active', alarm: null } : { id, outcome: 'cleared', alarm: alarmWire(cleared) };
    }
    if (alarm.raisedAt !== raisedAt) return { id, outcome: 'raised-again', alarm: alarmWire(alarm) };
    if (alarm.ackedAt !== null) return { id, outcome: 'already-acked', alarm: alarmWire(alarm) };
    const done = engine.ackJudgedHere(id, by);
    // Active a moment ago in the same turn: it cannot fail; said as not active if it ever did.
    return done.ok ? { id, outcome: 'acked', alarm: alarmWire(done.alarm) } : { id, outcome: 'not-active', alarm: null };
  });
}

/** "acknowledge alarm channel-fault:main:ch3" or "acknowledge 3 alarms", as the log and audit name it. */
export function describeAck(ack: AlarmAckMessage['ack']): string {
  return ack.alarms.length === 1 ? `acknowledge alarm ${ack.alarms[0]?.id ?? '?'}` : `acknowledge ${ack.alarms.length} alarms`;
}

/** What became of each, in short ("channel-fault:main:ch3 acked; disk-time:main:D already-acked"). */
export function describeAcks(acks: AlarmAckReply['acks']): string {
  return acks.map(({ id, outcome }) => `${id} ${outcome}`).join('; ');
}
