// The web deck in the browser: draws what the bridge sends over the WebSocket and sends back presses,
// holds, dial turns and strip touches. It never polls; when the link drops it says so and reconnects.
// @ts-check

/** @type {Array<{id: string, kind: string, name: string, layout: {columns: number, keySize: number}, controls: Array<{kind: string, id: string, row?: number, column?: number, pixelSize?: {width: number, height: number}, lcd?: string, touch?: boolean}>}>} */
let surfaces = [];
/** @type {Map<string, HTMLCanvasElement>} canvases by "surfaceIndex/controlIndex" */
const canvases = new Map();
/** @type {WebSocket | null} */
let socket = null;
const link = /** @type {HTMLElement} */ (document.getElementById('link'));

function connect() {
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
  ws.binaryType = 'arraybuffer';
  ws.onopen = () => {
    link.textContent = 'connected';
    link.classList.remove('down');
  };
  ws.onclose = () => {
    link.textContent = 'connection to the bridge lost: reconnecting…';
    link.classList.add('down');
    socket = null;
    setTimeout(connect, 1000);
  };
  ws.onmessage = (event) => {
    if (event.data instanceof ArrayBuffer) drawImage(event.data);
    else receive(JSON.parse(event.data));
  };
  socket = ws;
}

/** @param {any} message */
function receive(message) {
  switch (message.type) {
    case 'hello':
      surfaces = message.surfaces;
      buildDecks();
      break;
    case 'state':
      showState(message.state);
      if (message.commands) for (const record of message.commands) showCommand(record);
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
    case 'error':
      console.warn('bridge:', message.message);
      break;
  }
}

/** @param {ArrayBuffer} buffer */
function drawImage(buffer) {
  const view = new DataView(buffer);
  const [surfaceIndex, controlIndex, width, height] = [view.getUint16(2), view.getUint16(4), view.getUint16(6), view.getUint16(8)];
  const canvas = canvases.get(`${surfaceIndex}/${controlIndex}`);
  if (!canvas) return;
  const rgb = new Uint8Array(buffer, 10);
  const rgba = new ImageData(width, height);
  for (let p = 0, q = 0; p < rgb.length; p += 3, q += 4) {
    rgba.data[q] = rgb[p];
    rgba.data[q + 1] = rgb[p + 1];
    rgba.data[q + 2] = rgb[p + 2];
    rgba.data[q + 3] = 255;
  }
  canvas.width = width;
  canvas.height = height;
  canvas.getContext('2d')?.putImageData(rgba, 0, 0);
}

/** @param {string} surface @param {object} input */
function sendInput(surface, input) {
  socket?.send(JSON.stringify({ type: 'input', surface, input }));
}

function buildDecks() {
  const decks = /** @type {HTMLElement} */ (document.getElementById('decks'));
  decks.replaceChildren();
  canvases.clear();
  surfaces.forEach((surface, surfaceIndex) => {
    const deck = document.createElement('section');
    deck.className = `deck ${surface.kind}`;
    deck.dataset.surface = surface.id;
    const title = document.createElement('h2');
    // Hardware decks are shown as they are lit; pressing them here is a remote press.
    title.textContent = surface.kind === 'web' ? surface.name : `${surface.name} (${surface.id}, remote)`;
    const keys = document.createElement('div');
    keys.className = 'keys';
    keys.style.gridTemplateColumns = `repeat(${Math.max(1, surface.layout.columns)}, ${surface.layout.keySize}px)`;
    const buttons = document.createElement('div');
    buttons.className = 'buttons';
    const strip = document.createElement('div');
    strip.className = 'strip';
    const dials = document.createElement('div');
    dials.className = 'dials';
    surface.controls.forEach((control, controlIndex) => {
      if (control.kind === 'key') {
        const canvas = keyCanvas(surface.id, control, 'key');
        const native = control.pixelSize ?? { width: 96, height: 96 };
        canvas.style.width = `${surface.layout.keySize}px`;
        canvas.style.height = `${Math.round((surface.layout.keySize * native.height) / native.width)}px`;
        canvas.style.gridRow = String((control.row ?? 0) + 1);
        canvas.style.gridColumn = String((control.column ?? 0) + 1);
        holdable(canvas, surface.id, control.id);
        keys.append(canvas);
        canvases.set(`${surfaceIndex}/${controlIndex}`, canvas);
      } else if (control.kind === 'lcd') {
        const canvas = keyCanvas(surface.id, control, 'cell');
        if (control.touch) touchable(canvas, surface.id, control.id);
        strip.append(canvas);
        canvases.set(`${surfaceIndex}/${controlIndex}`, canvas);
      } else if (control.kind === 'encoder') {
        dials.append(dial(surface.id, control.id));
      } else if (control.kind === 'button') {
        const button = document.createElement('button');
        button.className = 'pad';
        button.textContent = control.id;
        button.dataset.surface = surface.id;
        button.dataset.control = control.id;
        holdable(button, surface.id, control.id);
        buttons.append(button);
      }
    });
    deck.append(title);
    if (keys.childElementCount > 0) deck.append(keys);
    if (buttons.childElementCount > 0) deck.append(buttons);
    if (strip.childElementCount > 0) deck.append(strip);
    if (dials.childElementCount > 0) deck.append(dials);
    decks.append(deck);
  });
}

/** @param {string} surface @param {{id: string, pixelSize?: {width: number, height: number}}} control @param {string} className */
function keyCanvas(surface, control, className) {
  const canvas = document.createElement('canvas');
  canvas.className = className;
  canvas.width = control.pixelSize?.width ?? 96;
  canvas.height = control.pixelSize?.height ?? 96;
  canvas.dataset.surface = surface;
  canvas.dataset.control = control.id;
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'button');
  canvas.setAttribute('aria-label', control.id);
  return canvas;
}

/** Down on press, up on release: holding holds (the hold-to-confirm ring is drawn by the bridge). */
function holdable(/** @type {HTMLElement} */ element, /** @type {string} */ surface, /** @type {string} */ control) {
  let down = false;
  const press = () => {
    if (down) return;
    down = true;
    sendInput(surface, { type: 'down', control });
  };
  const release = () => {
    if (!down) return;
    down = false;
    sendInput(surface, { type: 'up', control });
  };
  element.addEventListener('pointerdown', (event) => {
    element.setPointerCapture(event.pointerId);
    press();
  });
  element.addEventListener('pointerup', release);
  element.addEventListener('pointercancel', release);
  element.addEventListener('keydown', (event) => {
    if ((event.key === ' ' || event.key === 'Enter') && !event.repeat) press();
  });
  element.addEventListener('keyup', (event) => {
    if (event.key === ' ' || event.key === 'Enter') release();
  });
}

/** A strip cell: tap, long touch (over 500 ms), or a swipe of more than 30 px. */
function touchable(/** @type {HTMLElement} */ element, /** @type {string} */ surface, /** @type {string} */ control) {
  let start = /** @type {{x: number, t: number} | null} */ (null);
  element.addEventListener('pointerdown', (event) => {
    element.setPointerCapture(event.pointerId);
    start = { x: event.clientX, t: performance.now() };
  });
  element.addEventListener('pointerup', (event) => {
    if (!start) return;
    const dx = event.clientX - start.x;
    const gesture = Math.abs(dx) > 30 ? (dx < 0 ? 'swipe-left' : 'swipe-right') : performance.now() - start.t > 500 ? 'long' : 'tap';
    start = null;
    sendInput(surface, { type: 'touch', control, gesture });
  });
}

/** A dial: the wheel turns it (each notch one detent, fast scrolling more), a click presses it. */
function dial(/** @type {string} */ surface, /** @type {string} */ control) {
  const element = document.createElement('div');
  element.className = 'dial';
  element.dataset.surface = surface;
  element.dataset.control = control;
  element.tabIndex = 0;
  element.setAttribute('role', 'slider');
  element.setAttribute('aria-label', control);
  element.addEventListener(
    'wheel',
    (event) => {
      event.preventDefault();
      const notches = Math.max(1, Math.round(Math.abs(event.deltaY) / 100));
      sendInput(surface, { type: 'rotate', control, amount: event.deltaY < 0 ? notches : -notches });
    },
    { passive: false },
  );
  element.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowUp' || event.key === 'ArrowRight') sendInput(surface, { type: 'rotate', control, amount: 1 });
    if (event.key === 'ArrowDown' || event.key === 'ArrowLeft') sendInput(surface, { type: 'rotate', control, amount: -1 });
  });
  holdable(element, surface, control);
  return element;
}

const clock = (/** @type {number | null} */ s) => (s === null ? '' : [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60].map((n) => String(n).padStart(2, '0')).join(':'));

/** @param {any} state */
function showState(state) {
  const recorders = /** @type {HTMLElement} */ (document.getElementById('recorders'));
  recorders.replaceChildren(
    ...state.recorders.map((/** @type {any} */ r) => {
      const li = document.createElement('li');
      li.dataset.recorder = r.name;
      const badge = document.createElement('span');
      badge.className = `badge ${r.freshness}`;
      badge.textContent = r.freshness.toUpperCase();
      const age = r.freshness === 'live' ? '' : r.ageS === null ? ' (never answered)' : ` (data ${r.ageS} s old)`;
      li.append(badge, ` ${r.name} ${r.url}${age}${r.lastError && r.freshness !== 'live' ? ` — ${r.lastError}` : ''}`);
      return li;
    }),
  );
  const body = /** @type {HTMLElement} */ (document.querySelector('#channels tbody'));
  const rows = [];
  for (const r of state.recorders) {
    for (const c of r.channels) {
      const tr = document.createElement('tr');
      tr.className = c.state;
      tr.dataset.channel = String(c.number);
      const cells = [state.recorders.length > 1 ? `${r.name}/${c.number}` : String(c.number), c.state, c.source ?? '—', c.destinations.join(', ') || '—', clock(c.durationS)];
      cells.forEach((text, i) => {
        const td = document.createElement('td');
        td.textContent = text;
        if (i === 1) td.className = 'state';
        tr.append(td);
      });
      rows.push(tr);
    }
  }
  body.replaceChildren(...rows);
  const list = /** @type {HTMLElement} */ (document.getElementById('surfaces'));
  list.replaceChildren(
    ...state.surfaces.map((/** @type {any} */ s) => {
      const li = document.createElement('li');
      li.textContent = `${s.name} (${s.id}): ${s.profile}, page ${s.page.number}/${s.page.count} ${s.page.name}`;
      return li;
    }),
  );
}

/** @param {any} record */
function showCommand(record) {
  const audit = /** @type {HTMLElement} */ (document.getElementById('audit'));
  const li = document.createElement('li');
  li.className = record.result;
  const time = new Date(record.at).toLocaleTimeString();
  li.textContent = `${time} ${record.surface} ${record.control} ${record.action} → ${record.request ?? '(not sent)'}: ${record.result}${record.message ? ` (${record.message})` : ''}`;
  audit.prepend(li);
  while (audit.childElementCount > 200) audit.lastElementChild?.remove();
}

connect();
