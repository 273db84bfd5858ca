/**
 * A TCP proxy on a loopback port that can stop forwarding, as a network
 * partition does: while cut, nothing is read from either side (the bytes
 * wait in the kernel, the connections stay open, no error is seen); healed,
 * what waited flows again, as TCP delivers after a partition ends.
 */
import { connect, createServer, type Socket } from 'node:net';

/** A running proxy. */
export interface TcpProxy {
  /** `127.0.0.1` port the proxy listens on. */
  readonly port: number;
  /** Stops forwarding in both directions (connections stay open; new ones are accepted and wait too). */
  cut(): void;
  /** Forwards again, what waited first. */
  heal(): void;
  /** Closes the proxy and every connection through it. */
  close(): Promise<void>;
}

/** Starts a proxy to `127.0.0.1:targetPort`. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let cut = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (cut) socket.pause();
  };
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    track(client);
    track(upstream);
    // Not pipe(): a drain would resume a side the cut paused.
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    cut() {
      cut = true;
      for (const socket of sockets) socket.pause();
    },
    heal() {
      cut = false;
      for (const socket of sockets) socket.resume();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
