// What a session's controls show, derived: from the session's state, the page in front, the recorders'
// state (one recorder, or each member of a group made one) and the clock. Each picture comes with the
// moment it next changes by time alone (next-change.ts), for the refresh schedule. Nothing is kept here
// but what never changes for a page: which keys show the dialog's question on it.
import type { Page } from '../profiles/schema.js';
import type { AlarmReading } from './alarms/alarm-picture.js';
import type { DiskTimeLeft } from './disk-time.js';
import type { GainTruth } from './gain-truth.js';
import { groupPicture } from './group-picture.js';
import { NextChange } from './next-change.js';
import { BLANK, type Picture, type PictureOverlay } from './picture.js';
import type { ShownPreview } from './recorder-extras.js';
import type { RecorderState } from './recorder-state.js';
import type { RecorderGroups } from './recorder-group.js';
import { overlayOf } from './session/session-overlays.js';
import { bindingOn, encoderOf, pageInfo } from './session/session-pages.js';
import type { SessionState } from './session/session-state.js';
import type { BoundProfile, RecorderHandle, SessionServices } from './session-services.js';
import { pictureFor, questionKeys, showOf, type ResolvedShow, type ShowInputs } from './show.js';
import type { ControlDefinition } from './surface.js';

/** What the pictures are derived from, besides the recorders and the clock: the session's now. */
export interface PictureBasis {
  profile: BoundProfile;
  state: SessionState;
  /** The page in front of the operator (the dialog overlay while one is up). */
  page: Page;
  groups: RecorderGroups;
  /** The profile marks the selected channel (profile-selection.ts). */
  marksSelection: boolean;
}

/** A control's picture now, with the moment it next changes by time alone (null: it does not). */
export interface DerivedPicture {
  picture: Picture;
  changesAt: number | null;
  /** It was made from a fetched preview or meter read (or would be, had one come): a new one changes it. */
  readsFetched: boolean;
}

export class SessionPictures {
  /** The dialog's question keys of each page shown so far (see questionOn). */
  private readonly questions = new WeakMap<Page, readonly string[]>();
  private readonly controlsById: ReadonlyMap<string, ControlDefinition>;

  constructor(
    private readonly controls: readonly ControlDefinition[],
    private readonly services: Pick<SessionServices, 'recorders' | 'defaultRecorder' | 'alarms' | 'time'>,
  ) {
    this.controlsById = new Map(controls.map((c) => [c.id, c]));
  }

  /**
   * The controls' pictures now, each with the moment it next changes by time alone, in the controls'
   * order. With `spent`, it stops after any control once `spent()` says so (at least one is derived): the
   * caller derives the rest later, so that no derivation of a whole surface holds the thread (a 32-key
   * deck's was up to 2.5 ms of CPU at once, measured under bench (i)'s load).
   */
  derive(controls: readonly ControlDefinition[], basis: PictureBasis, spent: () => boolean = () => false): Map<string, DerivedPicture> {
    const now = this.services.time.now();
    const { page, state } = basis;
    const question = this.questionOn(page, basis.profile);
    // What every control's inputs take from this call's basis, worked out once for the call.
    const scene: Scene = { page: pageInfo(basis.profile, state.page, page), questionShown: question.length > 0, selectedChannel: state.selectedChannel, marksSelection: basis.marksSelection };
    const pictures = new Map<string, DerivedPicture>();
    // Controls that show the same thing of the same recorder show the same picture (a channel's key and
    // the keys that start and stop it): it is derived once per call, and the others take it, with the
    // moment it next changes and whether it reads a fetch; their own marks (overlayOf) are their own.
    // Kept by recorder, then by the show's key: both strings exist already, where one key joining them
    // was a new string for every control at every refresh.
    const shared = new Map<string, Map<string, DerivedPicture>>();
    for (const control of controls) {
      const changes = new NextChange(now);
      const binding = bindingOn(page, control.id, this.controlsById);
      const slot = question.indexOf(control.id);
      const show: ResolvedShow | null = slot >= 0 ? { question: { slot, slots: question.length } } : binding ? showOf(binding) : null;
      let derived = UNSHOWN;
      if (show !== null) {
        const recorder = binding?.recorder ?? this.services.defaultRecorder;
        let ofRecorder = shared.get(recorder);
        if (ofRecorder === undefined) shared.set(recorder, (ofRecorder = new Map()));
        const key = showKey(show);
        const same = ofRecorder.get(key);
        if (same === undefined) {
          const reads = { fetched: false };
          derived = { picture: this.pictureOf(show, recorder, changes, reads, scene, basis.groups), changesAt: changes.moment, readsFetched: reads.fetched };
          ofRecorder.set(key, derived);
        } else {
          derived = same;
          changes.at(same.changesAt);
        }
      }
      // An LCD cell that shows its encoder's binding shows that encoder's ring and marks too.
      const marked = control.kind === 'lcd' && page.controls[control.id] === undefined ? (encoderOf(control.id, this.controlsById) ?? control.id) : control.id;
      const overlay = overlayOf(state, marked, page.name, now, binding, changes);
      // Without marks of its own (the most of a deck's controls) a control takes the derivation as it is,
      // the one object its neighbours showing the same take too: nothing changes a DerivedPicture once
      // made (the session reads it and lets it go), so sharing it shares no state.
      if (overlay === null && changes.moment === derived.changesAt) pictures.set(control.id, derived);
      else pictures.set(control.id, { picture: overlay === null ? derived.picture : withOverlay(derived.picture, overlay), changesAt: changes.moment, readsFetched: derived.readsFetched });
      if (spent()) break;
    }
    return pictures;
  }

  /**
   * The keys that together show the dialog's question on a page, each its share in reading order. Worked
   * out once per page: a page is never changed (a reloaded profile is new pages), and this surface's
   * controls are its own for good.
   */
  private questionOn(page: Page, profile: BoundProfile): readonly string[] {
    let keys = this.questions.get(page);
    if (keys === undefined) {
      keys = questionKeys(page, this.controls, page.name === profile.dialogPage);
      this.questions.set(page, keys);
    }
    return keys;
  }

  /**
   * A show drawn from one recorder, or from each member of a group and made one (group-picture.ts).
   * `reads.fetched` is set when the picture reads a preview or a meter (what the extras fetch).
   */
  private pictureOf(show: ResolvedShow, recorder: string, changes: NextChange, reads: FetchedReads, scene: Scene, groups: RecorderGroups): Picture {
    const inputsOf = (name: string): ShowInputs => new RecorderInputs(this.services.recorders.get(name), name, changes, reads, scene, this.services.alarms);
    const members = groups.get(recorder);
    if (members === undefined) return pictureFor(show, inputsOf(recorder));
    // A member not configured: its own NO RECORDER picture names it (the others' would hide it).
    const missing = members.find((name) => !this.services.recorders.has(name));
    if (missing !== undefined) return pictureFor(show, inputsOf(missing));
    return groupPicture(recorder, members.map((name) => ({ name, picture: pictureFor(show, inputsOf(name)) })));
  }
}

/** What the controls of one derivation share in their inputs, besides the recorder and the clock. */
interface Scene {
  page: ShowInputs['page'];
  questionShown: boolean;
  selectedChannel: number;
  marksSelection: boolean;
}

/** Set when a control's picture reads a preview or a meter: a new fetch changes it. */
interface FetchedReads {
  fetched: boolean;
}

/** What a control without a binding derives to: nothing changes it by time alone or by a fetch. */
const UNSHOWN: DerivedPicture = Object.freeze({ picture: BLANK, changesAt: null, readsFetched: false });

/**
 * A picture with the control's own marks over those it came with. `marks` is this derivation's own
 * (overlayOf makes a new one), so it is the overlay itself where the picture brings none.
 */
function withOverlay(picture: Picture, marks: PictureOverlay): Picture {
  return { ...picture, overlay: picture.overlay === undefined ? marks : { ...picture.overlay, ...marks } };
}

/**
 * One control's inputs from one recorder. A class, so that its readers are methods shared by all (an
 * object of five closures made for each control at each refresh was 7.5 % of what the bridge allocated
 * under bench (i), docs/performance.md): each refresh makes one small object per control it derives.
 */
class RecorderInputs implements ShowInputs {
  readonly recorder: RecorderState | undefined;
  readonly now: number;
  readonly page: ShowInputs['page'];
  readonly questionShown: boolean;
  readonly selectedChannel: number;
  readonly marksSelection: boolean;

  constructor(
    private readonly handle: RecorderHandle | undefined,
    readonly recorderName: string,
    readonly changes: NextChange,
    private readonly reads: FetchedReads,
    scene: Scene,
    private readonly alarmBook: SessionServices['alarms'],
  ) {
    this.recorder = handle?.link.state;
    this.now = changes.now;
    this.page = scene.page;
    this.questionShown = scene.questionShown;
    this.selectedChannel = scene.selectedChannel;
    this.marksSelection = scene.marksSelection;
  }

  durationOf(index: number, noted: NextChange): number | null {
    return this.handle?.durations.read(`${index}`, this.now, noted) ?? null;
  }

  diskTimesLeft(): readonly DiskTimeLeft[] {
    return this.handle?.diskTimes.read(this.now) ?? [];
  }

  thumbnailOf(index: number): ShownPreview | null {
    this.reads.fetched = true;
    return this.handle?.extras.preview(index, this.changes) ?? null;
  }

  meterOf(source: string): GainTruth | null {
    this.reads.fetched = true;
    return this.handle?.extras.meter(source, this.changes) ?? null;
  }

  alarms(): AlarmReading | null {
    return this.alarmBook?.reading() ?? null;
  }
}

/**
 * A show's content as a key: equal shows of one recorder are the same picture. Kept per show object (a
 * binding's show is worked out once, show.ts showOf), so a refresh does not serialise them again.
 */
function showKey(show: ResolvedShow): string {
  if (typeof show === 'string') return show;
  let key = SHOW_KEYS.get(show);
  if (key === undefined) {
    key = JSON.stringify(show);
    SHOW_KEYS.set(show, key);
  }
  return key;
}

const SHOW_KEYS = new WeakMap<object, string>();
