// `node dist/bench/profile-top-cli.js FILE.cpuprofile [N]`: profile-top.ts's report of one profile.
import { readFile } from 'node:fs/promises';
import { profileReport, type CpuProfile } from './profile-top.js';

const [file, top = '25'] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: profile-top-cli FILE.cpuprofile [N]');
process.stdout.write(profileReport(JSON.parse(await readFile(file, 'utf8')) as CpuProfile, Number(top)));
