// The Companion Satellite server's flags, as `recdeck run` takes them, what they mean, and the one call
// that starts the server. The server module (and `ws`) is loaded only when it runs.
import { readFileSync } from 'node:fs';
import { messageOf } from '../api/errors.js';
import { realTime } from '../engine/engine-time.js';
import type { Logger } from '../engine/log.js';
import type { SurfaceSource } from '../engine/surface.js';
import { wholeNumber, type FlagTable } from './flags.js';
import { UsageError } from './usage-error.js';

export const SATELLITE_FLAGS = {
  satellite: { type: 'boolean', default: false, description: 'serve Companion Satellite clients (TCP and WebSocket): each device they add is a surface satellite:DEVICEID; any --satellite-* flag turns it on too' },
  'satellite-port': { type: 'string', value: 'PORT', description: 'TCP port of the Satellite server (0: any free port)', shownDefault: '16622' },
  'satellite-ws-port': { type: 'string', value: 'PORT', description: 'WebSocket port of the Satellite server (0: any free port)', shownDefault: '16623' },
  'satellite-host': { type: 'string', value: 'HOST', description: 'address the Satellite server listens on (the protocol has no authentication: beyond loopback, give --satellite-allow)', shownDefault: '127.0.0.1' },
  'satellite-allow': { type: 'string', multiple: true, default: [], value: 'ADDRESS|CIDR', description: 'only these Satellite clients may connect (IP addresses or CIDR ranges)', shownDefault: 'any that reach --satellite-host' },
} satisfies FlagTable;

export interface SatelliteSettings {
  host: string;
  tcpPort: number;
  wsPort: number;
  allow: string[];
}

type SatelliteValues = { satellite: boolean; 'satellite-port'?: string | undefined; 'satellite-ws-port'?: string | undefined; 'satellite-host'?: string | undefined; 'satellite-allow': string[] };

/** null when no satellite flag is given; a bad value is a UsageError naming its flag. */
export function satelliteSettings(values: SatelliteValues): SatelliteSettings | null {
  const on = values.satellite || values['satellite-port'] !== undefined || values['satellite-ws-port'] !== undefined || values['satellite-host'] !== undefined || values['satellite-allow'].length > 0;
  if (!on) return null;
  for (const entry of values['satellite-allow']) {
    if (!/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(entry)) throw new UsageError(`--satellite-allow: "${entry}" is not an IP address or CIDR range (e.g. 10.0.0.5 or 10.0.0.0/24)`);
  }
  return {
    host: values['satellite-host'] ?? '127.0.0.1',
    tcpPort: wholeNumber('--satellite-port', values['satellite-port'] ?? '16622', 0, 65535),
    wsPort: wholeNumber('--satellite-ws-port', values['satellite-ws-port'] ?? '16623', 0, 65535),
    allow: values['satellite-allow'],
  };
}

/** Starts the server (listening when this resolves); it is followed and stopped as a SurfaceSource. */
export async function startSatellite(settings: SatelliteSettings, log: Logger): Promise<SurfaceSource> {
  const { startSatelliteServer } = await import('../surfaces/satellite/satellite-server.js');
  try {
    return await startSatelliteServer({ ...settings, log, time: realTime, version: recdeckVersion() });
  } catch (error) {
    // The port in use or an allow entry the list refuses: the operator's to fix, said as a usage error.
    throw new UsageError(messageOf(error));
  }
}

function recdeckVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
