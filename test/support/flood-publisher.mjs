// A flood of MQTT messages from a process of its own (test/bus/insiders-flood.test.ts): the attacker
// of a facility is another machine, not the process that hosts the panel and the recorder under
// watch, so its publishing must not take their turns (on 2 busy cores it held them for hundreds of ms
// and the panel went stale on the test's own starvation). Spawned in a session of its own (detached),
// so that Linux's autogroup scheduling gives it its own share of the machine instead of the test's.
// Plain JavaScript because it runs outside vitest.
//
// node flood-publisher.mjs URL USER PASSWORD CLIENT_ID TOPIC PAYLOAD_FILE CHUNK INTERVAL_MS
//
// PAYLOAD_FILE holds the messages as they go on the wire, each after its length (4 bytes, big-endian).
// They go at QoS 1, CHUNK at a time (each chunk's acknowledgements awaited), a chunk every INTERVAL_MS.
// At the end it prints one JSON line on stdout: { published, seconds, slowestChunkMs }.
import { readFileSync } from 'node:fs';
import mqtt from 'mqtt';

const [url, username, password, clientId, topic, file, chunkText, intervalText] = process.argv.slice(2);
const chunk = Number(chunkText);
const intervalMs = Number(intervalText);
if (!url || !username || !password || !clientId || !topic || !file || !(chunk > 0) || !(intervalMs > 0)) {
  process.stderr.write('usage: flood-publisher.mjs URL USER PASSWORD CLIENT_ID TOPIC PAYLOAD_FILE CHUNK INTERVAL_MS\n');
  process.exit(2);
}

const bytes = readFileSync(file);
const payloads = [];
for (let offset = 0; offset < bytes.length; ) {
  const length = bytes.readUInt32BE(offset);
  payloads.push(bytes.subarray(offset + 4, offset + 4 + length));
  offset += 4 + length;
}

const client = await mqtt.connectAsync(url, { protocolVersion: 5, username, password, clientId, clean: true, reconnectPeriod: 0 });
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
