// The simulated recorder's project file: the whole configuration as JSON. Loading checks the file
// completely, by replaying it into a fresh project through the same rules as the API's writes,
// before anything of the running session is replaced.
import { randomUUID } from 'node:crypto';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute } from 'node:path';
import * as z from 'zod';
import { SCHEDULE_TYPES } from '../api/app.js';
import { GRID_SIZES } from '../api/channel.js';
import { ConversionWrite } from '../api/conversion.js';
import { DestinationWrite } from '../api/destination.js';
import { messageOf } from '../api/errors.js';
import { describeIssues } from '../api/issues.js';
import { PresetWrite } from '../api/preset.js';
import { clockMinutesText } from '../api/scalars.js';
import { SourceWrite } from '../api/source.js';
import { MAX_CHANNELS, Project } from './project.js';
import { SimError } from './sim-error.js';

const FORMAT = 'recdeck-simulator-project';

const ProjectFile = z.strictObject({
  Format: z.literal(FORMAT),
  Version: z.literal(1),
  Grid: z.literal(GRID_SIZES),
  Presets: z.array(PresetWrite.required()),
  Destinations: z.array(DestinationWrite.required()),
  Sources: z.array(SourceWrite.extend({ VideoLine: z.string().nullable(), VideoFormat: z.string().nullable() }).required()),
  Channels: z
    .array(z.strictObject({ SourceName: z.string().nullable(), Destinations: z.array(z.string()), IsInSync: z.boolean() }))
    .length(MAX_CHANNELS),
  Schedule: z.strictObject({
    IsEnabled: z.boolean(),
    StartTime: clockMinutesText.nullable(),
    StopTime: clockMinutesText.nullable(),
    ScheduleType: z.enum(SCHEDULE_TYPES),
  }),
  Conversion: ConversionWrite.required(),
});
type ProjectFile = z.output<typeof ProjectFile>;

export function projectToJson(project: Project): string {
  const file: ProjectFile = {
    Format: FORMAT,
    Version: 1,
    Grid: project.grid,
    Presets: project.presets,
    Destinations: project.destinations,
    Sources: project.sources.map(({ AudioFormat: _derived, ...source }) => source),
    Channels: project.channels,
    Schedule: project.schedule,
    Conversion: project.conversion,
  };
  return `${JSON.stringify(z.encode(ProjectFile, file), null, 2)}\n`;
}

/** Writes the project atomically: a temporary file beside the target, then a rename over it. */
export async function saveProject(project: Project, path: string): Promise<void> {
  if (!isAbsolute(path)) throw new SimError(`Path: expected an absolute file path, got ${JSON.stringify(path)}`);
  const folder = dirname(path);
  const folderStat = await stat(folder).catch(() => null);
  if (!folderStat?.isDirectory()) throw new SimError(`Path: the folder ${folder} does not exist`);
  const temporary = `${path}.${randomUUID()}.tmp`;
  try {
    await writeFile(temporary, projectToJson(project), { flag: 'wx' });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw new SimError(`Path: cannot write ${path}: ${messageOf(error)}`);
  }
}

/** Reads and checks a project file completely; throws SimError naming what is wrong. */
export async function readProject(path: string, defaultLocation: string): Promise<Project> {
  if (!isAbsolute(path)) throw new SimError(`Path: expected an absolute file path, got ${JSON.stringify(path)}`);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SimError(code === 'ENOENT' ? `Path: no project file at ${path}` : `Path: cannot read ${path}: ${messageOf(error)}`);
  }
  return projectFromJson(text, path, defaultLocation);
}

export function projectFromJson(text: string, origin: string, defaultLocation: string): Project {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SimError(`project file ${origin} is not valid JSON: ${messageOf(error)}`);
  }
  const decoded = ProjectFile.safeParse(json, { reportInput: true });
  if (!decoded.success) throw new SimError(`project file ${origin}: ${describeIssues(decoded.error, 'file')}`);
  return replay(decoded.data, origin, defaultLocation);
}

function replay(file: ProjectFile, origin: string, defaultLocation: string): Project {
  const project = new Project(defaultLocation);
  const step = (where: string, apply: () => void) => {
    try {
      apply();
    } catch (error) {
      if (error instanceof SimError) throw new SimError(`project file ${origin}: ${where}: ${error.message}`);
      throw error;
    }
  };
  file.Presets.forEach((preset, i) => step(`Presets[${i}]`, () => project.addPreset(preset)));
  file.Destinations.forEach((destination, i) => step(`Destinations[${i}]`, () => project.addDestination(destination)));
  file.Sources.forEach((source, i) =>
    step(`Sources[${i}]`, () => project.addSource({ ...source, VideoLine: source.VideoLine ?? undefined, VideoFormat: source.VideoFormat ?? undefined })),
  );
  file.Channels.forEach((channel, i) =>
    step(`Channels[${i}]`, () => {
      if (channel.SourceName !== null) project.sourceByName(channel.SourceName);
      for (const name of channel.Destinations) project.destinationByName(name);
      project.channels[i] = { SourceName: channel.SourceName, Destinations: [...new Set(channel.Destinations)], IsInSync: channel.IsInSync };
    }),
  );
  project.grid = file.Grid;
  step('Schedule', () => project.setSchedule(file.Schedule));
  project.conversion = file.Conversion;
  return project;
}
