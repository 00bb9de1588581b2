// A flood of MQTT messages from a process of its own (test/bus/insiders-flood.test.ts): the attacker
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
// takes 3 s of CPU (15 s at load 39): done here beforehand, in this process's own session, while the
// poller starts and the test's panel settles, instead of in the test's process, which it held (and the
// simulator and panel in it) for that long. When all are signed it prints `ready TERM` and waits for a
// line on stdin; then they go at QoS 1, CHUNK at a time (each chunk's acknowledgements awaited), a
// chunk every INTERVAL_MS. At the end it prints one JSON line on stdout: { published, seconds,
// slowestChunkMs }.
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
const term = await new Promise((resolve) => {
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
const payloads = Array.from({ length: count }, (_, i) => sealEnvelope(topic, from, command.sentAt, { ...command, id: `${String(i).padStart(6, '0')}${command.id.slice(6)}`, term }, privateKey));
process.stdout.write(`ready ${term}\n`);
const lines = createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once('line', resolve));
lines.close();
process.stdin.destroy();
const startedAt = performance.now();
let slowestChunkMs = 0;
for (let first = 0; first < payloads.length; first += chunk) {
  const sentAt = performance.now();
  await Promise.all(payloads.slice(first, first + chunk).map((payload) => client.publishAsync(topic, payload, { qos: 1 })));
  slowestChunkMs = Math.max(slowestChunkMs, performance.now() - sentAt);
  // The next chunk on the schedule (not INTERVAL_MS after this one was acknowledged): the flood's rate holds.
  const next = startedAt + ((first + chunk) / chunk) * intervalMs;
  const wait = next - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}
const seconds = (performance.now() - startedAt) / 1000;
await client.endAsync();
process.stdout.write(`${JSON.stringify({ published: payloads.length, seconds, slowestChunkMs })}\n`);
