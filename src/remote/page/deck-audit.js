// The audit log of commands, in the operator's words first ("CH 2 rec-start": channels counted from 1,
// as on the keys and in the channel table), then exactly what was sent ("PUT /api/channels/1/rec-start",
// the recorder's own 0-based index), the result and how long it took.
// @ts-check

/** @typedef {import('../deck-protocol.js').DeckCommand} CommandRecord */

/** The path of a request as the record gives it ("PUT /api/channels/1/rec-start"). */
const pathOf = (/** @type {string | null} */ request) => request?.split(' ')[1] ?? '';

/** Which channel or source a request was for, as the operator counts them ("CH 2", "source 3"); null for neither. */
export function targetOf(/** @type {string | null} */ request) {
  const channel = /^\/api\/channels\/(\d+)(\/|$)/.exec(pathOf(request));
  if (channel) return `CH ${Number(channel[1]) + 1}`;
  const source = /^\/api\/sources\/(\d+)$/.exec(pathOf(request));
  if (source) return `source ${Number(source[1]) + 1}`;
  return null;
}

/** "CH 2 rec-start", "grid 9", with the recorder's name first when the bridge drives several. */
export function operatorWords(/** @type {CommandRecord} */ record, /** @type {boolean} */ severalRecorders) {
  const grid = /^\/api\/channels\/count\/(\d+)$/.exec(pathOf(record.request));
  const words = grid ? `${record.action} ${grid[1]}` : [targetOf(record.request), record.action].filter(Boolean).join(' ');
  return severalRecorders && record.recorder ? `${record.recorder} ${words}` : words;
}

/** One entry of the log: a line of what happened, a line of what was sent and by which control. */
export function auditEntry(/** @type {CommandRecord} */ record, /** @type {boolean} */ severalRecorders) {
  const li = document.createElement('li');
  li.className = record.result;
  const line = document.createElement('div');
  const time = document.createElement('time');
  time.dateTime = new Date(record.at).toISOString();
  time.textContent = new Date(record.at).toLocaleTimeString();
  const words = document.createElement('strong');
  words.textContent = operatorWords(record, severalRecorders);
  const result = document.createElement('span');
  result.className = 'result';
  result.textContent = record.result;
  line.append(time, ' ', words, ' ', result);
  const sent = document.createElement('div');
  sent.className = 'sent';
  sent.textContent = `${record.request ?? '(not sent)'} · ${record.surface} ${record.control} · ${Math.round(record.latencyMs)} ms${record.message ? ` · ${record.message}` : ''}`;
  li.append(line, sent);
  return li;
}
