import { SbevalError } from '../../core/errors.js';
import { backendOf, MODEL_APIS, type ModelApi } from './apis.js';
import { type Host, hostLabel } from './host.js';

/**
 * One model server as sbeval addresses it: which API it speaks, where, with which credentials, and the
 * name it goes by in every log line and message. Credentials never leave this object except as the
 * request's Authorization header: the URL the requests go to carries no userinfo, the label shows
 * `***@` in its place, and `redact()` scrubs them from any text a host sends back (an error page that
 * echoes the Authorization header, say) before it becomes a message.
 *
 * Credentials come from two places only: userinfo in a host URL (`http://user:pass@host:11434`, sent
 * as HTTP Basic, for a reverse proxy) and the environment (`API_KEY_VARIABLES`, sent as a Bearer
 * token). Never from a flag or the config file, so a command line in a shell history or a config in a
 * shared folder holds no key.
 */

/** The variables a key is read from per API, first set wins (each API's module says which). */
export const API_KEY_VARIABLES = Object.fromEntries(MODEL_APIS.map((api) => [api, backendOf(api).keyVariables])) as Record<ModelApi, readonly string[]>;

/** What an API is called in messages ("Ollama unavailable: …"). */
export function apiName(api: ModelApi): string {
  return backendOf(api).title;
}

/** Secrets shorter than this are not searched for in text (a one-letter password would blank every such letter). */
const MIN_SECRET = 4;

export class ModelEndpoint implements Host {
  /** The base every path is appended to: no userinfo, no trailing slash (`http://h:11434`, `https://api.openai.com/v1`). */
  readonly base: string;
  readonly label: string;
  readonly #authorization: string | undefined;
  readonly #secrets: string[];
  readonly #search: string;

  private constructor(
    readonly api: ModelApi,
    url: URL,
    authorization: string | undefined,
    secrets: string[],
  ) {
    this.#search = url.search;
    const clean = new URL(url.href);
    clean.username = '';
    clean.password = '';
    clean.search = '';
    clean.hash = '';
    this.base = clean.href.replace(/\/+$/, '');
    this.label = hostLabel(url.href);
    this.#authorization = authorization;
    this.#secrets = secrets.filter((s) => s.length >= MIN_SECRET).sort((a, b) => b.length - a.length);
  }

  /**
   * `url` as given in `--hosts`, the config or `$OLLAMA_HOST`. A URL with no path gets the API's default
   * one: for the OpenAI API the base is what an OpenAI client takes as `base_url` (`…/v1`; Ollama serves
   * its OpenAI-compatible API there, and so do vLLM and llama.cpp's server).
   */
  static parse(url: string, api: ModelApi, env: NodeJS.ProcessEnv = process.env, index = 0): ModelEndpoint {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new SbevalError('config', `host ${index + 1} is not a URL`, 'write hosts as http://host:port');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new SbevalError('config', `host ${hostLabel(url)} is not an http(s) URL`, 'write hosts as http://host:port');
    }
    const defaultPath = backendOf(api).defaultPath;
    if (defaultPath !== undefined && (parsed.pathname === '' || parsed.pathname === '/')) parsed.pathname = defaultPath;
    const secrets: string[] = [];
    let authorization: string | undefined;
    if (parsed.username || parsed.password) {
      const user = decodeURIComponent(parsed.username);
      const password = decodeURIComponent(parsed.password);
      const token = Buffer.from(`${user}:${password}`).toString('base64');
      authorization = `Basic ${token}`;
      secrets.push(token, `${user}:${password}`, `${parsed.username}:${parsed.password}`, password, parsed.password);
    } else {
      const key = apiKey(api, env);
      if (key !== undefined) {
        authorization = `Bearer ${key}`;
        secrets.push(key);
      }
    }
    for (const value of parsed.searchParams.values()) secrets.push(value, encodeURIComponent(value));
    return new ModelEndpoint(api, parsed, authorization, secrets);
  }

  /** The address of `path` (`/api/chat`, `/chat/completions`) on this host, query kept. */
  url(path: string): string {
    return `${this.base}${path}${this.#search}`;
  }

  /** Request headers, with the credentials. */
  headers(): Record<string, string> {
    return this.#authorization ? { authorization: this.#authorization } : {};
  }

  /** `text` with every credential of this endpoint replaced by `***`. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) out = out.split(secret).join('***');
    return out;
  }

  /** Which variable a 401 should point to. */
  keyHint(): string {
    return `the key is read from ${API_KEY_VARIABLES[this.api].map((v) => `$${v}`).join(' or ')}`;
  }

  toJSON(): string {
    return this.label;
  }
}

function apiKey(api: ModelApi, env: NodeJS.ProcessEnv): string | undefined {
  for (const name of API_KEY_VARIABLES[api]) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}
