// What a control bound to a recorder group shows: one picture from its members' own pictures, each made
// from that member's state with its own age. A channel records on the key only when it records on every
// member; a member that does not (or whose data is offline or stale) is named on the key, in the warning
// colour, and the key shows that member's state, never the others' REC. Any other show on a group is its
// members' common picture, or says the members differ.
import type { ChannelPicture, ChannelState, Picture } from './picture.js';
import { samePicture } from './picture.js';
import { memberLabel } from './recorder-group.js';

/** How far a channel state is from recording: the key shows its member furthest from it. */
const RANK: Record<ChannelState, number> = {
  offline: 0,
  stale: 1,
  wrong: 2,
  'no-source': 3,
  idle: 3,
  armed: 3,
  paused: 4,
  'sync-paused': 4,
  recording: 5,
  'sync-recording': 5,
};

/** What a member behind the others is doing, as its name on the key says it. */
function lag(state: ChannelState): string {
  switch (state) {
    case 'offline':
      return 'OFFLINE';
    case 'stale':
      return 'STALE';
    case 'paused':
    case 'sync-paused':
      return 'PAUSED';
    default:
      return 'NOT REC';
  }
}

export function groupPicture(group: string, members: ReadonlyArray<{ name: string; picture: Picture }>): Picture {
  const first = members[0];
  if (first === undefined) return { kind: 'label', text: `${group}\nNO MEMBERS`, icon: null, color: '#000000', active: null };
  const channels = members.filter((m): m is { name: string; picture: ChannelPicture } => m.picture.kind === 'channel');
  if (channels.length === members.length) return groupChannelPicture(channels);
  if (members.every((m) => samePicture(m.picture, first.picture))) return first.picture;
  // Not one picture: the key says so rather than show one member's state as the group's.
  return { kind: 'label', text: `${memberLabel(group)}\nMEMBERS DIFFER`, icon: null, color: '#D55E00', active: null };
}

function groupChannelPicture(members: ReadonlyArray<{ name: string; picture: ChannelPicture }>): Picture {
  const ranks = members.map((m) => RANK[m.picture.state]);
  const best = Math.max(...ranks);
  const worst = Math.min(...ranks);
  const shown = members[ranks.indexOf(worst)] as (typeof members)[number];
  const behind = members.filter((_, i) => (ranks[i] as number) < best).map((m) => `${memberLabel(m.name)} ${lag(m.picture.state)}`);
  // Problems of a take on any member are shown, named (on a group one member's DROP is not the other's).
  const problems = members.filter((m) => m.picture.warning !== null).map((m) => `${memberLabel(m.name)} ${m.picture.warning}`);
  const warnings = [...behind, ...problems];
  if (warnings.length === 0) return shown.picture;
  // A named member is the news: its name takes the footer (the age of a lagging member's data is in its name: STALE, OFFLINE).
  return { ...shown.picture, warning: warnings.join(' '), ageS: behind.length > 0 ? null : shown.picture.ageS, thumbnail: null, previewAgeS: undefined };
}
