#!/usr/bin/env python3
"""Interop check: the Python `websockets` library (asyncio API) as a client of an echo server.

Usage:
  python_client.py --url ws://127.0.0.1:PORT/echo --max-message-size N [--no-compression]

Runs every check once with compression="deflate" and once with compression=None, prints one
line per check and a summary, and exits 0 iff all checks pass. With --no-compression the
server is expected to decline permessage-deflate when it is offered.
"""

import argparse
import asyncio
import sys
import time

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

TIMEOUT = 10.0
RESULTS = []


def record(name, ok, detail=""):
    RESULTS.append(ok)
    print("%-4s %s%s" % ("PASS" if ok else "FAIL", name, (" -- " + detail) if detail else ""), flush=True)


async def check(name, coro):
    t0 = time.monotonic()
    try:
        detail = await asyncio.wait_for(coro, TIMEOUT)
        record(name, True, (detail or "") + " (%.2fs)" % (time.monotonic() - t0))
    except AssertionError as e:
        record(name, False, str(e))
    except asyncio.TimeoutError:
        record(name, False, "timeout after %.0fs" % TIMEOUT)
    except Exception as e:  # any library or socket error is a failure of this check
        record(name, False, "%s: %s" % (type(e).__name__, e))


def client(url, compression, max_size):
    return connect(url, compression=compression, max_size=max_size, proxy=None,
                   ping_interval=None, open_timeout=TIMEOUT, close_timeout=TIMEOUT)


async def echo(url, compression, message, max_size=None):
    async with client(url, compression, max_size or 8 << 20) as ws:
        await ws.send(message)
        got = await ws.recv()
    assert type(got) is type(message), "echo type %s, sent %s" % (type(got).__name__, type(message).__name__)
    assert got == message, "echo differs (%d vs %d units)" % (len(got), len(message))
    return "%d %s" % (len(message), "chars" if isinstance(message, str) else "bytes")


async def negotiated(url, compression, expect):
    async with client(url, compression, 1 << 20) as ws:
        ext = ws.response.headers.get("Sec-WebSocket-Extensions")
        await ws.send("x")
        assert await ws.recv() == "x"
    has = bool(ext) and "permessage-deflate" in ext
    assert has == expect, "Sec-WebSocket-Extensions %r, expected deflate %s" % (ext, "on" if expect else "off")
    return "response %r" % ext


async def fragmented(url, compression, parts):
    async def gen():
        for p in parts:
            yield p
    async with client(url, compression, 8 << 20) as ws:
        await ws.send(gen())
        got = await ws.recv()
    whole = "".join(parts) if isinstance(parts[0], str) else b"".join(parts)
    assert got == whole, "reassembled echo differs (%d vs %d)" % (len(got), len(whole))
    return "%d fragments" % len(parts)


async def ping(url, compression):
    async with client(url, compression, 1 << 20) as ws:
        waiter = await ws.ping(b"ping-data")
        latency = await waiter
        ws2 = ws
        await ws2.send("after ping")
        assert await ws2.recv() == "after ping"
    return "pong after %.1f ms" % (latency * 1000)


async def close_code(url, compression, code):
    async with client(url, compression, 1 << 20) as ws:
        await ws.send("before close")
        assert await ws.recv() == "before close"
        await ws.close(code, "bye")
        rcvd = ws.protocol.close_rcvd
    assert rcvd is not None, "no close frame received"
    assert rcvd.code == code, "server closed with %s, sent %d" % (rcvd.code, code)
    return "echoed %d" % rcvd.code


async def oversize(url, compression, limit):
    # No `async with`: its close() may call abort() on a transport the server already closed,
    # which trips an asyncio AttributeError inside websockets. The server closes TCP itself here.
    # The server may close with 1009 while the client is still writing the frame, so the
    # ConnectionClosed can surface from send(), recv() or the wait for the TCP close (seen in
    # CI); every path must carry code 1009.
    ws = await client(url, compression, 8 << 20)
    try:
        await ws.send(b"\x01" * (limit + 1))
        got = await ws.recv()
    except ConnectionClosed as e:
        return await closed_with_1009(ws, e)
    await ws.close()
    raise AssertionError("oversize message echoed (%d bytes)" % len(got))


async def closed_with_1009(ws, e):
    rcvd = e.rcvd
    assert rcvd is not None, "connection closed without a close frame"
    assert rcvd.code == 1009, "close code %d, expected 1009" % rcvd.code
    try:
        await asyncio.wait_for(ws.wait_closed(), TIMEOUT)
    except ConnectionClosed:
        pass
    return "closed 1009"


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--max-message-size", type=int, required=True)
    ap.add_argument("--no-compression", action="store_true")
    args = ap.parse_args()
    url, limit = args.url, args.max_message_size
    big = bytes(range(256)) * 4096  # 1 MiB
    for comp in ("deflate", None):
        tag = "[%s]" % (comp or "none")
        if comp:
            await check("%s deflate negotiated iff server has compression" % tag,
                        negotiated(url, comp, expect=not args.no_compression))
        await check("%s echo text" % tag, echo(url, comp, "hello, websockets"))
        await check("%s echo binary" % tag, echo(url, comp, b"\x00\x01\x02\xfe\xff"))
        await check("%s echo unicode" % tag, echo(url, comp, "κόσμε 😀 中文 \u0000 \U0010ffff"))
        await check("%s echo empty text" % tag, echo(url, comp, ""))
        await check("%s echo empty binary" % tag, echo(url, comp, b""))
        if len(big) <= limit:
            await check("%s echo 1 MiB binary" % tag, echo(url, comp, big))
            await check("%s echo 1 MiB text" % tag, echo(url, comp, "a" * (1 << 20)))
        else:
            print("SKIP %s echo 1 MiB -- limit %d" % (tag, limit))
        await check("%s fragmented text" % tag, fragmented(url, comp, ["frag-", "κό", "σμε", "", "-end"]))
        await check("%s fragmented binary" % tag, fragmented(url, comp, [b"\x00" * 1000, b"\x01" * 70000, b"\x02"]))
        await check("%s ping/pong" % tag, ping(url, comp))
        for code in (1000, 1001, 3000, 4000):
            await check("%s close %d echoed" % (tag, code), close_code(url, comp, code))
        await check("%s oversize (limit+1) -> 1009" % tag, oversize(url, comp, limit))
    passed = sum(RESULTS)
    failed = len(RESULTS) - passed
    print("python websockets client: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
