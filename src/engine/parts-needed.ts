// Which parts of a recorder's state each thing the bridge shows or does needs read: a control's show
// (the parts its picture's freshness and content come from, as show.ts draws it), an action (the parts
// its plan decides from and the parts the reads after its answer must show its effect in, as its table
// entry in actions/ plans and checks it), a page (both, for every binding on it, on every recorder it
// names), and the alarm engine (the parts each kind is judged from, as alarm-conditions.ts judges it).
// What a poller reads is derived from these and from what is in view (part-demand.ts, surface-demand.ts):
// a part nothing needs is not read. test/engine/parts-needed.test.ts checks each table against the code
// it stands for: a plan or a picture from only these parts is the same as from every part.
import type { Page } from '../profiles/schema.js';
import type { SimpleAction } from './actions/index.js';
import type { AlarmKind } from './alarms/alarm.js';
import type { AlarmSettings } from './alarms/alarm-settings.js';
import { bindingSteps } from './binding-actions.js';
import { membersOf, type RecorderGroups } from './recorder-group.js';
import { FAST_PARTS, type StatePart } from './recorder-state.js';
import { showOf, type ResolvedShow } from './show.js';

const NONE: readonly StatePart[] = [];
const CHANNELS: readonly StatePart[] = ['channels'];
/** A gain is written to a source by its index in the source list, found by name (on a channel, by the channel's source). */
const GAIN: readonly StatePart[] = ['channels', 'sources'];

/**
 * Every action, by name: what its plan decides from and what its effect is checked in. A new action
 * does not compile until it says. Toggles of the schedule and conversion read them at the press
 * (readsAtPress) and check their effect in the next slow read: that part is listed for the check.
 */
export const ACTION_PARTS: { readonly [Name in SimpleAction['action']]: readonly StatePart[] } = {
  // The bridge's own: the surface's state, nothing of the recorder's.
  'page-next': NONE,
  'page-previous': NONE,
  page: NONE,
  'select-channel': NONE,
  brightness: NONE,
  'alarm-ack': NONE,
  // A channel's take and routing: toggles decide from the channel, every effect shows in it.
  'rec-start': CHANNELS,
  'rec-pause': CHANNELS,
  'rec-stop': CHANNELS,
  'rec-toggle': CHANNELS,
  'pause-toggle': CHANNELS,
  'rec-resume': CHANNELS,
  'sync-on': CHANNELS,
  'sync-off': CHANNELS,
  'sync-toggle': CHANNELS,
  'unset-source': CHANNELS,
  'set-source': CHANNELS,
  'add-dest': CHANNELS,
  'delete-dest': CHANNELS,
  'toggle-dest': CHANNELS,
  // The sync group: toggles decide from the sync state, effects show in it.
  'sync-rec-start': ['sync'],
  'sync-rec-pause': ['sync'],
  'sync-rec-stop': ['sync'],
  'sync-rec-toggle': ['sync'],
  'sync-rec-pause-toggle': ['sync'],
  // An answer is for the dialog up now: its key must know whether there is one, and which buttons.
  'dialog-ok': ['dialog'],
  'dialog-cancel': ['dialog'],
  'gain-set': GAIN,
  'gain-step': GAIN,
  'gain-fader': GAIN,
  'schedule-on': ['schedule'],
  'schedule-off': ['schedule'],
  'schedule-toggle': ['schedule'],
  'conversion-on': ['conversion'],
  'conversion-off': ['conversion'],
  'conversion-toggle': ['conversion'],
  // Sent as given, their effect not checked (actions/ says why for each).
  'schedule-set': NONE,
  'conversion-set': NONE,
  'settings-set': NONE,
  grid: NONE,
  'new-session': NONE,
  'save-project': NONE,
  'load-project': NONE,
};

/** The parts a control's picture is drawn from (show.ts: each picture is as fresh as these). */
export function showParts(show: ResolvedShow): readonly StatePart[] {
  if (typeof show === 'string') {
    switch (show) {
      case 'dialog':
      case 'dialog-ok':
      case 'dialog-cancel':
        return ['dialog'];
      // Disks' time left is measured from the resources reads while channels write (disk-time.ts).
      case 'resources':
        return ['resources', 'channels'];
      case 'schedule':
        return ['schedule'];
      // Recording count, dialog up, and the recorder's freshness over every state poll.
      case 'status':
        return FAST_PARTS;
      case 'page':
      case 'blank':
      case 'alarms':
        return NONE;
    }
  }
  if ('inferred' in show || 'label' in show) return NONE;
  if ('question' in show) return ['dialog'];
  if ('sync' in show) return ['channels', 'sync'];
  // A meter's source is the channel's; its gain is read by the source's index in the source list.
  if ('meter' in show) return GAIN;
  return CHANNELS; // channel, grid
}

export interface PagePartsInputs {
  defaultRecorder: string;
  groups: RecorderGroups;
  /**
   * The profile puts a page in front while the default recorder shows a dialog: its dialog is needed on
   * every page, to know when to.
   */
  dialogOverlay: boolean;
}

/** The parts each recorder must have read for a page: its controls' pictures and every action its bindings may carry out. */
export function pageParts(page: Page, inputs: PagePartsInputs): Map<string, Set<StatePart>> {
  const needed = new Map<string, Set<StatePart>>();
  const add = (recorders: readonly string[], parts: readonly StatePart[]) => {
    if (parts.length === 0) return;
    for (const name of recorders) {
      const set = needed.get(name) ?? new Set<StatePart>();
      needed.set(name, set);
      for (const part of parts) set.add(part);
    }
  };
  if (inputs.dialogOverlay) add([inputs.defaultRecorder], ['dialog']);
  for (const binding of Object.values(page.controls)) {
    // A binding on a group is drawn from every member, and its commands are planned on every member.
    const members = membersOf(binding.recorder ?? inputs.defaultRecorder, inputs.groups);
    add(members, showParts(showOf(binding)));
    for (const action of bindingSteps(binding)) {
      const own = 'recorder' in action && action.recorder !== undefined ? membersOf(action.recorder, inputs.groups) : members;
      add(own, ACTION_PARTS[action.action]);
    }
  }
  return needed;
}

/**
 * What a web server reads of every recorder at any moment, page open or not: /readyz and the metrics
 * (recdeck_recorder_live, _up, the age) judge the state polls, which monitoring alerts on; pages' status
 * panel and GET /state show them and the disks' time left (the resources, while channels write); the
 * profile editor offers the recorder's channels and sources to bind.
 */
export const WEB_SERVER_PARTS: readonly StatePart[] = [...FAST_PARTS, 'resources', 'sources'];

/** What `recdeck run` reads of every recorder whatever the surfaces show: its web server's, and its alarm engine's. */
export function standingParts(run: { web: boolean; alarms: Pick<AlarmSettings, 'off'> | null }): Map<string, readonly StatePart[]> {
  const standing = new Map<string, readonly StatePart[]>();
  if (run.web) standing.set('the web server', WEB_SERVER_PARTS);
  if (run.alarms !== null) standing.set('the alarm engine', [...alarmParts(run.alarms)]);
  return standing;
}

/** Every kind, by name: the parts it is judged from (alarm-conditions.ts). */
export const ALARM_PARTS: { readonly [Kind in AlarmKind]: readonly StatePart[] } = {
  // Offline and stale are judged over every state poll, as the keys' freshness is.
  'recorder-offline': FAST_PARTS,
  'recorder-stale': FAST_PARTS,
  'channel-fault': CHANNELS,
  'drops-rising': CHANNELS,
  'buffer-growing': CHANNELS,
  'unexpected-stop': CHANNELS,
  'group-disagree': CHANNELS,
  'sync-channel-idle': ['channels', 'sync'],
  'dialog-waiting': ['dialog'],
  'disk-time': ['resources', 'channels'],
};

/** The parts the alarm engine needs of every recorder it judges: those of the kinds not turned off. */
export function alarmParts(settings: Pick<AlarmSettings, 'off'>): Set<StatePart> {
  const off = new Set(settings.off);
  const parts = new Set<StatePart>();
  for (const [kind, needed] of Object.entries(ALARM_PARTS) as Array<[AlarmKind, readonly StatePart[]]>) if (!off.has(kind)) for (const part of needed) parts.add(part);
  return parts;
}
