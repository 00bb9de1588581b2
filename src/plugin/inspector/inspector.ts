// The property inspector's script, run by the Stream Deck app's browser beside an action. It edits the
// action's settings and the plugin's global settings: either the recorders it polls directly or the
// facility whose state bus it joins, chosen with a radio. Each is checked with the plugin's own zod schemas
// (settings.ts, bundled in) before saving: what the plugin would refuse is never written.
// A token is shown masked, never put back into the page once saved (an empty field keeps it), never
// written into an action's settings and never logged. A facility's broker password is not a setting at
// all: only the path of the file holding it is, so the page has no password to show.
//
// The app starts it by calling connectElgatoStreamDeckSocket(port, uuid, registerEvent, info, actionInfo)
// (Elgato's documented property inspector protocol); it speaks to the app over that WebSocket.
import { GUARDED, pluginActionOf } from '../plugin-actions.js';
import { checkActionSettings, checkGlobalSettings, describeIssue, type FacilityEntry, type GlobalSettings, type RecorderEntry } from '../settings.js';
import { InspectorAnswer, recorderChoices } from '../inspector-messages.js';

interface ActionInfo {
  action: string;
  context: string;
  payload: { settings: Record<string, unknown> };
}

let socket: WebSocket | null = null;
let uuid = '';
let actionInfo: ActionInfo | null = null;
/** The global settings in the app, as last received or saved: what the plugin runs with now. */
let savedSettings: GlobalSettings = { recorders: [] };
/**
 * The recorders as last saved (tokens included, never shown): an empty token field keeps its token. Kept
 * when a facility replaces them in the app, so that switching back and saving restores them.
 */
let savedRecorders: RecorderEntry[] = [];
/** A facility's recorders as the plugin last said it sees them on the bus (the page cannot read the bus). */
let busRecorders: string[] = [];

/** The facility's fields, in the form's order; each is the input `mqtt-<key>`. */
const FACILITY_FIELDS = ['url', 'id', 'keyFile', 'facilityFile', 'username', 'passwordFile', 'caFile'] as const satisfies readonly (keyof FacilityEntry)[];
/** What the schema requires: sent even when empty, so the schema names it as missing. The others are left out when empty. */
const REQUIRED_FACILITY_FIELDS = new Set<string>(['url', 'id', 'keyFile', 'facilityFile']);

const byId = <E extends HTMLElement>(id: string): E => document.getElementById(id) as E;

function send(message: Record<string, unknown>): void {
  socket?.send(JSON.stringify(message));
}

function connect(port: string, inspectorUuid: string, registerEvent: string, _info: string, action: string): void {
  uuid = inspectorUuid;
  actionInfo = JSON.parse(action) as ActionInfo;
  socket = new WebSocket(`ws://127.0.0.1:${port}`);
  socket.addEventListener('open', () => {
    send({ event: registerEvent, uuid });
    send({ event: 'getGlobalSettings', context: uuid });
    askStatus();
  });
  socket.addEventListener('message', (event) => receive(String(event.data)));
  showAction();
}

/** Asks the plugin what it makes of this action, and which recorders there are (answered by sendToPropertyInspector). */
function askStatus(): void {
  if (actionInfo !== null) send({ event: 'sendToPlugin', action: actionInfo.action, context: uuid, payload: { request: 'status', context: actionInfo.context } });
}

function receive(text: string): void {
  let message: { event?: unknown; payload?: { settings?: unknown } & Record<string, unknown> };
  try {
    message = JSON.parse(text) as typeof message;
  } catch {
    return;
  }
  if (message.event === 'didReceiveGlobalSettings') {
    const parsed = checkGlobalSettings(message.payload?.settings ?? {});
    if (!parsed.success) {
      // Shown on the form they were meant for; nothing of them is put into the fields.
      const mqtt = typeof message.payload?.settings === 'object' && message.payload.settings !== null && 'mqtt' in message.payload.settings;
      byId(mqtt ? 'facility-problems' : 'recorders-problems').textContent = `The saved settings are not valid: ${parsed.error.issues.map(describeIssue).join('; ')}`;
      chooseSource(mqtt ? 'facility' : 'direct');
    } else {
      savedSettings = parsed.data;
      if ('recorders' in parsed.data) savedRecorders = parsed.data.recorders;
      chooseSource('mqtt' in parsed.data ? 'facility' : 'direct');
    }
    showSource();
    showFacility();
    showRecorders();
    showAction();
  } else if (message.event === 'didReceiveSettings' && actionInfo !== null) {
    actionInfo.payload.settings = (message.payload?.settings ?? {}) as Record<string, unknown>;
    showAction();
  } else if (message.event === 'sendToPropertyInspector') {
    const answer = InspectorAnswer.safeParse(message.payload);
    if (!answer.success || !('status' in answer.data)) return;
    const { status } = answer.data;
    if (status.problem !== null) byId('action-problems').textContent = `The plugin says: ${status.problem}`;
    if ('mqtt' in savedSettings && status.recorders.join('\n') !== busRecorders.join('\n')) {
      busRecorders = status.recorders;
      // What the operator has picked and not yet saved stays picked.
      showRecorderChoice(byId<HTMLSelectElement>('recorder').value);
    }
  }
}

/** Fields made so far: each gets an id of its own, for its label. */
let fieldCount = 0;

/** An input as the app's inspectors style theirs (sdpi-item-value). */
function fieldInput(name: string, type: string): HTMLInputElement {
  const input = document.createElement('input');
  input.className = 'sdpi-item-value';
  input.name = name;
  input.type = type;
  input.id = `field-${++fieldCount}`;
  return input;
}

/** One labelled row (sdpi-item): the label on the left, the field on the right. */
function item(labelText: string, field: HTMLElement, extra?: HTMLElement): HTMLElement {
  const row = document.createElement('div');
  row.className = 'sdpi-item';
  const label = document.createElement('label');
  label.className = 'sdpi-item-label';
  label.textContent = labelText;
  label.htmlFor = field.id;
  row.append(label, field);
  if (extra !== undefined) row.append(extra);
  return row;
}

/** The action's own parameters (from the action table's schema): a field each. */
function parameterNames(): string[] {
  const action = actionInfo === null ? undefined : pluginActionOf(actionInfo.action);
  return action === undefined ? [] : [...action.parameters];
}

/** The Recorder dropdown: the global settings' recorders, or a facility's as the plugin sees them on the bus. */
function showRecorderChoice(picked?: string): void {
  if (actionInfo === null) return;
  const known = 'recorders' in savedSettings ? savedSettings.recorders.map((r) => r.name) : busRecorders;
  const { names, selected } = recorderChoices(known, picked !== undefined && picked !== '' ? picked : actionInfo.payload.settings['recorder']);
  byId<HTMLSelectElement>('recorder').replaceChildren(...names.map((name) => new Option(name, name, false, name === selected)));
}

function showAction(): void {
  if (actionInfo === null) return;
  const settings = actionInfo.payload.settings;
  showRecorderChoice();
  byId('action-description').textContent = pluginActionOf(actionInfo.action)?.tooltip ?? '';
  byId('parameters').replaceChildren(
    ...parameterNames().map((name) => {
      const input = fieldInput(name, 'text');
      input.dataset['parameter'] = name;
      const value = settings[name];
      input.value = value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
      return item(name.replace(/-/g, ' ').replace(/^./, (c) => c.toUpperCase()), input);
    }),
  );
  // Only a guarded action (stop, new session, load) is held; the others fire on the press.
  (byId('holdMs').closest('.sdpi-item') as HTMLElement).hidden = !GUARDED.has(pluginActionOf(actionInfo.action)?.name ?? '');
  byId<HTMLInputElement>('holdMs').value = typeof settings['holdMs'] === 'number' ? String(settings['holdMs']) : '';
  // A preview is behind a channel's key: offered to actions on a channel (the schema checks the rest on saving).
  (byId('thumbnail').closest('.sdpi-item') as HTMLElement).hidden = !parameterNames().includes('channel');
  byId<HTMLInputElement>('thumbnail').checked = settings['thumbnail'] === true;
}

/** A field's text as the value the schema expects: numbers and JSON as such, else the text. */
function valueOf(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (/^-?\d+(\.\d+)?$/.test(trimmed) || /^[[{]|^(true|false)$/.test(trimmed)) {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      return trimmed;
    }
  }
  return trimmed;
}

function saveAction(): void {
  if (actionInfo === null) return;
  const settings: Record<string, unknown> = { recorder: byId<HTMLSelectElement>('recorder').value };
  for (const input of byId('parameters').querySelectorAll<HTMLInputElement>('input[data-parameter]')) {
    const value = valueOf(input.value);
    if (value !== undefined) settings[input.dataset['parameter'] as string] = value;
  }
  const hold = valueOf(byId<HTMLInputElement>('holdMs').value);
  if (hold !== undefined) settings['holdMs'] = hold;
  if (byId<HTMLInputElement>('thumbnail').checked && !(byId('thumbnail').closest('.sdpi-item') as HTMLElement).hidden) settings['thumbnail'] = true;
  const action = pluginActionOf(actionInfo.action);
  const checked = checkActionSettings(action?.name ?? '', settings);
  byId('action-status').textContent = '';
  if (!checked.ok) {
    byId('action-problems').textContent = checked.problems.join('\n');
    return;
  }
  byId('action-problems').textContent = '';
  actionInfo.payload.settings = settings;
  send({ event: 'setSettings', context: uuid, payload: settings });
  byId('action-status').textContent = 'Saved';
}

function recorderRow(entry: Partial<RecorderEntry>): HTMLElement {
  const row = document.createElement('div');
  row.className = 'recorder';
  const field = (name: string, value: string, placeholder: string, type = 'text') => {
    const input = fieldInput(name, type);
    input.value = value;
    input.placeholder = placeholder;
    input.autocomplete = 'off';
    return input;
  };
  const remove = document.createElement('button');
  remove.type = 'button';
  remove.className = 'remove';
  remove.textContent = '×';
  remove.title = 'Remove this recorder';
  remove.addEventListener('click', () => row.remove());
  // The token field starts empty: a saved token stays in the app and is never put back into the page.
  row.dataset['saved'] = entry.name ?? '';
  row.append(
    item('Name', field('name', entry.name ?? '', 'main'), remove),
    item('Address', field('url', entry.url ?? '', 'http://host:9000')),
    item('Token', field('token', '', entry.token === undefined ? 'perm:…' : '•••••• saved (type to replace)', 'password')),
  );
  return row;
}

function showRecorders(): void {
  const rows = savedRecorders.map((entry) => recorderRow(entry));
  byId('recorder-rows').replaceChildren(...(rows.length === 0 ? [recorderRow({})] : rows));
}

function saveRecorders(): void {
  const recorders = [...byId('recorder-rows').querySelectorAll<HTMLElement>('.recorder')].map((row) => {
    const value = (name: string) => (row.querySelector(`input[name="${name}"]`) as HTMLInputElement).value.trim();
    const kept = savedRecorders.find((r) => r.name === row.dataset['saved'])?.token ?? '';
    return { name: value('name'), url: value('url'), token: value('token') === '' ? kept : value('token') };
  });
  const parsed = checkGlobalSettings({ recorders });
  byId('recorders-status').textContent = '';
  if (!parsed.success) {
    // The problems name the field and the rule, never a value: a token is not echoed.
    byId('recorders-problems').textContent = parsed.error.issues.map(describeIssue).join('\n');
    return;
  }
  byId('recorders-problems').textContent = '';
  savedSettings = parsed.data;
  savedRecorders = 'recorders' in parsed.data ? parsed.data.recorders : [];
  send({ event: 'setGlobalSettings', context: uuid, payload: parsed.data });
  showRecorders();
  showSource();
  showAction();
  byId('recorders-status').textContent = 'Saved';
}

type Source = 'direct' | 'facility';

const facilityInput = (key: string): HTMLInputElement => byId<HTMLInputElement>(`mqtt-${key}`);

/** The radio's choice: which form is shown. Choosing saves nothing; each form's own button does. */
function chosenSource(): Source {
  return byId<HTMLInputElement>('source-facility').checked ? 'facility' : 'direct';
}

function chooseSource(source: Source): void {
  byId<HTMLInputElement>(source === 'facility' ? 'source-facility' : 'source-direct').checked = true;
  showSource();
}

/** Shows the chosen form, and says what the plugin runs with now when it is the other one. */
function showSource(): void {
  const source = chosenSource();
  byId('facility').hidden = source !== 'facility';
  byId('recorders').hidden = source !== 'direct';
  const running: Source = 'mqtt' in savedSettings ? 'facility' : 'direct';
  byId('source-description').textContent =
    source === running
      ? ''
      : 'mqtt' in savedSettings
        ? `Now joining ${savedSettings.mqtt.url} as "${savedSettings.mqtt.id}"; saving recorders polls them directly instead.`
        : 'Now polling the recorders directly; saving a facility joins its bus instead (the recorders stay here to switch back).';
}

/** The facility form, filled from the saved facility (paths only: there is no secret in it). */
function showFacility(): void {
  const entry: Partial<FacilityEntry> = 'mqtt' in savedSettings ? savedSettings.mqtt : {};
  for (const key of FACILITY_FIELDS) facilityInput(key).value = entry[key] ?? '';
}

function saveFacility(): void {
  const mqtt: Record<string, string> = {};
  for (const key of FACILITY_FIELDS) {
    const value = facilityInput(key).value.trim();
    if (value !== '' || REQUIRED_FACILITY_FIELDS.has(key)) mqtt[key] = value;
  }
  const parsed = checkGlobalSettings({ mqtt });
  byId('facility-status').textContent = '';
  for (const key of FACILITY_FIELDS) facilityInput(key).removeAttribute('aria-invalid');
  if (!parsed.success) {
    byId('facility-problems').textContent = parsed.error.issues.map(describeIssue).join('\n');
    // The field each problem is about is marked, as the app's inspectors mark theirs.
    for (const issue of parsed.error.issues) {
      const key = issue.path[1];
      if (typeof key === 'string' && (FACILITY_FIELDS as readonly string[]).includes(key)) facilityInput(key).setAttribute('aria-invalid', 'true');
    }
    return;
  }
  byId('facility-problems').textContent = '';
  savedSettings = parsed.data;
  send({ event: 'setGlobalSettings', context: uuid, payload: parsed.data });
  showFacility();
  showSource();
  showAction();
  byId('facility-status').textContent = 'Saved';
}

byId('save-action').addEventListener('click', saveAction);
// A facility's recorders come and go on the bus: asked again each time the choice is opened.
byId('recorder').addEventListener('focus', askStatus);
byId('save-recorders').addEventListener('click', saveRecorders);
byId('save-facility').addEventListener('click', saveFacility);
for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="source"]')) radio.addEventListener('change', showSource);
byId('add-recorder').addEventListener('click', () => byId('recorder-rows').append(recorderRow({})));

declare global {
  interface Window {
    connectElgatoStreamDeckSocket: typeof connect;
  }
}
window.connectElgatoStreamDeckSocket = connect;
