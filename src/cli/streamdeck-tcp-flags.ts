// `recdeck run --streamdeck-tcp HOST[:PORT] … --streamdeck-mdns`: the network Stream Decks to keep, as
// the source that keeps them, or null when none is asked for (the library is then never loaded).
import { realTime } from '../engine/engine-time.js';
import type { Logger } from '../engine/log.js';
import { parseTcpDeckAddress, type TcpDeckAddress } from '../surfaces/streamdeck/tcp-address.js';
import { StreamDeckTcpSource } from '../surfaces/streamdeck/tcp-source.js';
import type { FlagTable } from './flags.js';
import { UsageError } from './usage-error.js';

export const STREAMDECK_TCP_FLAGS = {
  'streamdeck-tcp': { type: 'string', multiple: true, default: [], value: 'HOST[:PORT]', description: 'a Stream Deck Studio or Network Dock on the network (port 5343 by default), kept connected: it comes back by itself after a restart' },
  'streamdeck-mdns': { type: 'boolean', default: false, description: 'also use every Stream Deck Studio and Network Dock mDNS finds on the LAN' },
} satisfies FlagTable;

export interface StreamDeckTcpSetup {
  decks: TcpDeckAddress[];
  mdns: boolean;
}

/** The flags' values checked: a value that is not HOST[:PORT] is a usage error naming it. */
export function streamDeckTcpSetup(values: { 'streamdeck-tcp': string[]; 'streamdeck-mdns': boolean }): StreamDeckTcpSetup {
  const decks = values['streamdeck-tcp'].map((text) => {
    const parsed = parseTcpDeckAddress(text);
    if (!parsed.ok) throw new UsageError(`--streamdeck-tcp: ${parsed.problem}`);
    return parsed.address;
  });
  return { decks, mdns: values['streamdeck-mdns'] };
}

/** The source for `recdeck run`, on the real clock (the bridge's); null when no network deck is asked for. */
export function streamDeckTcpSource(setup: StreamDeckTcpSetup, log: Logger): StreamDeckTcpSource | null {
  if (setup.decks.length === 0 && !setup.mdns) return null;
  return new StreamDeckTcpSource({ ...setup, log, time: realTime });
}
