/**
 * A model host as the exchange and the answer reader see it: where requests go, the headers with its
 * credentials, its label in messages and the scrubbing of its secrets. llm/model-calls/endpoint.ts
 * (`ModelEndpoint`) is the one implementation; the readers need nothing else of it.
 */
export interface Host {
  /** The base every path is appended to: no userinfo, no trailing slash. */
  readonly base: string;
  readonly label: string;
  url(path: string): string;
  headers(): Record<string, string>;
  /** `text` with every credential of this host replaced by `***`. */
  redact(text: string): string;
  /** Which variable a 401 should point to. */
  keyHint(): string;
}

/** A host URL as it may be shown: userinfo replaced by `***@`, query values dropped, no trailing slash. */
export function hostLabel(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL: show nothing of it that could be a secret.
    return '(not a URL)';
  }
  const auth = parsed.username || parsed.password ? '***@' : '';
  const path = parsed.pathname.replace(/\/+$/, '');
  return `${parsed.protocol}//${auth}${parsed.host}${path}${parsed.search ? '?…' : ''}`;
}
