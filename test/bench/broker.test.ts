// The broker the tests and benchmarks start (src/bench/broker.ts) is the Mosquitto it started, or an
// error: never another server that happens to hold its port. Issue 31, paired run 14: recorder-group
// failed on "Invalid header flag bits, must be 0x0 for puback packet", mqtt.js reading an HTTP server's
// "HTTP/1.1 400" ('H', 0x48: a PUBACK with flags 8) in answer to its CONNECT, because the port picked
// for the broker was given to an HTTP server before Mosquitto bound it, and the port accepting was taken
// for the broker being ready. Here that other server takes the port at the worst moment, every time:
// between the pick and Mosquitto's start (the config is written then), or while the broker is stopped.
import { createServer, type Server } from 'node:http';
import mqtt from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { anonymousConfig, startBroker, type RestartableBroker } from '../../src/bench/broker.js';

/** An HTTP server on `port` (Node answers an MQTT CONNECT with "HTTP/1.1 400 Bad Request"). */
async function httpServerOn(port: number): Promise<Server> {
  const server = createServer((_request, response) => response.end());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return server;
}

/** A round trip through the broker: a message published comes back to its subscriber. */
async function roundTrip(url: string): Promise<string> {
  const client = await mqtt.connectAsync(url, { protocolVersion: 5, reconnectPeriod: 0, connectTimeout: 5000 });
  try {
    const back = new Promise<string>((resolve) => client.once('message', (_topic, payload: Buffer) => resolve(payload.toString())));
    await client.subscribeAsync('echo', { qos: 1 });
    await client.publishAsync('echo', 'hello', { qos: 1 });
    return await back;
  } finally {
    await client.endAsync(true);
  }
}

describe('the broker fixture', () => {
  const servers: Server[] = [];
  const brokers: RestartableBroker[] = [];
  afterEach(async () => {
    for (const broker of brokers.splice(0)) await broker.close();
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  });

  it('starts Mosquitto on another port when the one it picked is taken before Mosquitto binds it', async () => {
    const picked: number[] = [];
    const broker = await startBroker(async (port, folder) => {
      picked.push(port);
      if (picked.length === 1) servers.push(await httpServerOn(port));
      return anonymousConfig(port, folder);
    });
    brokers.push(broker);
    // Before the fix: rejected with "Invalid header flag bits, must be 0x0 for puback packet" (the HTTP server answered).
    expect(await roundTrip(broker.url)).toBe('hello');
    expect(picked).toHaveLength(2);
    expect(broker.port).toBe(picked[1]);
  });

  it('says so when its port was taken while it was stopped, instead of starting "again"', async () => {
    const broker = await startBroker();
    brokers.push(broker);
    await broker.stop();
    servers.push(await httpServerOn(broker.port));
    // Before the fix: resolved (the port accepted), and every client reconnected to the HTTP server.
    await expect(broker.start()).rejects.toThrow(`mosquitto could not start again on port ${broker.port}: another server took it while the broker was stopped`);
  });
});
