// The web deck in the browser: draws what the bridge sends over the WebSocket and sends back presses,
// holds, dial turns and strip touches. It never polls. When the link drops every deck says NO LINK at
// once (a key that still shows its last picture would be a lie) and the page reconnects.
// @ts-check
import { showAlarms } from './deck-alarms.js';
import { auditEntry } from './deck-audit.js';
import { NARROW_QUERY, fitKeys, foldedCell } from './deck-layout.js';
import { DIAL_HOLD_AFTER_MS, holdable, touchable, turnable } from './deck-press.js';

// The messages both ways are those of the bridge's protocol module (src/remote/deck-protocol.ts): its
// zod schemas check the page's messages on arrival and type the bridge's as they are sent.
/** @typedef {import('../deck-protocol.js').ServerMessage} ServerMessage */
/** @typedef {import('../deck-protocol.js').PageMessage} PageMessage */
/** @typedef {Extract<PageMessage, {type: 'input'}>['input']} PageInput */
/** @typedef {import('../deck-protocol.js').DeckPanel} Panel */
/** @typedef {import('../deck-protocol.js').DeckControl} Control */
/** @typedef {import('../deck-protocol.js').DeckState} DeckState */
/** @type {Panel[]} */
let surfaces = [];
/** Whether the bridge drives more than one recorder (the audit log then names the recorder). */
let severalRecorders = false;
const narrow = window.matchMedia(NARROW_QUERY);
/** The deck shown on a narrow page; remembered across visits where the browser allows storage. */
const PICKED_KEY = 'recdeck.deck';
const remembered = {
  get: () => {
    try {
      return localStorage.getItem(PICKED_KEY);
    } catch {
      return null; // storage blocked (cookies off): the first deck is shown
    }
  },
  set: (/** @type {string} */ id) => {
    try {
      localStorage.setItem(PICKED_KEY, id);
    } catch {
      // storage blocked: the choice lasts until the page is reloaded
    }
  },
};
/** @type {Map<string, HTMLCanvasElement>} canvases by "surfaceIndex/controlIndex" */
const canvases = new Map();
/** @type {WebSocket | null} */
let socket = null;
/** The bridge's last word on the recorders and surfaces, and whether the link it came over still stands. */
let lastState = /** @type {DeckState | null} */ (null);
let linked = false;
const link = /** @type {HTMLElement} */ (document.getElementById('link'));

function connect() {
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
  ws.binaryType = 'arraybuffer';
  // The image messages drawn on this link, told to the bridge as each is drawn (the first, 0, at once:
  // this page counts), so that it sends the next ones at the pace this page draws them, the newest of
  // each key, never a queue of old ones (src/remote/deck-socket.ts keeps at most two unsaid).
  let drawn = 0;
  /** @param {PageMessage} message */
  const tell = (message) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
  };
  ws.onopen = () => {
    link.textContent = 'connected';
    link.classList.remove('down');
    tell({ type: 'drawn', images: 0 });
  };
  ws.onclose = () => {
    // Only this socket's own end counts: a late close of an old one must not unlink the new one.
    if (socket !== ws) return;
    link.textContent = 'connection to the bridge lost: reconnecting…';
    link.classList.add('down');
    // Linked again only once the bridge has sent the decks afresh (the hello), not at the bare open.
    document.body.classList.add('unlinked');
    // The panels too: what they hold is the bridge's word from before the drop, true of nothing now.
    linked = false;
    if (lastState) showState(lastState);
    else /** @type {HTMLElement} */ (document.getElementById('status')).classList.add('link-lost'); // nothing came yet: the panels say so all the same
    socket = null;
    setTimeout(connect, 1000);
  };
  ws.onmessage = (event) => {
    if (!(event.data instanceof ArrayBuffer)) return receive(/** @type {ServerMessage} */ (JSON.parse(event.data)));
    drawImages(event.data);
    tell({ type: 'drawn', images: ++drawn });
  };
  socket = ws;
}

/** @param {ServerMessage} message */
function receive(message) {
  switch (message.type) {
    case 'hello':
      surfaces = message.surfaces;
      sentView = null; // a new link (or a new set of decks) is told the view afresh
      buildDecks();
      document.body.classList.remove('unlinked');
      break;
    case 'state':
      linked = true;
      lastState = message.state;
      showState(message.state);
      // The recent commands come with the first state of a link: they replace what an earlier link showed.
      if (message.commands) {
        /** @type {HTMLElement} */ (document.getElementById('audit')).replaceChildren();
        for (const record of message.commands) showCommand(record);
      }
      break;
    case 'command':
      showCommand(message.record);
      break;
    case 'level': {
      const dial = document.querySelector(`[data-surface="${CSS.escape(message.surface)}"][data-control="${CSS.escape(message.control)}"]`);
      if (dial instanceof HTMLElement) {
        dial.classList.add('level');
        dial.style.borderColor = `hsl(200 70% ${20 + 50 * message.level}%)`;
      }
      break;
    }
    case 'led': {
      // A pad, pedal or LED button of a hardware deck: its light, as the deck shows it.
      const pad = document.querySelector(`.pad[data-surface="${CSS.escape(message.surface)}"][data-control="${CSS.escape(message.control)}"]`);
      if (pad instanceof HTMLElement) pad.dataset.led = message.state;
      break;
    }
    case 'alarms':
      showAlarms(message);
      break;
    case 'error':
      console.warn('bridge:', message.message);
      break;
  }
}

/**
 * A message of one or more image frames end to end (see src/remote/image-frames.ts): a whole key image
 * (version 1), or the rectangle of it that changed (version 2), in raw RGB.
 * @param {ArrayBuffer} buffer
 */
function drawImages(buffer) {
  const view = new DataView(buffer);
  for (let offset = 0; offset + 10 <= buffer.byteLength; ) {
    const version = view.getUint16(offset);
    const canvas = canvases.get(`${view.getUint16(offset + 2)}/${view.getUint16(offset + 4)}`);
    const rect = version === 2;
    const header = rect ? 14 : 10;
    const [x, y] = rect ? [view.getUint16(offset + 6), view.getUint16(offset + 8)] : [0, 0];
    const [width, height] = rect ? [view.getUint16(offset + 10), view.getUint16(offset + 12)] : [view.getUint16(offset + 6), view.getUint16(offset + 8)];
    const rgb = new Uint8Array(buffer, offset + header, Math.min(width * height * 3, buffer.byteLength - offset - header));
    offset += header + rgb.length;
    if (!canvas || (version !== 1 && version !== 2) || rgb.length !== width * height * 3 || width === 0 || height === 0) continue;
    const rgba = new ImageData(width, height);
    for (let p = 0, q = 0; p < rgb.length; p += 3, q += 4) {
      // Within rgb's length (a whole number of pixels): never undefined.
      rgba.data[q] = /** @type {number} */ (rgb[p]);
      rgba.data[q + 1] = /** @type {number} */ (rgb[p + 1]);
      rgba.data[q + 2] = /** @type {number} */ (rgb[p + 2]);
      rgba.data[q + 3] = 255;
    }
    if (!rect) {
      canvas.width = width;
      canvas.height = height;
    }
    canvas.getContext('2d')?.putImageData(rgba, x, y);
  }
}

/** The one way a message leaves for the bridge: typed as the bridge's schema takes it. @param {PageMessage} message */
function sendMessage(message) {
  if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

/** @param {string} surface @param {PageInput} input */
const sendInput = (surface, input) => sendMessage({ type: 'input', surface, input });

function buildDecks() {
  const decks = /** @type {HTMLElement} */ (document.getElementById('decks'));
  decks.replaceChildren();
  canvases.clear();
  onScreen.disconnect();
  decksOnScreen.clear();
  surfaces.forEach((surface, surfaceIndex) => {
    const deck = document.createElement('section');
    deck.className = `deck ${surface.kind}`;
    deck.dataset.surface = surface.id;
    deck.dataset.columns = String(Math.max(1, surface.layout.columns));
    deck.dataset.keySize = String(surface.layout.keySize);
    const title = document.createElement('h2');
    title.textContent = deckName(surface);
    const keys = document.createElement('div');
    keys.className = 'keys';
    const buttons = document.createElement('div');
    buttons.className = 'buttons';
    const strip = document.createElement('div');
    strip.className = 'strip';
    const dials = document.createElement('div');
    dials.className = 'dials';
    const send = (/** @type {PageInput} */ input) => sendInput(surface.id, input);
    surface.controls.forEach((control, controlIndex) => {
      if (control.kind === 'key') {
        const canvas = keyCanvas(surface.id, control, 'key');
        canvas.dataset.row = String(control.row);
        canvas.dataset.column = String(control.column);
        holdable(canvas, control.id, send);
        keys.append(canvas);
        canvases.set(`${surfaceIndex}/${controlIndex}`, canvas);
      } else if (control.kind === 'lcd') {
        const canvas = keyCanvas(surface.id, control, 'cell');
        if (control.touch) touchable(canvas, (gesture) => send({ type: 'touch', control: control.id, gesture }));
        strip.append(canvas);
        canvases.set(`${surfaceIndex}/${controlIndex}`, canvas);
      } else if (control.kind === 'encoder') {
        dials.append(dial(surface.id, control.id, send));
      } else if (control.kind === 'button') {
        const button = document.createElement('button');
        button.className = 'pad';
        button.textContent = control.id;
        button.dataset.surface = surface.id;
        button.dataset.control = control.id;
        holdable(button, control.id, send);
        buttons.append(button);
      }
    });
    // Over the whole deck while the link is down: nothing on it is true any more, and nothing pressed reaches the bridge.
    const noLink = document.createElement('p');
    noLink.className = 'no-link';
    noLink.setAttribute('role', 'alert');
    noLink.innerHTML = '<strong>NO LINK</strong><span>reconnecting to the bridge…</span>';
    deck.append(title);
    if (keys.childElementCount > 0) deck.append(keys);
    if (buttons.childElementCount > 0) deck.append(buttons);
    if (strip.childElementCount > 0) deck.append(strip);
    if (dials.childElementCount > 0) deck.append(dials);
    deck.append(noLink);
    decks.append(deck);
    onScreen.observe(deck);
  });
  buildPicker();
  layoutDecks();
}

// The decks in view, told to the bridge: it draws a web deck, fetches its previews and sends its images
// only while some page views it. A narrow page views the deck picked, a wide one the decks on screen,
// a hidden tab none.
/** @type {Set<string>} */
const decksOnScreen = new Set();
const onScreen = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    const id = entry.target instanceof HTMLElement ? entry.target.dataset.surface : undefined;
    if (id === undefined) continue;
    if (entry.isIntersecting) decksOnScreen.add(id);
    else decksOnScreen.delete(id);
  }
  sendView();
});
/** The view last told over this link (null: none yet). */
let sentView = /** @type {string | null} */ (null);

function sendView() {
  if (socket?.readyState !== WebSocket.OPEN) return;
  const picked = /** @type {HTMLSelectElement} */ (document.getElementById('deck-picker')).value;
  const view = document.hidden ? [] : narrow.matches ? (picked ? [picked] : []) : [...decksOnScreen].sort();
  const told = view.join('\n');
  if (told === sentView) return;
  sentView = told;
  sendMessage({ type: 'view', surfaces: view });
}

/** Hardware decks are shown as they are lit; pressing them here is a remote press. */
const deckName = (/** @type {{id: string, kind: string, name: string}} */ surface) => (surface.kind === 'web' ? surface.name : `${surface.name} (${surface.id}, remote)`);

/** The deck picker of a narrow page: which deck fills it. The choice outlives a reconnect and a reload. */
function buildPicker() {
  const picker = /** @type {HTMLSelectElement} */ (document.getElementById('deck-picker'));
  // The deck shown before the decks were sent again (a reconnect), else the one picked on an earlier visit.
  const wanted = picker.value || remembered.get();
  picker.replaceChildren(
    ...surfaces.map((surface) => {
      const option = document.createElement('option');
      option.value = surface.id;
      option.textContent = deckName(surface);
      return option;
    }),
  );
  picker.value = surfaces.some((s) => s.id === wanted) ? /** @type {string} */ (wanted) : (surfaces[0]?.id ?? '');
  showPicked();
}

function showPicked() {
  const picker = /** @type {HTMLSelectElement} */ (document.getElementById('deck-picker'));
  for (const deck of document.querySelectorAll('#decks .deck')) {
    if (deck instanceof HTMLElement) deck.classList.toggle('picked', deck.dataset.surface === picker.value);
  }
}

/** Sizes and places every deck's keys for the page's width now (see deck-layout.js). */
function layoutDecks() {
  const main = /** @type {HTMLElement} */ (document.querySelector('main'));
  const mainStyle = getComputedStyle(main);
  const room = main.clientWidth - parseFloat(mainStyle.paddingLeft) - parseFloat(mainStyle.paddingRight);
  for (const deck of document.querySelectorAll('#decks .deck')) {
    if (!(deck instanceof HTMLElement)) continue;
    const keys = deck.querySelector('.keys');
    if (!(keys instanceof HTMLElement)) continue;
    const deckStyle = getComputedStyle(deck);
    const gap = parseFloat(getComputedStyle(keys).columnGap) || 0;
    const width = room - parseFloat(deckStyle.paddingLeft) - parseFloat(deckStyle.paddingRight);
    const columns = Number(deck.dataset.columns);
    const fit = fitKeys(columns, Number(deck.dataset.keySize), width, gap, narrow.matches);
    keys.style.gridTemplateColumns = `repeat(${fit.columns}, ${fit.keyPx}px)`;
    for (const canvas of keys.querySelectorAll('canvas')) {
      const cell = foldedCell(Number(canvas.dataset.row), Number(canvas.dataset.column), columns, fit.columns);
      canvas.style.gridRow = String(cell.row + 1);
      canvas.style.gridColumn = String(cell.column + 1);
      canvas.style.width = `${fit.keyPx}px`;
      canvas.style.height = `${Math.round((fit.keyPx * canvas.height) / canvas.width)}px`;
    }
  }
}

/** @param {string} surface @param {Extract<Control, {kind: 'key' | 'lcd'}>} control @param {string} className */
function keyCanvas(surface, control, className) {
  const canvas = document.createElement('canvas');
  canvas.className = className;
  canvas.width = control.pixelSize.width;
  canvas.height = control.pixelSize.height;
  canvas.dataset.surface = surface;
  canvas.dataset.control = control.id;
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'button');
  canvas.setAttribute('aria-label', control.id);
  return canvas;
}

/** A dial: the wheel turns it, a press presses it. */
function dial(/** @type {string} */ surface, /** @type {string} */ control, /** @type {(input: PageInput) => void} */ send) {
  const element = document.createElement('div');
  element.className = 'dial';
  element.dataset.surface = surface;
  element.dataset.control = control;
  element.tabIndex = 0;
  element.setAttribute('role', 'slider');
  element.setAttribute('aria-label', control);
  turnable(element, (amount) => send({ type: 'rotate', control, amount }));
  holdable(element, control, send, DIAL_HOLD_AFTER_MS);
  return element;
}

const clock = (/** @type {number | null} */ s) => (s === null ? '' : [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60].map((n) => String(n).padStart(2, '0')).join(':'));

/** How old data is, in the keys' words: "8s old", "3m old", "2h old". */
function ageText(/** @type {number} */ ageS) {
  const s = Math.max(0, Math.floor(ageS));
  if (s < 60) return `${s}s old`;
  if (s < 3600) return `${Math.floor(s / 60)}m old`;
  return `${Math.floor(s / 3600)}h old`;
}

/** A take's clock as its key shows it: frozen at the last confirmed value beside the data's age when it is not live. */
function takeText(/** @type {DeckState['recorders'][number]['channels'][number]} */ channel) {
  const age = channel.freshness !== 'live' && channel.ageS !== null ? ageText(channel.ageS) : '';
  return [clock(channel.durationS), age].filter((part) => part !== '').join(' · ');
}

/**
 * The status panels from the bridge's state. Without the link every panel says NO LINK: the badges and
 * the channels' states say it instead of what they last were, and a banner over each panel says why.
 * @param {DeckState} state
 */
function showState(state) {
  severalRecorders = state.recorders.length > 1;
  /** @type {HTMLElement} */ (document.getElementById('status')).classList.toggle('link-lost', !linked);
  const recorders = /** @type {HTMLElement} */ (document.getElementById('recorders'));
  showChildren(
    recorders,
    state.recorders.map((r) => {
      const li = document.createElement('li');
      li.dataset.recorder = r.name;
      const badge = document.createElement('span');
      badge.className = `badge ${linked ? r.freshness : 'link-lost'}`;
      badge.textContent = linked ? r.freshness.toUpperCase() : 'NO LINK';
      const age = !linked ? '' : r.freshness === 'live' ? '' : r.ageS === null ? ' (never answered)' : ` (data ${r.ageS} s old)`;
      li.append(badge, ` ${r.name} ${r.url}${age}${linked && r.lastError && r.freshness !== 'live' ? ` — ${r.lastError}` : ''}`);
      return li;
    }),
  );
  const body = /** @type {HTMLElement} */ (document.querySelector('#channels tbody'));
  const rows = [];
  for (const r of state.recorders) {
    for (const c of r.channels) {
      const tr = document.createElement('tr');
      tr.className = linked ? c.state : 'link-lost';
      tr.dataset.channel = String(c.number);
      const cells = [state.recorders.length > 1 ? `${r.name}/${c.number}` : String(c.number), linked ? c.state : 'no link', c.source ?? '—', c.destinations.join(', ') || '—', takeText(c)];
      cells.forEach((text, i) => {
        const td = document.createElement('td');
        td.textContent = text;
        if (i === 1) td.className = 'state';
        if (i === 4) td.className = 'take';
        tr.append(td);
      });
      rows.push(tr);
    }
  }
  showChildren(body, rows);
  const list = /** @type {HTMLElement} */ (document.getElementById('surfaces'));
  showChildren(
    list,
    state.surfaces.map((s) => {
      const li = document.createElement('li');
      li.dataset.surface = s.id;
      li.textContent = `${s.name} (${s.id}): ${s.profile}, page ${s.page.number}/${s.page.count} ${s.page.name}`;
      if (s.profileTie) {
        // Profiles that fit it equally: the one in use won by file name only, which the operator must hear of.
        const tie = document.createElement('div');
        tie.className = 'tie';
        tie.textContent = `Profile tie: ${s.profileTie.winner} is in use; ${s.profileTie.others.join(', ')} ${s.profileTie.others.length === 1 ? 'fits' : 'fit'} as well and lost by file name only`;
        li.append(tie);
      }
      return li;
    }),
  );
}

/**
 * Shows `next` as `parent`'s children, leaving in place every element that already shows the same (its
 * markup compared) and replacing only what differs. A state comes every second while a take's clock
 * runs, and putting in every row, badge and surface afresh made the browser restyle, lay out and repaint
 * all the panels each time for the one cell that changed (on an operator's phone as on the test's page).
 * Only the DOM is spared: what is shown is still all of `next`.
 * @param {Element} parent @param {Element[]} next
 */
function showChildren(parent, next) {
  if (parent.children.length !== next.length || parent.childNodes.length !== next.length) {
    parent.replaceChildren(...next);
    return;
  }
  next.forEach((element, i) => patchElement(/** @type {Element} */ (parent.children[i]), element));
}

/**
 * Makes `current` show what `next` does: nothing when they are equal; the children one by one when only
 * they differ (a row whose take cell ticked keeps its other cells); else `next` in its place.
 * @param {Element} current @param {Element} next
 */
function patchElement(current, next) {
  if (current.isEqualNode(next)) return;
  const sameShell =
    current.tagName === next.tagName &&
    current.attributes.length === next.attributes.length &&
    [...next.attributes].every((a) => current.getAttribute(a.name) === a.value) &&
    current.children.length > 0 &&
    current.children.length === next.children.length &&
    current.childNodes.length === current.children.length &&
    next.childNodes.length === next.children.length;
  if (!sameShell) {
    current.replaceWith(next);
    return;
  }
  // A copy: patching moves elements out of `next`, which shortens its live list of children.
  const children = [...next.children];
  children.forEach((child, i) => patchElement(/** @type {Element} */ (current.children[i]), child));
}

/** @param {import('../deck-protocol.js').DeckCommand} record */
function showCommand(record) {
  const audit = /** @type {HTMLElement} */ (document.getElementById('audit'));
  audit.prepend(auditEntry(record, severalRecorders));
  while (audit.childElementCount > 200) audit.lastElementChild?.remove();
}

// Each status panel's NO LINK banner, shown while the link is down (see showState).
for (const panel of document.querySelectorAll('#status > section')) {
  const banner = document.createElement('p');
  banner.className = 'panel-no-link';
  banner.innerHTML = '<strong>NO LINK</strong><span>last known before the link dropped</span>';
  panel.querySelector('h2')?.after(banner);
}

const picker = /** @type {HTMLSelectElement} */ (document.getElementById('deck-picker'));
picker.addEventListener('change', () => {
  remembered.set(picker.value);
  showPicked();
  layoutDecks();
  sendView();
});
narrow.addEventListener('change', () => sendView());
document.addEventListener('visibilitychange', () => sendView());
new ResizeObserver(() => layoutDecks()).observe(/** @type {HTMLElement} */ (document.querySelector('main')));
connect();
