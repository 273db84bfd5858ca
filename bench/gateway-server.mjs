// A Gateway server for the benchmark, in its own process: after Identify it
// floods COUNT INTERACTION_CREATE frames of about 800 bytes. Prints its port.
import { WebSocketServer } from 'ws';

const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
const payload = (i) => ({
  id: String(1_300_000_000_000_000_000n + BigInt(i)),
  application_id: '1100000000000000001',
  type: 2,
  token: 'aW50ZXJhY3Rpb246MTMwMDAwMDAwMDAwMDAwMDAwMDpzZWNyZXQtdG9rZW4tZm9yLWJlbmNobWFya3MtMDEyMzQ1Njc4OQ',
  version: 1,
  locale: 'en-GB',
  guild_locale: 'en-US',
  guild_id: '1200000000000000001',
  channel_id: '1200000000000000002',
  member: {
    user: { id: '1000000000000000001', username: 'ada', global_name: 'Ada Lovelace', discriminator: '0', avatar: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' },
    roles: ['1200000000000000010', '1200000000000000011'],
    joined_at: '2025-01-02T03:04:05.000Z',
    permissions: '2147483647',
    nick: null,
  },
  data: {
    id: '1100000000000000002',
    name: 'quiz',
    type: 1,
    options: [
      { name: 'topic', type: 3, value: 'the history of computing' },
      { name: 'rounds', type: 4, value: 5 },
      { name: 'hard', type: 5, value: true },
    ],
  },
  entitlements: [],
  app_permissions: '2147483647',
});

wss.on('connection', (socket, request) => {
  const count = Number(new URL(request.url, 'http://x').searchParams.get('count') ?? 10000);
  socket.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 600000 } }));
  socket.on('message', (raw) => {
    const frame = JSON.parse(raw.toString());
    if (frame.op !== 2) return;
    let s = 1;
    socket.send(JSON.stringify({ op: 0, s: s++, t: 'READY', d: { session_id: 'bench', v: 1 } }));
    let sent = 0;
    const pump = () => {
      for (let i = 0; i < 200 && sent < count; i++, sent++) socket.send(JSON.stringify({ op: 0, s: s++, t: 'INTERACTION_CREATE', d: payload(sent) }));
      if (sent < count) setImmediate(pump);
    };
    pump();
  });
  socket.on('error', () => undefined);
});
wss.on('listening', () => process.stdout.write(`${wss.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
