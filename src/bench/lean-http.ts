// The leanest HTTP client there is, for the benchmark's floors: node:http over keep-alive connections
// and JSON.parse, with nothing checked, no time limit, no masking and no observers. What any program that
// reads the recorder must at least spend; recdeck's own client does more for every answer (undici pools,
// a schema check, the token masked out of what the recorder says, a time limit), and that is counted as
// recdeck's cost, not the floor's.
import { Agent, request } from 'node:http';
import { authorizationHeader } from '../api/token.js';

export class LeanHttp {
  private readonly agent: Agent;
  private readonly origin: URL;
  private readonly headers: Record<string, string>;

  /** `connections` kept open to the recorder at `url`, each request waiting for a free one. */
  constructor(url: string, token: string, connections: number) {
    this.origin = new URL(url);
    this.agent = new Agent({ keepAlive: true, maxSockets: connections });
    this.headers = { authorization: authorizationHeader(token), accept: 'application/json' };
  }

  /** Sends one request and resolves with its answer's JSON (undefined for an empty answer). */
  send(method: 'GET' | 'PUT', path: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const sent = request({ host: this.origin.hostname, port: this.origin.port, method, path, agent: this.agent, headers: this.headers }, (answer) => {
        let text = '';
        answer.setEncoding('utf8');
        answer.on('data', (chunk: string) => (text += chunk));
        answer.on('end', () => {
          try {
            resolve(text === '' ? undefined : JSON.parse(text));
          } catch (error) {
            reject(error as Error);
          }
        });
        answer.on('error', reject);
      });
      sent.on('error', reject);
      sent.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
