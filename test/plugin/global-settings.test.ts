// The plugin's global settings as the plugin and its inspector check them (checkGlobalSettings): what it
// accepts is exactly what the GlobalSettings union accepts, and what it refuses names the field and its
// rule, where the union would say only "Invalid input".
import { describe, expect, it } from 'vitest';
import { checkGlobalSettings, describeIssue, GlobalSettings } from '../../src/plugin/settings.js';

const FACILITY = { url: 'mqtt://10.0.0.2:1883', id: 'desk-1', keyFile: '/keys/desk-1.key', facilityFile: '/etc/recdeck/facility.yaml' };
const RECORDER = { name: 'main', url: 'http://10.0.0.5:9000', token: 'perm:0000' };

const problemsOf = (raw: unknown): string[] => {
  const result = checkGlobalSettings(raw);
  return result.success ? [] : result.error.issues.map(describeIssue);
};

describe('checkGlobalSettings', () => {
  it('accepts what the union accepts, with the same output', () => {
    for (const raw of [{}, { recorders: [RECORDER] }, { mqtt: FACILITY }, { mqtt: { ...FACILITY, url: 'mqtts://broker:8883', username: 'desk-1', passwordFile: '/p', caFile: '/ca.pem' } }]) {
      const checked = checkGlobalSettings(raw);
      expect(checked.success).toBe(true);
      expect(checked.data).toStrictEqual(GlobalSettings.parse(raw));
    }
  });

  it('names the facility\'s field and rule where the union says only "Invalid input"', () => {
    const bad = { mqtt: { ...FACILITY, url: 'http://broker:1883' } };
    expect(GlobalSettings.safeParse(bad).error?.issues.map(describeIssue)).toEqual(['Invalid input']);
    expect(problemsOf(bad)).toEqual(['mqtt.url: expected the broker as mqtt://host:1883 or mqtts://host:8883']);
    expect(problemsOf({ mqtt: { ...FACILITY, keyFile: ' ' } })).toEqual(['mqtt.keyFile: expected the path of this desk\'s private key (recdeck bus keygen ID --out FILE)']);
    expect(problemsOf({ mqtt: { ...FACILITY, caFile: '/ca.pem' } })).toEqual(['mqtt.caFile: caFile: a CA certificate is for a TLS broker: give an mqtts:// URL']);
  });

  it('refuses what the union refuses: the recorders\' rules, both at once, and no object at all', () => {
    expect(problemsOf({ recorders: [{ ...RECORDER, name: 'Main' }] })).toEqual(['recorders.0.name: expected a recorder name: lower-case letters, digits and -']);
    expect(problemsOf({ recorders: [RECORDER, RECORDER] })).toEqual(['recorders: a recorder name is used twice']);
    expect(problemsOf({ recorders: [RECORDER], mqtt: FACILITY })).toEqual([expect.stringContaining('recorders')]);
    expect(GlobalSettings.safeParse({ recorders: [RECORDER], mqtt: FACILITY }).success).toBe(false);
    expect(checkGlobalSettings(null).success).toBe(false);
    expect(checkGlobalSettings('recorders').success).toBe(false);
  });
});
