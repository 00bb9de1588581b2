// A facility made in memory (members' key pairs, grants, and the files `recdeck run` reads for it), for
// the bus bench and the bus tests. On its own, without the bench's broker, bridge and simulator: a test
// that only signs and opens envelopes loads this and what it needs (pure tests load every import).
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type * as z from 'zod';
import { BusAuthority, publicKeyText, type Facility, type FacilityPanel, type FacilityPoller } from '../bus/facility.js';
import { operationsIn, type OperationGroup } from '../bus/operation-groups.js';
import type { FacilityFile } from '../cli/facility-file.js';

/**
 * A facility made in memory, with a fresh key pair per member: pollers that may poll `recorder`, and
 * panels that may read and control it (or call the groups given for them). Each member's authority signs
 * with its own key.
 */
export function generatedFacility(
  recorder: string,
  pollerIds: readonly string[],
  panelIds: readonly string[],
  groups: Readonly<Record<string, readonly OperationGroup[]>> = {},
): GeneratedFacility {
  return generatedFacilityOf(Object.fromEntries(pollerIds.map((id) => [id, recorder])), panelIds, groups);
}

export interface GeneratedFacility {
  facility: Facility;
  authority: (id: string) => BusAuthority;
  writeFiles: (folder: string, id: string) => Promise<{ facility: string; keyFile: string }>;
}

/**
 * The same with several recorders: each poller polls the one `pollers` names for it; every panel may read
 * and control every one of them (or call the groups given for it).
 */
export function generatedFacilityOf(
  pollers: Readonly<Record<string, string>>,
  panelIds: readonly string[],
  groups: Readonly<Record<string, readonly OperationGroup[]>> = {},
): GeneratedFacility {
  const pollerIds = Object.keys(pollers);
  const recorders = [...new Set(Object.values(pollers))];
  const keys = new Map([...pollerIds, ...panelIds].map((id) => [id, generateKeyPairSync('ed25519')]));
  const pairOf = (id: string) => {
    const pair = keys.get(id);
    if (!pair) throw new Error(`no member "${id}"`);
    return pair;
  };
  const publicKey = (id: string) => pairOf(id).publicKey;
  const recorderOf = (poller: string) => pollers[poller] as string;
  const may = (id: string) => new Map(recorders.map((recorder) => [recorder, new Set((groups[id] ?? ['read', 'control']).flatMap(operationsIn))]));
  const facility: Facility = {
    pollers: new Map<string, FacilityPoller>(pollerIds.map((id) => [id, { publicKey: publicKey(id), recorders: new Set([recorderOf(id)]) }])),
    panels: new Map<string, FacilityPanel>(panelIds.map((id) => [id, { publicKey: publicKey(id), may: may(id) }])),
  };
  return {
    facility,
    authority: (id) => BusAuthority.signed(id, pairOf(id).privateKey, facility),
    // The facility file and one member's key file, as `recdeck run --mqtt-facility --mqtt-key-file` reads them.
    writeFiles: async (folder, id) => {
      const file: z.input<typeof FacilityFile> = {
        pollers: Object.fromEntries(pollerIds.map((poller) => [poller, { publicKey: publicKeyText(publicKey(poller)), recorders: [recorderOf(poller)] }])),
        panels: Object.fromEntries(
          panelIds.map((panel) => [panel, { publicKey: publicKeyText(publicKey(panel)), may: Object.fromEntries(recorders.map((recorder) => [recorder, [...(groups[panel] ?? ['read', 'control'])]])) }]),
        ),
      };
      const files = { facility: join(folder, 'facility.yaml'), keyFile: join(folder, `${id}.pem`) };
      await writeFile(files.facility, stringify(file));
      await writeFile(files.keyFile, pairOf(id).privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
      return files;
    },
  };
}
