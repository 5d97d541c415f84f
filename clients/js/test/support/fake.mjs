// A WebSocket stand-in and a scripted hub behind it, for unit tests of what a real single hub
// cannot show (redirects between nodes, chosen refusals). Same surface the client uses:
// readyState, onopen/onmessage/onclose/onerror, send, close.

/** A network of fake nodes: `serve(url, handler)`; every socket opened is in `sockets`. */
export class FakeNetwork {
  sockets = [];
  #nodes = new Map();

  /**
   * Answers the sockets opened to `url`: `handler(socket, message)` for each message the client
   * sends; `socket.reply(obj)` answers. An `auth` is welcomed by default (`welcome(socket)` to
   * change it).
   */
  serve(url, handler, { welcome } = {}) {
    this.#nodes.set(url, { handler, welcome });
  }

  /** The WebSocket constructor to give the client. */
  get WebSocket() {
    const network = this;
    return class FakeWebSocket {
      static OPEN = 1;
      constructor(url) {
        this.url = url;
        this.readyState = 0;
        this.sent = [];
        this.closedWith = null;
        network.sockets.push(this);
        setTimeout(() => {
          if (this.readyState !== 0) return;
          if (!network.#nodes.has(url)) return this.drop();
          this.readyState = 1;
          this.onopen?.({});
        }, 0);
      }

      send(data) {
        if (this.readyState !== 1) throw new Error('not open');
        const message = JSON.parse(data);
        this.sent.push(message);
        setTimeout(() => network.#handle(this, message), 0);
      }

      close(code = 1005, reason = '') {
        if (this.readyState >= 2) return;
        this.readyState = 2;
        this.closedWith = { code, reason };
        setTimeout(() => {
          this.readyState = 3;
          this.onclose?.({ code, reason });
        }, 0);
      }

      // The hub's side.
      reply(message) {
        if (this.readyState === 1) this.onmessage?.({ data: JSON.stringify(message) });
      }

      /** The network goes: close without a frame. */
      drop() {
        if (this.readyState === 3) return;
        this.readyState = 3;
        this.onclose?.({ code: 1006, reason: '' });
      }
    };
  }

  #handle(socket, message) {
    if (socket.readyState !== 1) return;
    const node = this.#nodes.get(socket.url);
    if (message.type === 'auth') {
      const welcome = node.welcome?.(socket) ?? {};
      return socket.reply({ type: 'welcome', ref: message.id, protocolVersion: 1, userId: 'ana', displayName: 'Ana',
        serverTime: Date.now(), limits: { graceSeconds: 30 }, resumableSessionId: null, ...welcome });
    }
    node.handler(socket, message);
  }
}

/** A snapshot of a session `sessionId` at `seq` for user ana. */
export function snapshot({ sessionId = 's1', seq = 1, lines = [], participants } = {}) {
  const you = { userId: 'ana', displayName: 'Ana', roleName: 'Guest', mode: 'HOST', isHost: true, connected: true };
  return {
    sessionId, scenario: { id: 'hotel-check-in', title: 'Hotel', roles: [] }, joinCode: 'ABC234', hostId: 'ana',
    maxPlayers: 4, startedAt: 1, seq, you, participants: participants ?? [you], lines, recasts: [],
  };
}

/** A `line` broadcast of ana's line `n` at `seq`. */
export function lineBroadcast({ sessionId = 's1', seq, n, clientId, ref, speakerId = 'ana', text = `line ${n}` }) {
  return {
    type: 'line', sessionId, seq, ...(ref ? { ref } : {}),
    line: { id: `l${n}`, speakerId, roleName: 'Guest', textNative: text, textTranslated: '', timestamp: 1, ...(clientId ? { clientId } : {}) },
  };
}

export const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));
