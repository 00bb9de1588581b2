// Recorder groups (main and backup as one key): which recorders a name stands for, and the pure rules a
// group keeps. A command to a group goes to every member exactly once, or to none: it is planned on each
// member from that member's own live state, and sent only when every member would be sent the same call
// (a toggle on members that disagree decides nothing). Each member's answer is its own; the key names the
// members that failed.
import type { Profile } from '../profiles/schema.js';
import type { ClientCall, CommandPlan } from './command-plan.js';
import { describeCall } from './command-plan.js';

/** Group names and their members (recorder names, never other groups), in the order they were given. */
export type RecorderGroups = ReadonlyMap<string, readonly string[]>;

/** The groups a profile declares among its recorders (`studio: [main, backup]`). */
export function declaredGroups(recorders: Profile['recorders']): RecorderGroups {
  return new Map(Object.entries(recorders ?? {}).filter((entry): entry is [string, string[]] => Array.isArray(entry[1])));
}

/** The recorders a name stands for: a group's members, or the one recorder of that name. */
export function membersOf(name: string, groups: RecorderGroups): readonly string[] {
  return groups.get(name) ?? [name];
}

/** A member as operators read it on a key: its name in capitals. */
export function memberLabel(name: string): string {
  return name.toUpperCase();
}

/** What planning gave on one member: the plan, or why it could not be made (a read at the press failed). */
export type MemberPlan = { member: string; plan: CommandPlan } | { member: string; failed: string };

/** What the group does: the same call to every member, or nothing, and why. */
export type GroupDecision = { kind: 'send'; plans: Array<{ member: string; plan: Extract<CommandPlan, { kind: 'send' }> }> } | { kind: 'refuse'; reason: string };

export function decideGroup(group: string, planned: readonly MemberPlan[]): GroupDecision {
  const problems = planned.flatMap((p) => ('failed' in p ? [`${p.member}: ${p.failed}`] : p.plan.kind === 'refuse' ? [`${p.member}: ${p.plan.reason}`] : p.plan.kind === 'read-gain-first' ? [`${p.member}: the gain of "${p.plan.sourceName}" is not live`] : []));
  if (problems.length > 0) return { kind: 'refuse', reason: `${problems.join('; ')}; nothing sent to ${group}` };
  const plans = planned.map((p) => ({ member: p.member, plan: (p as { plan: Extract<CommandPlan, { kind: 'send' }> }).plan }));
  const calls = plans.map((p) => callText(p.plan.call));
  if (new Set(calls).size > 1) {
    const each = plans.map((p, i) => `${p.member} ${calls[i]}`).join(', ');
    return { kind: 'refuse', reason: `${group}'s members disagree (${each}); nothing sent: bring them to the same state first` };
  }
  return { kind: 'send', plans };
}

/** A call as the request it makes with its body, so two calls compare equal exactly when they send the same. */
function callText(call: ClientCall): string {
  const body = call.args.filter((arg) => typeof arg === 'object' && arg !== null);
  return body.length === 0 ? describeCall(call) : `${describeCall(call)} ${JSON.stringify(body)}`;
}

/** How one member's command went. */
export interface MemberOutcome {
  member: string;
  result: 'ok' | 'failed' | 'refused';
  message: string | null;
}

/** The group's outcome: ok only when every member's is; otherwise the members that were not, named. */
export function groupOutcome(outcomes: readonly MemberOutcome[]): { result: MemberOutcome['result']; message: string | null } {
  const bad = outcomes.filter((o) => o.result !== 'ok');
  if (bad.length === 0) return { result: 'ok', message: null };
  const result = bad.some((o) => o.result === 'failed') ? 'failed' : 'refused';
  return { result, message: bad.map((o) => `${memberLabel(o.member)} ${o.result.toUpperCase()}: ${o.message ?? 'no reason given'}`).join('; ') };
}
