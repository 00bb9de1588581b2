// What a write should have changed, so the bridge can tell an operator when the recorder answered OK but
// did not do it (a schedule left disabled, a channel that did not start). Pure: the state parts to read
// back, the check, and how to say what is missing.
import type { RecorderAction } from '../profiles/schema.js';
import type { ClientCall } from './command-plan.js';
import type { RecorderState, StatePart } from './recorder-state.js';

export interface ExpectedEffect {
  /** The parts a read-back must include. */
  parts: StatePart[];
  holds: (state: RecorderState) => boolean;
  /** What is missing when it does not hold, e.g. "channel 2 is not recording". */
  missing: string;
}

/**
 * The effect of a planned call, or null when it cannot be checked from the state the bridge reads
 * (a grid change may ask for confirmation first; a dialog may be followed by another; projects and
 * sessions change everything).
 */
export function expectedEffect(action: RecorderAction, call: ClientCall): ExpectedEffect | null {
  const channelAt = (index: number) => (state: RecorderState) => state.channels?.[index];
  const onChannel = (index: number, test: (channel: NonNullable<RecorderState['channels']>[number]) => boolean, missing: string): ExpectedEffect => ({
    parts: ['channels'],
    holds: (state) => {
      const channel = channelAt(index)(state);
      return channel !== undefined && test(channel);
    },
    missing: `channel ${index + 1} ${missing}`,
  });
  switch (call.method) {
    case 'recStart':
      return onChannel(call.args[0], (c) => c.IsRecording && !c.IsRecordingPause, 'is not recording');
    case 'recPause':
      return onChannel(call.args[0], (c) => !c.IsRecording || c.IsRecordingPause, 'is not paused');
    case 'recStop':
      return onChannel(call.args[0], (c) => !c.IsRecording, 'is still recording');
    case 'syncOn':
      return onChannel(call.args[0], (c) => c.IsInSync, 'is not in sync mode');
    case 'syncOff':
      return onChannel(call.args[0], (c) => !c.IsInSync, 'is still in sync mode');
    case 'setChannelSource': {
      const source = call.args[1];
      return onChannel(call.args[0], (c) => c.SourceName === source, `does not have source "${source}"`);
    }
    case 'unsetChannelSource':
      return onChannel(call.args[0], (c) => c.SourceName === null, 'still has a source');
    case 'addChannelDestination': {
      const destination = call.args[1];
      return onChannel(call.args[0], (c) => c.Destinations.includes(destination), `does not record to "${destination}"`);
    }
    case 'deleteChannelDestination': {
      const destination = call.args[1];
      return onChannel(call.args[0], (c) => !c.Destinations.includes(destination), `still records to "${destination}"`);
    }
    case 'syncRecStart':
      return { parts: ['sync'], holds: (s) => s.sync?.IsSyncRecording === true && !s.sync.IsSyncRecordingPause, missing: 'synchronous recording is not running' };
    case 'syncRecPause':
      return { parts: ['sync'], holds: (s) => s.sync?.IsSyncRecording !== true || s.sync.IsSyncRecordingPause, missing: 'synchronous recording is not paused' };
    case 'syncRecStop':
      return { parts: ['sync'], holds: (s) => s.sync?.IsSyncRecording === false, missing: 'synchronous recording is still running' };
    case 'setSchedule': {
      const enabled = call.args[0].IsEnabled;
      if (enabled === undefined || action.action === 'schedule-set') return null;
      return { parts: ['schedule'], holds: (s) => s.schedule?.IsEnabled === enabled, missing: `the schedule is still ${enabled ? 'disabled' : 'enabled'}` };
    }
    case 'setConversionConfig': {
      const enabled = call.args[0].IsEnabled;
      if (enabled === undefined || action.action === 'conversion-set') return null;
      return { parts: ['conversion'], holds: (s) => s.conversion?.IsEnabled === enabled, missing: `conversion is still ${enabled ? 'disabled' : 'enabled'}` };
    }
    default:
      return null;
  }
}
