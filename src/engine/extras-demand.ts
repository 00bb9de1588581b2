// Which previews and meters the page in front of the operator needs, per recorder: previews for keys
// that show one, meters (and so gains) for meter keys and for every gain action a binding may carry out
// (on any trigger, in any macro step: a gain step needs the gain it starts from).
import type { Page } from '../profiles/schema.js';
import { gainTargetOf } from './actions/index.js';
import { channelOf, type ChannelRef } from './actions/parameters.js';
import { bindingSteps } from './binding-actions.js';
import type { ExtrasDemand } from './recorder-extras.js';
import type { RecorderState } from './recorder-state.js';
import { showOf } from './show.js';

export interface DemandInputs {
  defaultRecorder: string;
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
  for (const binding of Object.values(page.controls)) {
    const name = binding.recorder ?? inputs.defaultRecorder;
    const state = inputs.stateOf(name);
    const sourceOn = (ref: ChannelRef) => state?.channels?.[channel(ref) - 1]?.SourceName ?? null;
    const show = showOf(binding);
    if (typeof show === 'object' && 'channel' in show && show.thumbnail) want(name).thumbnails.add(channel(show.channel) - 1);
    if (typeof show === 'object' && 'meter' in show) {
      const source = sourceOn(show.meter);
      if (source) want(name).meters.add(source);
    }
    for (const action of bindingSteps(binding)) {
      const target = gainTargetOf(action);
      const source = target?.source ?? (target?.channel === undefined ? null : sourceOn(target.channel));
      if (source) want(target?.recorder ?? name).meters.add(source);
    }
  }
  return demand;
}

/** A stable text for a demand, to tell whether it changed. */
export function demandKey(demand: ReadonlyMap<string, ExtrasDemand>): string {
  return JSON.stringify([...demand].map(([name, d]) => [name, [...d.thumbnails].sort(), [...d.meters].sort()]));
}
