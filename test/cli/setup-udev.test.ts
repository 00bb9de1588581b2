// `recdeck setup-udev`: says what it will write, refuses without root, writes and reloads with it.
import { describe, expect, it } from 'vitest';
import { setupUdev, type SetupUdevDeps } from '../../src/cli/setup-udev.js';

function fakeDeps(root: boolean) {
  const done: string[] = [];
  let printed = '';
  const deps: SetupUdevDeps = {
    isRoot: () => root,
    write: async (path, text) => void done.push(`write ${path} (${text.split('\n').length} lines)`),
    run: async (command) => void done.push(`run ${command}`),
    print: (text) => void (printed += text),
  };
  return { deps, done, printed: () => printed };
}

describe('recdeck setup-udev', () => {
  it('--dry-run shows the rules and the reload commands and writes nothing', async () => {
    const f = fakeDeps(false);
    await setupUdev(['--dry-run'], f.deps);
    expect(f.printed()).toContain('/etc/udev/rules.d/50-recdeck-streamdeck.rules');
    expect(f.printed()).toContain('SUBSYSTEM=="hidraw", KERNEL=="hidraw*", ATTRS{idVendor}=="0fd9", TAG+="uaccess"');
    expect(f.printed()).toContain('/etc/udev/rules.d/50-recdeck-xkeys.rules');
    expect(f.printed()).toContain('SUBSYSTEM=="hidraw", KERNEL=="hidraw*", ATTRS{idVendor}=="05f3", TAG+="uaccess"');
    expect(f.printed()).toContain('udevadm control --reload-rules');
    expect(f.done).toEqual([]);
  });

  it('without root it says so after showing what it would write', async () => {
    const f = fakeDeps(false);
    await expect(setupUdev([], f.deps)).rejects.toThrow('needs root: run it with sudo');
    expect(f.printed()).toContain('recdeck will write');
    expect(f.done).toEqual([]);
  });

  it('as root it writes the headless variant and reloads udev', async () => {
    const f = fakeDeps(true);
    await setupUdev(['--headless'], f.deps);
    expect(f.printed()).toContain('GROUP="plugdev", MODE="0660"');
    expect(f.done).toEqual([
      'write /etc/udev/rules.d/50-recdeck-streamdeck.rules (5 lines)',
      'write /etc/udev/rules.d/50-recdeck-xkeys.rules (5 lines)',
      'run udevadm control --reload-rules',
      'run udevadm trigger --subsystem-match=usb --subsystem-match=hidraw',
    ]);
  });
});
