import { describe, expect, it } from 'vitest';
import { Recent } from '../../core/recent.js';

describe('Recent: the values of the last keys', () => {
  it('makes a value once per key while the key is kept, and drops the oldest made beyond the limit', () => {
    const made: string[] = [];
    const recent = new Recent<string, string>(2);
    const make = (key: string) => {
      made.push(key);
      return key.toUpperCase();
    };
    expect(recent.get('a', make)).toBe('A');
    expect(recent.get('b', make)).toBe('B');
    expect(recent.get('a', make)).toBe('A');
    expect(made).toEqual(['a', 'b']);
    recent.get('c', make); // a, the oldest made, goes
    recent.get('b', make);
    recent.get('a', make);
    expect(made).toEqual(['a', 'b', 'c', 'a']);
  });

  it('keeps nothing for a key whose value could not be made, and forgets everything on clear', () => {
    const recent = new Recent<string, number>(4);
    let calls = 0;
    const failing = () => {
      calls += 1;
      throw new Error('cannot');
    };
    expect(() => recent.get('x', failing)).toThrow('cannot');
    expect(() => recent.get('x', failing)).toThrow('cannot');
    expect(calls).toBe(2);
    recent.get('y', () => 1);
    recent.clear();
    expect(recent.get('y', () => 2)).toBe(2);
  });
});
