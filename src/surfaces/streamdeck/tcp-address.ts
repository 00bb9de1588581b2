// Where a Stream Deck on the network is: `--streamdeck-tcp HOST[:PORT]`, checked before anything is
// opened, so a typo is a usage error naming the value rather than a deck that never comes.
import { isIP } from 'node:net';

/** The port a Stream Deck Studio and a Network Dock listen on (the library's DEFAULT_TCP_PORT). */
export const STREAM_DECK_TCP_PORT = 5343;

export interface TcpDeckAddress {
  host: string;
  port: number;
}

export type ParsedTcpAddress = { ok: true; address: TcpDeckAddress } | { ok: false; problem: string };

/** A DNS name (letters, digits, dashes and dots), or an IPv4 address. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/** HOST, HOST:PORT, [IPv6] or [IPv6]:PORT. */
export function parseTcpDeckAddress(text: string): ParsedTcpAddress {
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(text);
  // Two colons or more outside brackets: an IPv6 address, whose last group would read as a port.
  const plain = bracketed || /:.*:/.test(text) ? null : /^([^:]*)(?::(.*))?$/.exec(text);
  const host = bracketed?.[1] ?? plain?.[1];
  const portText = bracketed ? bracketed[2] : plain?.[2];
  if (host === undefined || (bracketed ? isIP(host) !== 6 : !HOST_NAME.test(host))) {
    return { ok: false, problem: `${JSON.stringify(text)} is not HOST[:PORT] (a host name or IPv4 address, or [IPv6]; an IPv6 address needs its brackets)` };
  }
  if (portText === undefined) return { ok: true, address: { host, port: STREAM_DECK_TCP_PORT } };
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
  if (!(port >= 1 && port <= 65535)) return { ok: false, problem: `${JSON.stringify(text)}: the port ${JSON.stringify(portText)} is not a number from 1 to 65535` };
  return { ok: true, address: { host, port } };
}

/** How an address is named in logs and ids: host:port, [v6]:port. */
export function formatTcpDeckAddress({ host, port }: TcpDeckAddress): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
