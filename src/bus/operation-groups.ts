// What a panel may be allowed to call through a poller, in named groups a facility file grants: every
// operation of the recorder's interface is in exactly one (the compiler checks that none is left out),
// so a new operation must be placed before it can be granted.
import type { OperationId } from '../api/operations.js';

export const OPERATION_GROUP_NAMES = ['read', 'control', 'admin'] as const;
export type OperationGroup = (typeof OPERATION_GROUP_NAMES)[number];

/**
 * read: every read (state, previews, meters, lists); control: what a desk does live (takes, sync,
 * dialogs, routing, gains, schedule, conversion); admin: what changes the recorder's setup or session.
 */
export const OPERATION_GROUP = {
  listChannels: 'read',
  getChannel: 'read',
  setChannelCount: 'admin',
  getChannelPreview: 'read',
  setChannelSource: 'control',
  unsetChannelSource: 'control',
  addChannelDestination: 'control',
  deleteChannelDestination: 'control',
  syncOn: 'control',
  syncOff: 'control',
  recStart: 'control',
  recPause: 'control',
  recStop: 'control',
  syncRecStart: 'control',
  syncRecPause: 'control',
  syncRecStop: 'control',
  addSource: 'admin',
  updateSource: 'control',
  getSource: 'read',
  listSources: 'read',
  deleteSource: 'admin',
  addDestination: 'admin',
  updateDestination: 'admin',
  getDestination: 'read',
  listDestinations: 'read',
  deleteDestination: 'admin',
  addPreset: 'admin',
  updatePreset: 'admin',
  getPreset: 'read',
  getPresetFormats: 'read',
  getPresetVideoCodecs: 'read',
  getPresetAudioCodecs: 'read',
  getPresetTimecodes: 'read',
  listPresets: 'read',
  deletePreset: 'admin',
  getAudioDevices: 'read',
  getVideoDevices: 'read',
  getAppState: 'read',
  getConversionLists: 'read',
  setConversionConfig: 'control',
  getConversionConfig: 'read',
  getSettings: 'read',
  updateSettings: 'admin',
  newSession: 'admin',
  saveProject: 'admin',
  loadProject: 'admin',
  getResources: 'read',
  getSyncState: 'read',
  getSchedule: 'read',
  setSchedule: 'control',
  getDialog: 'read',
  answerDialog: 'control',
} as const satisfies Record<OperationId, OperationGroup>;

/** The operations of a group. */
export function operationsIn(group: OperationGroup): OperationId[] {
  return (Object.keys(OPERATION_GROUP) as OperationId[]).filter((id) => OPERATION_GROUP[id] === group);
}
