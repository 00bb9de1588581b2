// --recorder-group NAME=MEMBER,MEMBER and the disk thresholds, as run parses them.
import { describe, expect, it } from 'vitest';
import { checkGroupNames, recorderGroupsFrom } from '../../src/cli/recorder-groups.js';
import { parseRunArgs } from '../../src/cli/run.js';

describe('--recorder-group', () => {
  it('gives each group its members in order', () => {
    expect(recorderGroupsFrom(['studio=main,backup', 'all=a,b,c'])).toEqual(new Map([['studio', ['main', 'backup']], ['all', ['a', 'b', 'c']]]));
    expect(parseRunArgs(['--recorder-group', 'studio=main,backup'], {}).groups).toEqual(new Map([['studio', ['main', 'backup']]]));
  });

  it('says what is wrong with a bad one', () => {
    expect(() => recorderGroupsFrom(['studio'])).toThrow('--recorder-group: expected NAME=MEMBER,MEMBER (e.g. studio=main,backup), got "studio"');
    expect(() => recorderGroupsFrom(['studio=main'])).toThrow('--recorder-group studio: ');
    expect(() => recorderGroupsFrom(['studio=main,main'])).toThrow('each member gets each command once');
    expect(() => recorderGroupsFrom(['a=main,backup', 'b=a,main'])).toThrow('--recorder-group b: "a" is a group; a group\'s members are recorders, groups do not nest');
    expect(() => checkGroupNames(new Map([['main', ['a', 'b']]]), ['main'])).toThrow('--recorder-group main: a recorder is named "main" too');
  });
});

describe('--disk-amber-min and --disk-red-min', () => {
  it('default to 30 and 10 minutes, and red must be under amber', () => {
    expect(parseRunArgs([], {}).diskTime).toEqual({ amberS: 1800, redS: 600 });
    expect(parseRunArgs(['--disk-amber-min', '45', '--disk-red-min', '15'], {}).diskTime).toEqual({ amberS: 2700, redS: 900 });
    expect(() => parseRunArgs(['--disk-amber-min', '10', '--disk-red-min', '10'], {})).toThrow('--disk-red-min (10) must be less than --disk-amber-min (10)');
  });
});
