// Edit mode: pick a surface (a web deck, or the mirror of a hardware deck or MIDI controller) and a
// page, click a control (in the editor's grid or on the deck itself), and the inspector shows its
// binding as a form; Save writes the profile file through the API (GET/PUT/DELETE /profiles/…), which
// checks it with the loader's schema, keeps the file's layout, and refuses a file changed meanwhile.
// The hot reload then shows the change on the deck. Desk size only: a phone views.
// @ts-check
import { bindingForm } from './editor-form.js';

/** @typedef {{ id: string, kind: string, name: string, model: string, serial?: string, controls: Array<{ id: string, kind: string, row?: number, column?: number, touch?: boolean }> }} SurfaceInfo */

const state = {
  editing: false,
  allowed: false,
  /** @type {import('./editor-form.js').EditorSchema | null} */ schema: null,
  /** @type {SurfaceInfo[]} */ surfaces: [],
  /** @type {any} */ listing: null,
  surface: '',
  /** The file driving the surface: id, origin, and the text and ETag last read. */
  /** @type {{ id: string, origin: string, yaml: string, etag: string, profile: any } | null} */ file: null,
  page: '',
  control: '',
  /** @type {(() => any) | null} */ read: null,
};

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

async function api(/** @type {string} */ method, /** @type {string} */ path, /** @type {any} */ body = undefined, /** @type {string | null} */ etag = null) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (etag) headers['if-match'] = etag;
  const response = await fetch(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const json = await response.json().catch(() => ({}));
  return { status: response.status, json };
}

const filePath = () => `/profiles/${encodeURIComponent(state.file?.id ?? '')}`;
const controlPath = (/** @type {string} */ page, /** @type {string} */ control) => `${filePath()}/pages/${encodeURIComponent(page)}/controls/${encodeURIComponent(control)}`;

async function toggle() {
  state.editing = !state.editing;
  document.body.classList.toggle('editing', state.editing);
  $('edit-toggle').textContent = state.editing ? 'Done editing' : 'Edit profiles';
  $('editor').hidden = !state.editing;
  if (!state.editing) return;
  await loading(loadAll);
}

let loads = 0;

/**
 * Runs a load with the editor marked loading: what a file brings redraws the inspector, so a field
 * filled meanwhile would be drawn over (the page greys the editor, and a test waits for the mark to go).
 * Counted: a surface picked while the editor opens keeps the mark until both are in.
 */
async function loading(/** @type {() => Promise<void>} */ load) {
  const editor = $('editor');
  loads++;
  editor.dataset.loading = '';
  try {
    await load();
  } finally {
    if (--loads === 0) delete editor.dataset.loading;
  }
}

async function loadAll() {
  const [schema, surfaces, listing] = await Promise.all([api('GET', '/profiles/schema.json'), api('GET', '/surfaces'), api('GET', '/profiles')]);
  state.schema = schema.json;
  state.surfaces = surfaces.json;
  state.listing = listing.json;
  state.allowed = listing.json.editing === true;
  const picker = /** @type {HTMLSelectElement} */ ($('edit-surface'));
  picker.replaceChildren(...state.surfaces.map((s) => Object.assign(document.createElement('option'), { value: s.id, textContent: `${s.name} (${s.id})` })));
  if (!state.surfaces.some((s) => s.id === state.surface)) state.surface = state.surfaces[0]?.id ?? '';
  picker.value = state.surface;
  await loadFile();
}

/** The file that drives the picked surface, read afresh (its text and ETag), the editor marked loading meanwhile. */
function loadFile() {
  return loading(readFile);
}

async function readFile() {
  const drives = state.listing.files.find((/** @type {any} */ f) => f.surfaces.some((/** @type {any} */ s) => s.surface === state.surface && s.drives));
  if (!drives) {
    state.file = null;
    $('edit-file').textContent = 'No profile drives this surface.';
    render();
    return;
  }
  const { json } = await api('GET', `/profiles/${encodeURIComponent(drives.id)}`);
  state.file = { id: drives.id, origin: drives.origin, yaml: json.yaml, etag: json.etag, profile: json.profile };
  const why = drives.surfaces.find((/** @type {any} */ s) => s.surface === state.surface)?.why ?? '';
  $('edit-file').textContent = `${drives.id} (${drives.origin === 'shipped' ? 'shipped with recdeck: read only' : 'your own'}) drives it: ${why}.`;
  const pages = state.file.profile?.pages ?? [];
  if (!pages.some((/** @type {any} */ p) => p.name === state.page)) state.page = pages[0]?.name ?? '';
  render();
}

/** While editing, the deck of the surface edited is the one shown (beside the editor, at desk size). */
function showEditedDeck() {
  for (const deck of document.querySelectorAll('#decks .deck')) {
    if (deck instanceof HTMLElement) deck.classList.toggle('edit-target', deck.dataset.surface === state.surface);
  }
}

function render() {
  showEditedDeck();
  const file = state.file;
  const own = file?.origin === 'operator' && state.allowed;
  $('edit-own').hidden = !(file?.origin === 'shipped' && state.allowed);
  for (const id of ['edit-undo', 'page-add', 'page-rename', 'page-left', 'page-right']) /** @type {HTMLButtonElement} */ ($(id)).disabled = !own;
  $('edit-off').hidden = state.allowed;
  const pagePicker = /** @type {HTMLSelectElement} */ ($('edit-page'));
  pagePicker.replaceChildren(...(file?.profile?.pages ?? []).map((/** @type {any} */ p) => Object.assign(document.createElement('option'), { value: p.name, textContent: p.name })));
  pagePicker.value = state.page;
  $('edit-yaml').textContent = file?.yaml ?? '';
  renderGrid();
  renderInspector();
}

/** The surface's controls in their rows and columns, each with what its binding does in a word. */
function renderGrid() {
  const surface = state.surfaces.find((s) => s.id === state.surface);
  const grid = $('edit-controls');
  const controls = state.file?.profile?.pages.find((/** @type {any} */ p) => p.name === state.page)?.controls ?? {};
  const columns = Math.max(1, ...(surface?.controls ?? []).map((c) => (c.column ?? 0) + 1));
  grid.style.gridTemplateColumns = `repeat(${Math.min(columns, 8)}, 1fr)`;
  grid.replaceChildren(
    ...(surface?.controls ?? []).map((control) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.control = control.id;
      button.className = control.id === state.control ? 'picked' : '';
      const binding = controls[control.id];
      const does = binding?.press?.action ?? binding?.turn?.action ?? binding?.fader?.action ?? binding?.touch?.tap?.action ?? (binding?.show ? 'shows' : '—');
      button.innerHTML = '<b></b><span></span>';
      /** @type {HTMLElement} */ (button.firstChild).textContent = control.id;
      /** @type {HTMLElement} */ (button.lastChild).textContent = does;
      button.addEventListener('click', () => pick(control.id));
      return button;
    }),
  );
}

function pick(/** @type {string} */ control) {
  state.control = control;
  renderGrid();
  renderInspector();
}

function renderInspector() {
  const inspector = $('inspector');
  const surface = state.surfaces.find((s) => s.id === state.surface);
  const control = surface?.controls.find((c) => c.id === state.control);
  const heading = $('inspector-title');
  const body = $('inspector-form');
  $('edit-message').replaceChildren();
  inspector.hidden = !control || !state.file || !state.schema;
  if (!control || !state.file || !state.schema) return;
  heading.textContent = `${control.id} (${control.kind}) on page "${state.page}"`;
  const binding = state.file.profile?.pages.find((/** @type {any} */ p) => p.name === state.page)?.controls[control.id] ?? {};
  const form = bindingForm(binding, control, state.schema);
  state.read = form.read;
  body.replaceChildren(form.element);
  const writable = state.file.origin === 'operator' && state.allowed;
  for (const element of body.querySelectorAll('input, select, textarea')) /** @type {HTMLInputElement} */ (element).disabled = !writable;
  for (const id of ['edit-save', 'edit-clear', 'edit-copy', 'edit-move']) /** @type {HTMLButtonElement} */ ($(id)).disabled = !writable;
}

/** An answer that is not a success: at the field for a schema problem, the change on disk for a conflict. */
function showRefusal(/** @type {number} */ status, /** @type {any} */ json) {
  const message = $('edit-message');
  message.replaceChildren();
  if (status === 400 && Array.isArray(json.problems)) {
    for (const problem of json.problems) {
      const path = String(problem.path).replace(/^pages\[\d+\]\.controls\.[^.]+\.?/, '');
      const field = findField(path);
      const note = Object.assign(document.createElement('p'), { className: 'field-error', textContent: `${problem.path}: ${problem.message}` });
      if (field) {
        field.classList.add('invalid');
        field.after(note);
      } else message.append(note);
    }
    return;
  }
  const text = Object.assign(document.createElement('p'), { className: 'refusal', textContent: json.error ?? `refused (${status})` });
  message.append(text);
  if (status === 409 && typeof json.yaml === 'string' && state.file) {
    const mine = state.file.yaml.split('\n');
    const theirs = json.yaml.split('\n');
    const diff = document.createElement('pre');
    diff.className = 'diff';
    diff.textContent = [...mine.filter((l) => !theirs.includes(l)).map((l) => `- ${l}`), ...theirs.filter((/** @type {string} */ l) => !mine.includes(l)).map((/** @type {string} */ l) => `+ ${l}`)].join('\n');
    const reload = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Load the file as it is now' });
    reload.addEventListener('click', () => void refresh());
    message.append(Object.assign(document.createElement('p'), { textContent: 'Changed on disk since you opened it (nothing was written):' }), diff, reload);
  }
}

/** The field a problem's path names, or the nearest one along it. */
function findField(/** @type {string} */ path) {
  const form = $('inspector-form');
  for (let at = path; at !== ''; at = at.includes('.') ? at.slice(0, at.lastIndexOf('.')) : '') {
    const field = form.querySelector(`[data-path="${CSS.escape(at)}"]`);
    if (field instanceof HTMLElement) return field;
  }
  return null;
}

async function refresh() {
  state.listing = (await api('GET', '/profiles')).json;
  await loadFile();
}

/** After a save: the new text and ETag, the file listing (a copy changes who drives what). */
async function saved(/** @type {{ status: number, json: any }} */ answer, /** @type {string} */ what) {
  if (answer.status >= 300) return showRefusal(answer.status, answer.json);
  await refresh();
  $('edit-message').append(Object.assign(document.createElement('p'), { className: 'saved', textContent: `Saved: ${what}` }));
  // Accepted, but more than this surface can do (a turn on a key): the bridge's own words.
  for (const warning of answer.json.warnings ?? []) $('edit-message').append(Object.assign(document.createElement('p'), { className: 'refusal', textContent: warning }));
}

async function save() {
  if (!state.file || !state.read) return;
  await saved(await api('PUT', controlPath(state.page, state.control), state.read(), state.file.etag), `${state.control} on "${state.page}"`);
}

async function clear() {
  if (!state.file) return;
  await saved(await api('DELETE', controlPath(state.page, state.control), undefined, state.file.etag), `${state.control} cleared`);
}

/** Copies (or moves) the control to another control, on this page or another: "key3" or "Setup/key3". */
async function copyTo(/** @type {boolean} */ move) {
  if (!state.file || !state.read) return;
  const target = prompt(`${move ? 'Move' : 'Copy'} ${state.control} to which control? (key3, or Page name/key3)`);
  if (!target) return;
  const [page, control] = target.includes('/') ? [target.slice(0, target.lastIndexOf('/')), target.slice(target.lastIndexOf('/') + 1)] : [state.page, target];
  const put = await api('PUT', controlPath(page, control), state.read(), state.file.etag);
  if (put.status >= 300 || !move) return saved(put, `${state.control} copied to ${page}/${control}`);
  await saved(await api('DELETE', controlPath(state.page, state.control), undefined, put.json.etag), `${state.control} moved to ${page}/${control}`);
}

async function pageAction(/** @type {'add' | 'rename' | 'left' | 'right'} */ action) {
  if (!state.file) return;
  const pages = state.file.profile.pages.map((/** @type {any} */ p) => p.name);
  const index = pages.indexOf(state.page);
  if (action === 'add') {
    const name = prompt('Name of the new page?');
    if (!name) return;
    const answer = await api('POST', `${filePath()}/pages`, { name }, state.file.etag);
    if (answer.status < 300) state.page = name;
    return saved(answer, `page "${name}" added`);
  }
  if (action === 'rename') {
    const name = prompt(`New name of page "${state.page}"?`, state.page);
    if (!name || name === state.page) return;
    const answer = await api('PATCH', `${filePath()}/pages/${encodeURIComponent(state.page)}`, { name }, state.file.etag);
    if (answer.status < 300) state.page = name;
    return saved(answer, `page renamed "${name}"`);
  }
  const to = action === 'left' ? index - 1 : index + 1;
  if (to < 0 || to >= pages.length) return;
  return saved(await api('PATCH', `${filePath()}/pages/${encodeURIComponent(state.page)}`, { index: to }, state.file.etag), `page "${state.page}" moved`);
}

async function undo() {
  if (!state.file) return;
  await saved(await api('POST', `${filePath()}/undo`, undefined, state.file.etag), 'the last save undone');
}

/** The copy drives the surface once the bridge has reloaded the profiles: the listing is asked until it says so (a few seconds at most). */
async function makeMyOwn() {
  if (!state.file) return;
  const answer = await api('POST', `${filePath()}/copy`, { surface: state.surface });
  if (answer.status >= 300) return showRefusal(answer.status, answer.json);
  for (let tries = 0; tries < 50; tries++) {
    state.listing = (await api('GET', '/profiles')).json;
    const copy = state.listing.files.find((/** @type {any} */ f) => f.id === answer.json.id);
    if (copy?.surfaces.some((/** @type {any} */ s) => s.surface === state.surface && s.drives)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await loadFile();
  $('edit-message').append(Object.assign(document.createElement('p'), { className: 'saved', textContent: `Your own copy: ${answer.json.id}` }));
}

// In edit mode a click on a deck's control picks it instead of pressing it (capture: before the deck's own handlers).
for (const type of ['pointerdown', 'pointerup', 'click', 'keydown']) {
  $('decks').addEventListener(
    type,
    (event) => {
      if (!state.editing) return;
      const target = event.target instanceof Element ? event.target.closest('[data-surface][data-control]') : null;
      if (!(target instanceof HTMLElement)) return;
      event.stopPropagation();
      event.preventDefault();
      if (type !== 'pointerdown') return;
      const surface = /** @type {string} */ (target.dataset.surface);
      if (surface !== state.surface) {
        state.surface = surface;
        /** @type {HTMLSelectElement} */ ($('edit-surface')).value = surface;
        state.control = /** @type {string} */ (target.dataset.control);
        void loadFile();
      } else pick(/** @type {string} */ (target.dataset.control));
    },
    true,
  );
}

$('edit-toggle').addEventListener('click', () => void toggle());
$('edit-surface').addEventListener('change', (event) => {
  state.surface = /** @type {HTMLSelectElement} */ (event.target).value;
  state.control = '';
  void loadFile();
});
$('edit-page').addEventListener('change', (event) => {
  state.page = /** @type {HTMLSelectElement} */ (event.target).value;
  render();
});
$('edit-save').addEventListener('click', () => void save());
$('edit-clear').addEventListener('click', () => void clear());
$('edit-copy').addEventListener('click', () => void copyTo(false));
$('edit-move').addEventListener('click', () => void copyTo(true));
$('edit-undo').addEventListener('click', () => void undo());
$('edit-own').addEventListener('click', () => void makeMyOwn());
$('page-add').addEventListener('click', () => void pageAction('add'));
$('page-rename').addEventListener('click', () => void pageAction('rename'));
$('page-left').addEventListener('click', () => void pageAction('left'));
$('page-right').addEventListener('click', () => void pageAction('right'));
