"""How many WAL frames one journal commit writes, by table layout (an experiment, 2026-11-29).

  python3 journal_layout_sim.py clustered|time|timeidx PAGE_SIZE

Simulates the hub-path shape's journal in a scratch SQLite file (WAL, synchronous=NORMAL, no
automatic checkpoint, 32 MiB cache): 333 open sessions, one entry per commit into a random
session, bodies of the measured mix (47 % lines of 357 bytes, 42 % participants of 535, 11 % stats
of 2,870), a session ending (rows dropped) after 29 entries and a new one opening. Layouts:
`clustered` = today's v2 table (WITHOUT ROWID, key (session_id, seq)), rows deleted at the end;
`time` = rows keyed by a global position, an ended session's rows left in place and the prefix
older than the oldest open session's first row deleted every 500 commits; `timeidx` = `time`
plus an index on (session_id, seq) and per-session deletes. Prints WAL bytes and frames per
commit over 10,000 commits after 20,000 of warm-up.
"""
import sqlite3, os, random, sys
mode = sys.argv[1]; page = int(sys.argv[2])
path = f"/tmp/journal-layout-{mode}.sqlite"
for ext in ("", "-wal", "-shm"):
    try: os.remove(path + ext)
    except FileNotFoundError: pass
c = sqlite3.connect(path, isolation_level=None)
c.execute("PRAGMA page_size=%d" % page)
c.execute("PRAGMA journal_mode=WAL"); c.execute("PRAGMA synchronous=NORMAL"); c.execute("PRAGMA wal_autocheckpoint=0")
c.execute("PRAGMA cache_size=-32768")
if mode == "clustered":
    c.execute("CREATE TABLE journal (session_id TEXT NOT NULL, seq INTEGER NOT NULL, timestamp INTEGER, kind TEXT, body BLOB, PRIMARY KEY (session_id, seq)) WITHOUT ROWID")
else:
    c.execute("CREATE TABLE journal (pos INTEGER PRIMARY KEY, session_id TEXT NOT NULL, seq INTEGER NOT NULL, timestamp INTEGER, kind TEXT, body BLOB)")
    if mode == "timeidx":
        c.execute("CREATE INDEX journal_session ON journal (session_id, seq)")
c.execute("CREATE TABLE journal_sessions (session_id TEXT PRIMARY KEY, started_at INTEGER, first_pos INTEGER, body BLOB)")
random.seed(1)
def body():
    r = random.random()
    n = 357 if r < 0.47 else (535 if r < 0.89 else 2870)
    return (b"x" * n)
S = 333; LINES = 29
sessions = {}
nextid = 0; pos = 0
def new_session():
    global nextid
    nextid += 1
    sid = "s-%08x-%d" % (random.getrandbits(32), nextid)
    sessions[sid] = 0
    c.execute("INSERT INTO journal_sessions VALUES (?,?,?,?)", (sid, nextid, pos + 1, b"x" * 200))
    return sid
for _ in range(S): new_session()
ids = list(sessions)
def frames():
    return c.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
# warm up then measure
def run(n_commits, measure):
    global pos, ids
    total = 0
    for i in range(n_commits):
        c.execute("BEGIN IMMEDIATE")
        sid = random.choice(ids)
        sessions[sid] += 1
        pos += 1
        if mode == "clustered":
            c.execute("INSERT INTO journal VALUES (?,?,?,?,?)", (sid, sessions[sid], 0, "line", body()))
        else:
            c.execute("INSERT INTO journal VALUES (?,?,?,?,?,?)", (pos, sid, sessions[sid], 0, "line", body()))
        if sessions[sid] >= LINES:
            del sessions[sid]
            c.execute("DELETE FROM journal_sessions WHERE session_id=?", (sid,))
            if mode == "clustered" or mode == "timeidx":
                c.execute("DELETE FROM journal WHERE session_id=?", (sid,))
            ids = list(sessions.keys())
            new_session(); ids = list(sessions.keys())
        if mode.startswith("time") and i % 500 == 0:
            m = c.execute("SELECT MIN(first_pos) FROM journal_sessions").fetchone()[0]
            c.execute("DELETE FROM journal WHERE pos < ?", (m,))
        c.execute("COMMIT")
    return
run(20000, False)
c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
before = frames()
N = 10000
run(N, True)
after = frames()
print(mode, page, "bytes per commit %.0f" % (after[1]*page/N), "frames per line commit: %.2f" % ((after[1]) / N), "rows", c.execute("select count(*) from journal").fetchone()[0], "pages", c.execute("pragma page_count").fetchone()[0])
