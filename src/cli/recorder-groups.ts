// `--recorder-group NAME=MEMBER,MEMBER…`: recorder groups from the command line (a profile declares its
// own as `recorders: { studio: [main, backup] }`, checked by the same schema).
import { RecorderGroup } from '../profiles/schema.js';
import type { RecorderGroups } from '../engine/recorder-group.js';
import { describeIssues } from '../api/issues.js';
import { UsageError } from './usage-error.js';

const NAMED = /^([a-z][a-z0-9-]*)=(.*)$/;

export function recorderGroupsFrom(flags: readonly string[]): RecorderGroups {
  const groups = new Map<string, string[]>();
  for (const flag of flags) {
    const match = NAMED.exec(flag);
    if (!match) throw new UsageError(`--recorder-group: expected NAME=MEMBER,MEMBER (e.g. studio=main,backup), got ${JSON.stringify(flag)}`);
    const [, name, list] = match as unknown as [string, string, string];
    const members = RecorderGroup.safeParse(list.split(',').map((m) => m.trim()));
    if (!members.success) throw new UsageError(`--recorder-group ${name}: ${describeIssues(members.error, 'members')}`);
    if (groups.has(name)) throw new UsageError(`--recorder-group: the group "${name}" is given twice`);
    groups.set(name, members.data);
  }
  for (const [name, members] of groups) {
    const nested = members.find((m) => groups.has(m));
    if (nested !== undefined) throw new UsageError(`--recorder-group ${name}: "${nested}" is a group; a group's members are recorders, groups do not nest`);
  }
  return groups;
}

/** A group may not take a recorder's name: a binding naming it would be ambiguous. */
export function checkGroupNames(groups: RecorderGroups, recorders: readonly string[]): void {
  for (const name of groups.keys()) if (recorders.includes(name)) throw new UsageError(`--recorder-group ${name}: a recorder is named "${name}" too; give the group another name`);
}
