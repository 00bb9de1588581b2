// What a session's controls show, derived: from the session's state, the page in front, the recorders'
// state (one recorder, or each member of a group made one) and the clock. Each picture comes with the
// moment it next changes by time alone (next-change.ts), for the refresh schedule. Nothing is kept here
// but what never changes for a page: which keys show the dialog's question on it.
import type { Page } from '../profiles/schema.js';
import { groupPicture } from './group-picture.js';
import { NextChange } from './next-change.js';
import { BLANK, type Picture } from './picture.js';
import type { RecorderGroups } from './recorder-group.js';
import { overlayOf } from './session/session-overlays.js';
import { bindingOn, encoderOf, pageInfo } from './session/session-pages.js';
import type { SessionState } from './session/session-state.js';
import type { BoundProfile, SessionServices } from './session-services.js';
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
    const shownPage = pageInfo(basis.profile, state.page, page);
    const question = this.questionOn(page, basis.profile);
    const pictures = new Map<string, DerivedPicture>();
    // Controls that show the same thing of the same recorder show the same picture (a channel's key and
    // the keys that start and stop it): it is derived once per call, and the others take it, with the
    // moment it next changes and whether it reads a fetch; their own marks (overlayOf) are their own.
    const shared = new Map<string, { picture: Picture; changesAt: number | null; fetched: boolean }>();
    for (const control of controls) {
      const changes = new NextChange(now);
      const reads = { fetched: false };
      const binding = bindingOn(page, control.id, this.controlsById);
      const slot = question.indexOf(control.id);
      const show: ResolvedShow | null = slot >= 0 ? { question: { slot, slots: question.length } } : binding ? showOf(binding) : null;
      let picture: Picture = BLANK;
      if (show !== null) {
        const recorder = binding?.recorder ?? this.services.defaultRecorder;
        const key = `${recorder}\n${showKey(show)}`;
        const same = shared.get(key);
        if (same === undefined) {
          const inputsFor = (name: string): ShowInputs => this.showInputs(name, changes, shownPage, question.length > 0, basis, reads);
          picture = this.pictureOf(show, recorder, inputsFor, basis.groups);
          shared.set(key, { picture, changesAt: changes.moment, fetched: reads.fetched });
        } else {
          picture = same.picture;
          changes.at(same.changesAt);
          reads.fetched = same.fetched;
        }
      }
      // An LCD cell that shows its encoder's binding shows that encoder's ring and marks too.
      const marked = control.kind === 'lcd' && page.controls[control.id] === undefined ? (encoderOf(control.id, this.controlsById) ?? control.id) : control.id;
      const overlay = overlayOf(state, marked, page.name, now, binding, changes);
      pictures.set(control.id, { picture: overlay ? { ...picture, overlay: { ...picture.overlay, ...overlay } } : picture, changesAt: changes.moment, readsFetched: reads.fetched });
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

  /** A show drawn from one recorder, or from each member of a group and made one (group-picture.ts). */
  private pictureOf(show: ResolvedShow, recorder: string, inputsFor: (name: string) => ShowInputs, groups: RecorderGroups): Picture {
    const members = groups.get(recorder);
    if (members === undefined) return pictureFor(show, inputsFor(recorder));
    // A member not configured: its own NO RECORDER picture names it (the others' would hide it).
    const missing = members.find((name) => !this.services.recorders.has(name));
    if (missing !== undefined) return pictureFor(show, inputsFor(missing));
    return groupPicture(recorder, members.map((name) => ({ name, picture: pictureFor(show, inputsFor(name)) })));
  }

  /** `reads.fetched` is set when the picture reads a preview or a meter (what the extras fetch). */
  private showInputs(name: string, changes: NextChange, page: ShowInputs['page'], questionShown: boolean, basis: PictureBasis, reads: { fetched: boolean }): ShowInputs {
    const handle = this.services.recorders.get(name);
    const { now } = changes;
    return {
      recorder: handle?.link.state,
      recorderName: name,
      now,
      durationOf: (index, noted) => handle?.durations.read(`${index}`, now, noted) ?? null,
      diskTimesLeft: () => handle?.diskTimes.read(now) ?? [],
      thumbnailOf: (index) => {
        reads.fetched = true;
        return handle?.extras.preview(index, changes) ?? null;
      },
      meterOf: (source) => {
        reads.fetched = true;
        return handle?.extras.meter(source, changes) ?? null;
      },
      alarms: () => this.services.alarms?.reading() ?? null,
      selectedChannel: basis.state.selectedChannel,
      marksSelection: basis.marksSelection,
      page,
      questionShown,
      changes,
    };
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
