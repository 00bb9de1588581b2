// profile-top reads a node --cpu-prof profile: self time per function and per part of the program, idle kept apart.
import { expect, it } from 'vitest';
import { selfTimes, taskSamples, type CpuProfile } from '../../src/bench/profile-top.js';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 4, 5] },
    { id: 2, callFrame: frame('(idle)') },
    { id: 3, callFrame: frame('drawCover', 'file:///work/wt/bench/dist/render/raster/pixels.js', 94) },
    { id: 4, callFrame: frame('toBuffer', 'file:///work/main/node_modules/sharp/dist/output.mjs', 10) },
    { id: 5, callFrame: frame('(garbage collector)') },
  ],
  samples: [2, 3, 3, 4, 5, 2],
  timeDeltas: [1000, 2000, 2000, 3000, 1000, 5000],
  startTime: 0,
  endTime: 14_000,
};

it('adds each sample to the function and the part it ran in, idle apart', () => {
  const times = selfTimes(profile);
  expect(times.idleMs).toBe(6);
  expect(times.busyMs).toBe(8);
  expect(times.wallMs).toBe(14);
  expect(times.byFunction).toEqual([
    { name: 'drawCover dist/render/raster/pixels.js:95', ms: 4 },
    { name: 'toBuffer node_modules/sharp/dist/output.mjs:11', ms: 3 },
    { name: '(garbage collector)', ms: 1 },
  ]);
  expect(times.byPart).toEqual([
    { name: 'render', ms: 4 },
    { name: 'sharp', ms: 3 },
    { name: '(garbage collector)', ms: 1 },
  ]);
});

it('names a sample of a node the profile does not hold', () => {
  expect(() => selfTimes({ ...profile, samples: [9] })).toThrow('names node 9');
});

it("names each busy sample's task by its whole stack, at the profile's clock: a JSON parse under undici is a recorder's answer, not the leaf's part", () => {
  const tasks: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 3, 4, 6, 8] },
      { id: 2, callFrame: frame('(idle)') },
      { id: 3, callFrame: frame('(garbage collector)') },
      { id: 4, callFrame: frame('onBody', 'file:///m/node_modules/undici/lib/client.js'), children: [5] },
      { id: 5, callFrame: frame('parse') },
      { id: 6, callFrame: frame('runSlice', 'file:///m/dist/engine/work-scheduler.js'), children: [7] },
      { id: 7, callFrame: frame('drawCover', 'file:///m/dist/render/raster/pixels.js') },
      { id: 8, callFrame: frame('send', 'file:///m/node_modules/ws/lib/sender.js') },
    ],
    samples: [2, 3, 5, 7, 8],
    timeDeltas: [1000, 2000, 500, 1500, 1000],
    startTime: 10_000,
    endTime: 16_000,
  };
  expect(taskSamples(tasks)).toEqual([
    { atMs: 13, ms: 2, task: 'collector' },
    { atMs: 13.5, ms: 0.5, task: 'recorder answers' },
    { atMs: 15, ms: 1.5, task: 'pictures' },
    { atMs: 16, ms: 1, task: 'page (frames, socket)' },
  ]);
});
