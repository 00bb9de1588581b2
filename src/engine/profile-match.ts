// Which profile a surface gets, and what in that profile the surface cannot do. A profile names the
// surfaces it fits; the most specific fit wins, so a profile pinned to one serial number beats the
// general one for its model, and the operator's own profile beats the one shipped for the same surfaces.
import type { ControlDefinition, Surface } from './surface.js';
import type { Binding, LoadedProfile, Profile } from '../profiles/schema.js';

type SurfaceIdentity = Pick<Surface, 'kind' | 'model' | 'name' | 'serial' | 'standsInFor'>;

const SPECIFICITY = { serial: 4, name: 3, model: 2, kind: 1, 'stand-in': 0 } as const;

/**
 * null when the profile does not fit the surface, else how specifically it fits (serial 4 … kind 1);
 * 0 for a profile of the surface it stands in for, by that surface's model only (below any of its own kind).
 */
export function profileFits(profile: Profile, surface: SurfaceIdentity): number | null {
  const { kind, model, name, serial } = profile.match;
  const standIn = surface.standsInFor;
  if (standIn !== undefined && kind === standIn.kind && kind !== surface.kind) {
    const models = model === undefined ? [] : typeof model === 'string' ? [model] : model;
    return name === undefined && serial === undefined && models.includes(standIn.model) ? SPECIFICITY['stand-in'] : null;
  }
  if (kind !== surface.kind) return null;
  if (model !== undefined && !(typeof model === 'string' ? [model] : model).includes(surface.model)) return null;
  if (name !== undefined && name !== surface.name) return null;
  if (serial !== undefined && serial !== surface.serial) return null;
  if (serial !== undefined) return SPECIFICITY.serial;
  if (name !== undefined) return SPECIFICITY.name;
  if (model !== undefined) return SPECIFICITY.model;
  return SPECIFICITY.kind;
}

/** The profile a surface gets, and the others that fit it exactly as well (a tie the file path broke). */
export interface ProfileChoice {
  winner: LoadedProfile;
  /** Profiles of the winner's specificity and origin, which lost by file path only; empty when none. */
  others: LoadedProfile[];
}

/** The operator's own profile outranks a shipped one that fits as specifically. */
const ORIGIN_RANK = { operator: 1, shipped: 0 } as const;

/**
 * The best fit: the most specific, then the operator's own over a shipped one, then the first by file
 * path, so that the choice never depends on the order the profiles came in. Equals on specificity and
 * origin are a tie the operator must hear of: they come back as `others`.
 */
export function chooseProfile(surface: SurfaceIdentity, profiles: readonly LoadedProfile[]): ProfileChoice | undefined {
  const fits = profiles.flatMap((loaded) => {
    const specificity = profileFits(loaded.profile, surface);
    return specificity === null ? [] : [{ loaded, rank: specificity * 2 + ORIGIN_RANK[loaded.origin] }];
  });
  fits.sort((a, b) => b.rank - a.rank || (a.loaded.file < b.loaded.file ? -1 : a.loaded.file > b.loaded.file ? 1 : 0));
  const [best, ...rest] = fits;
  if (best === undefined) return undefined;
  return { winner: best.loaded, others: rest.filter((fit) => fit.rank === best.rank).map((fit) => fit.loaded) };
}

/** A tie by file names: the profile in use and the others that fit as well. */
export interface ProfileTie {
  winner: string;
  others: string[];
  origin: LoadedProfile['origin'];
}

/** The tie in a choice, or null when one profile fits best on its own. */
export function tieOf(choice: ProfileChoice | undefined): ProfileTie | null {
  if (choice === undefined || choice.others.length === 0) return null;
  return { winner: choice.winner.file, others: choice.others.map((o) => o.file), origin: choice.winner.origin };
}

/** One message per binding the surface cannot carry out, each starting `page "NAME": control "ID": `. */
export function checkBindings(profile: Pick<Profile, 'pages'>, controls: readonly ControlDefinition[]): string[] {
  const byId = new Map(controls.map((control) => [control.id, control]));
  const messages: string[] = [];
  for (const page of profile.pages) {
    for (const [id, binding] of Object.entries(page.controls)) {
      const where = `page "${page.name}": control "${id}"`;
      const control = byId.get(id);
      if (control === undefined) {
        messages.push(`${where}: not on this surface, which has ${compactIds(controls.map((c) => c.id))}`);
        continue;
      }
      for (const problem of bindingProblems(binding, control, byId)) messages.push(`${where}: ${problem}`);
    }
  }
  return messages;
}

const KIND_NAMES: Record<ControlDefinition['kind'], string> = {
  key: 'a key',
  button: 'a button',
  encoder: 'a dial',
  fader: 'a fader',
  lcd: 'an LCD cell',
};

function bindingProblems(binding: Binding, control: ControlDefinition, byId: ReadonlyMap<string, ControlDefinition>): string[] {
  const problems: string[] = [];
  const is = KIND_NAMES[control.kind];
  if (binding.turn !== undefined && control.kind !== 'encoder') problems.push(`turn is bound, but it is ${is}; only dials turn`);
  if (binding.fader !== undefined && control.kind !== 'fader') problems.push(`fader is bound, but it is ${is}; only faders and absolute knobs move`);
  if (binding.touch !== undefined && !takesTouch(control, byId)) {
    problems.push(control.kind === 'lcd' ? 'touch is bound, but this LCD cell does not take touches' : `touch is bound, but it is ${is}; only touch LCD cells (and the dials they belong to) take touches`);
  }
  const pressed = (['press', 'hold', 'release'] as const).filter((gesture) => binding[gesture] !== undefined);
  const whyNotPressable = notPressable(control);
  if (pressed.length > 0 && whyNotPressable !== null) problems.push(`${listed(pressed)} ${pressed.length > 1 ? 'are' : 'is'} bound, but ${whyNotPressable}`);
  return problems;
}

/** `press`, `press and hold`, `press, hold and release`. */
function listed(words: readonly string[]): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/** Touches on a Stream Deck Plus strip cell go to the cell's own binding or, failing that, its dial's. */
function takesTouch(control: ControlDefinition, byId: ReadonlyMap<string, ControlDefinition>): boolean {
  if (control.kind === 'lcd') return control.touch;
  if (control.kind === 'encoder' && control.lcd !== undefined) {
    const cell = byId.get(control.lcd);
    return cell?.kind === 'lcd' && cell.touch;
  }
  return false;
}

function notPressable(control: ControlDefinition): string | null {
  if (control.kind === 'fader') return 'it is a fader, which cannot be pressed';
  if (control.kind === 'lcd' && !control.touch) return 'it is an LCD cell that does not take touches';
  if (control.kind === 'encoder' && !control.pressable) return 'this dial cannot be pressed';
  return null;
}

/** `key0–key14, dial0–dial3, pedal`: runs of numbered ids of one prefix are shown as ranges. */
export function compactIds(ids: readonly string[]): string {
  if (ids.length === 0) return 'no controls';
  const parts: string[] = [];
  let run: { prefix: string; first: number; last: number } | null = null;
  const close = () => {
    if (run === null) return;
    const { prefix, first, last } = run;
    parts.push(first === last ? `${prefix}${first}` : last === first + 1 ? `${prefix}${first}, ${prefix}${last}` : `${prefix}${first}–${prefix}${last}`);
    run = null;
  };
  for (const id of ids) {
    const numbered = /^(.*?)(0|[1-9]\d*)$/.exec(id);
    const prefix = numbered?.[1];
    const number = numbered?.[2] === undefined ? null : Number(numbered[2]);
    if (prefix !== undefined && number !== null && run !== null && run.prefix === prefix && number === run.last + 1) {
      run.last = number;
      continue;
    }
    close();
    if (prefix !== undefined && number !== null) run = { prefix, first: number, last: number };
    else parts.push(id);
  }
  close();
  return parts.join(', ');
}
