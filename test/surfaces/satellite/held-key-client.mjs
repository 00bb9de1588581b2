// A Satellite client as a process of its own, for the test that kills it mid-hold (kill -9: no QUIT, no
// release, the kernel closes its socket). Written from the protocol's documentation, plain JavaScript so
// that node runs it as it is. It adds a 15-key device, waits for its first bitmap (the device is bound),
// presses key 0 and does not let go, prints "held" once the press is taken, and then only PINGs, every
// 100 ms as Companion Satellite does, so that nothing but the kill ends the link.
// Usage: node held-key-client.mjs PORT DEVICEID
import { connect } from 'node:net';

const [port, deviceId] = process.argv.slice(2);
const socket = connect({ host: '127.0.0.1', port: Number(port) });
socket.setEncoding('utf8');
let buffer = '';
let added = false;
let pressed = false;
let pinging = null;

socket.on('data', (text) => {
  buffer += text;
  for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
    const line = buffer.slice(0, end);
    buffer = buffer.slice(end + 1);
    if (line.startsWith('CAPS')) {
      socket.write(`ADD-DEVICE DEVICEID="${deviceId}" PRODUCT_NAME="Satellite StreamDeck: 15" KEYS_TOTAL=15 KEYS_PER_ROW=5 BITMAPS=72\n`);
      pinging = setInterval(() => socket.write('PING\n'), 100);
    } else if (line.startsWith('ADD-DEVICE OK')) {
      added = true;
    } else if (added && !pressed && line.startsWith('KEY-STATE') && line.includes(' KEY=0 ')) {
      pressed = true;
      socket.write(`KEY-PRESS DEVICEID="${deviceId}" KEY=0 PRESSED=1\n`);
    } else if (line.startsWith('KEY-PRESS OK')) {
      process.stdout.write('held\n');
    } else if (line.includes(' ERROR ')) {
      process.stdout.write(`error: ${line}\n`);
    }
  }
});
socket.on('error', (error) => {
  process.stdout.write(`error: ${error.message}\n`);
  process.exit(1);
});
socket.on('close', () => {
  if (pinging) clearInterval(pinging);
  process.exit(0);
});
