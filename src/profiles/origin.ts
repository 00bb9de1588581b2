// Where a profile comes from: the folder recdeck ships (profiles/ of the package) or anywhere else, the
// operator's own. At equal specificity the operator's own profile wins over a shipped one, so a profile
// written for a studio is never beaten by the general one shipped for the same model.
import { resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProfileOrigin } from './schema.js';

/** The profiles shipped with recdeck. */
export const SHIPPED_PROFILES = fileURLToPath(new URL('../../profiles', import.meta.url));

/** shipped for a file in recdeck's own profiles/ folder, operator for any other. */
export function profileOrigin(file: string): ProfileOrigin {
  return resolve(file).startsWith(`${SHIPPED_PROFILES}${sep}`) ? 'shipped' : 'operator';
}
