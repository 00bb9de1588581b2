// The tests start the same real broker as the benchmarks: anonymous by default, or as deployed (the
// files in deploy/mosquitto/ as they are, only the port and folders changed), and reach it directly
// or through a link they can freeze or cut.
import { execFile } from 'node:child_process';
import { chmod, copyFile, readFile, writeFile } from 'node:fs/promises';
import { createServer, connect as connectTcp, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startBroker, type RestartableBroker } from '../../src/bench/broker.js';

export { mosquittoBinary, startBroker, type Broker, type RestartableBroker } from '../../src/bench/broker.js';

export const DEPLOY = fileURLToPath(new URL('../../deploy/mosquitto/', import.meta.url));
export const MOSQUITTO_PASSWD = '/usr/bin/mosquitto_passwd';
const execFileAsync = promisify(execFile);

/** The shipped mosquitto.conf for a broker on `port` whose files are in `folder`: the listener's port and the folders are all that change. */
export function deployedConfig(text: string, port: number, folder: string): string {
  return text
    .replace(/^listener 1883$/m, `listener ${port} 127.0.0.1`)
    .replaceAll('/etc/mosquitto/recdeck/', `${folder}/`)
    .replace(/^persistence_location \/var\/lib\/mosquitto\/$/m, `persistence_location ${folder}/`);
}

/** Mosquitto with deploy/mosquitto/'s mosquitto.conf and acl, and a passwd made with mosquitto_passwd for these logins. */
export async function startDeployedBroker(logins: Record<string, string>): Promise<RestartableBroker> {
  return startBroker(async (port, folder) => {
    const passwd = join(folder, 'passwd');
    // One mosquitto_passwd per login, side by side, each into a file of its own (one edits its file in
    // place, so two on one file would race), joined in the order given: the file one run per login makes.
    const lines = await Promise.all(
      Object.entries(logins).map(async ([user, password], index) => {
        const own = `${passwd}.${index}`;
        await execFileAsync(MOSQUITTO_PASSWD, ['-c', '-b', own, user, password]);
        return readFile(own, 'utf8');
      }),
    );
    await writeFile(passwd, lines.join(''));
    await copyFile(join(DEPLOY, 'acl'), join(folder, 'acl'));
    // Started as root, Mosquitto drops to its own user, which must read these and write its store here.
    await Promise.all([chmod(folder, 0o777), chmod(passwd, 0o644), chmod(join(folder, 'acl'), 0o644)]);
    return deployedConfig(await readFile(join(DEPLOY, 'mosquitto.conf'), 'utf8'), port, folder);
  });
}

export interface LinkProxy {
  /** The broker's URL through this link. */
  url: string;
  /** Holds everything sent either way (and every connection's end) until thaw, as a network that stopped forwarding would. */
  freeze: () => void;
  /** Delivers what was held, in order, and forwards again. */
  thaw: () => void;
  /** Drops every connection at once (a blip: both ends see it, as a reset). */
  cut: () => void;
  close: () => Promise<void>;
}

/** A TCP link to the broker on `port` that a test can freeze or cut. */
export async function startLinkProxy(port: number): Promise<LinkProxy> {
  let frozen = false;
  const held: Array<() => void> = [];
  const links = new Set<{ client: Socket; broker: Socket }>();
  const later = (action: () => void) => (frozen ? held.push(action) : action());
  const server = createServer((client) => {
    const broker = connectTcp(port, '127.0.0.1');
    const link = { client, broker };
    links.add(link);
    client.on('data', (chunk) => later(() => broker.write(chunk)));
    broker.on('data', (chunk) => later(() => client.write(chunk)));
    const end = () => {
      links.delete(link);
      later(() => {
        client.destroy();
        broker.destroy();
      });
    };
    for (const socket of [client, broker]) {
      socket.on('close', end);
      socket.on('error', () => undefined); // the other end's close follows
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as { port: number };
  return {
    url: `mqtt://127.0.0.1:${own}`,
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const action of held.splice(0)) action();
    },
    cut: () => {
      for (const { client, broker } of links) {
        client.resetAndDestroy();
        broker.destroy();
      }
    },
    close: async () => {
      for (const { client, broker } of links) {
        client.destroy();
        broker.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
