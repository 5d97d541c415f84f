import ctypes, os, struct, sys, time, subprocess
libc = ctypes.CDLL(None, use_errno=True)
SYS_sched_setattr = 314; SYS_sched_getattr = 315
def setslice(tid, ns):
    # struct sched_attr VER1 (56 bytes): size, policy, flags, nice, prio, runtime, deadline, period, util_min, util_max
    attr = struct.pack("IIQiIQQQII", 56, 0, 0, 0, 0, ns, 0, 0, 0, 0)
    buf = ctypes.create_string_buffer(attr, 56)
    r = libc.syscall(SYS_sched_setattr, tid, buf, 0)
    return r, ctypes.get_errno()
def getslice(tid):
    buf = ctypes.create_string_buffer(56)
    r = libc.syscall(SYS_sched_getattr, tid, buf, 56, 0)
    return struct.unpack("IIQiIQQQII", buf.raw)[5] if r == 0 else None
pattern, ns = sys.argv[1], int(sys.argv[2])
deadline = time.time() + 600
done = set()
while time.time() < deadline:
    pids = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()
    for pid in pids:
        if pid in done: continue
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except FileNotFoundError: continue
        time.sleep(1.0)
        tids = os.listdir(f"/proc/{pid}/task")
        for tid in tids:
            comm = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
            before = getslice(int(tid))
            buf = ctypes.create_string_buffer(56); libc.syscall(SYS_sched_getattr, int(tid), buf, 56, 0)
            policy = struct.unpack("IIQiIQQQII", buf.raw)[1]
            if "NIO-ELT" in comm and policy == 0:
                r = setslice(int(tid), ns)
                print(pid, tid, comm, before, "->", getslice(int(tid)), r, flush=True)
            else:
                print(pid, tid, comm, before, "(kept)", flush=True)
        done.add(pid)
    time.sleep(0.2)
