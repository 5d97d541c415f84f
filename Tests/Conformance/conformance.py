#!/usr/bin/env python3
"""Independent RFC 6455 / RFC 7692 conformance suite for a WebSocket echo endpoint.

Modelled on the categories of Autobahn|Testsuite, but written from scratch on raw TCP
sockets with the Python standard library only. Every case opens its own connection,
performs the opening handshake itself, sends hand-built masked frames (split at arbitrary
byte boundaries where it matters) and checks the exact frames the server answers with.

The endpoint under test must echo every message back unchanged and with the same type,
answer pings with pongs, echo the close code, and fail the connection as RFC 6455 says.

Usage:
  conformance.py --url ws://127.0.0.1:PORT/echo --max-message-size N
                 [--no-compression] [--case PATTERN] [--json out.json]
                 [--timeout S] [--jobs N] [--healthz]

Exit status 0 iff every case that ran passed (skipped cases do not count).
"""

import argparse
import base64
import concurrent.futures
import fnmatch
import hashlib
import json
import os
import re
import socket
import struct
import sys
import threading
import time
import zlib

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
OP_NAMES = {0: "continuation", 1: "text", 2: "binary", 8: "close", 9: "ping", 10: "pong"}

TAIL = b"\x00\x00\xff\xff"


# --------------------------------------------------------------------------------------
# Errors and case context
# --------------------------------------------------------------------------------------

class CaseFail(Exception):
    """The case failed; the message says why."""


class CaseSkip(Exception):
    """The case does not apply to this configuration."""


class Closed(Exception):
    """The TCP connection ended (EOF or reset) while reading."""


def mask_bytes(data, key):
    """XOR `data` with the 4-byte masking `key` (fast for large payloads)."""
    n = len(data)
    if n == 0:
        return b""
    reps = (n + 3) // 4
    keystream = (key * reps)[:n]
    return (int.from_bytes(data, "big") ^ int.from_bytes(keystream, "big")).to_bytes(n, "big")


def build_frame(opcode, payload=b"", fin=True, rsv=0, mask=True, key=None, length_mode=None,
                length=None):
    """Build one frame. length_mode: None (minimal), 7, 16 or 64 (forced encoding).
    `length` overrides the announced payload length (the payload is still appended as is)."""
    b0 = (0x80 if fin else 0) | ((rsv & 7) << 4) | (opcode & 0xF)
    n = len(payload) if length is None else length
    mode = length_mode
    if mode is None:
        mode = 7 if n <= 125 else (16 if n <= 0xFFFF else 64)
    mbit = 0x80 if mask else 0
    if mode == 7:
        head = bytes([b0, mbit | n])
    elif mode == 16:
        head = bytes([b0, mbit | 126]) + struct.pack("!H", n)
    else:
        head = bytes([b0, mbit | 127]) + struct.pack("!Q", n)
    if mask:
        if key is None:
            key = os.urandom(4)
        return head + key + mask_bytes(payload, key)
    return head + payload


def close_payload(code=None, reason=b""):
    if code is None:
        return b""
    if isinstance(reason, str):
        reason = reason.encode()
    return struct.pack("!H", code) + reason


def deflate(data, wbits=15, level=6):
    """Compress one message as RFC 7692 says: raw deflate, sync flush, tail stripped."""
    c = zlib.compressobj(level, zlib.DEFLATED, -wbits)
    out = c.compress(data) + c.flush(zlib.Z_SYNC_FLUSH)
    assert out.endswith(TAIL)
    return out[:-4]


def parse_extensions(value):
    """Parse a Sec-WebSocket-Extensions value into [(name, [(param, value-or-None)])]."""
    result = []
    if not value:
        return result
    for ext in value.split(","):
        parts = [p.strip() for p in ext.split(";")]
        if not parts or not parts[0]:
            continue
        params = []
        for p in parts[1:]:
            if not p:
                continue
            if "=" in p:
                k, v = p.split("=", 1)
                v = v.strip()
                if len(v) >= 2 and v[0] == '"' and v[-1] == '"':
                    v = v[1:-1]
                params.append((k.strip().lower(), v))
            else:
                params.append((p.lower(), None))
        result.append((parts[0].lower(), params))
    return result


class Deflate:
    """Negotiated permessage-deflate parameters for one connection, and its codec state."""

    def __init__(self, params, offer_client_bits):
        d = dict(params)
        self.params = params
        self.server_no_context = "server_no_context_takeover" in d
        self.client_no_context = "client_no_context_takeover" in d
        self.server_bits = int(d["server_max_window_bits"]) if d.get("server_max_window_bits") else 15
        cb = 15
        if d.get("client_max_window_bits"):
            cb = int(d["client_max_window_bits"])
        if offer_client_bits:
            cb = min(cb, offer_client_bits)
        self.client_bits = cb
        self._inflater = None
        self._deflater = None

    def compress(self, data, takeover=False):
        """Compress one outgoing message. With takeover=True, reuse the LZ77 window of
        earlier messages (only legal when the server did not ask client_no_context_takeover)."""
        if not takeover or self.client_no_context:
            return deflate(data, wbits=self.client_bits)
        if self._deflater is None:
            self._deflater = zlib.compressobj(6, zlib.DEFLATED, -self.client_bits)
        out = self._deflater.compress(data) + self._deflater.flush(zlib.Z_SYNC_FLUSH)
        return out[:-4]

    def decompress(self, data):
        """Decompress one incoming message, with the window the server agreed to use."""
        if self._inflater is None or self.server_no_context:
            self._inflater = zlib.decompressobj(-self.server_bits)
        return self._inflater.decompress(data + TAIL)


class Message:
    def __init__(self, opcode, payload, compressed, frames):
        self.opcode = opcode
        self.payload = payload
        self.compressed = compressed
        self.frames = frames


def describe(data, limit=24):
    if len(data) <= limit:
        return repr(bytes(data))
    return "%r...(%d bytes)" % (bytes(data[:limit]), len(data))


class Conn:
    """One client connection: raw socket, handshake, frame I/O and expectations."""

    def __init__(self, ctx, sock):
        self.ctx = ctx
        self.sock = sock
        self.buf = bytearray()
        self.deflate = None
        self.status = None
        self.headers = {}
        self.send_error = None
        self.close_sent = False
        self.partial = []
        self.pushed = None

    # ---- low level I/O ----
    def _timeout(self):
        rem = self.ctx.remaining()
        if rem <= 0:
            raise socket.timeout()
        return rem

    def _fill(self):
        self.sock.settimeout(self._timeout())
        try:
            data = self.sock.recv(1 << 20)
        except (ConnectionResetError, BrokenPipeError) as e:
            raise Closed("connection reset (%s)" % e.__class__.__name__)
        if not data:
            raise Closed("EOF")
        self.buf += data

    def _read(self, n):
        while len(self.buf) < n:
            self._fill()
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def send_raw(self, data, chunk=None, delay=0.0):
        """Send bytes, optionally `chunk` bytes per send() with `delay` between them.
        Send errors (peer already closed) are recorded, not raised: the following
        expectation reads whatever the server said before closing."""
        if self.send_error:
            return
        try:
            if not chunk:
                self.sock.settimeout(self._timeout())
                self.sock.sendall(data)
                return
            for i in range(0, len(data), chunk):
                self.sock.settimeout(self._timeout())
                self.sock.sendall(data[i:i + chunk])
                if delay:
                    time.sleep(delay)
        except socket.timeout:
            raise
        except OSError as e:
            self.send_error = e

    def send_raw_background(self, data, chunk=1 << 16):
        """Send in a helper thread (for payloads the server may stop reading)."""
        def run():
            try:
                for i in range(0, len(data), chunk):
                    self.sock.sendall(data[i:i + chunk])
            except OSError:
                pass
        t = threading.Thread(target=run, daemon=True)
        t.start()
        return t

    def send_frame(self, opcode, payload=b"", fin=True, rsv=0, mask=True, chunk=None, delay=0.0,
                   length_mode=None):
        self.send_raw(build_frame(opcode, payload, fin=fin, rsv=rsv, mask=mask,
                                  length_mode=length_mode), chunk=chunk, delay=delay)

    def send_text(self, text, **kw):
        if isinstance(text, str):
            text = text.encode()
        self.send_frame(OP_TEXT, text, **kw)

    def send_binary(self, data, **kw):
        self.send_frame(OP_BINARY, data, **kw)

    def send_compressed(self, opcode, data, takeover=False, fragments=None, chunk=None):
        """Send one compressed message; `fragments` splits the compressed payload."""
        if self.deflate is None:
            raise CaseFail("permessage-deflate was not negotiated (response: %r)"
                           % self.headers.get("sec-websocket-extensions"))
        comp = self.deflate.compress(data, takeover=takeover)
        if not fragments or fragments <= 1:
            self.send_frame(opcode, comp, rsv=4, chunk=chunk)
            return
        size = max(1, -(-len(comp) // fragments))
        pieces = [comp[i:i + size] for i in range(0, len(comp), size)] or [b""]
        out = b""
        for i, p in enumerate(pieces):
            out += build_frame(opcode if i == 0 else OP_CONT, p, fin=(i == len(pieces) - 1),
                               rsv=4 if i == 0 else 0)
        self.send_raw(out, chunk=chunk)

    def send_close(self, code=None, reason=b"", **kw):
        self.close_sent = True
        self.send_frame(OP_CLOSE, close_payload(code, reason), **kw)

    # ---- frame reading and validation of what the server sends ----
    def recv_frame(self):
        h = self._read(2)
        fin = bool(h[0] & 0x80)
        rsv = (h[0] >> 4) & 7
        opcode = h[0] & 0xF
        masked = bool(h[1] & 0x80)
        n = h[1] & 0x7F
        if n == 126:
            n = struct.unpack("!H", self._read(2))[0]
            if n < 126:
                raise CaseFail("server sent a non-minimal 16-bit length (%d)" % n)
        elif n == 127:
            n = struct.unpack("!Q", self._read(8))[0]
            if n >> 63:
                raise CaseFail("server sent a 64-bit length with the top bit set")
            if n <= 0xFFFF:
                raise CaseFail("server sent a non-minimal 64-bit length (%d)" % n)
        if masked:
            raise CaseFail("server sent a masked frame (RFC 6455 5.1)")
        if opcode not in OP_NAMES:
            raise CaseFail("server sent reserved opcode %d" % opcode)
        if opcode >= 8:
            if not fin:
                raise CaseFail("server sent a fragmented control frame")
            if n > 125:
                raise CaseFail("server sent a control frame with %d byte payload" % n)
        payload = self._read(n)
        if rsv & 3:
            raise CaseFail("server set RSV2/RSV3 (rsv=%d) on %s frame" % (rsv, OP_NAMES[opcode]))
        if rsv & 4 and (self.deflate is None or opcode not in (OP_TEXT, OP_BINARY)):
            raise CaseFail("server set RSV1 on %s frame (deflate negotiated: %s)"
                           % (OP_NAMES[opcode], self.deflate is not None))
        return fin, rsv, opcode, payload

    def next_event(self):
        """Next complete item from the server: ('message', Message), ('ping', payload),
        ('pong', payload) or ('close', (code, reason, raw)). Control frames that arrive
        between the fragments of a message are returned as they come; the partial message
        is kept and completed by later calls."""
        if self.pushed is not None:
            ev, self.pushed = self.pushed, None
            return ev
        while True:
            fin, rsv, opcode, payload = self.recv_frame()
            if opcode == OP_CLOSE:
                if len(payload) == 1:
                    raise CaseFail("server sent a close frame with a 1-byte payload")
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                reason = payload[2:]
                try:
                    reason.decode("utf-8")
                except UnicodeDecodeError:
                    raise CaseFail("server close reason is not valid UTF-8")
                if code is not None and not valid_close_code(code):
                    raise CaseFail("server sent invalid close code %d" % code)
                return "close", (code, reason, payload)
            if opcode == OP_PING:
                return "ping", payload
            if opcode == OP_PONG:
                return "pong", payload
            if not self.partial:
                if opcode == OP_CONT:
                    raise CaseFail("server sent a continuation frame without a message start")
            else:
                if opcode != OP_CONT:
                    raise CaseFail("server started a new %s message inside a fragmented one"
                                   % OP_NAMES[opcode])
                if rsv & 4:
                    raise CaseFail("server set RSV1 on a continuation frame")
            self.partial.append((opcode, rsv, payload))
            if not fin:
                continue
            frames, self.partial = self.partial, []
            first_op, first_rsv = frames[0][0], frames[0][1]
            data = b"".join(p for _, _, p in frames)
            compressed = bool(first_rsv & 4)
            if compressed:
                try:
                    data = self.deflate.decompress(data)
                except zlib.error as e:
                    raise CaseFail("cannot inflate the server's compressed message: %s" % e)
            if first_op == OP_TEXT:
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError:
                    raise CaseFail("server sent a text message that is not valid UTF-8")
            return "message", Message(first_op, data, compressed, len(frames))

    def event(self, what):
        """next_event that turns EOF/timeout into a failure mentioning `what`."""
        while True:
            try:
                kind, val = self.next_event()
            except socket.timeout:
                raise CaseFail("timeout waiting for %s" % what)
            except Closed as e:
                raise CaseFail("connection closed (%s) while waiting for %s" % (e, what))
            if kind == "ping":
                # A server may ping us; answering is our duty, not the test's subject.
                self.send_frame(OP_PONG, val)
                continue
            return kind, val

    def expect_message(self, opcode, payload, what=None):
        if isinstance(payload, str):
            payload = payload.encode()
        what = what or "%s echo of %s" % (OP_NAMES[opcode], describe(payload))
        kind, val = self.event(what)
        if kind == "close":
            raise CaseFail("got close %s %r instead of %s" % (val[0], val[1][:60], what))
        if kind == "pong":
            raise CaseFail("got unexpected pong %s instead of %s" % (describe(val), what))
        m = val
        if m.opcode != opcode:
            raise CaseFail("expected %s message, got %s (%d bytes)"
                           % (OP_NAMES[opcode], OP_NAMES[m.opcode], len(m.payload)))
        if m.payload != payload:
            i = next((k for k in range(min(len(m.payload), len(payload)))
                      if m.payload[k] != payload[k]), min(len(m.payload), len(payload)))
            raise CaseFail("echo differs: expected %d bytes, got %d, first difference at %d"
                           % (len(payload), len(m.payload), i))
        return m

    def maybe_message(self, opcode, payload):
        """Accept the echo of a message sent just before a protocol violation, or its
        absence: RFC 6455 does not oblige the server to echo a message it has received
        before it fails the connection (Autobahn calls the latter NON-STRICT)."""
        if isinstance(payload, str):
            payload = payload.encode()
        kind, val = self.event("echo of %s or close" % describe(payload))
        if kind == "close":
            self.pushed = (kind, val)
            self.ctx.note("non-strict: %s was not echoed before the close" % describe(payload))
            return
        self.pushed = (kind, val)
        self.expect_message(opcode, payload)

    def expect_pong(self, payload):
        kind, val = self.event("pong %s" % describe(payload))
        if kind != "pong":
            raise CaseFail("expected pong %s, got %s" % (describe(payload), summarize(kind, val)))
        if val != payload:
            raise CaseFail("pong payload %s != ping payload %s" % (describe(val), describe(payload)))

    def expect_close(self, codes, what=None):
        """Expect the server's close frame with a code in `codes` (None = empty payload),
        answer it, and require the server to close the TCP connection afterwards."""
        codes = set(codes)
        want = "/".join("empty" if c is None else str(c) for c in sorted(codes, key=lambda c: c or 0))
        what = what or "close %s" % want
        try:
            kind, val = self.next_event_skip_pings()
        except socket.timeout:
            raise CaseFail("timeout waiting for %s" % what)
        except Closed as e:
            raise CaseFail("TCP closed (%s) without a close frame; expected %s" % (e, what))
        if kind != "close":
            raise CaseFail("expected %s, got %s" % (what, summarize(kind, val)))
        code, reason, raw = val
        if code not in codes:
            raise CaseFail("expected %s, got close %s %r" % (what, "empty" if code is None else code,
                                                              bytes(reason[:60])))
        if not self.close_sent:
            self.send_close(code if code is not None else None)
        self.expect_tcp_close()
        return code

    def next_event_skip_pings(self):
        while True:
            kind, val = self.next_event()
            if kind == "ping":
                self.send_frame(OP_PONG, val)
                continue
            return kind, val

    def expect_tcp_close(self):
        """After the close handshake the server must close the TCP connection (RFC 6455 7.1.1)."""
        try:
            while True:
                fin, rsv, opcode, payload = self.recv_frame()
                raise CaseFail("server sent a %s frame after the close handshake" % OP_NAMES[opcode])
        except Closed:
            return
        except socket.timeout:
            raise CaseFail("server did not close the TCP connection after the close handshake")

    def close_handshake(self, code=1000):
        self.send_close(code)
        self.expect_close({code} if code is not None else {None, 1000})

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def summarize(kind, val):
    if kind == "message":
        return "%s message %s" % (OP_NAMES[val.opcode], describe(val.payload))
    if kind == "close":
        return "close %s %r" % ("empty" if val[0] is None else val[0], bytes(val[1][:60]))
    return "%s %s" % (kind, describe(val))


def valid_close_code(code):
    """Codes an endpoint may send or accept in a close frame (RFC 6455 7.4, IANA registry)."""
    if code in (1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014):
        return True
    return 3000 <= code <= 4999


class Ctx:
    """Per-case context: deadline, connections, notes."""

    def __init__(self, suite, timeout):
        self.suite = suite
        self.deadline = time.monotonic() + timeout
        self.conns = []
        self.notes = []

    def remaining(self):
        return self.deadline - time.monotonic()

    def note(self, s):
        self.notes.append(s)

    def raw_connect(self):
        s = socket.create_connection((self.suite.host, self.suite.port),
                                     timeout=max(0.1, self.remaining()))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        c = Conn(self, s)
        self.conns.append(c)
        return c

    def connect(self, offer=None, path=None, extra_headers=(), chunk=None):
        """Open a connection and complete the opening handshake (checking it)."""
        c = self.raw_connect()
        key = base64.b64encode(os.urandom(16)).decode()
        req = self.suite.request(path, key, offer, extra_headers)
        c.send_raw(req, chunk=chunk)
        status, headers = read_response(c)
        c.status, c.headers = status, headers
        if status != 101:
            raise CaseFail("handshake: expected 101, got %d" % status)
        check_101(headers, key)
        ext = headers.get("sec-websocket-extensions")
        if ext:
            exts = parse_extensions(ext)
            if offer is None:
                raise CaseFail("server accepted extension %r that was not offered" % ext)
            if len(exts) != 1 or exts[0][0] != "permessage-deflate":
                raise CaseFail("unexpected extension response %r" % ext)
            offer_bits = offered_client_bits(offer)
            c.deflate = Deflate(exts[0][1], offer_bits)
        return c

    def close_all(self):
        for c in self.conns:
            c.close()


def offered_client_bits(offer):
    """The client_max_window_bits value our (accepted) offer promised, if any."""
    m = re.search(r"client_max_window_bits=(\d+)", offer or "")
    return int(m.group(1)) if m else None


def read_response(c):
    try:
        while b"\r\n\r\n" not in c.buf:
            c._fill()
            if len(c.buf) > 65536:
                raise CaseFail("handshake response header too large")
    except socket.timeout:
        raise CaseFail("timeout waiting for the handshake response")
    except Closed as e:
        raise CaseFail("connection closed (%s) before a handshake response" % e)
    head, _, rest = bytes(c.buf).partition(b"\r\n\r\n")
    c.buf = bytearray(rest)
    lines = head.decode("latin-1").split("\r\n")
    m = re.match(r"HTTP/1\.1 (\d{3})", lines[0])
    if not m:
        raise CaseFail("bad status line %r" % lines[0])
    headers = {}
    for line in lines[1:]:
        if ":" not in line:
            raise CaseFail("bad header line %r" % line)
        k, v = line.split(":", 1)
        k = k.strip().lower()
        v = v.strip()
        headers[k] = headers[k] + ", " + v if k in headers else v
    return int(m.group(1)), headers


def check_101(headers, key):
    want = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
    if headers.get("sec-websocket-accept") != want:
        raise CaseFail("Sec-WebSocket-Accept %r, expected %r" % (headers.get("sec-websocket-accept"), want))
    if (headers.get("upgrade") or "").lower() != "websocket":
        raise CaseFail("Upgrade header %r" % headers.get("upgrade"))
    conn_tokens = [t.strip().lower() for t in (headers.get("connection") or "").split(",")]
    if "upgrade" not in conn_tokens:
        raise CaseFail("Connection header %r lacks 'upgrade'" % headers.get("connection"))


# --------------------------------------------------------------------------------------
# The suite
# --------------------------------------------------------------------------------------

class Suite:
    def __init__(self, url, max_size, compression, timeout, healthz):
        m = re.match(r"ws://([^/:]+|\[[^\]]+\])(?::(\d+))?(/.*)?$", url)
        if not m:
            raise SystemExit("bad --url %r (ws://host:port/path)" % url)
        self.host = m.group(1).strip("[]")
        self.port = int(m.group(2) or 80)
        self.path = m.group(3) or "/"
        self.hostport = "%s:%d" % (m.group(1), self.port)
        self.max_size = max_size
        self.compression = compression
        self.timeout = timeout
        self.healthz = healthz
        self.cases = []
        self._bomb = None
        self._bomb_lock = threading.Lock()

    def request(self, path, key, offer=None, extra_headers=(), version="13", method="GET",
                drop=()):
        hdrs = [("Host", self.hostport), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
                ("Sec-WebSocket-Key", key), ("Sec-WebSocket-Version", version)]
        if offer is not None:
            hdrs.append(("Sec-WebSocket-Extensions", offer))
        hdrs = [(k, v) for k, v in hdrs if k not in drop]
        overridden = {k.lower() for k, _ in extra_headers}
        hdrs = [(k, v) for k, v in hdrs if k.lower() not in overridden] + list(extra_headers)
        lines = ["%s %s HTTP/1.1" % (method, path or self.path)] + ["%s: %s" % kv for kv in hdrs]
        return ("\r\n".join(lines) + "\r\n\r\n").encode()

    def bomb(self):
        with self._bomb_lock:
            if self._bomb is None:
                c = zlib.compressobj(9, zlib.DEFLATED, -15)
                block = bytes(1 << 20)
                parts = [c.compress(block) for _ in range(100)]
                out = b"".join(parts) + c.flush(zlib.Z_SYNC_FLUSH)
                self._bomb = out[:-4]
            return self._bomb

    def add(self, cid, category, desc, serial=False, needs=None):
        def deco(fn):
            self.cases.append(dict(id=cid, category=category, desc=desc, fn=fn, serial=serial,
                                   needs=needs))
            return fn
        return deco

    def run_case(self, case):
        t0 = time.monotonic()
        ctx = Ctx(self, self.timeout)
        status, detail = "PASS", ""
        try:
            if case["needs"] == "compression" and not self.compression:
                raise CaseSkip("needs permessage-deflate (run without --no-compression)")
            if case["needs"] == "no-compression" and self.compression:
                raise CaseSkip("only with --no-compression")
            r = case["fn"](ctx)
            detail = r or ""
        except CaseSkip as e:
            status, detail = "SKIP", str(e)
        except CaseFail as e:
            status, detail = "FAIL", str(e)
        except socket.timeout:
            status, detail = "FAIL", "timeout"
        except Closed as e:
            status, detail = "FAIL", "connection closed unexpectedly (%s)" % e
        except OSError as e:
            status, detail = "FAIL", "socket error: %s" % e
        except Exception as e:  # a bug in the suite shows up, it does not abort the run
            status, detail = "FAIL", "suite error: %r" % e
        finally:
            ctx.close_all()
        if ctx.notes:
            detail = (detail + "; " if detail else "") + "; ".join(ctx.notes)
        return dict(id=case["id"], category=case["category"], description=case["desc"],
                    status=status, detail=detail, seconds=round(time.monotonic() - t0, 3))


def id_key(cid):
    return tuple(int(x) for x in cid.split("."))


# --------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------

def text_payload(n):
    pattern = b"Hello, WebSocket! 0123456789 abcdefghijklmnopqrstuvwxyz. "
    return (pattern * (n // len(pattern) + 1))[:n]


def binary_payload(n, seed=0):
    # deterministic, poorly compressible bytes
    out = bytearray()
    h = hashlib.sha256(b"seed%d" % seed).digest()
    while len(out) < n:
        h = hashlib.sha256(h).digest()
        out += h
    return bytes(out[:n])


def register(s):
    N = s.max_size
    LENGTHS = [0, 1, 125, 126, 127, 128, 65535, 65536]

    # ---------------- 0 handshake ----------------
    @s.add("0.1", "handshake", "opening handshake: 101, Upgrade, Connection, Sec-WebSocket-Accept")
    def _(ctx):
        c = ctx.connect()
        c.send_text("hi")
        c.expect_message(OP_TEXT, "hi")
        c.close_handshake()

    @s.add("0.2", "handshake", "request sent one byte per send()")
    def _(ctx):
        c = ctx.connect(chunk=1)
        c.send_text("hi")
        c.expect_message(OP_TEXT, "hi")

    @s.add("0.3", "handshake", "first frame in the same send() as the request")
    def _(ctx):
        c = ctx.raw_connect()
        key = base64.b64encode(os.urandom(16)).decode()
        c.send_raw(s.request(None, key) + build_frame(OP_TEXT, b"pipelined"))
        status, headers = read_response(c)
        if status != 101:
            raise CaseFail("expected 101, got %d" % status)
        check_101(headers, key)
        c.expect_message(OP_TEXT, "pipelined")

    @s.add("0.4", "handshake", "header names/values in other case, Connection: keep-alive, Upgrade")
    def _(ctx):
        c = ctx.raw_connect()
        key = base64.b64encode(os.urandom(16)).decode()
        req = ("GET %s HTTP/1.1\r\nhost: %s\r\nupgrade: WebSocket\r\nconnection: keep-alive, Upgrade\r\n"
               "sec-websocket-key: %s\r\nsec-websocket-version: 13\r\n\r\n" % (s.path, s.hostport, key))
        c.send_raw(req.encode())
        status, headers = read_response(c)
        if status != 101:
            raise CaseFail("expected 101, got %d" % status)
        check_101(headers, key)

    def handshake_rejected(ctx, req, want_version_header=False):
        c = ctx.raw_connect()
        c.send_raw(req)
        status, headers = read_response(c)
        if not 400 <= status < 500:
            raise CaseFail("expected a 4xx response, got %d" % status)
        if want_version_header:
            v = headers.get("sec-websocket-version", "")
            if "13" not in [x.strip() for x in v.split(",")]:
                raise CaseFail("%d without Sec-WebSocket-Version: 13 (RFC 6455 4.4), got %r" % (status, v))
        return "status %d" % status

    @s.add("0.5", "handshake", "Sec-WebSocket-Version: 8 -> 4xx with Sec-WebSocket-Version: 13")
    def _(ctx):
        key = base64.b64encode(os.urandom(16)).decode()
        return handshake_rejected(ctx, s.request(None, key, version="8"), want_version_header=True)

    @s.add("0.6", "handshake", "missing Sec-WebSocket-Key -> 4xx")
    def _(ctx):
        return handshake_rejected(ctx, s.request(None, "x", drop=("Sec-WebSocket-Key",)))

    @s.add("0.7", "handshake", "Sec-WebSocket-Key not 16 bytes base64 -> 4xx")
    def _(ctx):
        return handshake_rejected(ctx, s.request(None, base64.b64encode(b"short").decode()))

    @s.add("0.8", "handshake", "POST with upgrade headers -> 4xx")
    def _(ctx):
        key = base64.b64encode(os.urandom(16)).decode()
        return handshake_rejected(ctx, s.request(None, key, method="POST",
                                                 extra_headers=[("Content-Length", "0")]))

    @s.add("0.9", "handshake", "no extension offered -> no Sec-WebSocket-Extensions in response")
    def _(ctx):
        c = ctx.connect()
        if "sec-websocket-extensions" in c.headers:
            raise CaseFail("unexpected extensions %r" % c.headers["sec-websocket-extensions"])

    @s.add("0.10", "handshake", "GET /healthz -> 200")
    def _(ctx):
        if not s.healthz:
            raise CaseSkip("enable with --healthz")
        c = ctx.raw_connect()
        c.send_raw(("GET /healthz HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % s.hostport).encode())
        status, _ = read_response(c)
        if status != 200:
            raise CaseFail("expected 200, got %d" % status)

    # ---------------- 1 framing ----------------
    for i, n in enumerate(LENGTHS):
        def mk(n, op, chunk):
            def f(ctx):
                c = ctx.connect()
                data = text_payload(n) if op == OP_TEXT else binary_payload(n)
                c.send_frame(op, data, chunk=chunk)
                c.expect_message(op, data)
                c.close_handshake()
            return f
        s.add("1.1.%d" % (i + 1), "framing", "text message, %d bytes" % n)(mk(n, OP_TEXT, None))
        s.add("1.2.%d" % (i + 1), "framing", "binary message, %d bytes" % n)(mk(n, OP_BINARY, None))
        ch = 1 if n <= 128 else 997
        s.add("1.3.%d" % (i + 1), "framing", "text message, %d bytes, sent %d byte(s) per send()"
              % (n, ch))(mk(n, OP_TEXT, ch))
        s.add("1.4.%d" % (i + 1), "framing", "binary message, %d bytes, sent %d byte(s) per send()"
              % (n, ch))(mk(n, OP_BINARY, ch))

    @s.add("1.5.1", "framing", "header, length, mask and payload in separate sends with pauses")
    def _(ctx):
        c = ctx.connect()
        data = text_payload(300)
        fr = build_frame(OP_TEXT, data)
        for part in (fr[:1], fr[1:2], fr[2:3], fr[3:4], fr[4:6], fr[6:8], fr[8:100], fr[100:]):
            c.send_raw(part)
            time.sleep(0.05)
        c.expect_message(OP_TEXT, data)

    @s.add("1.5.2", "framing", "100 messages in one send(), echoed in order")
    def _(ctx):
        c = ctx.connect()
        msgs = [("m%d " % i).encode() * (i % 7 + 1) for i in range(100)]
        c.send_raw(b"".join(build_frame(OP_TEXT if i % 2 else OP_BINARY, m) for i, m in enumerate(msgs)))
        for i, m in enumerate(msgs):
            c.expect_message(OP_TEXT if i % 2 else OP_BINARY, m)

    @s.add("1.5.3", "framing", "all-zero masking key")
    def _(ctx):
        c = ctx.connect()
        c.send_raw(build_frame(OP_TEXT, b"zero key", key=b"\0\0\0\0"))
        c.expect_message(OP_TEXT, "zero key")

    @s.add("1.6.1", "framing", "unmasked text frame -> 1002")
    def _(ctx):
        c = ctx.connect()
        c.send_frame(OP_TEXT, b"unmasked", mask=False)
        c.expect_close({1002})

    @s.add("1.6.2", "framing", "unmasked ping -> 1002")
    def _(ctx):
        c = ctx.connect()
        c.send_frame(OP_PING, b"unmasked", mask=False)
        c.expect_close({1002})

    @s.add("1.6.3", "framing", "valid message, then unmasked binary frame -> echo, then 1002")
    def _(ctx):
        c = ctx.connect()
        c.send_text("ok")
        c.send_frame(OP_BINARY, b"\x01\x02", mask=False)
        c.maybe_message(OP_TEXT, "ok")
        c.expect_close({1002})

    # ---------------- 2 ping/pong ----------------
    for i, n in enumerate([0, 1, 10, 124, 125]):
        def mk(n):
            def f(ctx):
                c = ctx.connect()
                p = bytes((j * 7 + 3) & 0xFF for j in range(n))
                c.send_frame(OP_PING, p)
                c.expect_pong(p)
                c.close_handshake()
            return f
        s.add("2.1.%d" % (i + 1), "ping", "ping with %d byte payload -> pong" % n)(mk(n))

    @s.add("2.2", "ping", "pings with every payload length 0..125 -> pongs")
    def _(ctx):
        c = ctx.connect()
        for n in range(126):
            p = bytes([n]) * n
            c.send_frame(OP_PING, p)
            c.expect_pong(p)

    @s.add("2.3", "ping", "ping with 126 byte payload -> 1002")
    def _(ctx):
        c = ctx.connect()
        c.send_frame(OP_PING, b"x" * 126)
        c.expect_close({1002})

    @s.add("2.4", "ping", "ping sent one byte per send()")
    def _(ctx):
        c = ctx.connect()
        c.send_frame(OP_PING, b"chunked ping", chunk=1)
        c.expect_pong(b"chunked ping")

    @s.add("2.5", "ping", "unsolicited pong (empty) is ignored")
    def _(ctx):
        c = ctx.connect()
        c.send_frame(OP_PONG, b"")
        c.send_text("after pong")
        c.expect_message(OP_TEXT, "after pong")

    @s.add("2.6", "ping", "unsolicited pong with payload, then ping -> only the ping's pong")
    def _(ctx):
        c = ctx.connect()
        c.send_frame(OP_PONG, b"unsolicited")
        c.send_frame(OP_PING, b"real")
        c.expect_pong(b"real")

    @s.add("2.7", "ping", "10 pings in one send() -> pongs in order, the last one answered")
    def _(ctx):
        c = ctx.connect()
        payloads = [b"ping-%d" % i for i in range(10)]
        c.send_raw(b"".join(build_frame(OP_PING, p) for p in payloads))
        c.send_text("sentinel")
        got = []
        while True:
            kind, val = c.event("pongs")
            if kind == "pong":
                got.append(val)
                continue
            if kind == "message" and val.opcode == OP_TEXT and val.payload == b"sentinel":
                break
            raise CaseFail("unexpected %s" % summarize(kind, val))
        # RFC 6455 5.5.3: a pong may answer only the most recent of several pings.
        it = iter(payloads)
        if not all(any(g == p for p in it) for g in got) or not got or got[-1] != payloads[-1]:
            raise CaseFail("pongs %r are not an in-order subsequence ending with the last ping" % got)
        return "%d pongs" % len(got)

    @s.add("2.8", "ping", "ping between two fragments of a text message")
    def _(ctx):
        c = ctx.connect()
        c.send_frame(OP_TEXT, b"frag1-", fin=False)
        c.send_frame(OP_PING, b"between")
        c.send_frame(OP_CONT, b"frag2", fin=True)
        c.expect_pong(b"between")
        c.expect_message(OP_TEXT, "frag1-frag2")

    @s.add("2.9", "ping", "ping, then close -> pong, then close echoed")
    def _(ctx):
        c = ctx.connect()
        c.send_frame(OP_PING, b"p")
        c.send_close(1000)
        c.expect_pong(b"p")
        c.expect_close({1000})

    @s.add("2.10", "ping", "binary ping payload with all byte values 0..124 (and 0xff)")
    def _(ctx):
        c = ctx.connect()
        p = bytes(range(124)) + b"\xff"
        c.send_frame(OP_PING, p)
        c.expect_pong(p)

    # ---------------- 3 reserved bits ----------------
    for rsv in range(1, 8):
        def mk(rsv):
            def f(ctx):
                c = ctx.connect()
                c.send_frame(OP_TEXT, b"rsv", rsv=rsv)
                c.expect_close({1002})
            return f
        s.add("3.1.%d" % rsv, "reserved bits", "text frame with RSV=%d%d%d, no extension -> 1002"
              % (rsv >> 2, (rsv >> 1) & 1, rsv & 1))(mk(rsv))

    @s.add("3.2", "reserved bits", "text, then binary frame with RSV2, then ping -> echo, 1002")
    def _(ctx):
        c = ctx.connect()
        c.send_text("before")
        c.send_frame(OP_BINARY, b"\x00", rsv=2)
        c.send_frame(OP_PING, b"after")
        c.maybe_message(OP_TEXT, "before")
        c.expect_close({1002})

    for i, (op, rsv) in enumerate([(OP_PING, 4), (OP_PING, 1), (OP_CLOSE, 4), (OP_PONG, 2)]):
        def mk(op, rsv):
            def f(ctx):
                c = ctx.connect()
                c.send_frame(op, close_payload(1000) if op == OP_CLOSE else b"x", rsv=rsv)
                c.expect_close({1002})
            return f
        s.add("3.3.%d" % (i + 1), "reserved bits", "%s frame with rsv=%d -> 1002"
              % (OP_NAMES[op], rsv))(mk(op, rsv))

    # ---------------- 4 opcodes ----------------
    for i, op in enumerate([3, 4, 5, 6, 7, 11, 12, 13, 14, 15]):
        def mk(op, payload):
            def f(ctx):
                c = ctx.connect()
                c.send_frame(op, payload)
                c.expect_close({1002})
            return f
        s.add("4.1.%d" % (i + 1), "opcodes", "reserved opcode %d, empty -> 1002" % op)(mk(op, b""))
        s.add("4.2.%d" % (i + 1), "opcodes", "reserved opcode %d with payload -> 1002" % op)(
            mk(op, b"reserved payload"))

    for i, op in enumerate([5, 13]):
        def mk(op):
            def f(ctx):
                c = ctx.connect()
                c.send_text("before")
                c.send_frame(op, b"x")
                c.send_frame(OP_PING, b"after")
                c.maybe_message(OP_TEXT, "before")
                c.expect_close({1002})
            return f
        s.add("4.3.%d" % (i + 1), "opcodes", "text, opcode %d, ping -> echo, then 1002" % op)(mk(op))

    # ---------------- 5 fragmentation ----------------
    def frag_case(cid, desc, frames, expect, chunk=None):
        """frames: list of (opcode, payload, fin); expect: list of ('msg', op, payload) /
        ('pong', payload) / ('close', codes)."""
        def f(ctx):
            c = ctx.connect()
            c.send_raw(b"".join(build_frame(op, p, fin=fin) for op, p, fin in frames), chunk=chunk)
            for e in expect:
                if e[0] == "msg":
                    c.expect_message(e[1], e[2])
                elif e[0] == "maybe":
                    c.maybe_message(e[1], e[2])
                elif e[0] == "pong":
                    c.expect_pong(e[1])
                else:
                    c.expect_close(e[1])
        s.add(cid, "fragmentation", desc)(f)

    frag_case("5.1", "fragmented ping (FIN=0) -> 1002",
              [(OP_PING, b"frag", False), (OP_CONT, b"ment", True)], [("close", {1002})])
    frag_case("5.2", "fragmented pong (FIN=0) -> 1002",
              [(OP_PONG, b"frag", False), (OP_CONT, b"ment", True)], [("close", {1002})])
    frag_case("5.3", "fragmented close (FIN=0) -> 1002",
              [(OP_CLOSE, close_payload(1000), False), (OP_CONT, b"", True)], [("close", {1002})])
    frag_case("5.4", "text in 2 fragments", [(OP_TEXT, b"fragment1", False), (OP_CONT, b"fragment2", True)],
              [("msg", OP_TEXT, b"fragment1fragment2")])
    frag_case("5.5", "binary in 2 fragments", [(OP_BINARY, b"\x00\x01", False), (OP_CONT, b"\x02", True)],
              [("msg", OP_BINARY, b"\x00\x01\x02")])
    frag_case("5.6", "text in 2 fragments, sent 1 byte per send()",
              [(OP_TEXT, b"fragment1", False), (OP_CONT, b"fragment2", True)],
              [("msg", OP_TEXT, b"fragment1fragment2")], chunk=1)
    data = text_payload(1000)
    frag_case("5.7", "text in 100 fragments of 10 bytes",
              [(OP_TEXT if i == 0 else OP_CONT, data[i * 10:i * 10 + 10], i == 99) for i in range(100)],
              [("msg", OP_TEXT, data)])
    bdata = binary_payload(3000)
    frag_case("5.8", "binary in 3000 fragments of 1 byte",
              [(OP_BINARY if i == 0 else OP_CONT, bdata[i:i + 1], i == 2999) for i in range(3000)],
              [("msg", OP_BINARY, bdata)])
    big = binary_payload(200000, 1)
    frag_case("5.9", "binary 200000 bytes in fragments of 65536 (64-bit lengths)",
              [(OP_BINARY if i == 0 else OP_CONT, big[i:i + 65536], i + 65536 >= len(big))
               for i in range(0, len(big), 65536)],
              [("msg", OP_BINARY, big)])
    frag_case("5.10", "text fragments with ping between",
              [(OP_TEXT, b"a", False), (OP_PING, b"p1", True), (OP_CONT, b"b", False),
               (OP_PING, b"p2", True), (OP_CONT, b"c", True)],
              [("pong", b"p1"), ("pong", b"p2"), ("msg", OP_TEXT, b"abc")])
    frag_case("5.11", "text fragments with ping between, 1 byte per send()",
              [(OP_TEXT, b"a", False), (OP_PING, b"p1", True), (OP_CONT, b"b", True)],
              [("pong", b"p1"), ("msg", OP_TEXT, b"ab")], chunk=1)
    frag_case("5.12", "text fragments with unsolicited pong between",
              [(OP_TEXT, b"a", False), (OP_PONG, b"x", True), (OP_CONT, b"b", True)],
              [("msg", OP_TEXT, b"ab")])
    frag_case("5.13", "continuation (FIN=1) without a message start -> 1002",
              [(OP_CONT, b"orphan", True)], [("close", {1002})])
    frag_case("5.14", "continuation (FIN=0) without a message start -> 1002",
              [(OP_CONT, b"orphan", False), (OP_CONT, b"x", True)], [("close", {1002})])
    frag_case("5.15", "text message, then continuation frame -> echo, then 1002",
              [(OP_TEXT, b"done", True), (OP_CONT, b"orphan", True)],
              [("maybe", OP_TEXT, b"done"), ("close", {1002})])
    frag_case("5.16", "text start, then new text frame (FIN=1) during it -> 1002",
              [(OP_TEXT, b"start", False), (OP_TEXT, b"nested", True)], [("close", {1002})])
    frag_case("5.17", "text start, then binary start during it -> 1002",
              [(OP_TEXT, b"start", False), (OP_BINARY, b"nested", False), (OP_CONT, b"x", True)],
              [("close", {1002})])
    frag_case("5.18", "empty text fragments: '' + '' + 'x'",
              [(OP_TEXT, b"", False), (OP_CONT, b"", False), (OP_CONT, b"x", True)],
              [("msg", OP_TEXT, b"x")])
    frag_case("5.19", "all fragments empty -> empty text message",
              [(OP_TEXT, b"", False), (OP_CONT, b"", False), (OP_CONT, b"", True)],
              [("msg", OP_TEXT, b"")])
    frag_case("5.20", "empty binary fragments around data",
              [(OP_BINARY, b"", False), (OP_CONT, b"\x01\x02", False), (OP_CONT, b"", True)],
              [("msg", OP_BINARY, b"\x01\x02")])
    frag_case("5.21", "close between fragments -> close echoed",
              [(OP_TEXT, b"half", False), (OP_CLOSE, close_payload(1000), True)],
              [("close", {1000})])

    # ---------------- 6 UTF-8 ----------------
    valid = [
        ("ASCII", "Hello-UTF-8!!".encode()),
        ("mixed 2-byte", "Hello-µ@ßöäüàá-UTF-8!!".encode()),
        ("Greek kosme", "κόσμε".encode()),
        ("U+0000", b"\x00"),
        ("U+007F", b"\x7f"),
        ("U+0080", b"\xc2\x80"),
        ("U+07FF", b"\xdf\xbf"),
        ("U+0800", b"\xe0\xa0\x80"),
        ("U+D7FF", b"\xed\x9f\xbf"),
        ("U+E000", b"\xee\x80\x80"),
        ("U+FFFD", b"\xef\xbf\xbd"),
        ("U+FFFE/U+FFFF noncharacters", b"\xef\xbf\xbe\xef\xbf\xbf"),
        ("U+10000", b"\xf0\x90\x80\x80"),
        ("U+1F600 emoji", "😀".encode()),
        ("U+10FFFF", b"\xf4\x8f\xbf\xbf"),
        ("mixed 1-4 byte", "a¢€𐍈z😀κόσμε".encode()),
    ]
    for i, (name, b) in enumerate(valid):
        def mk(b, mode):
            def f(ctx):
                c = ctx.connect()
                if mode == "frame":
                    c.send_frame(OP_TEXT, b)
                elif mode == "bytes":
                    frames = [build_frame(OP_TEXT if k == 0 else OP_CONT, b[k:k + 1], fin=(k == len(b) - 1))
                              for k in range(len(b))]
                    c.send_raw(b"".join(frames))
                else:
                    c.send_frame(OP_TEXT, b, chunk=1)
                c.expect_message(OP_TEXT, b)
            return f
        s.add("6.1.%d" % (i + 1), "utf-8", "valid %s" % name)(mk(b, "frame"))
        s.add("6.2.%d" % (i + 1), "utf-8", "valid %s, one fragment per byte (code points split)"
              % name)(mk(b, "bytes"))
        s.add("6.3.%d" % (i + 1), "utf-8", "valid %s, one frame sent 1 byte per send()" % name)(
            mk(b, "chunk"))

    invalid = [
        ("overlong '/' 2-byte C0 AF", b"\xc0\xaf"),
        ("overlong '/' 3-byte E0 80 AF", b"\xe0\x80\xaf"),
        ("overlong '/' 4-byte F0 80 80 AF", b"\xf0\x80\x80\xaf"),
        ("overlong NUL C0 80", b"\xc0\x80"),
        ("overlong max 2-byte C1 BF", b"\xc1\xbf"),
        ("overlong max 3-byte E0 9F BF", b"\xe0\x9f\xbf"),
        ("overlong max 4-byte F0 8F BF BF", b"\xf0\x8f\xbf\xbf"),
        ("5-byte sequence F8 88 80 80 80", b"\xf8\x88\x80\x80\x80"),
        ("6-byte sequence FC 84 80 80 80 80", b"\xfc\x84\x80\x80\x80\x80"),
        ("surrogate U+D800", b"\xed\xa0\x80"),
        ("surrogate U+DBFF", b"\xed\xaf\xbf"),
        ("surrogate U+DC00", b"\xed\xb0\x80"),
        ("surrogate U+DFFF", b"\xed\xbf\xbf"),
        ("surrogate pair U+D83D U+DE00", b"\xed\xa0\xbd\xed\xb8\x80"),
        ("above U+10FFFF: F4 90 80 80", b"\xf4\x90\x80\x80"),
        ("above U+10FFFF: F7 BF BF BF", b"\xf7\xbf\xbf\xbf"),
        ("lead byte F5", b"\xf5\x80\x80\x80"),
        ("byte FE", b"\xfe"),
        ("byte FF", b"\xff"),
        ("FE FE FF FF", b"\xfe\xfe\xff\xff"),
        ("lone continuation 80", b"\x80"),
        ("lone continuation BF", b"\xbf"),
        ("continuations 80 BF 80", b"\x80\xbf\x80"),
        ("truncated 2-byte at end", "κόσμε".encode() + b"\xce"),
        ("truncated 3-byte at end", b"abc\xe2\x82"),
        ("truncated 4-byte at end", b"abc\xf0\x9f\x98"),
        ("lead byte followed by ASCII", b"\xce\x41"),
        ("3-byte lead, bad 2nd", b"\xe2\x28\xa1"),
        ("valid text then surrogate then text", "κόσμε".encode() + b"\xed\xa0\x80" + b"edited"),
        ("kosme then F4 90 80 80", "κόσμε".encode() + b"\xf4\x90\x80\x80" + b"hello"),
    ]
    for i, (name, b) in enumerate(invalid):
        def mk(b, chunked):
            def f(ctx):
                c = ctx.connect()
                c.send_frame(OP_TEXT, b, chunk=1 if chunked else None)
                c.expect_close({1007})
            return f
        s.add("6.4.%d" % (i + 1), "utf-8", "invalid: %s -> 1007" % name)(mk(b, False))
        s.add("6.5.%d" % (i + 1), "utf-8", "invalid: %s, 1 byte per send() -> 1007" % name)(mk(b, True))

    split_invalid = [
        ("surrogate ED | A0 80", [b"ab\xed", b"\xa0\x80"]),
        ("above max F4 | 90 80 80", [b"\xf4", b"\x90\x80\x80"]),
        ("truncated: 'hello' CE | '' (end)", [b"hello\xce", b""]),
        ("E2 82 | 'A'", [b"\xe2\x82", b"A"]),
        ("valid fragments, bad byte in last", [b"\xce\xba\xe1\xbd\xb9", b"\xcf\x83\xce", b"\xbc\xce\xb5\xff"]),
        ("overlong across 3 fragments", [b"x\xf0", b"\x80", b"\x80\xaf"]),
    ]
    for i, (name, parts) in enumerate(split_invalid):
        def mk(parts):
            def f(ctx):
                c = ctx.connect()
                c.send_raw(b"".join(build_frame(OP_TEXT if k == 0 else OP_CONT, p, fin=(k == len(parts) - 1))
                                    for k, p in enumerate(parts)))
                c.expect_close({1007})
            return f
        s.add("6.6.%d" % (i + 1), "utf-8", "invalid split across fragments: %s -> 1007" % name)(mk(parts))

    fail_fast = [
        ("'hello' FF", b"hello\xff"),
        ("surrogate ED A0 80", b"\xed\xa0\x80more"),
        ("overlong C0 AF", b"ok\xc0\xaf"),
        ("kosme + F4 90 80 80", "κόσμε".encode() + b"\xf4\x90\x80\x80hello"),
    ]
    for i, (name, b) in enumerate(fail_fast):
        def mk(b):
            def f(ctx):
                c = ctx.connect()
                c.send_frame(OP_TEXT, b, fin=False)  # the message never completes
                t0 = time.monotonic()
                c.expect_close({1007}, what="close 1007 before the message completes (fail fast)")
                return "closed after %.2fs" % (time.monotonic() - t0)
            return f
        s.add("6.7.%d" % (i + 1), "utf-8", "fail fast: invalid %s in first fragment (FIN=0) -> 1007"
              % name)(mk(b))

    # ---------------- 7 close handling ----------------
    @s.add("7.1.1", "close", "close without payload -> close (empty or 1000), TCP closed")
    def _(ctx):
        c = ctx.connect()
        c.send_close(None)
        code = c.expect_close({None, 1000})
        return "reply %s" % ("empty" if code is None else code)

    @s.add("7.1.2", "close", "close 1000 with reason -> 1000")
    def _(ctx):
        c = ctx.connect()
        c.send_close(1000, b"normal closure")
        c.expect_close({1000})

    @s.add("7.1.3", "close", "text message, then close -> echo, then close")
    def _(ctx):
        c = ctx.connect()
        c.send_text("last words")
        c.send_close(1000)
        c.maybe_message(OP_TEXT, "last words")
        c.expect_close({1000})

    @s.add("7.1.4", "close", "frames after close are ignored")
    def _(ctx):
        c = ctx.connect()
        c.send_raw(build_frame(OP_CLOSE, close_payload(1000)) + build_frame(OP_TEXT, b"ignored")
                   + build_frame(OP_PING, b"ignored"))
        c.expect_close({1000})

    @s.add("7.1.5", "close", "close sent 1 byte per send()")
    def _(ctx):
        c = ctx.connect()
        c.send_close(1000, b"chunked", chunk=1)
        c.expect_close({1000})

    @s.add("7.1.6", "close", "close with 123-byte reason -> 1000")
    def _(ctx):
        c = ctx.connect()
        c.send_close(1000, b"r" * 123)
        c.expect_close({1000})

    @s.add("7.1.7", "close", "close with 124-byte reason (126-byte control frame) -> 1002")
    def _(ctx):
        c = ctx.connect()
        c.send_close(1000, b"r" * 124)
        c.expect_close({1002})

    @s.add("7.1.8", "close", "close with 1-byte payload -> 1002")
    def _(ctx):
        c = ctx.connect()
        c.send_frame(OP_CLOSE, b"\x03")
        c.expect_close({1002})

    @s.add("7.1.9", "close", "close 1000 with invalid UTF-8 reason -> 1007")
    def _(ctx):
        c = ctx.connect()
        c.send_frame(OP_CLOSE, close_payload(1000) + b"bad \xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80")
        c.expect_close({1007})

    @s.add("7.1.10", "close", "close 1000 with valid multibyte UTF-8 reason -> 1000")
    def _(ctx):
        c = ctx.connect()
        c.send_close(1000, "κόσμε 😀".encode())
        c.expect_close({1000})

    for i, code in enumerate([1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999]):
        def mk(code):
            def f(ctx):
                c = ctx.connect()
                c.send_close(code, b"reason")
                c.expect_close({code})
            return f
        s.add("7.2.%d" % (i + 1), "close", "close %d -> echoed" % code)(mk(code))

    for i, code in enumerate([0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535]):
        def mk(code):
            def f(ctx):
                c = ctx.connect()
                c.send_close(code)
                c.expect_close({1002})
            return f
        s.add("7.3.%d" % (i + 1), "close", "invalid close code %d -> 1002" % code)(mk(code))

    @s.add("7.4", "close", "after the close handshake the server closes TCP (no client FIN)")
    def _(ctx):
        c = ctx.connect()
        c.send_close(1000)
        t0 = time.monotonic()
        c.expect_close({1000})
        return "TCP closed %.3fs after our close" % (time.monotonic() - t0)

    # ---------------- 9 limits ----------------
    for i, (n, op) in enumerate([(65536, OP_TEXT), (1 << 20, OP_BINARY), (4 << 20, OP_BINARY),
                                 (N, OP_BINARY)]):
        def mk(n, op):
            def f(ctx):
                if n > N:
                    raise CaseSkip("%d > --max-message-size %d" % (n, N))
                c = ctx.connect()
                data = text_payload(n) if op == OP_TEXT else binary_payload(n, 2)
                c.send_frame(op, data)
                c.expect_message(op, data)
            return f
        s.add("9.1.%d" % (i + 1), "limits", "%s message of %d bytes%s"
              % (OP_NAMES[op], n, " (= limit)" if i == 3 else ""), serial=True)(mk(n, op))

    @s.add("9.1.5", "limits", "limit-sized text message in 64 KiB fragments", serial=True)
    def _(ctx):
        c = ctx.connect()
        data = text_payload(N)
        step = 65536
        c.send_raw(b"".join(build_frame(OP_TEXT if k == 0 else OP_CONT, data[k:k + step],
                                        fin=(k + step >= len(data))) for k in range(0, len(data), step)))
        c.expect_message(OP_TEXT, data)

    @s.add("9.2.1", "limits", "one byte over --max-message-size, single frame -> 1009", serial=True)
    def _(ctx):
        c = ctx.connect()
        data = binary_payload(N + 1, 3)
        c.send_raw_background(build_frame(OP_BINARY, data))
        c.expect_close({1009})

    @s.add("9.2.2", "limits", "one byte over the limit as text in 4 fragments -> 1009", serial=True)
    def _(ctx):
        c = ctx.connect()
        data = text_payload(N + 1)
        step = -(-len(data) // 4)
        c.send_raw_background(b"".join(build_frame(OP_TEXT if k == 0 else OP_CONT, data[k:k + step],
                                                   fin=(k + step >= len(data)))
                                       for k in range(0, len(data), step)))
        c.expect_close({1009})

    @s.add("9.2.3", "limits", "oversize message fragmented, last fragment never sent -> 1009",
           serial=True)
    def _(ctx):
        c = ctx.connect()
        half = N // 2 + 1
        c.send_raw_background(build_frame(OP_BINARY, bytes(half), fin=False)
                              + build_frame(OP_CONT, bytes(half), fin=False))
        c.expect_close({1009}, what="close 1009 once the fragments exceed the limit")

    @s.add("9.2.4", "limits", "64-bit length announcing 2^40 bytes -> 1009 before the data", serial=True)
    def _(ctx):
        c = ctx.connect()
        c.send_raw(build_frame(OP_BINARY, b"", length=1 << 40) + b"\x00" * 16)
        c.expect_close({1009})

    @s.add("9.2.5", "limits", "16/64-bit length announcing limit+1 bytes -> 1009 before the data",
           serial=True)
    def _(ctx):
        c = ctx.connect()
        c.send_raw(build_frame(OP_TEXT, b"", length=N + 1) + b"abc")
        c.expect_close({1009})

    for i, (n, mode) in enumerate([(0, 16), (125, 16), (126, 64), (65535, 64), (5, 64)]):
        def mk(n, mode):
            def f(ctx):
                c = ctx.connect()
                c.send_frame(OP_BINARY, bytes(n), length_mode=mode)
                c.expect_close({1002})
            return f
        s.add("9.3.%d" % (i + 1), "limits", "non-minimal length: %d bytes in a %d-bit length -> 1002"
              % (n, mode))(mk(n, mode))

    @s.add("9.3.6", "limits", "64-bit length with the most significant bit set -> 1002")
    def _(ctx):
        c = ctx.connect()
        c.send_raw(build_frame(OP_BINARY, b"", length=(1 << 63) | 10) + b"x" * 10)
        c.expect_close({1002})

    @s.add("9.4", "limits", "1000 small messages pipelined, all echoed in order", serial=True)
    def _(ctx):
        c = ctx.connect()
        msgs = [b"message %04d" % k for k in range(1000)]
        c.send_raw(b"".join(build_frame(OP_TEXT, m) for m in msgs))
        for m in msgs:
            c.expect_message(OP_TEXT, m)

    # ---------------- 12 permessage-deflate negotiation ----------------
    offers = [
        ("permessage-deflate", {}),
        ("permessage-deflate; client_max_window_bits", {}),
        ("permessage-deflate; client_no_context_takeover", {}),
        ("permessage-deflate; server_no_context_takeover", {"server_no_context_takeover": True}),
        ("permessage-deflate; client_max_window_bits=10", {}),
    ] + [("permessage-deflate; server_max_window_bits=%d" % b, {"server_max_window_bits": b})
         for b in range(9, 16)] + [
        ("permessage-deflate; client_no_context_takeover; server_no_context_takeover; "
         "client_max_window_bits; server_max_window_bits=10",
         {"server_no_context_takeover": True, "server_max_window_bits": 10}),
        ("permessage-deflate; server_max_window_bits=10, permessage-deflate", {"either": True}),
        ("x-webkit-deflate-frame, permessage-deflate", {}),
        ('permessage-deflate; client_max_window_bits="12"', {}),
    ]

    def check_response(offer, rule, resp):
        """RFC 7692 rules for the server's answer to an accepted offer."""
        exts = parse_extensions(resp)
        if len(exts) != 1 or exts[0][0] != "permessage-deflate":
            raise CaseFail("expected exactly one permessage-deflate in response, got %r" % resp)
        params = exts[0][1]
        names = [k for k, _ in params]
        if len(set(names)) != len(names):
            raise CaseFail("duplicate parameter in response %r" % resp)
        offered = {k for k, _ in parse_extensions(offer.split(",")[0])[0][1]}
        allowed = {"server_no_context_takeover", "client_no_context_takeover",
                   "server_max_window_bits", "client_max_window_bits"}
        for k, v in params:
            if k not in allowed:
                raise CaseFail("unknown parameter %r in response" % k)
            if k in ("server_no_context_takeover", "client_no_context_takeover") and v is not None:
                raise CaseFail("%s must not have a value" % k)
            if k.endswith("window_bits"):
                if v is None or not v.isdigit() or not 8 <= int(v) <= 15:
                    raise CaseFail("%s=%r is not 8..15" % (k, v))
        d = dict(params)
        if "client_max_window_bits" in d and "client_max_window_bits" not in offered \
                and not rule.get("either"):
            raise CaseFail("client_max_window_bits in response but not offered")
        if rule.get("server_no_context_takeover") and "server_no_context_takeover" not in d:
            raise CaseFail("offer had server_no_context_takeover; an accepting response must too")
        if "server_max_window_bits" in rule:
            if "server_max_window_bits" not in d:
                raise CaseFail("offer had server_max_window_bits=%d; an accepting response must "
                               "include server_max_window_bits <= it" % rule["server_max_window_bits"])
            if int(d["server_max_window_bits"]) > rule["server_max_window_bits"]:
                raise CaseFail("server_max_window_bits=%s > offered %d"
                               % (d["server_max_window_bits"], rule["server_max_window_bits"]))
        if rule.get("either") and "server_max_window_bits" in d and int(d["server_max_window_bits"]) > 10:
            raise CaseFail("server_max_window_bits=%s > 10 of the chosen offer" % d["server_max_window_bits"])

    for i, (offer, rule) in enumerate(offers):
        def mk(offer, rule):
            def f(ctx):
                c = ctx.connect(offer=offer)
                resp = c.headers.get("sec-websocket-extensions")
                if not resp:
                    raise CaseFail("offer %r declined (no Sec-WebSocket-Extensions)" % offer)
                check_response(offer, rule, resp)
                small = "compressed hello κόσμε".encode()
                largish = text_payload(20000)
                c.send_compressed(OP_TEXT, small)
                c.expect_message(OP_TEXT, small)
                c.send_compressed(OP_BINARY, largish)
                m = c.expect_message(OP_BINARY, largish)
                c.send_compressed(OP_TEXT, small)
                c.expect_message(OP_TEXT, small)
                c.close_handshake()
                return "response %r%s" % (resp, ", replies compressed" if m.compressed else
                                          ", replies NOT compressed")
            return f
        s.add("12.1.%d" % (i + 1), "deflate negotiation", "offer %r -> accepted, valid response, echo"
              % offer, needs="compression")(mk(offer, rule))

    bad_offers = [
        "permessage-deflate; unknown_param",
        "permessage-deflate; server_max_window_bits=16",
        "permessage-deflate; server_max_window_bits=7",
        "permessage-deflate; server_max_window_bits",
        "permessage-deflate; client_max_window_bits=abc",
        "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
        "permessage-deflate; client_no_context_takeover=1",
    ]
    for i, offer in enumerate(bad_offers):
        def mk(offer):
            def f(ctx):
                c = ctx.connect(offer=offer)  # must still be a 101 (the offer is declined)
                if "sec-websocket-extensions" in c.headers:
                    raise CaseFail("invalid offer accepted: %r" % c.headers["sec-websocket-extensions"])
                c.send_text("plain")
                c.expect_message(OP_TEXT, "plain")
            return f
        s.add("12.2.%d" % (i + 1), "deflate negotiation", "invalid offer %r -> declined, 101 without extension"
              % offer, needs="compression")(mk(offer))

    @s.add("12.3.1", "deflate negotiation", "--no-compression: offer -> no extension in response",
           needs="no-compression")
    def _(ctx):
        c = ctx.connect(offer="permessage-deflate; client_max_window_bits")
        if "sec-websocket-extensions" in c.headers:
            raise CaseFail("extension accepted although disabled: %r" % c.headers["sec-websocket-extensions"])
        c.send_text("plain")
        c.expect_message(OP_TEXT, "plain")

    @s.add("12.3.2", "deflate negotiation", "--no-compression: declined offer, then RSV1 frame -> 1002",
           needs="no-compression")
    def _(ctx):
        c = ctx.connect(offer="permessage-deflate")
        if "sec-websocket-extensions" in c.headers:
            raise CaseFail("extension accepted although disabled")
        c.send_frame(OP_TEXT, deflate(b"hello"), rsv=4)
        c.expect_close({1002})

    # ---------------- 13 permessage-deflate messages ----------------
    OFFER = "permessage-deflate; client_max_window_bits"

    def dcase(cid, desc, serial=False):
        def deco(fn):
            def f(ctx):
                c = ctx.connect(offer=OFFER)
                if c.deflate is None:
                    raise CaseFail("permessage-deflate not negotiated (offer %r)" % OFFER)
                return fn(ctx, c)
            s.add(cid, "deflate messages", desc, serial=serial, needs="compression")(f)
            return fn
        return deco

    @dcase("13.1.1", "compressed small text")
    def _(ctx, c):
        c.send_compressed(OP_TEXT, b"Hello, compressed world")
        m = c.expect_message(OP_TEXT, b"Hello, compressed world")
        return "reply compressed=%s" % m.compressed

    @dcase("13.1.2", "compressed binary 64 KiB")
    def _(ctx, c):
        d = text_payload(65536)
        c.send_compressed(OP_BINARY, d)
        c.expect_message(OP_BINARY, d)

    @dcase("13.1.3", "compressed incompressible binary 100000 bytes, sent in 1000-byte chunks")
    def _(ctx, c):
        d = binary_payload(100000, 4)
        c.send_compressed(OP_BINARY, d, chunk=1000)
        c.expect_message(OP_BINARY, d)

    @dcase("13.1.4", "compressed text sent 1 byte per send()")
    def _(ctx, c):
        d = "κόσμε κόσμε κόσμε 😀".encode() * 5
        c.send_compressed(OP_TEXT, d, chunk=1)
        c.expect_message(OP_TEXT, d)

    @dcase("13.1.5", "compressed empty message (single 0x00 byte)")
    def _(ctx, c):
        c.send_frame(OP_TEXT, b"\x00", rsv=4)
        c.expect_message(OP_TEXT, b"")

    @dcase("13.1.6", "compressed empty message (empty payload, RSV1)")
    def _(ctx, c):
        c.send_frame(OP_BINARY, b"", rsv=4)
        c.expect_message(OP_BINARY, b"")

    @dcase("13.1.7", "uncompressed message on a deflate connection")
    def _(ctx, c):
        c.send_text("not compressed")
        c.expect_message(OP_TEXT, "not compressed")

    @dcase("13.1.8", "compressed and uncompressed messages mixed")
    def _(ctx, c):
        seq = [(True, OP_TEXT, b"one " * 50), (False, OP_TEXT, b"two"), (True, OP_BINARY, b"\x00\x01" * 300),
               (False, OP_BINARY, b"\xff\xfe"), (True, OP_TEXT, "κόσμε".encode() * 20)]
        for comp, op, d in seq:
            if comp:
                c.send_compressed(op, d)
            else:
                c.send_frame(op, d)
        for _, op, d in seq:
            c.expect_message(op, d)

    @dcase("13.1.9", "compressed messages with context takeover (shared LZ77 window)")
    def _(ctx, c):
        msgs = [text_payload(2000) + b" #%d" % k for k in range(5)]
        for m in msgs:
            c.send_compressed(OP_TEXT, m, takeover=True)
        for m in msgs:
            c.expect_message(OP_TEXT, m)
        return "client_no_context_takeover=%s" % c.deflate.client_no_context

    @dcase("13.2.1", "compressed message in 5 fragments (RSV1 on the first only)")
    def _(ctx, c):
        d = text_payload(5000)
        c.send_compressed(OP_TEXT, d, fragments=5)
        c.expect_message(OP_TEXT, d)

    @dcase("13.2.2", "compressed message in 1-byte fragments")
    def _(ctx, c):
        d = b"fragmented and compressed " * 10
        comp = c.deflate.compress(d)
        c.send_raw(b"".join(build_frame(OP_BINARY if k == 0 else OP_CONT, comp[k:k + 1],
                                        fin=(k == len(comp) - 1), rsv=4 if k == 0 else 0)
                            for k in range(len(comp))))
        c.expect_message(OP_BINARY, d)

    @dcase("13.2.3", "compressed fragments with ping between")
    def _(ctx, c):
        d = text_payload(3000)
        comp = c.deflate.compress(d)
        h = len(comp) // 2
        c.send_raw(build_frame(OP_TEXT, comp[:h], fin=False, rsv=4) + build_frame(OP_PING, b"mid")
                   + build_frame(OP_CONT, comp[h:], fin=True))
        c.expect_pong(b"mid")
        c.expect_message(OP_TEXT, d)

    @dcase("13.2.4", "compressed message with an empty first fragment")
    def _(ctx, c):
        d = b"empty first fragment " * 4
        comp = c.deflate.compress(d)
        c.send_raw(build_frame(OP_TEXT, b"", fin=False, rsv=4) + build_frame(OP_CONT, comp, fin=True))
        c.expect_message(OP_TEXT, d)

    @dcase("13.3.1", "RSV1 on a continuation frame -> 1002")
    def _(ctx, c):
        comp = c.deflate.compress(b"hello hello hello")
        c.send_raw(build_frame(OP_TEXT, comp[:3], fin=False, rsv=4) + build_frame(OP_CONT, comp[3:], rsv=4))
        c.expect_close({1002})

    @dcase("13.3.2", "RSV1 on an uncompressed message's continuation frame -> 1002")
    def _(ctx, c):
        c.send_raw(build_frame(OP_TEXT, b"abc", fin=False) + build_frame(OP_CONT, deflate(b"def"), rsv=4))
        c.expect_close({1002})

    for i, op in enumerate([OP_PING, OP_PONG, OP_CLOSE]):
        def mk(op):
            def f(ctx, c):
                c.send_frame(op, close_payload(1000) if op == OP_CLOSE else b"x", rsv=4)
                c.expect_close({1002})
            return f
        dcase("13.3.%d" % (i + 3), "RSV1 on a %s frame -> 1002" % OP_NAMES[op])(mk(op))

    @dcase("13.3.6", "RSV2 on a compressed frame -> 1002")
    def _(ctx, c):
        c.send_frame(OP_TEXT, deflate(b"hello"), rsv=4 | 2)
        c.expect_close({1002})

    @dcase("13.4.1", "compressed text that inflates to invalid UTF-8 -> 1007")
    def _(ctx, c):
        c.send_compressed(OP_TEXT, b"valid then \xed\xa0\x80 invalid")
        c.expect_close({1007})

    @dcase("13.4.2", "corrupt deflate data -> 1007 (or 1002)")
    def _(ctx, c):
        c.send_frame(OP_BINARY, b"\xff\xff\xff\xff\xff\xff\xff", rsv=4)
        return "close %s" % c.expect_close({1007, 1002})

    @dcase("13.5.1", "compressed message inflating to exactly the limit", serial=True)
    def _(ctx, c):
        d = text_payload(N)
        c.send_compressed(OP_TEXT, d)
        c.expect_message(OP_TEXT, d)

    @dcase("13.5.2", "compressed message inflating to limit+1 -> 1009", serial=True)
    def _(ctx, c):
        c.send_compressed(OP_BINARY, bytes(N + 1))
        c.expect_close({1009})

    @dcase("13.5.3", "decompression bomb (100 MiB of zeros, ~100 KiB) -> 1009 fast, server alive",
           serial=True)
    def _(ctx, c):
        bomb = s.bomb()
        t0 = time.monotonic()
        c.send_raw_background(build_frame(OP_BINARY, bomb, rsv=4))
        c.expect_close({1009})
        took = time.monotonic() - t0
        c2 = ctx.connect()
        c2.send_text("still alive")
        c2.expect_message(OP_TEXT, "still alive")
        return "%d compressed bytes, 1009 after %.2fs, server alive" % (len(bomb), took)

    @dcase("13.5.4", "decompression bomb in 64 KiB fragments -> 1009", serial=True)
    def _(ctx, c):
        bomb = s.bomb()
        step = 65536
        c.send_raw_background(b"".join(build_frame(OP_BINARY if k == 0 else OP_CONT, bomb[k:k + step],
                                                   fin=(k + step >= len(bomb)), rsv=4 if k == 0 else 0)
                                       for k in range(0, len(bomb), step)))
        c.expect_close({1009})


# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True, help="ws://host:port/path of the echo endpoint")
    ap.add_argument("--max-message-size", type=int, required=True,
                    help="the server's message size limit in bytes")
    ap.add_argument("--no-compression", action="store_true",
                    help="the server has permessage-deflate disabled")
    ap.add_argument("--case", action="append", default=[],
                    help="run only cases whose id matches (glob, e.g. '6.*' or '9.2.1'; repeatable)")
    ap.add_argument("--json", help="write results as JSON to this file")
    ap.add_argument("--timeout", type=float, default=5.0, help="seconds per case (default 5)")
    ap.add_argument("--jobs", type=int, default=4, help="cases run in parallel (default 4)")
    ap.add_argument("--healthz", action="store_true", help="also check GET /healthz -> 200")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    args = ap.parse_args()

    s = Suite(args.url, args.max_message_size, not args.no_compression, args.timeout, args.healthz)
    register(s)
    cases = sorted(s.cases, key=lambda c: id_key(c["id"]))
    if args.case:
        cases = [c for c in cases if any(fnmatch.fnmatchcase(c["id"], p) or c["id"] == p
                                         or c["id"].startswith(p.rstrip("*") + ".")
                                         for p in args.case)]
    if args.list:
        for c in cases:
            print("%-8s %-20s %s" % (c["id"], c["category"], c["desc"]))
        return 0
    if not cases:
        print("no case matches %r" % args.case)
        return 2

    t0 = time.monotonic()
    results = {}
    parallel = [c for c in cases if not c["serial"]]
    serial = [c for c in cases if c["serial"]]

    def show(r):
        print("%-8s %-20s %-4s %s%s" % (r["id"], r["category"], r["status"], r["description"],
                                        (" -- " + r["detail"]) if r["detail"] else ""), flush=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futs = [(c, pool.submit(s.run_case, c)) for c in parallel]
        for c, f in futs:
            r = f.result()
            results[c["id"]] = r
            show(r)
    for c in serial:
        r = s.run_case(c)
        results[c["id"]] = r
        show(r)

    ordered = [results[c["id"]] for c in cases]
    passed = sum(r["status"] == "PASS" for r in ordered)
    failed = sum(r["status"] == "FAIL" for r in ordered)
    skipped = sum(r["status"] == "SKIP" for r in ordered)
    elapsed = time.monotonic() - t0
    if failed:
        print("\nFailed cases:")
        for r in ordered:
            if r["status"] == "FAIL":
                print("  %-8s %s -- %s" % (r["id"], r["description"], r["detail"]))
    print("\nconformance: %s (%s, max %d bytes), %.1fs" % (
        args.url, "compression" if s.compression else "no compression", s.max_size, elapsed))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(dict(url=args.url, max_message_size=s.max_size, compression=s.compression,
                           passed=passed, failed=failed, skipped=skipped, seconds=round(elapsed, 2),
                           cases=ordered), fh, indent=1, ensure_ascii=False)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
