// `recdeck service install|uninstall`: the systemd unit passes systemd-analyze verify, --dry-run prints
// exactly what install writes and changes nothing, and the settings an operator made survive.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { service, type ServiceDeps } from '../../src/cli/service.js';
import { ENV_FILE, UNIT_PATH, serviceUnit } from '../../src/cli/service-plan.js';

const main = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** systemd-analyze verify's complaints about a unit file (empty: none); it exits 0 even with some. */
async function verify(folder: string, unit: string): Promise<string> {
  const file = join(folder, 'recdeck.service');
  await writeFile(file, unit);
  try {
    const { stdout, stderr } = await promisify(execFile)('systemd-analyze', ['verify', file]);
    return `${stdout}${stderr}`;
  } catch (error) {
    return `exit ${(error as { code?: number }).code}: ${(error as Error).message}`;
  }
}

function fakeSystem(options: { root?: boolean; users?: string[]; present?: string[] } = {}) {
  const done: string[] = [];
  const written = new Map<string, { text: string; mode: number }>();
  let printed = '';
  const deps: ServiceDeps = {
    isRoot: () => options.root ?? true,
    exists: async (path) => (options.present ?? []).includes(path),
    userExists: async (name) => (options.users ?? []).includes(name),
    makeFolder: async (path) => void done.push(`mkdir ${path}`),
    write: async (path, text, mode) => {
      done.push(`write ${path}`);
      written.set(path, { text, mode });
    },
    remove: async (path) => void done.push(`rm ${path}`),
    run: async (argv) => void done.push(argv.join(' ')),
    print: (text) => void (printed += text),
  };
  return { deps, done, written, printed: () => printed };
}

describe('recdeck service', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'recdeck-service-'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('the unit passes systemd-analyze verify (which does see a broken one)', async () => {
    const unit = serviceUnit({ user: 'recdeck', createUser: true, node: process.execPath, cli: main, version: '0.1.0' });
    expect(await verify(folder, unit)).toBe('');
    expect(await verify(folder, unit.replace('Restart=on-failure', 'Restart=sometimes'))).toContain('Failed to parse service restart specifier');
  });

  it('the unit runs the bridge as its own user, settings from the env file, the operator\'s profiles, reload by SIGHUP, hardened', () => {
    const unit = serviceUnit({ user: 'recdeck', createUser: true, node: '/usr/bin/node', cli: '/usr/lib/node_modules/recdeck/dist/cli/main.js', version: '0.1.0' });
    expect(unit).toContain('ExecStart=/usr/bin/node --max-semi-space-size=2 --heap-growing-percent=100 /usr/lib/node_modules/recdeck/dist/cli/main.js run --profile /etc/recdeck/profiles --audit-file /var/lib/recdeck/audit.jsonl $RECDECK_OPTIONS\n');
    for (const line of ['User=recdeck', 'SupplementaryGroups=plugdev audio', 'EnvironmentFile=/etc/recdeck/recdeck.env', 'ExecReload=/bin/kill -HUP $MAINPID', 'Restart=on-failure', 'CPUWeight=200', 'NoNewPrivileges=yes', 'ProtectSystem=strict', 'ProtectHome=yes', 'PrivateTmp=yes', 'ReadWritePaths=/var/lib/recdeck']) {
      expect(unit.split('\n')).toContain(line);
    }
    // node under a home folder (nvm) stays reachable.
    expect(serviceUnit({ user: 'recdeck', createUser: true, node: '/root/.nvm/versions/node/v20/bin/node', cli: '/root/.nvm/x/main.js', version: '0.1.0' })).toContain('ProtectHome=read-only\n');
  });

  it('--dry-run prints exactly what install writes and runs, and changes nothing', async () => {
    const dry = fakeSystem();
    await service(['install', '--dry-run'], dry.deps);
    expect(dry.done).toEqual([]);
    const real = fakeSystem();
    await service(['install'], real.deps);
    expect([...real.written.keys()]).toEqual([ENV_FILE, UNIT_PATH, '/etc/udev/rules.d/50-recdeck-streamdeck.rules', '/etc/udev/rules.d/50-recdeck-xkeys.rules']);
    for (const [path, { text, mode }] of real.written) expect(dry.printed()).toContain(`write ${path} (mode ${mode.toString(8).padStart(4, '0')}${path === ENV_FILE ? ', only if absent' : ''}):\n${text}\n`);
    for (const command of real.done.filter((d) => !d.startsWith('write ') && !d.startsWith('mkdir '))) expect(dry.printed()).toContain(`run: ${command}\n`);
    expect(real.done).toEqual([
      'useradd --system --home-dir /var/lib/recdeck --no-create-home --shell /usr/sbin/nologin --groups plugdev,audio recdeck',
      'mkdir /etc/recdeck',
      'mkdir /etc/recdeck/profiles',
      `write ${ENV_FILE}`,
      `write ${UNIT_PATH}`,
      'write /etc/udev/rules.d/50-recdeck-streamdeck.rules',
      'write /etc/udev/rules.d/50-recdeck-xkeys.rules',
      'udevadm control --reload-rules',
      'udevadm trigger --subsystem-match=usb --subsystem-match=hidraw',
      'systemctl daemon-reload',
      'systemctl enable recdeck',
    ]);
    expect(real.written.get(ENV_FILE)?.mode).toBe(0o600);
  });

  it('a reinstall keeps the env file and the user; --user takes an existing user', async () => {
    const again = fakeSystem({ users: ['recdeck'], present: [ENV_FILE] });
    await service(['install'], again.deps);
    expect(again.written.has(ENV_FILE)).toBe(false);
    expect(again.done[0]).toBe('usermod --append --groups plugdev,audio recdeck');
    const named = fakeSystem({ users: ['studio'] });
    await service(['install', '--user', 'studio'], named.deps);
    expect(named.written.get(UNIT_PATH)?.text).toContain('\nUser=studio\n');
    await expect(service(['install', '--user', 'nobody-here'], fakeSystem().deps)).rejects.toThrow('there is no user "nobody-here"');
  });

  it('without root it shows the plan and refuses; uninstall removes the unit and rules and keeps the settings', async () => {
    const user = fakeSystem({ root: false });
    await expect(service(['install'], user.deps)).rejects.toThrow('run it with sudo');
    expect(user.printed()).toContain(`write ${UNIT_PATH}`);
    expect(user.done).toEqual([]);
    const gone = fakeSystem();
    await service(['uninstall'], gone.deps);
    expect(gone.done).toEqual(['systemctl disable --now recdeck', `rm ${UNIT_PATH}`, 'rm /etc/udev/rules.d/50-recdeck-streamdeck.rules', 'rm /etc/udev/rules.d/50-recdeck-xkeys.rules', 'systemctl daemon-reload', 'udevadm control --reload-rules', 'udevadm trigger --subsystem-match=usb --subsystem-match=hidraw']);
    expect(gone.printed()).toContain('Kept: /etc/recdeck');
    await expect(service(['reinstall'], fakeSystem().deps)).rejects.toThrow('expected install or uninstall');
  });

  it('the built command prints the plan with --dry-run, and its unit verifies', async () => {
    const child = spawn(process.execPath, [main, 'service', 'install', '--dry-run'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    expect(((await once(child, 'exit')) as [number | null])[0]).toBe(0);
    const unit = /^write \/etc\/systemd\/system\/recdeck\.service \(mode 0644\):\n([\s\S]*?WantedBy=multi-user\.target\n)/m.exec(stdout)?.[1];
    expect(unit).toContain(`ExecStart=${process.execPath} `);
    expect(await verify(folder, unit as string)).toBe('');
  }, 30_000);
});
