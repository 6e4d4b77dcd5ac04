/**
 * The 2023 ChatGPT4PCG prompt rules as the official qualification-checking-script applies them with
 * `chatgpt4pcg@1.4.1` (reference/official-pipeline.md §1c and §8): at most 900 words counted like
 * `words-count@2.0.2`, only allowed characters, and at least one `<OBJECT>` token. The script checks
 * them in that order and stops at the first failure.
 */

export const MAX_WORDS_2023 = 900;

/**
 * words-count@2.0.2's default punctuation list (deleted before counting). `-`, `_`, `=`, `+`, `|`
 * and the backtick are not in it.
 */
const PUNCTUATION = ',，.。:：;；[]【】{｛}｝(（)）<《>》$￥!！?？~～\'’"“”*/\\&%@#^、';
const DELETED = new Set<number>([...PUNCTUATION].map((c) => c.charCodeAt(0)));

function isDeleted(code: number): boolean {
  // words-count also deletes the halfwidth/fullwidth forms and the general punctuation block.
  return DELETED.has(code) || (code >= 0xff00 && code <= 0xffef) || (code >= 0x2000 && code <= 0x206f);
}

/**
 * One word per run of digits, per run of Latin/Cyrillic/Malayalam letters, and per CJK, kana or
 * hangul character (words-count's ranges, verbatim).
 */
const WORD = new RegExp(
  '(\\d+)|[a-zA-Z\u00C0-\u00FF\u0100-\u017F\u0180-\u024F\u0250-\u02AF\u1E00-\u1EFF\u0400-\u04FF\u0500-\u052F\u0D00-\u0D7F]+|' +
    '[\u2E80-\u2EFF\u2F00-\u2FDF\u3000-\u303F\u31C0-\u31EF\u3200-\u32FF\u3300-\u33FF\u3400-\u3FFF\u4000-\u4DBF\u4E00-\u4FFF\u5000-\u5FFF\u6000-\u6FFF\u7000-\u7FFF\u8000-\u8FFF\u9000-\u9FFF\uF900-\uFAFF' +
    '\u3040-\u309F\u30A0-\u30FF\u31F0-\u31FF\u3190-\u319F' +
    '\u1100-\u11FF\u3130-\u318F\uA960-\uA97F\uAC00-\uAFFF\uB000-\uBFFF\uC000-\uCFFF\uD000-\uD7AF\uD7B0-\uD7FF]',
  'g',
);

/**
 * Word count exactly as `words-count@2.0.2` (default options) computes it, quirks included: only the
 * **first** whitespace run is normalised to a space and the text is then split on single spaces, so
 * tabs and newlines elsewhere do not split tokens by themselves (the letter/digit runs inside a
 * token still count separately); a token without any letter or digit counts as one word.
 */
export function countWords(text: string): number {
  if (!text || text.trim() === '') return 0;
  let kept = '';
  let from = 0;
  for (let k = 0; k < text.length; k++) {
    if (isDeleted(text.charCodeAt(k))) {
      kept += text.slice(from, k);
      from = k + 1;
    }
  }
  kept += text.slice(from);
  let count = 0;
  for (const token of kept.replace(/\s+/, ' ').split(' ')) {
    if (!token.trim()) continue;
    let found = 0;
    WORD.lastIndex = 0;
    while (WORD.exec(token) !== null) found++;
    count += found === 0 ? 1 : found;
  }
  return count;
}

/**
 * Allowed: ASCII letters and digits, space, tab, CR, LF, ``~ / \ + , - * ` ' " . ! @ # $ % ^ & ( ) _ = [ ] { } | < > : ; ?``,
 * the em dash U+2014 and the curly quotes U+201C, U+201D, U+2018, U+2019 (the 1.3.0+ pattern).
 */
const ALLOWED_SYMBOLS = '~/\\+,-*`\'".!@#$%^&()_=[]{}|<>:;?\u2014\u201C\u201D\u2018\u2019 \n\r\t';
const ALLOWED = new Set<number>([...ALLOWED_SYMBOLS].map((c) => c.charCodeAt(0)));
const WHITESPACE = /\s/;

function isAllowed(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || ALLOWED.has(code);
}

/**
 * The characters that make `containDisallowedCharacters` true, each once, in order of first
 * appearance. The official check deletes every allowed character and then `trim()`s, so other
 * Unicode whitespace (no-break space, …) does not count against a prompt.
 */
export function disallowedCharacters(text: string): string[] {
  const found: string[] = [];
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    if (isAllowed(code) || WHITESPACE.test(ch)) continue;
    if (!found.includes(ch)) found.push(ch);
  }
  return found;
}

export function containsDisallowedCharacters(text: string): boolean {
  for (const ch of text) if (!isAllowed(ch.charCodeAt(0)) && !WHITESPACE.test(ch)) return true;
  return false;
}

/** Occurrences of the case-sensitive `<OBJECT>` token. */
export function countObjectTokens(text: string): number {
  let count = 0;
  for (let k = text.indexOf('<OBJECT>'); k >= 0; k = text.indexOf('<OBJECT>', k + 8)) count++;
  return count;
}

/** The names the official qualification log uses for the three checks, in checking order. */
export type QualificationCheck = 'maxLength' | 'disallowChars' | 'objectToken';

export interface QualificationVerdict {
  qualified: boolean;
  /** The check the official script stops at, if any. */
  failedCheck: QualificationCheck | undefined;
  words: number;
  maxWords: number;
  withinWordLimit: boolean;
  /** Offending characters (empty when the prompt passes the character check). */
  disallowedCharacters: string[];
  objectTokens: number;
  /** Every check's outcome, in the official order (the script itself stops at the first failure). */
  checks: Array<{ check: QualificationCheck; ok: boolean }>;
}

/** The 2023 verdict on a prompt, with the numbers behind each check. */
export function qualify(prompt: string): QualificationVerdict {
  const words = countWords(prompt);
  const offending = disallowedCharacters(prompt);
  const objectTokens = countObjectTokens(prompt);
  const checks: QualificationVerdict['checks'] = [
    { check: 'maxLength', ok: words <= MAX_WORDS_2023 },
    { check: 'disallowChars', ok: offending.length === 0 },
    { check: 'objectToken', ok: objectTokens > 0 },
  ];
  const failed = checks.find((c) => !c.ok);
  return {
    qualified: failed === undefined,
    failedCheck: failed?.check,
    words,
    maxWords: MAX_WORDS_2023,
    withinWordLimit: words <= MAX_WORDS_2023,
    disallowedCharacters: offending,
    objectTokens,
    checks,
  };
}
