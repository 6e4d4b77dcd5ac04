import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** Starts `server` on a free loopback port, keeping its open sockets in `sockets`; returns its `http://` URL. */
export async function listenOnLoopback(server: Server, sockets: Set<Socket>): Promise<string> {
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
