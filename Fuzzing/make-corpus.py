#!/usr/bin/env python3
"""Writes the seed corpus (Corpus/<target>/) for the fuzz targets; see docs/FUZZING.md.

Each file is one input in the target's format (the option bytes first, as each target's doc
comment says). Run it again after changing a format; the output is deterministic.
"""
import base64, hashlib, hmac, json, os, shutil, struct, zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Corpus")
MASK = b"\x37\xfa\x21\x3d"


def write(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def deflate(data, wbits=15):
    c = zlib.compressobj(6, zlib.DEFLATED, -wbits)
    out = c.compress(data) + c.flush(zlib.Z_SYNC_FLUSH)
    assert out.endswith(b"\x00\x00\xff\xff")
    return out[:-4]


def frame(opcode, payload, fin=True, rsv1=False, masked=True):
    b0 = (0x80 if fin else 0) | (0x40 if rsv1 else 0) | opcode
    n = len(payload)
    m = 0x80 if masked else 0
    if n < 126:
        head = bytes([b0, m | n])
    elif n < 65536:
        head = bytes([b0, m | 126]) + struct.pack(">H", n)
    else:
        head = bytes([b0, m | 127]) + struct.pack(">Q", n)
    if not masked:
        return head + payload
    return head + MASK + bytes(b ^ MASK[i % 4] for i, b in enumerate(payload))


def connection():
    plain, deflated = 0x00, 0x01 | (7 << 4)  # options: compression with a 15-bit client window
    seeds = {
        "text": (plain, frame(1, b"Hola, \xc2\xbfqu\xc3\xa9 tal?")),
        "binary": (plain, frame(2, bytes(range(200)))),
        "fragmented": (plain, frame(1, b"frag", fin=False) + frame(9, b"ping") + frame(0, b"mented")),
        "ping-pong": (plain, frame(9, b"are you there") + frame(10, b"")),
        "close": (plain, frame(8, struct.pack(">H", 1000) + b"bye")),
        "close-empty": (plain, frame(8, b"")),
        "long-16bit": (plain, frame(2, b"x" * 300)),
        "small-limits": (0x02, frame(1, b"y" * 300)),
        "close-first": (0x04, frame(1, b"late") + frame(8, struct.pack(">H", 1001))),
        "compressed-text": (deflated, frame(1, deflate(b"compressed " * 20), rsv1=True)),
        "compressed-binary": (deflated, frame(2, deflate(bytes(range(256)) * 4), rsv1=True)),
        "compressed-fragmented": (deflated, (lambda d: frame(1, d[:5], fin=False, rsv1=True) + frame(0, d[5:]))(deflate(b"fragmented and compressed " * 8))),
        "compressed-empty": (deflated, frame(1, b"\x00", rsv1=True)),
        "compressed-two": (deflated, frame(1, deflate(b"first message"), rsv1=True) + frame(1, deflate(b"second message"), rsv1=True)),
        "compressed-window9": (0x01 | (1 << 4) | 0x08, frame(1, deflate(b"nine bits " * 30, wbits=9), rsv1=True)),
        "compressed-bomb": (0x03, frame(2, deflate(b"\x00" * 100000), rsv1=True)),
        "bad-utf8": (plain, frame(1, b"\xff\xfe")),
        # Found by this target: invalid UTF-8, then a corrupt block (must fail alike however split).
        "regression-utf8-then-corrupt": (deflated, frame(1, b"\x00\x01\x00\xfe\xff\xff\x07", rsv1=True)),
        "unmasked": (plain, frame(1, b"no mask", masked=False)),
    }
    # Found by this target: a peer overrunning its 9-bit window (fails with 1007 however split).
    write("connection", "regression-window-overrun", bytes.fromhex(
        "192200c1f237fa213ddb3b103c37fa21ff970f6e503af5813d37000000000000000000000000000000000000000000000000000000001b00000000000000000000000000000000000000000000000000000000000000000000005c00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"))
    for name, (options, stream) in seeds.items():
        # Split seed 19 cuts the regression's frame inside its payload.
        seed = 19 if name.startswith("regression") else 0x2a
        write("connection", name, bytes([options, seed, 0x00]) + stream)


def handshake():
    key = base64.b64encode(b"0123456789abcdef").decode()
    base = ("GET /ws?token=abc.def.ghi HTTP/1.1\r\nHost: hub.example\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + key + "\r\n")
    requests = {
        "minimal": base + "\r\n",
        "deflate": base + "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n",
        "deflate-full": base + "Sec-WebSocket-Extensions: permessage-deflate; client_no_context_takeover; "
                               "server_no_context_takeover; server_max_window_bits=10; client_max_window_bits=9, permessage-deflate\r\n\r\n",
        "subprotocol-origin": base + "Sec-WebSocket-Protocol: chat, sessionhub.v1\r\nOrigin: https://hub.example\r\n\r\n",
        "absolute-target": base.replace("/ws?token=abc.def.ghi", "ws://hub.example/dashboard/feed?token=a%2Bb&x") + "\r\n",
        "post": base.replace("GET", "POST") + "\r\n",
        "http10": base.replace("HTTP/1.1", "HTTP/1.0") + "\r\n",
        "version8": base.replace("Version: 13", "Version: 8") + "\r\n",
    }
    for name, text in requests.items():
        write("handshake", name, bytes([0x00]) + text.encode())
    write("handshake", "origin-policy", bytes([0x02]) + requests["subprotocol-origin"].encode())
    write("handshake", "small-windows", bytes([0x10 | 0x04]) + requests["deflate-full"].encode())
    offers = {
        "ext-plain": "permessage-deflate",
        "ext-params": "permessage-deflate; client_max_window_bits=10; server_max_window_bits=\"12\"",
        "ext-list": "x-webkit-deflate-frame, permessage-deflate; server_no_context_takeover, foo; bar=\"q\\\"s\"",
        "ext-response": "permessage-deflate; server_no_context_takeover; server_max_window_bits=12; client_max_window_bits=11",
    }
    for name, text in offers.items():
        write("handshake", name, bytes([0x01]) + text.encode())


def inflater():
    for name, (options, limit, data) in {
        "text": (7, 4, deflate(b"hello hello hello hello")),
        "two-messages": (7, 4, deflate(b"one " * 10) + deflate(b"two " * 10)),
        "window8": (0 | 8, 3, deflate(b"abc" * 50, wbits=9)),
        "bfinal": (7, 4, zlib.compressobj(6, zlib.DEFLATED, -15).compress(b"end") + zlib.compressobj(6, zlib.DEFLATED, -15).flush()),
        "bomb": (7, 5, deflate(b"\x00" * 200000)),
        "stored": (7, 4, b"\x00\x05\x00\xfa\xffhello"),
        "roundtrip": (7 | 16, 6, b"round trip text " * 40),
        "roundtrip-limit": (2 | 16, 2, b"just over sixty-four bytes of text for the limit check, yes indeed!"),
    }.items():
        write("inflater", name, bytes([options, limit, 0x11]) + data)


def client_message():
    messages = [
        {"type": "hello", "protocolVersion": 1, "id": 1},
        {"type": "auth", "token": "a.b.c", "id": "a1"},
        {"type": "scenarios"},
        {"type": "startSolo", "scenarioId": "cafe-order"},
        {"type": "host", "scenarioId": "market", "maxPlayers": 4, "id": "h"},
        {"type": "join", "code": "ABCD23"},
        {"type": "resume", "resumeToken": "nonce.mac", "lastSeq": 12},
        {"type": "say", "textNative": "¿Dónde está la estación?", "textTranslated": "Where is the station?"},
        {"type": "recast", "lineId": "l1", "correctedText": "Fui al mercado", "explanation": "past",
         "issueTypes": ["grammar", "naturalness", "vocabulary", "sentence_structure"]},
        {"type": "acceptRecast", "recastId": "r1"},
        {"type": "leave"}, {"type": "end"}, {"type": "ping", "id": 9007199254740993},
        {"type": "profile"},
        {"type": "updateProfile", "profile": {"displayName": "Ana", "nativeLanguage": "en"}},
        {"type": "history", "limit": 20, "before": 1700000000000},
        {"type": "historySession", "sessionId": "s-1"},
    ]
    for message in messages:
        write("client-message", message["type"], b"\x00" + json.dumps(message, ensure_ascii=False).encode())
    write("client-message", "bad-number", b"\x00" + b'{"type":"history","limit":1.5,"id":"x"}')
    write("client-message", "not-object", b"\x00" + b'[1,2,3]')
    # Found by this target: an id over 64 bytes in a message with another bad field.
    write("client-message", "regression-long-id", b"\x00" + b'{"type":"history","limit":1.5,"id":"' + b"i" * 100 + b'"}')
    write("client-message", "small-limit", b"\x01" + json.dumps(messages[7], ensure_ascii=False).encode())


def token():
    secret = b"fuzzing-secret-0123456789abcdef"

    def b64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=")

    def mint(claims):
        signing = b64(b'{"alg":"HS256","typ":"JWT"}') + b"." + b64(json.dumps(claims, separators=(",", ":"), sort_keys=True).encode())
        return signing + b"." + b64(hmac.new(secret, signing, hashlib.sha256).digest())

    claims = {"sub": "u1", "name": "Ana", "iat": 1799999000, "exp": 1800003600}
    write("token", "valid-other-key", b"\x00\x00\x00\x00" + mint(claims).replace(b"A", b"B", 1))
    write("token", "alg-none", b"\x00\x00\x00\x00" + b64(b'{"alg":"none"}') + b"." + b64(json.dumps(claims).encode()) + b".")
    write("token", "mint-player", b"\x01\x10\x00\x20" + b"user-1\x00Ana\x00")
    write("token", "mint-admin", b"\x03\x40\x00\x30" + b"op\x00Operator\x00admin")
    write("token", "mint-expired", b"\x05\x05\x00\x01" + b"u\x00n\x00")
    write("token", "mint-empty-sub", b"\x07\x00\x00\x40" + b"\x00name\x00")
    write("token", "resume-like", b"\x00\x00\x00\x00" + b"AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")


if __name__ == "__main__":
    shutil.rmtree(ROOT, ignore_errors=True)
    connection()
    handshake()
    inflater()
    client_message()
    token()
