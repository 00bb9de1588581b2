#!/usr/bin/env python3
# CPU of a command's whole process tree, split by kind of process (vitest's workers, chromium's processes,
# the recdeck processes the tests spawn, Mosquitto, ...): what the suite's time is made of when the run is
# CPU-bound, as it is on a 2-core machine (docs/performance.md). Linux only (/proc).
#
#   python3 scripts/cpu-by-process.py OUT.json -- npx vitest run --maxWorkers=1 test/x.test.ts
#
# Samples /proc/PID/stat (utime + stime) of every descendant every 0.2 s; a process's CPU after its last
# sample is not counted, so a process that lives less than 0.2 s is missed (none of the suite's costly ones
# do). Prints and writes {kind: seconds}, "_total", and "_node_other" (the command lines of node processes
# of no other kind). Exits with the command's status.
import collections
import json
import os
import subprocess
import sys
import time

out = sys.argv[1]
cmd = sys.argv[sys.argv.index('--') + 1:]
HZ = os.sysconf('SC_CLK_TCK')


def cmdline(pid):
    try:
        return open(f'/proc/{pid}/cmdline', 'rb').read().replace(b'\0', b' ').decode(errors='replace')
    except OSError:
        return None


def kind(pid):
    c = cmdline(pid)
    if c is None or not c.strip():
        return None
    # Before chromium's own: the launcher is node running playwright's browser server (test/support).
    if 'chromium-launch' in c:
        return 'chromium-launcher'
    if 'chromium' in c or 'chrome' in c:
        if '--type=renderer' in c:
            return 'chromium-renderer'
        if '--type=' in c:
            return 'chromium-other'
        return 'chromium-browser'
    if 'mosquitto' in c:
        return 'mosquitto'
    if any(name in c for name in ('prometheus', 'alertmanager', 'promtool', 'amtool')):
        return 'prometheus'
    if 'vitest' in c and ('forks' in c or 'vitest/dist/workers' in c):
        return 'vitest-worker'
    if 'vitest' in c:
        return 'vitest-main'
    if 'dist/cli/main.js' in c:
        after = c.split('main.js', 1)[1].split()
        return 'recdeck-' + (after[0] if after else '?')
    if 'node' in c:
        return 'node-other'
    return c.split()[0]


def stat_ticks(pid):
    st = open(f'/proc/{pid}/stat').read()
    fields = st[st.rindex(')') + 2:].split()
    return int(fields[1]), int(fields[11]) + int(fields[12])  # parent, utime + stime


def tree(root):
    children = collections.defaultdict(list)
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                children[stat_ticks(int(entry))[0]].append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


child = subprocess.Popen(cmd)
last = {}  # pid -> (kind, ticks at the last sample)
total = collections.Counter()
node_other = collections.Counter()
while child.poll() is None:
    for pid in tree(child.pid):
        try:
            ticks = stat_ticks(pid)[1]
        except (OSError, ValueError, IndexError):
            continue
        # Classified at every sample, not once: a child caught between fork and exec still shows its
        # parent's command line (a `recdeck run` spawned by a worker looked like a worker, a worker forked
        # by vitest like vitest's own process, for the rest of its life).
        k = kind(pid) or (last[pid][0] if pid in last else None)
        if k is None:
            continue
        delta = ticks - (last[pid][1] if pid in last else 0)
        total[k] += delta
        last[pid] = (k, ticks)
        if k == 'node-other':
            node_other[(cmdline(pid) or '?')[:160]] += delta
    time.sleep(0.2)
result = {k: round(v / HZ, 1) for k, v in total.most_common()}
result['_total'] = round(sum(total.values()) / HZ, 1)
result['_node_other'] = {k: round(v / HZ, 1) for k, v in node_other.most_common(15)}
with open(out, 'w') as f:
    json.dump(result, f, indent=1)
print(json.dumps(result))
sys.exit(child.returncode)
