// The page's alarms: a banner with how many alarms are active and the worst of them, an Acknowledge
// button, a beep on each new raise and the browser's notification, all derived from the `alarms` message
// the bridge sends over the socket (src/remote/alarm-message.ts) when the page connects and after every
// raise, acknowledgement and clear. The page keeps no alarm of its own: each message replaces the last.
//
// - Acknowledge posts POST /alarms/{id}/ack for every alarm still waiting, with the page's session and
//   from its own origin: the server's rules for presses (password or session, same site only) apply.
// - The beep is made with Web Audio (no sound file) and only once the operator has interacted with the
//   page: browsers refuse to start sound before that, and a page that tried would fail silently.
// - Notifications only after the operator allowed them, asked from a button (never unprompted).
// @ts-check

/** @typedef {import('../deck-protocol.js').AlarmsMessage['active'][number]} AlarmWire */


const banner = /** @type {HTMLElement} */ (document.getElementById('alarm-banner'));
const count = /** @type {HTMLElement} */ (document.getElementById('alarm-count'));
const worst = /** @type {HTMLElement} */ (document.getElementById('alarm-worst'));
const ack = /** @type {HTMLButtonElement} */ (document.getElementById('alarm-ack'));
const said = /** @type {HTMLElement} */ (document.getElementById('alarm-said'));
const notify = /** @type {HTMLButtonElement} */ (document.getElementById('alarm-notify'));

/** @type {AlarmWire[]} */
let active = [];
/**
 * Each raise seen (id and when it was raised: an alarm that became worse is raised again under its id),
 * so only a new one beeps; null until the first message, which is what was there before the page came.
 * @type {Set<string> | null}
 */
let raisesSeen = null;
/** @type {AudioContext | null} */
let audio = null;

/** What a raise is known by. @param {AlarmWire} alarm */
const raiseKey = (alarm) => `${alarm.id}@${alarm.raisedAt}`;

/** The worst alarm in a few words: what, which recorder, which channel. @param {AlarmWire} alarm */
export function alarmWords(alarm) {
  return [alarm.word, alarm.recorder, alarm.channel === null ? null : `CH${alarm.channel}`].filter((part) => part !== null).join(' ');
}

/** A new alarm message from the bridge. @param {import('../deck-protocol.js').AlarmsMessage} message */
export function showAlarms(message) {
  active = message.active;
  const fresh = active.filter((alarm) => alarm.state === 'raised' && raisesSeen !== null && !raisesSeen.has(raiseKey(alarm)));
  raisesSeen = new Set([...(raisesSeen ?? []), ...active.map(raiseKey)]);
  draw();
  if (fresh.length > 0) {
    void beep(fresh.some((alarm) => alarm.severity === 'critical'));
    notifyOf(/** @type {AlarmWire} */ (fresh[0]), fresh.length);
  }
}

function draw() {
  const waiting = active.filter((alarm) => alarm.state === 'raised');
  const first = active[0];
  banner.hidden = first === undefined;
  if (first === undefined) return;
  banner.classList.toggle('waiting', waiting.length > 0);
  banner.classList.toggle('critical', first.severity === 'critical');
  count.textContent = `${active.length} ${active.length === 1 ? 'alarm' : 'alarms'}${waiting.length === 0 ? ', acknowledged' : waiting.length < active.length ? `, ${waiting.length} waiting` : ''}`;
  worst.textContent = `${alarmWords(first)}: ${first.text}`;
  ack.disabled = waiting.length === 0;
}

/** Acknowledges every alarm still waiting; says what failed (the next message from the bridge shows what holds). */
async function acknowledgeAll() {
  const waiting = active.filter((alarm) => alarm.state === 'raised');
  ack.disabled = true;
  said.textContent = '';
  const failures = [];
  for (const alarm of waiting) {
    try {
      const answer = await fetch(`/alarms/${encodeURIComponent(alarm.id)}/ack`, { method: 'POST' });
      if (!answer.ok) failures.push(`${alarmWords(alarm)}: ${(await answer.json().catch(() => ({}))).error ?? answer.status}`);
    } catch (error) {
      failures.push(`${alarmWords(alarm)}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  said.textContent = failures.length === 0 ? '' : `Not acknowledged: ${failures.join('; ')}`;
  draw();
}

/**
 * Sound may start only from the operator's own gesture: the first one makes the page's audio, resumed within
 * the gesture (what lets it sound later without one, Safari's rule too), then suspended until a beep. A
 * running AudioContext plays silence for as long as the page is open: it keeps the device's audio output and
 * the page's audio thread awake (measured in headless chromium, 2026-11-29: ~0.3 s of CPU every 10 s
 * between the page's renderer and the audio service, against ~0.03 s suspended), a tablet's battery too.
 */
function unlockAudio() {
  if (audio !== null || typeof AudioContext === 'undefined') return;
  audio = new AudioContext();
  void audio.resume().then(quiet, quiet);
}

/** Beeps started and not yet ended: the audio is suspended only when none is left. */
let sounding = 0;

function quiet() {
  if (audio !== null && sounding === 0) void audio.suspend();
}

/** A short two-tone beep (a higher, longer one for a critical alarm); silent until the operator has interacted. @param {boolean} critical */
async function beep(critical) {
  if (audio === null) return;
  const context = audio;
  sounding++;
  try {
    await context.resume();
  } catch {
    sounding--;
    return;
  }
  const now = context.currentTime;
  const tones = critical ? [880, 660, 880] : [660];
  tones.forEach((frequency, i) => {
    const oscillator = context.createOscillator();
    const gain = context.createGain();
    oscillator.frequency.value = frequency;
    const start = now + i * 0.22;
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(0.3, start + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.2);
    oscillator.connect(gain).connect(context.destination);
    if (i === tones.length - 1) {
      oscillator.addEventListener('ended', () => {
        sounding--;
        quiet();
      });
    }
    oscillator.start(start);
    oscillator.stop(start + 0.21);
  });
}

/** The browser's notification, when the operator allowed them. @param {AlarmWire} alarm @param {number} raised */
function notifyOf(alarm, raised) {
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  const title = `recdeck alarm: ${alarmWords(alarm)}${raised > 1 ? ` (+${raised - 1})` : ''}`;
  new Notification(title, { body: alarm.text, tag: alarm.id });
}

function showPermission() {
  if (typeof Notification === 'undefined') {
    notify.hidden = true;
    return;
  }
  const permission = Notification.permission;
  notify.disabled = permission !== 'default';
  notify.textContent = permission === 'granted' ? 'Alarm notifications on' : permission === 'denied' ? 'Alarm notifications blocked' : 'Allow alarm notifications';
}

ack.addEventListener('click', () => void acknowledgeAll());
notify.addEventListener('click', async () => {
  await Notification.requestPermission();
  showPermission();
});
for (const gesture of ['pointerdown', 'keydown']) document.addEventListener(gesture, unlockAudio, { capture: true });
showPermission();
