#!/usr/bin/env python3
"""Clients that cost the server without asking for much, and what they cost the others.

Serves the demo with the release binary (as of a fixed now) on 127.0.0.1, then:

  1. idle: the server's resident memory (VmRSS) after one /triage and one /log.csv, and
     /triage's latency (p50/p99 over REQUESTS sequential requests from 127.0.0.1, gzip asked,
     one kept-alive connection);
  2. slow readers: READERS connections ask /log.csv?days=30 (gzip, as a browser) and never read
     the answer, from 127.0.0.2 (another client than the one measuring) or, with --spread N,
     from N addresses 127.0.0.2… in turn; meanwhile /triage's latency again and the peak
     VmRSS; how the readers were answered (200, 429, 503, closed, nothing yet);
  3. the readers gone: VmRSS;
  4. unfinished heads: HEADS connections send half a request head and nothing more; how many
     are still open after WAIT seconds.

Figures, not a test (make load-slow).
  end2end/load/slow_readers.py [--bin target/release/sundial] [--readers 300] [--spread 1]
                               [--requests 200] [--heads 300] [--wait 10] [--port 3917]
"""
import argparse
import http.client
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

NOW = "2026-11-22T12:00:00Z"


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def wait_up(port, proc):
    for _ in range(600):
        if proc.poll() is not None:
            sys.exit(f"the server exited ({proc.returncode})")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/api/health")
            if c.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    sys.exit("the server did not answer /api/health")


def latency(port, n):
    """p50 and p99 of /triage in ms, over n sequential requests on one connection."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    times = []
    for _ in range(n):
        t = time.perf_counter()
        c.request("GET", "/triage", headers={"Accept-Encoding": "gzip"})
        r = c.getresponse()
        r.read()
        if r.status != 200:
            sys.exit(f"/triage answered {r.status}")
        times.append((time.perf_counter() - t) * 1000)
    c.close()
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.99))]


def connect_from(ip, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((ip, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    return s


def state_of(s):
    """What a socket we never read says so far, without taking it from the buffer."""
    s.setblocking(False)
    try:
        head = s.recv(12, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except BlockingIOError:
        return "nothing yet"
    except OSError:
        return "reset"
    if not head:
        return "closed"
    return head.decode(errors="replace").split(" ", 1)[-1].strip() or "?"


def still_open(s):
    """Whether the server still holds s open (reads what it sent, if anything)."""
    s.setblocking(False)
    try:
        while True:
            data = s.recv(65536, socket.MSG_DONTWAIT)
            if not data:
                return False
    except BlockingIOError:
        return True
    except OSError:
        return False


def main():
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.environ.get("SUNDIAL_BIN", os.path.join(repo, "target/release/sundial")))
    ap.add_argument("--port", type=int, default=3917)
    ap.add_argument("--readers", type=int, default=300)
    ap.add_argument("--spread", type=int, default=1, help="addresses the readers come from")
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--heads", type=int, default=300)
    ap.add_argument("--wait", type=float, default=10)
    ap.add_argument("--settle", type=float, default=5, help="seconds the readers are given before measuring")
    ap.add_argument("--plain", action="store_true", help="the readers do not ask for gzip (as curl)")
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        sys.exit(f"no release binary at {a.bin}: run make build")

    work = tempfile.mkdtemp(prefix="sundial-slow-")
    proc = subprocess.Popen(
        [a.bin, "serve", "--addr", f"127.0.0.1:{a.port}", "--now", NOW, "--demo-db", work, "--site-root", work],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_up(a.port, proc)
        c = http.client.HTTPConnection("127.0.0.1", a.port, timeout=60)
        c.request("GET", "/log.csv?days=30", headers={"Accept-Encoding": "gzip"})
        r = c.getresponse()
        size = len(r.read())
        c.close()
        latency(a.port, 20)  # warm
        idle = rss_mb(proc.pid)
        p50, p99 = latency(a.port, a.requests)
        print(f"binary: {a.bin}")
        print(f"/log.csv?days=30: {r.status}, {size} bytes gzipped")
        print(f"idle:          RSS {idle:7.1f} MB   /triage p50 {p50:6.1f} ms  p99 {p99:6.1f} ms")

        encoding = b"identity" if a.plain else b"gzip"
        request = b"GET /log.csv?days=30 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: " + encoding + b"\r\n\r\n"
        readers = []
        for i in range(a.readers):
            ip = f"127.0.0.{2 + i % a.spread}"
            try:
                s = connect_from(ip, a.port)
                s.sendall(request)
                readers.append(s)
            except OSError as e:
                print(f"reader {i}: {e}")
        peak = [rss_mb(proc.pid)]
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                peak[0] = max(peak[0], rss_mb(proc.pid))
                time.sleep(0.05)

        sampler = threading.Thread(target=sample)
        sampler.start()
        time.sleep(a.settle)  # let the server fill what it will
        p50, p99 = latency(a.port, a.requests)
        stop.set()
        sampler.join()
        states = {}
        for s in readers:
            k = state_of(s)
            states[k] = states.get(k, 0) + 1
        print(
            f"{a.readers} slow readers ({encoding.decode()}) from {a.spread} address(es): RSS peak {peak[0]:7.1f} MB (+{peak[0] - idle:.1f})"
            f"   /triage p50 {p50:6.1f} ms  p99 {p99:6.1f} ms"
        )
        print("  readers answered: " + ", ".join(f"{k}: {v}" for k, v in sorted(states.items())))
        for s in readers:
            s.close()
        time.sleep(2)
        print(f"readers gone:  RSS {rss_mb(proc.pid):7.1f} MB")

        heads = []
        for i in range(a.heads):
            try:
                s = connect_from("127.0.0.2", a.port)
                s.sendall(b"GET /triage HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                heads.append(s)
            except OSError as e:
                print(f"head {i}: {e}")
        time.sleep(a.wait)
        open_ = sum(1 for s in heads if still_open(s))
        print(f"{a.heads} unfinished heads: {open_} still open after {a.wait:g} s")
        for s in heads:
            s.close()
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
