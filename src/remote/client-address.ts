// Which client a request comes from, for the login throttle. Normally the socket's address. Behind a
// reverse proxy every request comes from the proxy, and the throttle would take all its users for one:
// one attacker's guesses would lock everyone out. So for a proxy the operator trusts (--web-trust-proxy)
// the client is read from X-Forwarded-For, right to left: each proxy appends the address it got the
// request from, so the entries the trusted proxies wrote are skipped and the first other one is the
// client (anything left of it was written by the client and could be any address). From any other
// socket the header is ignored: a client could write anything there.
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** An address, or a range in CIDR notation: 127.0.0.1, 10.0.0.0/8, ::1, fd00::/8. */
export function trustedProxies(specs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const spec of specs) {
    const [address = '', bits, ...rest] = spec.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    const prefix = bits === undefined ? maxBits : /^\d{1,3}$/.test(bits) ? Number(bits) : Number.NaN;
    if (family === 0 || rest.length > 0 || !(prefix <= maxBits)) {
      throw new Error(`"${spec}" is not an IP address or a CIDR range (e.g. 127.0.0.1, 10.0.0.0/8, ::1)`);
    }
    list.addSubnet(address, prefix, family === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

/** An IPv4 client of a dual-stack socket is the same client as over IPv4. */
const plain = (address: string) => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

export class ClientAddresses {
  private readonly trusted: BlockList;
  private malformedSaid = false;

  constructor(
    proxies: readonly string[],
    /** Told once (the first malformed header): a misconfigured proxy would otherwise write a line per request. */
    private readonly malformed: (proxy: string, header: string) => void,
  ) {
    this.trusted = trustedProxies(proxies);
  }

  of(request: IncomingMessage): string {
    const peer = plain(request.socket.remoteAddress ?? 'unknown');
    const forwarded = request.headers['x-forwarded-for'];
    // Node joins repeated X-Forwarded-For headers with commas; typed as either, so taken as either.
    const header = Array.isArray(forwarded) ? forwarded.join(', ') : forwarded;
    if (!this.isTrusted(peer) || header === undefined) return peer;
    let client = peer;
    for (const entry of header.split(',').reverse()) {
      const address = plain(entry.trim());
      if (isIP(address) === 0) {
        if (!this.malformedSaid) this.malformed(peer, header);
        this.malformedSaid = true;
        return peer;
      }
      client = address;
      if (!this.isTrusted(address)) return address;
    }
    return client; // every hop a trusted proxy: the left-most is as far back as it goes
  }

  private isTrusted(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.trusted.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }
}
