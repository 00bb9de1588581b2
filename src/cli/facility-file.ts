// `--mqtt-facility FILE`: who is who on the state bus. The bus reads the file (src/bus/facility-file.ts:
// the plugin joins as a panel with the same reader); here a file that does not load is a usage error.
import type { Facility } from '../bus/facility.js';
import { FacilityFile, facilityOf as facilityOfFile, loadFacility as loadFacilityFile } from '../bus/facility-file.js';
import { usageErrorOf, usageErrorOfSync } from './bus-file-usage.js';

export { FacilityFile };

/** The facility a file describes; a file that does not load stops `run` with every problem at its file:line:column. */
export function loadFacility(file: string): Promise<Facility> {
  return usageErrorOf(() => loadFacilityFile(file, '--mqtt-facility'));
}

export function facilityOf(data: FacilityFile, file: string): Facility {
  return usageErrorOfSync(() => facilityOfFile(data, file, '--mqtt-facility'));
}
