// A flood of MQTT messages from a process of its own (test/bus/insiders.test.ts): the attacker
// of a facility is another machine, not the process that hosts the panel and the recorder under
// watch, so its publishing must not take their turns (on 2 busy cores it held them for hundreds of ms
// and the panel went stale on the test's own starvation). Spawned in a session of its own (detached),
// so that Linux's autogroup scheduling gives it its own share of the machine instead of the test's.
// Plain JavaScript because it runs outside vitest; it seals with the built product (dist/, `npm run
// build` first), as the member whose key it is would.
//
// node flood-publisher.mjs URL USER PASSWORD CLIENT_ID TOPIC KEY_FILE FROM COMMAND_JSON COUNT CHUNK INTERVAL_MS LEASE_TOPIC HOLDER
//
// It reads the lease on LEASE_TOPIC (retained, readable by every member: an attacker with a panel's
// login learns the term as a panel does) until HOLDER holds it, and signs COUNT copies of the command
// COMMAND_JSON under that lease's term, as FROM with the private key in KEY_FILE, each sealed at the
// command's sentAt, copy i with the leading NNNNNN of its id replaced by i (6 digits). Signing 30,000
// takes 3 s of CPU (15 s at load 39), in this process's own session (not the test's, which it held, and
// the simulator and panel in it, for that long). All of it before the flood kept the test waiting that
// long after the poller claimed (the term is the poller's, so nothing can be signed before): 8 s at
// load 17. So it signs ahead, a chunk a turn, and prints `ready TERM` once the flood's first second
// (AHEAD_S) is signed; it signs on while the test's panel settles (a second at least) and during the
// flood, ahead of the schedule (a chunk of 150 is 15 ms of signing in its 100 ms, publishing 5 ms more),
// never more than AHEAD_S ahead of what is published: copies the flood may not send are not signed.
// Then it waits for a line on stdin (`go TERM`, below); then they go at QoS 1, CHUNK at a time (each chunk's
// acknowledgements awaited), a chunk every INTERVAL_MS, a chunk not yet signed waited for, until COUNT
// are published or a second line (or the end of stdin) says stop: the test ends the flood once the
// poller has shown what the flood is for, instead of at a fixed length. At the end it prints one JSON
// line on stdout: { published, seconds, slowestChunkMs, signingWaitMs, stopped } (signingWaitMs: how
// long the flood waited on its signing in all, so that a flood slowed by it says so; stopped: ended by
// the test before COUNT).
import { createInterface } from 'node:readline';
import mqtt from 'mqtt';
import { sealEnvelope } from '../../dist/bus/envelope.js';
import { readPrivateKeyFile } from '../../dist/bus/key-file.js';

const [url, username, password, clientId, topic, keyFile, from, commandJson, countText, chunkText, intervalText, leaseTopic, holder] = process.argv.slice(2);
const count = Number(countText);
const chunk = Number(chunkText);
const intervalMs = Number(intervalText);
if (!url || !username || !password || !clientId || !topic || !keyFile || !from || !commandJson || !(count > 0) || !(chunk > 0) || !(intervalMs > 0) || !leaseTopic || !holder) {
  process.stderr.write('usage: flood-publisher.mjs URL USER PASSWORD CLIENT_ID TOPIC KEY_FILE FROM COMMAND_JSON COUNT CHUNK INTERVAL_MS LEASE_TOPIC HOLDER\n');
  process.exit(2);
}
const command = JSON.parse(commandJson);
if (typeof command.id !== 'string' || !command.id.startsWith('NNNNNN') || typeof command.sentAt !== 'number') {
  process.stderr.write('COMMAND_JSON: a command whose id starts with NNNNNN and that has a sentAt\n');
  process.exit(2);
}

const { privateKey } = readPrivateKeyFile(keyFile, 'the flood key');

const client = await mqtt.connectAsync(url, { protocolVersion: 5, username, password, clientId, clean: true, reconnectPeriod: 0 });
let term = await new Promise((resolve) => {
  const onLease = (leaseTopicHeard, payload) => {
    if (leaseTopicHeard !== leaseTopic) return;
    const body = JSON.parse(payload.toString()).body;
    if (body?.holder !== holder) return;
    client.off('message', onLease);
    resolve(body.term);
  };
  client.on('message', onLease);
  client.subscribe(leaseTopic, { qos: 1 });
});
await client.unsubscribeAsync(leaseTopic);
/** Signed ahead of the flood before `ready`: its first second. */
const AHEAD_S = 1;
const signed = [];
const sealCopy = (i) => sealEnvelope(topic, from, command.sentAt, { ...command, id: `${String(i).padStart(6, '0')}${command.id.slice(6)}`, term }, privateKey);
const ahead = AHEAD_S * (1000 / intervalMs) * chunk;
let published = 0;
let stopped = false;
/** The signer's wait, ended when the flood moves on (a chunk published, the term changed, the stop). */
let wakeSigner = () => {};
const floodMoved = () => new Promise((resolve) => (wakeSigner = resolve));
/** Signs the next chunk and yields (a turn of the event loop: the broker's acknowledgements and the schedule's timer go between). */
const signChunk = async () => {
  for (const end = Math.min(count, signed.length + chunk); signed.length < end; ) signed.push(sealCopy(signed.length));
  await new Promise((resolve) => setImmediate(resolve));
};
while (signed.length < Math.min(count, ahead)) await signChunk();
// The rest signed on in the background, a second ahead of what is published, until the last copy or the stop.
const signing = (async () => {
  while (signed.length < count && !stopped) {
    if (signed.length < published + ahead) await signChunk();
    else await floodMoved();
  }
})();
process.stdout.write(`ready ${term}\n`);
const lines = createInterface({ input: process.stdin });
const go = await new Promise((resolve) => lines.once('line', resolve));
// `go TERM`: the term the panel sends under as the flood starts. The lease may have changed hands since
// this process read it (the poller held past its TTL while it loaded, on a loaded machine: paired runs 59
// and 67, 2026-11-29): then what was signed ahead is dropped and signed again under the new term (a
// second's worth; the wait counts in signingWaitMs).
const goTerm = /^go (\S+)$/.exec(String(go))?.[1];
if (goTerm !== undefined && goTerm !== term) {
  term = goTerm;
  signed.length = 0;
  wakeSigner();
}
const stop = () => {
  if (stopped) return;
  stopped = true;
  wakeSigner();
  lines.close();
  process.stdin.destroy();
};
lines.once('line', stop);
lines.once('close', stop);
const startedAt = performance.now();
let slowestChunkMs = 0;
let signingWaitMs = 0;
for (let first = 0; first < count && !stopped; first += chunk) {
  const end = Math.min(count, first + chunk);
  if (signed.length < end) {
    const waitedFrom = performance.now();
    while (signed.length < end && !stopped) await new Promise((resolve) => setImmediate(resolve));
    signingWaitMs += performance.now() - waitedFrom;
    if (stopped) break;
  }
  const sentAt = performance.now();
  await Promise.all(signed.slice(first, end).map((payload) => client.publishAsync(topic, payload, { qos: 1 })));
  published += end - first;
  wakeSigner();
  slowestChunkMs = Math.max(slowestChunkMs, performance.now() - sentAt);
  // The next chunk on the schedule (not INTERVAL_MS after this one was acknowledged): the flood's rate holds.
  const next = startedAt + ((first + chunk) / chunk) * intervalMs;
  const wait = next - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}
const seconds = (performance.now() - startedAt) / 1000;
stop();
await signing;
await client.endAsync();
process.stdout.write(`${JSON.stringify({ published, seconds, slowestChunkMs, signingWaitMs, stopped: published < count, term })}\n`);
