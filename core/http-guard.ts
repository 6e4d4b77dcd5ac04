import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Request checks shared by the local HTTP servers (the viewer and the survey): both listen on a
 * loopback address and serve scores, levels and file paths to a browser on the same machine.
 *
 * - The `Host` header must name the address the server listens on (or, for a loopback address,
 *   `127.0.0.1`/`localhost`) with its port. A web page elsewhere can point its own DNS name at
 *   127.0.0.1 (DNS rebinding) and then read the server as if same-origin; its requests still carry
 *   that foreign name in `Host`, so they are refused (403).
 * - A URL the WHATWG parser or `decodeURIComponent` rejects (`//`, a lone or bad `%` escape) is the
 *   client's fault: 400, not 500.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** The `Host` values a request to a server bound at `host:port` may carry (lower case). */
export function allowedHosts(host: string, port: number): Set<string> {
  const names = new Set([urlHost(host).toLowerCase()]);
  if (LOOPBACK.has(host.toLowerCase())) for (const name of ['127.0.0.1', 'localhost']) names.add(name);
  const allowed = new Set<string>();
  for (const name of names) {
    allowed.add(`${name}:${port}`);
    // A browser leaves the port out when it is the scheme's default.
    if (port === 80) allowed.add(name);
  }
  return allowed;
}

/** An address as it appears in a URL (IPv6 in brackets). */
export function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** Refuses (403) a request whose `Host` is not one of `allowed`. */
export function checkHost(req: IncomingMessage, allowed: ReadonlySet<string>): void {
  const given = req.headers.host ?? '';
  if (!allowed.has(given.toLowerCase())) {
    throw new HttpError(403, `this server answers only requests addressed to ${[...allowed][0]} (Host: ${JSON.stringify(given.slice(0, 200))})`);
  }
}

/** The request's path, or 400 when the URL does not parse. */
export function requestPath(req: IncomingMessage): string {
  try {
    return new URL(req.url ?? '/', 'http://server.invalid').pathname;
  } catch {
    throw new HttpError(400, 'malformed URL');
  }
}

/** One `%`-encoded path segment decoded, or 400 when its escapes are malformed. */
export function decodeSegment(segment: string, what: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, `malformed ${what} in the URL: ${JSON.stringify(segment.slice(0, 200))}`);
  }
}

/** Starts `server` listening on `host` and `port` (0: any free one); resolves to the port it got. */
export async function listenOn(server: Server, host: string, port = 0): Promise<number> {
  await new Promise<void>((listening, failed) => {
    server.once('error', failed);
    server.listen(port, host, () => listening());
  });
  return (server.address() as AddressInfo).port;
}

/** Closes `server` at once: open connections (idle keep-alives, a stuck client) are ended, not waited for. */
export function closeNow(server: Server): Promise<void> {
  return new Promise<void>((closed) => {
    server.closeAllConnections();
    server.close(() => closed());
  });
}
