import { describe, expect, it } from 'vitest';
import { RepeatedAnswers } from '../../src/api/repeated-answers.js';

describe('RepeatedAnswers', () => {
  it('gives back the value kept for a path only for the very same text', () => {
    const answers = new RepeatedAnswers();
    const value = { IsDialog: false };
    answers.keep('/api/app/dialog', '{"IsDialog":false}', value);
    expect(answers.repeat('/api/app/dialog', '{"IsDialog":false}')?.value).toBe(value);
    expect(answers.repeat('/api/app/dialog', '{"IsDialog": false}')).toBeUndefined();
    expect(answers.repeat('/api/app/sync', '{"IsDialog":false}')).toBeUndefined();
  });

  it('keeps no long answer, and forgets what a path had before it', () => {
    const answers = new RepeatedAnswers();
    answers.keep('/api/channels/0/preview', 'x', 1);
    const long = 'A'.repeat(16 * 1024 + 1);
    answers.keep('/api/channels/0/preview', long, 2);
    expect(answers.repeat('/api/channels/0/preview', long)).toBeUndefined();
    expect(answers.repeat('/api/channels/0/preview', 'x')).toBeUndefined();
  });

  it('keeps at most 128 paths, forgetting the one kept longest ago', () => {
    const answers = new RepeatedAnswers();
    for (let i = 0; i <= 128; i++) answers.keep(`/api/sources/${i}`, `${i}`, i);
    expect(answers.repeat('/api/sources/0', '0')).toBeUndefined();
    expect(answers.repeat('/api/sources/1', '1')?.value).toBe(1);
    expect(answers.repeat('/api/sources/128', '128')?.value).toBe(128);
  });
});
