#!/usr/bin/env python3
"""Checks of `knit record -t` measurements and `knit report --format=chrome`
output, for cli_test.sh.

  trace_check.py files DIR     every thread's trace file against its thread
                               file: whole records, transitions in time
                               order, one sample event per sample taken (less
                               those dropped), idle and barrier transitions
                               on the OpenMP workers
  trace_check.py drops DIR     the same, but for the workers' transitions, and
                               events must have been dropped
  trace_check.py chrome FILE   the JSON's shape, slices that nest properly on
                               every track, idle and barrier slices
  trace_check.py nesting FILE  the same but for the OpenMP slices
  trace_check.py short DIR     the thread traces' transitions and, of them,
                               the short states a recording may leave out
                               (a begin right before its end, sooner than
                               measure/short_state.h's bound): "transitions
                               T short S records R"
  trace_check.py take_short DIR OUT
                               DIR's measurement copied to OUT with every
                               short state a recording may leave out left
                               out, as the ring takes them back (the last
                               push only, once)
  trace_check.py device FILE KERNELS FOLDED
                               the same as nesting for the threads, and the
                               device tracks: named "device N (TYPE)" after
                               the threads, tids no thread has, slices in
                               order without overlap, named and with args as
                               report/chrome_trace.h says, KERNELS kernels,
                               whose durations per target construct are the
                               DEVICE_KERNEL totals of FOLDED (the output of
                               knit report --format=folded
                               --metric=DEVICE_KERNEL)

Prints what it checked; exits 1 with the reason on the first failure.
"""
import json
import os
import re
import struct
import sys

SAMPLE, PAR_B, PAR_E, BAR_B, BAR_E, IDLE_B, IDLE_E, LOCK_B, LOCK_E, DROPPED = range(10)
STATE_BEGINS = (PAR_B, BAR_B, IDLE_B, LOCK_B)
STAT_SAMPLES = 0
THREAD_OPENMP, THREAD_MAIN = 0x2, 0x1


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def order_of(data, mark_at):
    mark = struct.unpack_from("<I", data, mark_at)[0]
    return "<" if mark == 0x01020304 else ">"


def thread_file(path):
    """(flags, samples) of a thread file (measure/format.h)."""
    data = open(path, "rb").read()
    e = order_of(data, 12)
    flags = struct.unpack_from(e + "I", data, 24)[0]
    at, samples = 72, None
    while at + 16 <= len(data):
        tag, _, length = struct.unpack_from(e + "IIQ", data, at)
        body = at + 16
        if tag == 0:
            break
        if tag == 4:  # STATS
            count = struct.unpack_from(e + "I", data, body)[0]
            for i in range(count):
                key, _, value = struct.unpack_from(e + "IIQ", data, body + 4 + 16 * i)
                if key == STAT_SAMPLES:
                    samples = value
        at = body + length
    if samples is None:
        fail(path + ": no STATS section")
    return flags, samples


def trace_file(path):
    data = open(path, "rb").read()
    if data[:8] != b"KNITTRAC":
        fail(path + ": bad magic")
    e = order_of(data, 12)
    if (len(data) - 32) % 16:
        fail(path + ": %d bytes after the header, not whole records" % (len(data) - 32))
    return [struct.unpack_from(e + "QII", data, at) for at in range(32, len(data), 16)]


def check_files(d, drops=False):
    names = os.listdir(d)
    traces = sorted(n for n in names if re.fullmatch(r"trace-\d+-\d+\.knit", n))
    threads = sorted(n for n in names if re.fullmatch(r"thread-\d+-\d+\.knit", n))
    if not traces:
        fail(d + ": no trace files")
    workers_idle = workers_barrier = total_dropped = 0
    for name in threads:
        tname = "trace-" + name[len("thread-"):]
        if tname not in traces:
            fail(name + " has no trace file")
        flags, samples = thread_file(os.path.join(d, name))
        records = trace_file(os.path.join(d, tname))
        events = [r for r in records if r[2] != DROPPED]
        dropped = sum(r[1] for r in records if r[2] == DROPPED)
        sample_events = sum(1 for r in events if r[2] == SAMPLE)
        total_dropped += dropped
        # Every sample is an event, unless the full buffer dropped it (the
        # drops count transitions too).
        if not samples - dropped <= sample_events <= samples:
            fail("%s: %d sample events, the thread file counts %d samples and %d were dropped"
                 % (tname, sample_events, samples, dropped))
        # Transitions are written as they happen; a sample kept for its
        # region's path is written later, with its own time: the reader
        # sorts, so only the transitions must be in order in the file.
        times = [r[0] for r in events if r[2] != SAMPLE]
        if times != sorted(times):
            fail(tname + ": transitions out of time order")
        if any(t == 0 for t, _, _ in events):
            fail(tname + ": an event without a time")
        kinds = {r[2] for r in events}
        worker = (flags & THREAD_OPENMP) and not (flags & THREAD_MAIN)
        if worker and IDLE_B in kinds and IDLE_E in kinds:
            workers_idle += 1
        if worker and BAR_B in kinds and BAR_E in kinds:
            workers_barrier += 1
        print("%s: %d events, %d samples (%d dropped), kinds %s"
              % (tname, len(events), sample_events, dropped, sorted(kinds)))
    # A thread that took no sample has no thread file: its trace holds
    # transitions only, at the root.
    for tname in traces:
        if "thread-" + tname[len("trace-"):] in threads:
            continue
        records = trace_file(os.path.join(d, tname))
        if any(r[2] == SAMPLE or r[1] != 0 for r in records if r[2] != DROPPED):
            fail(tname + ": samples, or nodes, without a thread file")
        print("%s: %d transitions, no samples and no thread file" % (tname, len(records)))
    if drops:
        if total_dropped == 0:
            fail("no event was dropped")
        return
    if workers_idle == 0 or workers_barrier == 0:
        fail("no worker with idle (%d) and barrier (%d) transitions" % (workers_idle, workers_barrier))


def short_state_ns(d):
    """measure/short_state.h's bound, from a thread file's period."""
    name = next(n for n in sorted(os.listdir(d)) if re.fullmatch(r"thread-\d+-\d+\.knit", n))
    data = open(os.path.join(d, name), "rb").read()
    period = struct.unpack_from(order_of(data, 12) + "Q", data, 32)[0]
    return min((period or 1000000) // 100, 10000)


def take_short(records, bound):
    """records less the short states the ring would take back, and their
    count: an end whose begin is the last record pushed, not itself pushed
    back into place by a take-back, less than bound before it."""
    kept, last_takable, taken = [], False, 0
    for r in records:
        if (last_takable and r[2] - 1 in STATE_BEGINS and kept[-1][2] == r[2] - 1
                and r[0] - kept[-1][0] < bound):
            kept.pop()
            last_takable = False
            taken += 1
            continue
        kept.append(r)
        last_takable = True
    return kept, taken


def thread_traces(d):
    return sorted(n for n in os.listdir(d) if re.fullmatch(r"trace-\d+-\d+\.knit", n))


def count_short(d):
    bound = short_state_ns(d)
    transitions = short = records = 0
    for name in thread_traces(d):
        got = trace_file(os.path.join(d, name))
        records += len(got)
        transitions += sum(1 for r in got if r[2] not in (SAMPLE, DROPPED))
        short += take_short(got, bound)[1]
    print("transitions %d short %d records %d" % (transitions, short, records))


def write_take_short(d, out):
    bound = short_state_ns(d)
    os.makedirs(out)
    taken = 0
    for name in os.listdir(d):
        if os.path.isdir(os.path.join(d, name)):
            continue
        data = open(os.path.join(d, name), "rb").read()
        if re.fullmatch(r"trace-\d+-\d+\.knit", name):
            e = order_of(data, 12)
            kept, n = take_short(trace_file(os.path.join(d, name)), bound)
            taken += n
            data = data[:32] + b"".join(struct.pack(e + "QII", *r) for r in kept)
        open(os.path.join(out, name), "wb").write(data)
    print("short states taken %d" % taken)


def load_json(path):
    try:
        return json.load(open(path))
    except ValueError as e:
        fail(path + ": not JSON: %s" % e)


def check_chrome(path, states=True):
    doc = load_json(path)
    if set(doc) != {"traceEvents", "displayTimeUnit"} or doc["displayTimeUnit"] != "ms":
        fail("top level is %s" % sorted(doc))
    names, slices = {}, {}
    for ev in doc["traceEvents"]:
        if ev["ph"] == "M":
            if ev["name"] == "thread_name":
                names[ev["tid"]] = ev["args"]["name"]
            continue
        if ev["ph"] != "X" or ev["pid"] != 1:
            fail("unexpected event %s" % ev)
        if ev.get("cat") == "device":
            continue
        if ev["cat"] not in ("sample", "omp") or not isinstance(ev["args"].get("node"), int):
            fail("slice without its category or node: %s" % ev)
        if ev["dur"] <= 0:
            fail("slice of no duration: %s" % ev)
        slices.setdefault(ev["tid"], []).append(ev)
    if not slices:
        fail("no slices")
    omp_names = set()
    for tid, evs in slices.items():
        if not re.fullmatch(r"thread \d+ \((main|openmp|runtime|pthread)(, \d+ events dropped)?\)",
                            names.get(tid, "")):
            fail("track %d is named %r" % (tid, names.get(tid)))
        # Outer slices first at the same start; a slice must end within the
        # one it starts in. Times have three decimals: compare in ns.
        evs.sort(key=lambda e: (round(e["ts"] * 1000), -round(e["dur"] * 1000)))
        stack, depth = [], 0
        for e in evs:
            start, end = round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000)
            while stack and stack[-1] <= start:
                stack.pop()
            if stack and end > stack[-1]:
                fail("tid %d: %s [%d, %d] overlaps the end of its enclosing slice (%d)"
                     % (tid, e["name"], start, end, stack[-1]))
            stack.append(end)
            depth = max(depth, len(stack))
            if e["cat"] == "omp":
                omp_names.add(e["name"])
        print("tid %d (%s): %d slices, %d deep" % (tid, names[tid], len(evs), depth))
    if states and not {"<omp-idle>", "<omp-barrier>"} <= omp_names:
        fail("OpenMP slices are only %s" % sorted(omp_names))
    print("omp slices: %s" % sorted(omp_names))


DEVICE_NAME = re.compile(r"kernel|alloc|(to|from) device (?P<n>\d+(\.\d)?) (?P<unit>B|KiB|MiB|GiB)")
UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}


def folded_totals(path):
    """DEVICE_KERNEL per construct, "FILE:LINE", from folded lines."""
    totals = {}
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        frames, value = line.rsplit(" ", 1)
        m = re.fullmatch(r"target_at_(.+:\d+)", frames.split(";")[-1])
        if not m:
            fail("folded line not at a target construct: " + line)
        totals[m.group(1)] = totals.get(m.group(1), 0) + int(value)
    return totals


def check_device(path, kernels, folded):
    check_chrome(path, states=False)
    doc = load_json(path)
    names, sorts, thread_tids, device = {}, {}, set(), {}
    for ev in doc["traceEvents"]:
        if ev["ph"] == "M" and ev["name"] == "thread_name":
            names[ev["tid"]] = ev["args"]["name"]
        elif ev["ph"] == "M" and ev["name"] == "thread_sort_index":
            sorts[ev["tid"]] = ev["args"]["sort_index"]
        elif ev["ph"] == "X" and ev["cat"] == "device":
            device.setdefault(ev["tid"], []).append(ev)
        elif ev["ph"] == "X":
            thread_tids.add(ev["tid"])
    if not device:
        fail("no device track")
    thread_tracks = [t for t in names if names[t].startswith("thread ")]
    last_thread = max(sorts[t] for t in thread_tracks)
    per_construct, count = {}, 0
    for tid, evs in device.items():
        if tid in thread_tids or tid in thread_tracks:
            fail("device track %d has a thread's tid" % tid)
        if not re.fullmatch(r"device \d+ \([^)]+\)", names.get(tid, "")):
            fail("device track %d is named %r" % (tid, names.get(tid)))
        if sorts.get(tid, -1) <= last_thread:
            fail("device track %d does not sort after the threads" % tid)
        end = -1
        for e in evs:
            start = round(e["ts"] * 1000)
            if start < end:
                fail("tid %d: %s at %d starts before the slice before it ends (%d)"
                     % (tid, e["name"], start, end))
            end = start + round(e["dur"] * 1000)
            m = DEVICE_NAME.fullmatch(e["name"])
            args = e["args"]
            if not m or set(args) != {"node", "at", "bytes"}:
                fail("device slice %s" % e)
            if not isinstance(args["node"], int) or args["node"] <= 0:
                fail("device slice at the root or no node: %s" % e)
            if not re.fullmatch(r".+:\d+", args["at"]) or not isinstance(args["bytes"], int):
                fail("device slice's at or bytes: %s" % e)
            if m.group("n"):
                n, unit = m.group("n"), m.group("unit")
                if abs(float(n) * UNITS[unit] - args["bytes"]) > UNITS[unit] / 20:
                    fail("%s moved %d bytes" % (e["name"], args["bytes"]))
            if e["name"] == "kernel":
                count += 1
                at = os.path.basename(args["at"])
                per_construct[at] = per_construct.get(at, 0) + round(e["dur"] * 1000)
        print("tid %d (%s): %d device slices, in order" % (tid, names[tid], len(evs)))
    if count != kernels:
        fail("%d kernel slices, %d launches" % (count, kernels))
    want = folded_totals(folded)
    if per_construct != want:
        fail("kernel time per construct %s, DEVICE_KERNEL says %s" % (per_construct, want))
    print("kernels: %d, per construct %s" % (count, per_construct))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "device":
        check_device(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        print("ok")
        sys.exit(0)
    if len(sys.argv) == 4 and sys.argv[1] == "take_short":
        write_take_short(sys.argv[2], sys.argv[3])
        print("ok")
        sys.exit(0)
    if len(sys.argv) == 3 and sys.argv[1] == "short":
        count_short(sys.argv[2])
        sys.exit(0)
    if len(sys.argv) != 3 or sys.argv[1] not in ("files", "drops", "chrome", "nesting"):
        print(__doc__)
        sys.exit(2)
    if sys.argv[1] in ("chrome", "nesting"):
        check_chrome(sys.argv[2], states=sys.argv[1] == "chrome")
    else:
        check_files(sys.argv[2], drops=sys.argv[1] == "drops")
    print("ok")
