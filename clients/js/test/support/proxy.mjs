// A TCP proxy between a client and the hub that a test can hold, cut or silence, connection by
// connection: what a flaky network does to a WebSocket.
import net from 'node:net';

/** One client connection through the proxy and its upstream connection to the hub. */
class Link {
  constructor(client, upstream) {
    this.client = client;
    this.upstream = upstream;
    /** Chunks held back per direction while held (null: flowing). */
    this.held = { toHub: null, toClient: null };
    this.dead = false;
    /** Called with a chunk from the client before it is forwarded; returns true if handled. */
    this.onClientChunk = null;
    client.on('data', (chunk) => {
      if (this.dead) return;
      if (this.onClientChunk?.(chunk)) return;
      this.#forward('toHub', chunk);
    });
    upstream.on('data', (chunk) => { if (!this.dead) this.#forward('toClient', chunk); });
    // Either side ending ends the other (a vanished link keeps the hub's side open).
    client.on('error', () => {});
    upstream.on('error', () => {});
    client.on('close', () => { this.dead = true; if (!this.vanished) upstream.end(); });
    upstream.on('close', () => { this.dead = true; client.destroy(); });
  }

  #forward(direction, chunk) {
    if (this.held[direction]) this.held[direction].push(chunk);
    else (direction === 'toHub' ? this.upstream : this.client).write(chunk);
  }

  /** Holds back everything going `direction` ('toHub' or 'toClient') until `release`. */
  hold(direction) { this.held[direction] ??= []; }

  /** Lets `direction` flow again, held chunks first. */
  release(direction) {
    const chunks = this.held[direction] ?? [];
    this.held[direction] = null;
    for (const chunk of chunks) this.#forward(direction, chunk);
  }

  /** A lost network: the client's side goes (no close frame); the hub sees its side end. Held data is lost. */
  cut() {
    this.dead = true;
    this.client.destroy();
    this.upstream.end();
  }

  /**
   * A connection that dies silently: the client's side goes, the hub's side stays open and gets
   * nothing more (not even pongs), so the hub notices only by its keepalive.
   */
  vanish() {
    this.dead = true;
    this.vanished = true;
    this.client.destroy(); // data from the hub is read and dropped from now on (dead)
  }

  /** The next chunk from the client reaches the hub, then the link is cut (`vanish`: silenced). */
  failAfterNextClientChunk({ silently = false } = {}) {
    this.onClientChunk = (chunk) => {
      this.onClientChunk = null;
      this.upstream.write(chunk);
      if (silently) this.vanish();
      else this.cut();
      return true;
    };
  }
}

export class TcpProxy {
  /** Links in the order the client opened them. @type {Link[]} */
  links = [];

  constructor(targetHost, targetPort) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.targetHost);
      this.links.push(new Link(client, upstream));
    });
  }

  /** Listens on a free loopback port; resolves with `ws://127.0.0.1:PORT/ws`. */
  start() {
    return new Promise((resolve) => {
      this.server.listen(0, '127.0.0.1', () => resolve(`ws://127.0.0.1:${this.server.address().port}/ws`));
    });
  }

  /** The newest link. */
  get latest() { return this.links.at(-1); }

  /** Stops listening and closes every link. */
  close() {
    this.server.close();
    for (const link of this.links) {
      link.client.destroy();
      link.upstream.destroy();
    }
  }

  /** A proxy to the hub at `wsURL`, started. */
  static async to(wsURL) {
    const { hostname, port } = new URL(wsURL);
    const proxy = new TcpProxy(hostname, Number(port));
    proxy.url = await proxy.start();
    return proxy;
  }
}
