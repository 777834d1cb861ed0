#!/usr/bin/env python3
# Wall time, CPU time and page faults of one-shot commands (Benchmarks/RESULTS.md, "Start-up of
# the one-shot shell"): usage  one-shot-rounds.py ROUNDS LABEL=JSON-ARGV...
#
# Each round starts one process of each command, in the order given, with posix_spawn (stdin
# and stderr /dev/null, stdout a file) and reaps it with wait4, so the numbers are the child's
# own (ru_utime, ru_stime, ru_minflt) and no shell or fork sits between. It prints the median
# wall time (and its ratio to the last command's), the mean user + system time and the median
# page faults, then the start of each command's first output, to check that they agree.
# The order within a round matters on a loaded machine: run it both ways. Example:
#   flock /work/notes/release.lock Benchmarks/one-shot-rounds.py 300 \
#     'trove=[".build/static/release/trove", "shell.trove", "count User where name == \"Zeno Kamika\""]' \
#     "sqlite3=[\"/usr/bin/sqlite3\", \"shell.sqlite\", \"SELECT count(*) FROM user WHERE name = 'Zeno Kamika'\"]"
import os, sys, time, json, statistics
rounds = int(sys.argv[1])
cmds = []
for arg in sys.argv[2:]:
    label, cmd = arg.split("=", 1)
    cmds.append((label, json.loads(cmd)))
devnull = os.open("/dev/null", os.O_RDWR)
res = {l: {"wall": [], "cpu": [], "flt": []} for l, _ in cmds}
outs = {}
for r in range(rounds):
    for label, cmd in cmds:
        out = f"/tmp/rounds-{os.getpid()}.out"
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        t0 = time.monotonic()
        pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, fd, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
        _, status, ru = os.wait4(pid, 0)
        wall = time.monotonic() - t0
        os.close(fd)
        if status != 0: sys.exit(f"{label} exited {status}")
        if r == 0: outs[label] = open(out).read()
        res[label]["wall"].append(wall); res[label]["cpu"].append(ru.ru_utime + ru.ru_stime); res[label]["flt"].append(ru.ru_minflt + ru.ru_majflt)
        res[label].setdefault("u", []).append(ru.ru_utime); res[label].setdefault("s", []).append(ru.ru_stime)
ref = statistics.median(res[cmds[-1][0]]["wall"])
for label, _ in cmds:
    d = res[label]
    w = statistics.median(d["wall"])
    print(f"{label:12} wall median {w*1e3:6.2f} ms ({w/ref:4.2f}x last)  cpu mean {statistics.mean(d['cpu'])*1e3:5.2f} ms (user {statistics.mean(d['u'])*1e3:4.2f} sys {statistics.mean(d['s'])*1e3:4.2f})  faults {statistics.median(d['flt']):.0f}")
for label, _ in cmds: print(label, repr(outs[label][:80]))
