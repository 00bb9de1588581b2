// The inspector's form for one binding, made from the schema the bridge serves (GET /profiles/schema.json:
// the binding's JSON Schema generated from the profile's zod schema, and every action with its
// description and parameters), so the page knows no action or field of its own. Each field carries the
// path the loader names in its problems (`press.channel`), so a refusal is shown at the field.
// @ts-check

/** @typedef {{ name: string, kind: string, description: string, example: any, parameters: any }} ActionInfo */
/** @typedef {{ actions: ActionInfo[], binding: any, recorders: Array<{ name: string, channels: Array<{ number: number, source: string | null, destinations: string[] }>, sources: string[] }> }} EditorSchema */

/** Which gestures a control takes, by its kind (the loader warns of the others: see profile-match.ts). */
export function gesturesOf(/** @type {{ kind: string, touch?: boolean }} */ control) {
  switch (control.kind) {
    case 'encoder':
      return ['turn', 'press', 'release', 'hold'];
    case 'fader':
      return ['fader'];
    case 'lcd':
      return control.touch ? ['touch.tap', 'touch.long', 'touch.swipe-left', 'touch.swipe-right'] : [];
    default:
      return ['press', 'release', 'hold'];
  }
}

const GESTURE_NAMES = /** @type {Record<string, string>} */ ({
  press: 'Press',
  release: 'Release',
  hold: 'Hold',
  turn: 'Turn',
  fader: 'Fader move',
  'touch.tap': 'Tap',
  'touch.long': 'Long touch',
  'touch.swipe-left': 'Swipe left',
  'touch.swipe-right': 'Swipe right',
});

/** The kinds of `show` the binding's JSON Schema allows: its words, and the fields of its label. */
function showChoices(/** @type {EditorSchema} */ schema) {
  const options = schema.binding?.properties?.show?.anyOf ?? [];
  const words = options.find((/** @type {any} */ o) => Array.isArray(o.enum))?.enum ?? [];
  const icons = options.find((/** @type {any} */ o) => o.properties?.label)?.properties?.icon?.enum ?? [];
  return { words: /** @type {string[]} */ (words), icons: /** @type {string[]} */ (icons), about: schema.binding?.properties?.show?.description ?? '' };
}

/** The cue a key shows for its confirmation or hold, in the key's own words. */
export function cueText(/** @type {any} */ binding) {
  const cues = [];
  if (binding.confirm?.hold) cues.push(`HOLD ${binding.confirm.hold / 1000} s: a ring fills, then the press fires`);
  if (binding.confirm?.double) cues.push(`PRESS TWICE within ${binding.confirm.double} ms`);
  if (binding.hold) cues.push(`hold ${binding.hold.ms / 1000} s for ${binding.hold.do?.action ?? '…'} (a ring fills)`);
  return cues.join(' · ');
}

/**
 * The form's elements for a binding. `read()` gives back the binding as the form has it now.
 * @param {any} binding @param {{ kind: string, touch?: boolean }} control @param {EditorSchema} schema
 */
export function bindingForm(binding, control, schema) {
  const root = document.createElement('div');
  root.className = 'binding-form';
  const readers = /** @type {Array<(b: any) => void>} */ ([]);

  const show = showField(binding.show, schema);
  root.append(show.element);
  readers.push((b) => {
    const value = show.read();
    if (value !== undefined) b.show = value;
  });

  // The gestures the control takes, and any other the file binds (shown so a save never drops it; the
  // bridge warns that the control cannot do it).
  const bound = [...['press', 'release', 'hold', 'turn', 'fader'].filter((g) => binding[g] !== undefined), ...Object.keys(binding.touch ?? {}).map((g) => `touch.${g}`)];
  const gestures = [...new Set([...gesturesOf(control), ...bound])];
  for (const gesture of gestures) {
    const current = gesture.startsWith('touch.') ? binding.touch?.[gesture.slice(6)] : gesture === 'hold' ? binding.hold?.do : binding[gesture];
    const path = gesture === 'hold' ? 'hold.do' : gesture;
    const field = actionField(GESTURE_NAMES[gesture] ?? gesture, path, current, schema);
    // What the gesture does, in the schema's words (`On press (after the confirmation, when one is asked)`).
    field.element.title = schema.binding?.properties?.[gesture.startsWith('touch.') ? 'touch' : gesture]?.description ?? '';
    root.append(field.element);
    let holdMs = /** @type {HTMLInputElement | null} */ (null);
    if (gesture === 'hold') {
      holdMs = numberInput('hold.ms', binding.hold?.ms ?? 800, 200, 10000);
      field.element.querySelector('.action-head')?.append(labelled('for ms', holdMs));
    }
    readers.push((b) => {
      const action = field.read();
      if (action === undefined) return;
      if (gesture.startsWith('touch.')) b.touch = { ...(b.touch ?? {}), [gesture.slice(6)]: action };
      else if (gesture === 'hold') b.hold = { ms: Number(holdMs?.value), do: action };
      else b[gesture] = action;
    });
  }

  if (gestures.includes('press') || binding.confirm !== undefined) {
    const confirm = confirmField(binding.confirm);
    root.append(confirm.element);
    readers.push((b) => {
      const value = confirm.read();
      if (value !== undefined) b.confirm = value;
    });
  }
  if (binding.recorder !== undefined) readers.push((b) => (b.recorder = binding.recorder));

  const cue = document.createElement('p');
  cue.className = 'cue';
  const read = () => {
    /** @type {any} */
    const b = {};
    for (const reader of readers) reader(b);
    return b;
  };
  const refreshCue = () => (cue.textContent = cueText(read()) || 'no cue: a press fires at once');
  root.addEventListener('input', refreshCue);
  root.addEventListener('change', refreshCue);
  refreshCue();
  root.append(cue);
  return { element: root, read };
}

/** What the control shows: follows the press action, a word, a channel, a meter, or a label. */
function showField(/** @type {any} */ show, /** @type {EditorSchema} */ schema) {
  const element = document.createElement('fieldset');
  element.dataset.path = 'show';
  element.innerHTML = '<legend>Shows</legend>';
  const choices = showChoices(schema);
  element.title = choices.about;
  const kind = select('show.kind', [['', '(follows the press action)'], ...choices.words.map((w) => [w, w]), ['channel', 'a channel'], ['meter', 'a level meter'], ['label', 'a label']]);
  kind.value = show === undefined ? '' : typeof show === 'string' ? show : 'channel' in show ? 'channel' : 'meter' in show ? 'meter' : 'label';
  const channel = channelPicker('show.channel', show?.channel ?? show?.meter ?? 1, schema);
  const thumbnail = document.createElement('input');
  thumbnail.type = 'checkbox';
  thumbnail.checked = show?.thumbnail === true;
  const label = textInput('show.label', show?.label ?? '');
  const icon = select('show.icon', [['', '(no icon)'], ...choices.icons.map((i) => [i, i])]);
  icon.value = show?.icon ?? '';
  const color = textInput('show.color', show?.color ?? '');
  color.placeholder = '#rrggbb';
  // Made when shown: one channel picker serves the channel and the meter.
  const parts = /** @type {Record<string, () => HTMLElement[]>} */ ({
    channel: () => [labelled('channel', channel), labelled('preview', thumbnail)],
    meter: () => [labelled('channel', channel)],
    label: () => [labelled('text', label), labelled('icon', icon), labelled('colour', color)],
  });
  const extra = document.createElement('div');
  extra.className = 'row';
  const refresh = () => extra.replaceChildren(...(parts[kind.value]?.() ?? []));
  kind.addEventListener('change', refresh);
  refresh();
  element.append(kind, extra);
  return {
    element,
    read: () => {
      if (kind.value === '') return undefined;
      if (kind.value === 'channel') return { channel: channelValue(channel), ...(thumbnail.checked ? { thumbnail: true } : {}) };
      if (kind.value === 'meter') return { meter: channelValue(channel) };
      if (kind.value === 'label') return { label: label.value, ...(icon.value ? { icon: icon.value } : {}), ...(color.value ? { color: color.value } : {}) };
      return kind.value;
    },
  };
}

/** One gesture's action: which action (with its description), then its parameters from its JSON Schema. */
function actionField(/** @type {string} */ title, /** @type {string} */ path, /** @type {any} */ action, /** @type {EditorSchema} */ schema) {
  const element = document.createElement('fieldset');
  element.className = 'action';
  element.dataset.path = path;
  element.dataset.gesture = path;
  const head = document.createElement('div');
  head.className = 'action-head';
  const legend = document.createElement('legend');
  legend.textContent = title;
  const names = schema.actions.map((a) => a.name);
  const raw = action !== undefined && !names.includes(action.action);
  const picker = select(`${path}.action`, [['', '(nothing)'], ...schema.actions.map((a) => [a.name, a.name]), ...(raw ? [['(as written)', `${action.action} (as written)`]] : [])]);
  picker.value = action === undefined ? '' : raw ? '(as written)' : action.action;
  const about = document.createElement('p');
  about.className = 'about';
  const params = document.createElement('div');
  params.className = 'row';
  /** @type {Record<string, () => unknown>} */
  let readers = {};
  const build = (/** @type {any} */ values) => {
    readers = {};
    const info = schema.actions.find((a) => a.name === picker.value);
    about.textContent = info ? info.description : picker.value === '(as written)' ? 'kept as the file writes it (a macro or an action this page does not know)' : '';
    const fields = [];
    for (const [name, property] of Object.entries(info?.parameters?.properties ?? {})) {
      if (name === 'action') continue;
      const required = (info?.parameters?.required ?? []).includes(name);
      const field = parameterInput(`${path}.${name}`, name, /** @type {any} */ (property), values?.[name] ?? (required ? info?.example?.[name] : undefined), schema);
      readers[name] = field.read;
      fields.push(labelled(`${name}${required ? '' : ' (optional)'}`, field.element, /** @type {any} */ (property).description));
    }
    params.replaceChildren(...fields);
  };
  // Another action keeps the parameters it shares with the one before (the channel, most often).
  picker.addEventListener('change', () => build(Object.fromEntries(Object.entries(readers).map(([name, read]) => [name, read()]))));
  build(action);
  head.append(legend, picker);
  element.append(head, about, params);
  return {
    element,
    read: () => {
      if (picker.value === '') return undefined;
      if (picker.value === '(as written)') return action;
      /** @type {any} */
      const value = { action: picker.value };
      for (const [name, read] of Object.entries(readers)) {
        const v = read();
        if (v !== undefined) value[name] = v;
      }
      return value;
    },
  };
}

/** A parameter's input from its JSON Schema: a channel picker, a list, a number, a switch or text. */
function parameterInput(/** @type {string} */ path, /** @type {string} */ name, /** @type {any} */ property, /** @type {any} */ value, /** @type {EditorSchema} */ schema) {
  const options = property.anyOf ?? property.oneOf ?? [];
  if (name === 'channel' || options.some((/** @type {any} */ o) => o.const === 'selected')) {
    const picker = channelPicker(path, value, schema, true);
    return { element: picker, read: () => (picker.value === '' ? undefined : channelValue(picker)) };
  }
  const choices = property.enum ?? (options.every((/** @type {any} */ o) => 'const' in o) && options.length > 0 ? options.map((/** @type {any} */ o) => o.const) : null);
  if (choices) {
    const picker = select(path, [['', '—'], ...choices.map((/** @type {any} */ c) => [String(c), String(c)])]);
    picker.value = value === undefined ? '' : String(value);
    return { element: picker, read: () => (picker.value === '' ? undefined : typeof choices[0] === 'number' ? Number(picker.value) : picker.value) };
  }
  if (property.type === 'integer' || property.type === 'number') {
    const input = numberInput(path, value ?? '', property.minimum, property.maximum);
    return { element: input, read: () => (input.value === '' ? undefined : Number(input.value)) };
  }
  if (property.type === 'boolean') {
    const input = document.createElement('input');
    input.type = 'checkbox';
    input.dataset.path = path;
    input.checked = value === true;
    return { element: input, read: () => (input.checked ? true : undefined) };
  }
  if (property.type === 'string') {
    const input = textInput(path, value ?? '');
    const names = /source/i.test(name) ? schema.recorders.flatMap((r) => r.sources) : /destination/i.test(name) ? [...new Set(schema.recorders.flatMap((r) => r.channels.flatMap((c) => c.destinations)))] : [];
    if (names.length > 0) {
      const list = document.createElement('datalist');
      list.id = `list-${path.replace(/[^a-z0-9]/gi, '-')}`;
      list.append(...names.map((n) => Object.assign(document.createElement('option'), { value: n })));
      input.setAttribute('list', list.id);
      const box = document.createElement('span');
      box.append(input, list);
      return { element: box, read: () => (input.value === '' ? undefined : input.value) };
    }
    return { element: input, read: () => (input.value === '' ? undefined : input.value) };
  }
  // Anything else (a list of steps, an object) is edited as JSON.
  const area = document.createElement('textarea');
  area.dataset.path = path;
  area.value = value === undefined ? '' : JSON.stringify(value);
  return {
    element: area,
    read: () => {
      if (area.value.trim() === '') return undefined;
      try {
        return JSON.parse(area.value);
      } catch {
        return area.value;
      }
    },
  };
}

/** The confirmation a press asks: none, a hold with a filling ring, or a second press. */
function confirmField(/** @type {any} */ confirm) {
  const element = document.createElement('fieldset');
  element.dataset.path = 'confirm';
  element.innerHTML = '<legend>Confirm</legend>';
  const kind = select('confirm.kind', [['', 'none: a press fires at once'], ['hold', 'hold the key (a ring fills)'], ['double', 'press twice']]);
  kind.value = confirm?.hold ? 'hold' : confirm?.double ? 'double' : '';
  const ms = numberInput('confirm.ms', confirm?.hold ?? confirm?.double ?? 1500, 150, 10000);
  element.append(kind, labelled('ms', ms));
  return { element, read: () => (kind.value === '' ? undefined : { [kind.value]: Number(ms.value) }) };
}

/** Channels by number with what the recorder has on them now (its live list), and "selected". */
function channelPicker(/** @type {string} */ path, /** @type {any} */ value, /** @type {EditorSchema} */ schema, optional = false) {
  const channels = schema.recorders[0]?.channels ?? [];
  const count = Math.max(16, channels.length);
  const rows = [];
  for (let n = 1; n <= count; n++) {
    const source = channels.find((c) => c.number === n)?.source;
    rows.push([String(n), source ? `${n} · ${source}` : String(n)]);
  }
  const picker = select(path, [...(optional ? [['', '—']] : []), ...rows, ['selected', 'the selected channel']]);
  picker.value = value === undefined ? '' : String(value);
  return picker;
}

const channelValue = (/** @type {HTMLSelectElement} */ picker) => (picker.value === 'selected' ? 'selected' : Number(picker.value));

function select(/** @type {string} */ path, /** @type {string[][]} */ options) {
  const element = document.createElement('select');
  element.dataset.path = path;
  for (const [value, text] of options) element.append(Object.assign(document.createElement('option'), { value, textContent: text }));
  return element;
}

function textInput(/** @type {string} */ path, /** @type {string} */ value) {
  const input = document.createElement('input');
  input.type = 'text';
  input.dataset.path = path;
  input.value = value;
  return input;
}

function numberInput(/** @type {string} */ path, /** @type {any} */ value, /** @type {number | undefined} */ min, /** @type {number | undefined} */ max) {
  const input = document.createElement('input');
  input.type = 'number';
  input.dataset.path = path;
  input.value = String(value);
  if (min !== undefined) input.min = String(min);
  if (max !== undefined) input.max = String(max);
  return input;
}

function labelled(/** @type {string} */ text, /** @type {HTMLElement} */ input, /** @type {string | undefined} */ title = undefined) {
  const label = document.createElement('label');
  label.append(`${text} `, input);
  if (title) label.title = title;
  return label;
}
