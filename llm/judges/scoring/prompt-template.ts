/**
 * A judge prompt of the user's own (`--prompt-template <file>`), e.g. a paper's exact text: plain text
 * with placeholders `{question}`, `{answer}` (the level as the judge's view shows it), `{criteria}`
 * (every level's items), `{criteria_100}`, `{criteria_50}`, `{criteria_25}` and `{low_tier}` (25 or
 * 20). `{{` and `}}` are literal braces. An unknown placeholder is an error, not silence: a typo such as
 * `{answr}` would otherwise send a prompt without the level. The target letter is already in the
 * question and the criteria (`{letter}` in the rubric file).
 */
export interface PromptTemplate {
  /** The system message (none when absent). */
  system?: string | undefined;
  user: string;
}

export const TEMPLATE_PLACEHOLDERS = ['question', 'answer', 'criteria', 'criteria_100', 'criteria_50', 'criteria_25', 'low_tier'] as const;

const TOKEN = /\{\{|\}\}|\{([A-Za-z0-9_]+)\}/g;

/** Why the template cannot be used, or undefined. */
export function checkTemplate(template: PromptTemplate): string | undefined {
  const names = new Set<string>();
  for (const text of [template.system ?? '', template.user]) for (const m of text.matchAll(TOKEN)) if (m[1] !== undefined) names.add(m[1]);
  const unknown = [...names].filter((n) => !(TEMPLATE_PLACEHOLDERS as readonly string[]).includes(n));
  if (unknown.length > 0)
    return `unknown placeholder${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `{${n}}`).join(', ')} (known: ${TEMPLATE_PLACEHOLDERS.map((n) => `{${n}}`).join(', ')}; {{ and }} for literal braces)`;
  if (!/\{answer\}/.test(template.user)) return 'the user template has no {answer}: the judge would never see the level';
  return undefined;
}

export function renderTemplate(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(TOKEN, (token: string, name: string | undefined) => {
    if (name === undefined) return token[0]!;
    const value = values[name];
    if (value === undefined) throw new RangeError(`unknown placeholder {${name}}`);
    return value;
  });
}
