// How every recdeck client connects to the state bus: MQTT 5 (message expiry, the broker's limits in
// CONNACK), its bus id as client id, a clean session (nothing kept for it while it is away), no
// message queued while disconnected, and the largest packet it takes. And without Nagle's delay:
// the bus carries small messages that someone is waiting for, and a message written while the one
// before is not yet acknowledged would otherwise wait up to 40 ms for that acknowledgement.
import type { IClientOptions, MqttClient } from 'mqtt';
import { MAX_PACKET_BYTES } from './limits.js';

export function busClientOptions(id: string): IClientOptions {
  return { protocolVersion: 5, clientId: id, clean: true, queueQoSZero: false, properties: { maximumPacketSize: MAX_PACKET_BYTES } };
}

/** Turns Nagle's algorithm off on the client's connection, now and after every reconnect. */
export function sendWithoutDelay(client: MqttClient): MqttClient {
  const noDelay = () => (client.stream as { setNoDelay?: (on: boolean) => void } | undefined)?.setNoDelay?.(true);
  noDelay();
  client.on('connect', noDelay);
  return client;
}
