// A fake Stream Deck on the network, on 127.0.0.1: a Stream Deck Studio, or a Network Dock with a
// 15-key deck plugged in, speaking the "Cora" framing @elgato-stream-deck/tcp 7.3.2 expects (learnt from
// its socketWrapper, hid-device/cora and connectionManager):
// - every message, both ways: magic 43 93 8A 41, flags u16 LE, HID op u8 (0 write, 1 send feature
//   report, 2 get feature report), a reserved byte, message id u32 LE, payload length u32 LE, payload;
// - the device speaks first and keeps speaking: a keepalive (payload 01 0A …, connection number at 5)
//   at once and every second (this fake: every 250 ms, below); the library marks the deck connected on
//   the first and counts it lost after 5 s without one (tcp.test.ts: 2.5 s), answering each with an ACK;
// - a primary port (Studio, dock) answers "get report" 03 <id> to the host with 03 <id> …: 80 device
//   info (vendor id at 12, product id at 14, LE), 84 serial (length at 3, text from 4), 83 firmware
//   (text at 8–16), 1C the device on its second port (reply 01 0B …: 02 at 4 when one is there, its
//   vendor and product ids at 26 and 28, serial at 94–125, TCP port at 126);
// - a secondary port (the dock's deck) answers the verbatim <id> with <id> …: 08 (it is a secondary),
//   06 serial (length at 1, text from 2); and 03 1C like the dock;
// - input reports go to the host as 01 <HID input report> (keys: 00, count u16, one byte a key);
//   everything the host writes (images, colours) and its feature reports (brightness) are recorded.
// Time here is the fake device's own (its keepalives are real-time, as a dock's are): tests wait on it
// only through bounded until() waits.
import { createServer, type Server, type Socket } from 'node:net';

const MAGIC = Buffer.from([0x43, 0x93, 0x8a, 0x41]);
const HEADER = 16;
const ELGATO = 0x0fd9;
const OP_WRITE = 0;
const OP_SEND_REPORT = 1;
const OP_GET_REPORT = 2;
const FLAG_ACK_NAK = 0x0200;
// A quarter of a dock's second: tcp.test.ts shortens the library's silence bound to 2.5 s, and with 1 s
// keepalives a stall of this process of 1.5 s (the test's timers and the fake's share it) was a loss
// nobody caused: at load 15 (2026-11-29 03:02) a restarted Studio was removed and added a second time.
// At 250 ms it takes a stall of 2.25 s.
const KEEPALIVE_MS = 250;

export interface FakeDeckModel {
  productId: number;
  serial: string;
  /** Keys reported in an input report. */
  keys: number;
}

export const STUDIO: FakeDeckModel = { productId: 0xaa, serial: 'STUDIO0001', keys: 32 };
export const NETWORK_DOCK: FakeDeckModel = { productId: 0xffff, serial: 'DOCK0001', keys: 0 };
export const MK2_15_KEYS: FakeDeckModel = { productId: 0x80, serial: 'CL15K0001', keys: 15 };

interface CoraMessage {
  flags: number;
  op: number;
  id: number;
  payload: Buffer;
}

/** One port of the fake: a primary (Studio, dock) or the dock's second port (its deck). */
export class FakeDeckPort {
  /** Every HID write the host sent (image and colour reports), in order. */
  readonly writes: Buffer[] = [];
  /** Every feature report the host sent (brightness). */
  readonly featureReports: Buffer[] = [];
  /** How many times a host connected. */
  connections = 0;
  /** What the host sent that is not Cora (the connection is cut, as a device would). */
  readonly protocolErrors: string[] = [];
  /** false: the keepalives stop, as when the network between goes (no FIN reaches the host). */
  alive = true;
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private keepalive: NodeJS.Timeout | null = null;
  private connectionNo = 0;
  private portNumber = 0;

  constructor(
    private readonly model: FakeDeckModel,
    private readonly role: 'primary' | 'secondary',
    /** For a dock: the deck on its second port. */
    private readonly child: FakeDeckPort | null = null,
  ) {}

  get port(): number {
    return this.portNumber;
  }

  /** Listens (on the port it had, when it is started again: a restarted dock keeps its port). */
  async start(): Promise<void> {
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.portNumber, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the fake deck has no TCP port');
    this.portNumber = address.port;
    this.server = server;
    this.keepalive = setInterval(() => this.sendKeepalives(), KEEPALIVE_MS);
  }

  /** Goes away at once, as a dock that loses power: every connection cut, nothing listening. */
  async stop(): Promise<void> {
    if (this.keepalive) clearInterval(this.keepalive);
    this.keepalive = null;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Connected hosts now. */
  get connected(): number {
    return this.sockets.size;
  }

  /** Keys pressed now (by index): each change is one input report, as the device sends them. */
  private readonly down = new Set<number>();

  press(key: number): void {
    this.down.add(key);
    this.sendKeys();
  }

  release(key: number): void {
    this.down.delete(key);
    this.sendKeys();
  }

  private sendKeys(): void {
    const report = Buffer.alloc(4 + this.model.keys);
    report[0] = 0x01; // an input report to the host
    report[1] = 0x00; // keys
    report.writeUInt16LE(this.model.keys, 2);
    for (const key of this.down) report[4 + key] = 1;
    this.broadcast({ flags: 0, op: OP_WRITE, id: 0, payload: report });
  }

  private accept(socket: Socket): void {
    this.connections++;
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => this.sockets.delete(socket));
    let buffer = Buffer.alloc(0);
    socket.on('data', (data) => {
      buffer = Buffer.concat([buffer, data]);
      while (buffer.length >= HEADER) {
        if (!buffer.subarray(0, 4).equals(MAGIC)) {
          this.protocolErrors.push(`a message without the Cora magic: ${buffer.subarray(0, 16).toString('hex')}`);
          socket.destroy();
          return;
        }
        const length = buffer.readUInt32LE(12);
        if (buffer.length < HEADER + length) break;
        const message = { flags: buffer.readUInt16LE(4), op: buffer.readUInt8(6), id: buffer.readUInt32LE(8), payload: Buffer.from(buffer.subarray(HEADER, HEADER + length)) };
        buffer = buffer.subarray(HEADER + length);
        this.handle(socket, message);
      }
    });
    this.sendKeepalive(socket);
  }

  private handle(socket: Socket, message: CoraMessage): void {
    if (message.flags & FLAG_ACK_NAK) return; // a keepalive's ACK
    if (message.op === OP_WRITE) this.writes.push(message.payload);
    else if (message.op === OP_SEND_REPORT) this.featureReports.push(message.payload);
    else if (message.op === OP_GET_REPORT) {
      const reply = this.report(message.payload);
      if (reply !== null) send(socket, { flags: 0, op: OP_GET_REPORT, id: message.id, payload: reply });
    }
  }

  /** The answer to a "get report", or null for one this port does not answer. */
  private report(request: Buffer): Buffer | null {
    const toHost = request[0] === 0x03;
    const id = toHost ? request[1] : request[0];
    const reply = Buffer.alloc(128);
    if (toHost && id === 0x1c) return this.childInfo();
    if (this.role === 'primary' && toHost) {
      reply[0] = 0x03;
      reply[1] = id ?? 0;
      switch (id) {
        case 0x80:
          reply.writeUInt16LE(ELGATO, 12);
          reply.writeUInt16LE(this.model.productId, 14);
          return reply;
        case 0x84:
          reply[3] = this.model.serial.length;
          reply.write(this.model.serial, 4, 'ascii');
          return reply;
        case 0x83:
          reply.write('1.05.008', 8, 'ascii');
          return reply;
        default:
          return null;
      }
    }
    if (this.role === 'secondary' && !toHost) {
      reply[0] = id ?? 0;
      switch (id) {
        case 0x08:
          return reply;
        case 0x06:
          reply[1] = this.model.serial.length;
          reply.write(this.model.serial, 2, 'ascii');
          return reply;
        case 0x05:
          reply[1] = 12;
          reply.write('3.00.000', 6, 'ascii');
          return reply;
        default:
          return null;
      }
    }
    return null;
  }

  /** 01 0B …: what is on the second port (a Studio and a bare dock: nothing; the dock: its deck). */
  private childInfo(): Buffer {
    const info = Buffer.alloc(128);
    info[0] = 0x01;
    info[1] = 0x0b;
    const deck = this.role === 'primary' ? this.child : this;
    if (deck === null) return info;
    info[4] = 0x02;
    info.writeUInt16LE(ELGATO, 26);
    info.writeUInt16LE(deck.model.productId, 28);
    info.write(deck.model.serial, 94, 'ascii');
    info.writeUInt16LE(deck.port, 126);
    return info;
  }

  private sendKeepalives(): void {
    if (!this.alive) return;
    for (const socket of this.sockets) this.sendKeepalive(socket);
  }

  private sendKeepalive(socket: Socket): void {
    const payload = Buffer.alloc(32);
    payload[0] = 0x01;
    payload[1] = 0x0a;
    payload[5] = ++this.connectionNo & 0xff;
    send(socket, { flags: 0, op: OP_WRITE, id: 0, payload });
  }

  private broadcast(message: CoraMessage): void {
    for (const socket of this.sockets) send(socket, message);
  }
}

function send(socket: Socket, message: CoraMessage): void {
  const header = Buffer.alloc(HEADER);
  MAGIC.copy(header, 0);
  header.writeUInt16LE(message.flags, 4);
  header.writeUInt8(message.op, 6);
  header.writeUInt32LE(message.id, 8);
  header.writeUInt32LE(message.payload.length, 12);
  if (!socket.destroyed) socket.write(Buffer.concat([header, message.payload]));
}

/** A Stream Deck Studio on a free port of 127.0.0.1. */
export async function startFakeStudio(): Promise<FakeDeckPort> {
  const studio = new FakeDeckPort(STUDIO, 'primary');
  await studio.start();
  return studio;
}

/** A Network Dock with a 15-key Stream Deck MK.2 plugged in: two ports, the dock's and its deck's. */
export async function startFakeDock(): Promise<{ dock: FakeDeckPort; deck: FakeDeckPort; stop: () => Promise<void>; restart: () => Promise<void> }> {
  const deck = new FakeDeckPort(MK2_15_KEYS, 'secondary');
  await deck.start();
  const dock = new FakeDeckPort(NETWORK_DOCK, 'primary', deck);
  await dock.start();
  const stop = async () => {
    await dock.stop();
    await deck.stop();
  };
  return {
    dock,
    deck,
    stop,
    restart: async () => {
      await stop();
      await deck.start();
      await dock.start();
    },
  };
}
