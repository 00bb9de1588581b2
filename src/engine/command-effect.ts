// What a write should have changed, so the bridge can tell an operator when the recorder answered OK but
// did not do it (a schedule left disabled, a channel that did not start). Pure: the state parts to read
// back, the check, and how to say what is missing. Each action's own effect is in its table entry
// (src/engine/actions/); these are the shapes they share.
import type { Channel } from '../api/channel.js';
import type { RecorderState, StatePart } from './recorder-state.js';

export interface ExpectedEffect {
  /** The parts a read-back must include. */
  parts: StatePart[];
  holds: (state: RecorderState) => boolean;
  /** What is missing when it does not hold, e.g. "channel 2 is not recording". */
  missing: string;
}

/** A channel (1-based, as operators count) that must show the effect in the next channel reads. */
export function channelEffect(channel: number, test: (channel: Channel) => boolean, missing: string): ExpectedEffect {
  return {
    parts: ['channels'],
    holds: (state) => {
      const read = state.channels?.[channel - 1];
      return read !== undefined && test(read);
    },
    missing: `channel ${channel} ${missing}`,
  };
}

/** A slow-group setting switched on or off (the schedule, conversion), checked in its read after the answer. */
export function switchedEffect(part: 'schedule' | 'conversion', what: string, enabled: boolean): ExpectedEffect {
  return { parts: [part], holds: (state) => state[part]?.IsEnabled === enabled, missing: `${what} is still ${enabled ? 'disabled' : 'enabled'}` };
}
