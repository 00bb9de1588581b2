// Dependencies point one way: api <- engine <- render, surfaces/*, remote, bus <- cli. The engine knows no
// device and no profile loader; adapters do not import each other; nothing goes in a circle.
//
// Checked from the sources' static imports (type-only imports included: a type in the wrong layer is a
// dependency too, move it down). A library such as dependency-cruiser would do this, but it parses with
// TypeScript's JavaScript API, which the TypeScript 7 compiler this project uses no longer has; every
// import here is a static `import`/`export … from` with a relative path, so reading them is exact.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Rule {
  name: string;
  why: string;
  /** Files the rule is about; capture groups may be named in `allowed` as $1. */
  from: RegExp;
  /** What they must not import… */
  forbidden: RegExp;
  /** …unless it matches this. */
  allowed?: string;
}

const ABOVE_ENGINE = /^src\/(render|surfaces|remote|bus|cli|simulator|bench)\//;
const rules: Rule[] = [
  { name: 'api-is-the-base', why: "api/ speaks only the recorder's interface", from: /^src\/api\//, forbidden: /^src\/(?!api\/)/ },
  {
    name: 'profile-schema-below-engine',
    why: 'the profile schema is what the engine reads: it may only use api/ and the action table (its actions)',
    from: /^src\/profiles\/schema\.ts$/,
    forbidden: /^src\/(?!api\/|profiles\/schema\.ts$|engine\/actions\/)/,
  },
  {
    name: 'action-table-below-the-session',
    why: "the action table is part of the profile format: it may use api/ and the engine's words for plans, effects, state and pictures, nothing that reads a profile",
    from: /^src\/engine\/actions\//,
    forbidden: /^src\/(?!api\/|engine\/actions\/|engine\/(command-plan|command-effect|recorder-state|picture)\.ts$)/,
  },
  { name: 'engine-knows-no-device', why: 'the engine knows no device, renderer, server or CLI', from: /^src\/engine\//, forbidden: ABOVE_ENGINE },
  { name: 'engine-knows-no-profile-loader', why: 'the engine takes profiles already loaded', from: /^src\/engine\//, forbidden: /^src\/profiles\/(?!schema\.ts$)/ },
  { name: 'render-below-adapters', why: 'render/ turns pictures into pixels for any surface', from: /^src\/render\//, forbidden: /^src\/(surfaces|remote|cli|simulator|bench)\// },
  { name: 'adapters-apart', why: 'one surface adapter never imports another', from: /^src\/surfaces\/([^/]+)\//, forbidden: /^src\/surfaces\/[^/]+\//, allowed: '^src/surfaces/$1/' },
  { name: 'surfaces-below-cli', why: 'adapters are used by the CLI and the remote server, not the other way round', from: /^src\/surfaces\//, forbidden: /^src\/(remote|cli|simulator|bench)\// },
  { name: 'remote-is-an-adapter', why: 'the remote server hosts the web surface only', from: /^src\/remote\//, forbidden: /^src\/(cli|simulator|bench|surfaces\/(?!web\/))/ },
  {
    name: 'bus-over-engine',
    why: "the state bus carries what the engine knows: it may use api/ and engine/, and the YAML reader profiles use (its facility file is reported at file:line:column as a profile is)",
    from: /^src\/bus\//,
    forbidden: /^src\/(?!api\/|engine\/|bus\/|profiles\/load\.ts$)/,
  },
  {
    name: 'only-cli-starts-the-bus',
    why: "the bus is chosen at the command line: only cli/ (and the benchmarks) may import it, and the Stream Deck plugin's one file that joins a facility as a panel (its global settings choose the bus as run's flags do)",
    from: /^src\/(?!bus\/|cli\/|bench\/|plugin\/facility-panel\.ts$)/,
    forbidden: /^src\/bus\//,
  },
  { name: 'simulator-is-a-peer', why: 'the simulator plays the recorder: it shares the interface, never the bridge', from: /^src\/simulator\//, forbidden: /^src\/(engine|surfaces|remote|cli|bench|profiles)\// },
  {
    name: 'plugin-is-a-program',
    why: "the Stream Deck app plugin is a program of its own beside the CLI: it runs the engine with api/, render/'s tiles and the profile schema, and is bundled alone, so it may not reach adapters, servers or the CLI",
    from: /^src\/plugin\/(?!facility-panel\.ts$)/,
    forbidden: /^src\/(?!api\/|engine\/|render\/|profiles\/schema\.ts$|plugin\/)/,
  },
  {
    name: 'plugin-joins-the-bus-in-one-file',
    why: "the plugin's facility mode: one file joins the bus as a panel with the bus's own readers and links (what `run` does with --mqtt), and the rest of the plugin gets only its links",
    from: /^src\/plugin\/facility-panel\.ts$/,
    forbidden: /^src\/(?!api\/|engine\/|bus\/|plugin\/)/,
  },
  {
    name: 'nothing-imports-the-plugin',
    why: "the plugin is started by the Stream Deck app, never by recdeck itself; only the schema writer reads its settings' zod schemas, the one source of their JSON Schemas",
    from: /^src\/(?!plugin\/|cli\/plugin-json-schemas\.ts$)/,
    forbidden: /^src\/plugin\//,
  },
  { name: 'cli-on-top', why: 'only the CLI and the benchmarks start things', from: /^src\/(?!cli\/|bench\/)/, forbidden: /^src\/(cli|bench)\// },
];

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each file's imports of other files in src/, as paths from the repository root. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles('src')) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const targets = [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?\bfrom\s+'(\.{1,2}\/[^']+)'/gm), ...text.matchAll(/\bimport\('(\.{1,2}\/[^']+)'\)/g)].map((m) =>
      relative(ROOT, normalize(join(ROOT, dirname(file), (m[1] as string).replace(/\.js$/, '.ts')))),
    );
    graph.set(file, targets.filter((t) => t.startsWith('src/') && t.endsWith('.ts')));
  }
  return graph;
}

function violations(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    for (const rule of rules) {
      const match = rule.from.exec(from);
      if (!match) continue;
      const allowed = rule.allowed ? new RegExp(rule.allowed.replace(/\$(\d)/g, (_, n: string) => (match[Number(n)] ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))) : null;
      for (const to of targets) if (rule.forbidden.test(to) && !allowed?.test(to)) found.push(`${rule.name} (${rule.why}): ${from} -> ${to}`);
    }
  }
  return found;
}

/** Import cycles, each as the files around it. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe('the layers of src/', () => {
  const graph = importGraph();

  it('reads the imports of every source file', () => {
    // A checker that reads nothing passes everything.
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get('src/engine/bridge.ts')).toContain('src/engine/surface-session.ts');
  });

  it('every import follows the layers', () => {
    expect(violations(graph)).toEqual([]);
  });

  it('no import cycles', () => {
    expect(cycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('catches what it is for: a made-up engine import of a device and a cycle', () => {
    const bad = new Map(graph);
    bad.set('src/engine/bridge.ts', [...(graph.get('src/engine/bridge.ts') ?? []), 'src/surfaces/streamdeck/device-manager.ts']);
    bad.set('src/api/errors.ts', ['src/api/client.ts']);
    bad.set('src/api/client.ts', [...(graph.get('src/api/client.ts') ?? []), 'src/api/errors.ts']);
    bad.set('src/engine/actions/recording.ts', [...(graph.get('src/engine/actions/recording.ts') ?? []), 'src/engine/show.ts']);
    expect(violations(bad)).toContainEqual(expect.stringContaining('engine-knows-no-device'));
    expect(violations(bad)).toContainEqual(expect.stringContaining('action-table-below-the-session'));
    expect(cycles(bad).length).toBeGreaterThan(0);
  });
});
