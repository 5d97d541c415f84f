#!/usr/bin/env python3
"""The hub's CPU by part, from `perf script -F comm,tid,ip,sym` output with call graphs.

    python3 loadtest/profile_parts.py perf.script            # the table of parts
    python3 loadtest/profile_parts.py perf.script REGEX [N]  # what frames matching REGEX call, N levels down

Each sample goes to the first part (in the order below) that one of its stack frames matches, so
the parts add up to 100 %. "other" is everything else, listed by its innermost hub frame.
"""
import collections
import re
import sys

PARTS = [
    ("ended sessions' writes (history, progress, SM-2)", r"SQLiteStoreC4save|HistoryWriter|SQLiteStoreC5apply|PostgresStore.*save"),
    ("journal commits", r"LogJournal|SQLiteJournal|PostgresJournal"),
    ("stats broadcasts", r"broadcastStats|LiveSession.*[Ss]tats|tick5slice"),
    ("socket writes and flushes", r"BaseSocketChannelC8flushNow|SocketC5write|writev"),
    ("say / recast in the session", r"LiveSessionC3say|LiveSessionC6recast"),
    ("reading and parsing frames", r"channelRead|readFromSocket|SocketC4read"),
    ("waiting, waking, scheduling", r"epoll_wait|futex|schedule"),
]
HUB = re.compile(r"HubDomain|SessionHubServer|WebSocketTransport|HubProtocol|HubStorage")


def stacks(path):
    """Each sample's frames, innermost first."""
    current = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                if current:
                    yield current
                current = []
            elif line[0] in " \t":
                parts = line.strip().split(None, 1)
                current.append(parts[1] if len(parts) > 1 else parts[0])
    if current:
        yield current


def short(frame, width=110):
    return re.sub(r"\(.*$", "", frame)[:width]


def parts(path):
    counts, other, total = collections.Counter(), collections.Counter(), 0
    for stack in stacks(path):
        total += 1
        joined = "\n".join(stack)
        for name, pattern in PARTS:
            if re.search(pattern, joined):
                counts[name] += 1
                break
        else:
            counts["other"] += 1
            other[next((short(f) for f in stack if HUB.search(f)), "(no hub frame)")] += 1
    print("%d samples" % total)
    for name, n in counts.most_common():
        print("%5.1f %%  %s" % (100 * n / total, name))
    print("other, by innermost hub frame:")
    for name, n in other.most_common(12):
        print("  %5.1f %%  %s" % (100 * n / total, name))


def callees(path, anchor, depth):
    anchor = re.compile(anchor)
    counts, total, hits = collections.Counter(), 0, 0
    for stack in stacks(path):
        total += 1
        found = [i for i, f in enumerate(stack) if anchor.search(f)]
        if not found:
            continue
        hits += 1
        i = max(found)  # the outermost match
        counts[" <- ".join(short(stack[j]) for j in range(i - 1, max(-1, i - 1 - depth), -1)) or "(itself)"] += 1
    print("%d samples, %.1f %% under %s" % (total, 100 * hits / max(1, total), anchor.pattern))
    for name, n in counts.most_common(30):
        print("%5.1f %%  %s" % (100 * n / total, name))


if __name__ == "__main__":
    if len(sys.argv) == 2:
        parts(sys.argv[1])
    elif len(sys.argv) in (3, 4):
        callees(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) == 4 else 1)
    else:
        sys.exit(__doc__)
