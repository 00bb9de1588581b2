// Which client a request comes from: the socket's address, or behind a trusted reverse proxy the
// right-most X-Forwarded-For entry that is not itself a trusted proxy (issue 25).
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ClientAddresses, trustedProxies } from '../../src/remote/client-address.js';

const request = (peer: string, forwarded?: string) => ({ socket: { remoteAddress: peer }, headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded } }) as unknown as IncomingMessage;

function addresses(proxies: string[]) {
  const malformed: string[] = [];
  return { of: new ClientAddresses(proxies, (proxy, header) => malformed.push(`${proxy}: ${header}`)), malformed };
}

describe('client addresses', () => {
  it('from an untrusted socket the header is ignored', () => {
    const { of } = addresses(['10.0.0.1']);
    expect(of.of(request('192.0.2.5', '198.51.100.1'))).toBe('192.0.2.5');
    expect(of.of(request('::ffff:192.0.2.5'))).toBe('192.0.2.5'); // an IPv4 client of a dual-stack socket
  });

  it('from a trusted proxy: the right-most entry that is not a trusted proxy, ranges and IPv6 included', () => {
    const { of } = addresses(['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
    expect(of.of(request('127.0.0.1', '198.51.100.1'))).toBe('198.51.100.1');
    expect(of.of(request('::ffff:127.0.0.1', '192.0.2.66, 198.51.100.1, 10.1.2.3'))).toBe('198.51.100.1');
    expect(of.of(request('fd12::1', '2001:db8::7'))).toBe('2001:db8::7');
    expect(of.of(request('127.0.0.1', '10.0.0.9,10.0.0.8'))).toBe('10.0.0.9'); // every hop a proxy: the left-most
    expect(of.of(request('127.0.0.1'))).toBe('127.0.0.1'); // no header: the proxy itself (a local program)
  });

  it("a malformed entry counts as the proxy's own address, and is told once", () => {
    const { of, malformed } = addresses(['127.0.0.1']);
    expect(of.of(request('127.0.0.1', '198.51.100.1, unknown'))).toBe('127.0.0.1');
    expect(of.of(request('127.0.0.1', '[2001:db8::1]:443'))).toBe('127.0.0.1');
    expect(of.of(request('127.0.0.1', '198.51.100.1'))).toBe('198.51.100.1');
    expect(malformed).toEqual(['127.0.0.1: 198.51.100.1, unknown']);
  });

  it('a trusted proxy that is not an address or a CIDR range is refused, naming it', () => {
    for (const spec of ['deck.example', '10.0.0.0/33', '::1/129', '10.0.0.0/', '10.0.0.0/8/8', '']) {
      expect(() => trustedProxies([spec]), spec).toThrow(`"${spec}" is not an IP address or a CIDR range`);
    }
    expect(() => trustedProxies(['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8'])).not.toThrow();
  });
});
