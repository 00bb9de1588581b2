// The recorders a profile declares, with their ${ENV} references filled in from the environment. A
// token only ever comes from the environment (the schema refuses one written in the file), and no
// message here repeats a value read from the environment: it may be a secret.
import type { ProfileProblem } from './load.js';
import type { LoadedProfile } from './schema.js';

export interface ResolvedRecorder {
  name: string;
  url: string;
  token: string | null;
}

export interface ResolvedRecorders {
  recorders: ResolvedRecorder[];
  problems: ProfileProblem[];
}

const WHOLE_REFERENCE = /^\$\{([A-Z_][A-Z0-9_]*)\}$/;

export function resolveRecorders(loaded: LoadedProfile, env: NodeJS.ProcessEnv): ResolvedRecorders {
  const recorders: ResolvedRecorder[] = [];
  const problems: ProfileProblem[] = [];
  for (const [name, declaration] of Object.entries(loaded.profile.recorders ?? {})) {
    if (Array.isArray(declaration)) continue; // a group: its members are recorders declared elsewhere
    let usable = true;
    const problem = (field: 'url' | 'token', message: string) => {
      usable = false;
      problems.push({ file: loaded.file, line: null, column: null, path: `recorders.${name}.${field}`, message: `recorder "${name}": ${message}` });
    };
    const url = resolveUrl(declaration.url, env);
    if (!url.ok) problem('url', url.reason);

    let token: string | null = null;
    if (declaration.token !== undefined) {
      const variable = WHOLE_REFERENCE.exec(declaration.token)?.[1];
      const value = variable === undefined ? undefined : env[variable];
      if (variable === undefined) problem('token', 'the token must be a ${NAME} reference to an environment variable');
      else if (value === undefined || value === '') problem('token', `the token refers to the environment variable ${variable}, which is ${value === '' ? 'empty' : 'not set'}`);
      else token = value;
    }

    // A recorder missing its URL or its token is left out whole rather than half configured.
    if (url.ok && usable) recorders.push({ name, url: url.value, token });
  }
  return { recorders, problems };
}

type UrlResult = { ok: true; value: string } | { ok: false; reason: string };

/** A literal URL, or one ${NAME} reference standing for the whole URL. */
function resolveUrl(declared: string, env: NodeJS.ProcessEnv): UrlResult {
  const variable = WHOLE_REFERENCE.exec(declared)?.[1];
  if (variable === undefined && declared.includes('${')) {
    return { ok: false, reason: 'the url is either a literal URL or one ${NAME} reference for the whole of it' };
  }
  const text = variable === undefined ? declared : env[variable];
  if (text === undefined || text === '') return { ok: false, reason: `the url refers to the environment variable ${variable}, which is ${text === '' ? 'empty' : 'not set'}` };
  // The URL is never repeated: one from the environment may carry credentials (http://user:pass@host),
  // and a literal one that is not a URL is often a token pasted into the wrong field.
  const source = variable === undefined ? 'the url' : `the url in the environment variable ${variable}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: `${source} is not a URL; expected one such as http://127.0.0.1:9000` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: `${source} is not an http or https URL` };
  // The recorder's API lives at the root, as with --recorder: keep scheme, host and port only.
  return { ok: true, value: url.origin };
}
