import { describe, expect, it } from 'vitest';
import { printable } from '../../core/printable.js';

describe('printable', () => {
  it('shows every control character, DEL, C1 and direction overrides as a visible escape; leaves other text alone', () => {
    expect(printable('a\u001b[2Jb\u0007c\nd\re\u007f\u009b\u202e\ttab é 漢')).toBe('a\\x1b[2Jb\\x07c\\nd\\re\\x7f\\x9b\\u202e\ttab é 漢');
    expect(printable(printable('\u001b]0;x\u0007'))).toBe('\\x1b]0;x\\x07');
  });

  it('with lines, keeps newlines and indents every line after the first', () => {
    expect(printable('one\nALL OK\u001b[8m\r\nthree', { lines: true })).toBe('one\n  ALL OK\\x1b[8m\n  three');
  });
});
