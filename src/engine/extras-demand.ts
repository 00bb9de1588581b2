// Which previews and meters the page in front of the operator needs, per recorder: previews for keys
// that show one, meters (and so gains) for meter keys and for every gain action a binding may carry out
// (on any trigger, in any macro step: a gain step needs the gain it starts from).
import type { Page } from '../profiles/schema.js';
import { gainTargetOf } from './actions/index.js';
import { channelOf, type ChannelRef } from './actions/parameters.js';
import { bindingSteps } from './binding-actions.js';
import type { ExtrasDemand } from './recorder-extras.js';
import { membersOf, type RecorderGroups } from './recorder-group.js';
import type { RecorderState } from './recorder-state.js';
import { showOf } from './show.js';

export interface DemandInputs {
  defaultRecorder: string;
  /** A binding on a group wants its previews and meters from every member (each member's own picture is drawn from them). */
  groups: RecorderGroups;
  stateOf: (recorder: string) => RecorderState | undefined;
  /** 1-based channel that "selected" stands for. */
  selectedChannel: number;
}

export function pageDemand(page: Page, inputs: DemandInputs): Map<string, ExtrasDemand> {
  const demand = new Map<string, { thumbnails: Set<number>; meters: Set<string> }>();
  const want = (recorder: string) => {
    let entry = demand.get(recorder);
    if (!entry) demand.set(recorder, (entry = { thumbnails: new Set(), meters: new Set() }));
    return entry;
  };
  const channel = (ref: ChannelRef) => channelOf(ref, inputs.selectedChannel);
  const sourceOn = (name: string, ref: ChannelRef) => inputs.stateOf(name)?.channels?.[channel(ref) - 1]?.SourceName ?? null;
  for (const binding of Object.values(page.controls)) {
    const members = membersOf(binding.recorder ?? inputs.defaultRecorder, inputs.groups);
    const show = showOf(binding);
    for (const name of members) {
      if (typeof show === 'object' && 'channel' in show && show.thumbnail) want(name).thumbnails.add(channel(show.channel) - 1);
      if (typeof show === 'object' && 'meter' in show) {
        const source = sourceOn(name, show.meter);
        if (source) want(name).meters.add(source);
      }
    }
    for (const action of bindingSteps(binding)) {
      const target = gainTargetOf(action);
      for (const name of target?.recorder === undefined ? members : membersOf(target.recorder, inputs.groups)) {
        const source = target?.source ?? (target?.channel === undefined ? null : sourceOn(name, target.channel));
        if (source) want(name).meters.add(source);
      }
    }
  }
  return demand;
}

/** A stable text for a demand, to tell whether it changed. */
export function demandKey(demand: ReadonlyMap<string, ExtrasDemand>): string {
  return JSON.stringify([...demand].map(([name, d]) => [name, [...d.thumbnails].sort(), [...d.meters].sort()]));
}
