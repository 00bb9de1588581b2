// The web deck's protocol has one home (src/remote/deck-protocol.ts) and the page is type-checked
// against it: every script of src/remote/page says `// @ts-check` and is in the page's tsconfig (which
// `npm test` runs), and no source outside the protocol module turns a message for the page into text
// itself (a hand-built JSON.stringify is how the page and the bridge drift apart).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGE = 'src/remote/page';
const pageScripts = readdirSync(join(ROOT, PAGE)).filter((name) => name.endsWith('.js'));

describe('the page is type-checked', () => {
  it('every page script says // @ts-check', () => {
    expect(pageScripts.length).toBeGreaterThan(0);
    expect(pageScripts.filter((name) => !/^\/\/ @ts-check$/m.test(readFileSync(join(ROOT, PAGE, name), 'utf8')))).toEqual([]);
  });

  it("every page script is in the page's tsconfig, with checkJs, and npm test runs it", () => {
    const config = JSON.parse(readFileSync(join(ROOT, PAGE, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown>; include: string[]; files?: string[] };
    expect(config.compilerOptions).toMatchObject({ allowJs: true, checkJs: true, noEmit: true, strict: true });
    const included = (name: string) => config.include.some((pattern) => pattern === name || pattern === '*.js') || (config.files ?? []).includes(name);
    expect(pageScripts.filter((name) => !included(name))).toEqual([]);
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.test).toContain(`tsc -p ${PAGE}/tsconfig.json`);
  });
});

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const PROTOCOL = 'src/remote/deck-protocol.ts';
/** A source's code without its comments. */
const codeOf = (file: string) => readFileSync(join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|(^|[^:'"`])\/\/.*$/gm, '$1');

describe("the page's messages have one home", () => {
  it('outside the protocol module, no source that talks to a page socket calls JSON.stringify, and none builds a typed message as text', () => {
    const found = sourceFiles('src/remote')
      .filter((file) => file !== PROTOCOL)
      .filter((file) => {
        const code = codeOf(file);
        // A file of the page's link (it uses the protocol or the deck socket's WebSocket) encodes nothing itself.
        const pageLink = /deck-protocol\.js'|import type \{ WebSocket \} from 'ws'/.test(code) && !file.endsWith('/server.ts');
        return (pageLink && /JSON\.stringify\(/.test(code)) || /JSON\.stringify\(\s*\{\s*(\.\.\.[^,]+,\s*)?type\s*:/.test(code) || /\.send\(\s*JSON\.stringify/.test(code);
      });
    expect(found).toEqual([]);
  });

  it('the deck socket and the alarm message take their message types from the protocol module', () => {
    for (const file of ['src/remote/deck-socket.ts', 'src/remote/alarm-message.ts']) expect(codeOf(file), file).toContain("from './deck-protocol.js'");
  });
});
