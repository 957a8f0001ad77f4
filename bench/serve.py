"""Load test of `fortap serve` on loopback against the engine called in-process, in the same run.

A generated sales workbook (40 regions x 12 months; the empty row and column totals are the
targets), and any real workbook given with `--book` (16 of its formula cells), is opened once
in-process with `Suggester`, and uploaded once to `fortap serve --quiet` running as a subprocess
on a free 127.0.0.1 port. `--requests` suggest calls are then timed three ways: in-process (the
baseline), by 1 and by 4 concurrent keep-alive HTTP clients, interleaved in `--rounds` rounds
so that the shared machine's load changes hit all three alike. Last, memory: upload / suggest /
accept / download / delete cycles; the server's RSS is read after `--warmup` requests and again
after `--cycle-requests` more. Every loop is bounded in count and in `--max-seconds`.

    python bench/serve.py --json out.json
    python bench/serve.py --book ../shared/data/euses_excelint/subjects_xlsx/fin_accounts.xlsx

Targets (issue 20), per workbook: at 1 client p50 <= in-process p50 + 5 ms; at 4 clients
requests/s >= 0.8 x in-process (one call after another); no error; RSS after the cycles within
10 % of RSS after the warm-up.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import numpy as np

P50_EXTRA_MS, RPS_SHARE, RSS_GROWTH = 5.0, 0.8, 0.10
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def build_book(path: Path) -> list[tuple[str, str]]:
    """Write the sales workbook; return its target cells (the empty totals)."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["Region", *MONTHS, "Total"])
    for r in range(2, 42):
        ws.append([f"Region {r - 1}", *[(r * 37 + m * 11) % 500 + 100 for m in range(12)]])
        if r <= 31:
            ws.cell(r, 14, f"=SUM(B{r}:M{r})")
    ws.cell(42, 1, "Total")
    for col in "BCDEFG":
        ws[f"{col}42"] = f"=SUM({col}2:{col}41)"
    wb.save(path)
    cells = [f"N{r}" for r in range(32, 42)] + [f"{col}42" for col in "HIJKLM"]
    return [("Sales", cell) for cell in cells]


def formula_targets(sug, n: int = 16) -> list[tuple[str, str]]:
    """`n` formula cells spread over a real workbook (the engine hides each cell's formula)."""
    from fortap.sheet.model import a1

    cells = [(s.name, a1(r, c)) for s in sug.workbook.sheets for r, c, _ in s.formula_cells()]
    if not cells:
        raise SystemExit("the workbook has no formula cell to ask about")
    return cells[:: max(1, len(cells) // n)][:n]


def stats(ms: list[float], wall_s: float) -> dict:
    return {
        "n": len(ms),
        "p50_ms": float(np.percentile(ms, 50)) if ms else float("nan"),
        "p99_ms": float(np.percentile(ms, 99)) if ms else float("nan"),
        "rps": len(ms) / wall_s if wall_s > 0 else 0.0,
    }


def run_calls(make_call, n: int, clients: int, max_s: float) -> tuple[list[float], float, int]:
    """`n` calls shared by `clients` threads; each thread gets its own `make_call()` callable
    (index -> ok). Returns the per-call ms, the wall seconds and the failed calls."""
    counter, lock = itertools.count(), threading.Lock()
    ms: list[float] = []
    errors = [0]
    start = time.perf_counter()

    def work() -> None:
        call = make_call()
        while (i := next(counter)) < n and time.perf_counter() - start < max_s:
            t = time.perf_counter()
            ok = call(i)
            took = 1e3 * (time.perf_counter() - t)
            with lock:
                ms.append(took)
                errors[0] += not ok

    threads = [threading.Thread(target=work) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return ms, time.perf_counter() - start, errors[0]


class Server:
    """`fortap serve --quiet` in a subprocess on a free loopback port."""

    def __init__(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        cmd = [sys.executable, "-m", "fortap", "serve", "--port", str(self.port), "--quiet"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            try:
                status, page = request(self.connect(), "GET", "/")
                if status == 200:  # the page carries the token that state-changing calls send
                    PAGE_HEADERS["X-Fortap-Token"] = page_token(page.decode())
                    return
            except OSError:
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.stop()
                raise SystemExit("fortap serve did not start within 60 s")
            time.sleep(0.1)

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


PAGE_HEADERS: dict[str, str] = {}  # what the served page sends with every request


def page_token(html: str) -> str:
    found = re.search(r'<meta name="fortap-token" content="([^"]+)">', html)
    if found is None:
        raise SystemExit("the served page carries no token")
    return found.group(1)


def request(conn, method: str, path: str, body: bytes | None = None, headers=None):
    conn.request(method, path, body=body, headers={**PAGE_HEADERS, **(headers or {})})
    response = conn.getresponse()
    return response.status, response.read()


def upload(conn, data: bytes, name: str) -> str:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
    status, out = request(conn, "POST", "/workbooks", body, headers)
    if status != 201:
        raise SystemExit(f"upload failed: {status} {out[:200]!r}")
    return json.loads(out)["id"]


def suggest(conn, book: str, target: tuple[str, str]) -> int:
    body = json.dumps({"sheet": target[0], "cell": target[1], "k": 5}).encode()
    headers = {"Content-Type": "application/json"}
    return request(conn, "POST", f"/workbooks/{book}/suggest", body, headers)[0]


def cycles(server: Server, data: bytes, name: str, targets, n: int, max_s: float):
    """Upload, 8 suggests, accept one, download, delete: repeated for `n` requests."""
    conn, done, errors, start = server.connect(), 0, 0, time.perf_counter()
    sheet, cell = targets[0]
    while done < n and time.perf_counter() - start < max_s:
        book = upload(conn, data, name)
        for target in targets[:8]:
            errors += suggest(conn, book, target) != 200
        write = {"sheet": sheet, "cell": cell, "formula": "=1+1"}
        body, headers = json.dumps(write).encode(), {"Content-Type": "application/json"}
        errors += request(conn, "POST", f"/workbooks/{book}/cells", body, headers)[0] != 200
        errors += request(conn, "GET", f"/workbooks/{book}/download")[0] != 200
        errors += request(conn, "DELETE", f"/workbooks/{book}")[0] != 204
        done += 4 + len(targets[:8])
    conn.close()
    return done, errors


def compare(server: Server, path: Path, targets, args) -> list[dict]:
    """In-process, 1 and 4 HTTP clients on one workbook, interleaved in `--rounds` rounds so
    that a change in the machine's load hits all three alike."""
    from fortap.suggest.engine import Suggester

    sug = Suggester.open(path)
    book = upload(server.connect(), path.read_bytes(), path.name)

    def in_process():
        return lambda i: sug.suggest(*targets[i % len(targets)], 5) is not None

    def http_client():
        conn = server.connect()
        return lambda i: suggest(conn, book, targets[i % len(targets)]) == 200

    settings = [("in-process", 1, in_process), ("http", 1, http_client), ("http", 4, http_client)]
    pooled = {key: ([], 0.0, 0) for key in range(len(settings))}
    for _, clients, make in settings:  # warm-up: first calls fill caches
        run_calls(make, 2 * len(targets), clients, args.max_seconds)
    per_round = max(1, args.requests // args.rounds)
    for _ in range(args.rounds):
        for key, (_, clients, make) in enumerate(settings):
            ms, wall, errors = run_calls(make, per_round, clients, args.max_seconds)
            old = pooled[key]
            pooled[key] = (old[0] + ms, old[1] + wall, old[2] + errors)
    request(server.connect(), "DELETE", f"/workbooks/{book}")
    return [
        {"book": path.name, "setting": name, "clients": clients,
         **stats(pooled[key][0], pooled[key][1]), "errors": pooled[key][2]}
        for key, (name, clients, _) in enumerate(settings)
    ]  # fmt: skip


def book_targets(row_targets: list[dict], base_rows: list[dict]) -> list[dict]:
    out = []
    for base in base_rows:
        one, four = (
            next(r for r in row_targets if r["book"] == base["book"] and r["clients"] == c)
            for c in (1, 4)
        )
        limit_ms, limit_rps = base["p50_ms"] + P50_EXTRA_MS, RPS_SHARE * base["rps"]
        out += [
            {"name": f"{base['book']}: p50 at 1 client (ms)", "value": one["p50_ms"],
             "target": limit_ms, "met": one["p50_ms"] <= limit_ms},
            {"name": f"{base['book']}: requests/s at 4 clients", "value": four["rps"],
             "target": limit_rps, "met": four["rps"] >= limit_rps},
        ]  # fmt: skip
    return out


def print_report(rows: list[dict], base_rows: list[dict], memory: dict, targets: list[dict]):
    rss_warm, rss_end, growth = memory["rss_warm_mb"], memory["rss_end_mb"], memory["growth"]
    warm, done = memory["warmup_requests"], memory["cycle_requests"]
    print(f"{'workbook':<24} {'setting':<11} {'clients':>7} {'n':>5} {'p50 ms':>8} "
          f"{'p99 ms':>8} {'req/s':>8} {'errors':>6}")  # fmt: skip
    for r in rows:
        print(f"{r['book'][:24]:<24} {r['setting']:<11} {r['clients']:>7} {r['n']:>5} "
              f"{r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} {r['rps']:>8.1f} {r['errors']:>6}")  # fmt: skip
    for base in base_rows:
        one, four = (r for r in rows if r["book"] == base["book"] and r["setting"] == "http")
        print(f"{base['book']}: 1-client p50 - in-process p50 {one['p50_ms'] - base['p50_ms']:+.2f} ms; "
              f"4-client req/s / in-process {four['rps'] / base['rps']:.2f}")  # fmt: skip
    print(f"RSS {rss_warm:.1f} MB after {warm} cycle requests, {rss_end:.1f} MB after {done} "
          f"more ({100 * growth:+.1f} %)")  # fmt: skip
    for t in targets:
        print(f"target {t['name']}: {t['value']:.3g} vs {t['target']:.3g} -> "
              f"{'met' if t['met'] else 'NOT met'}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--book", type=Path, action="append", default=[],
                    help="a real workbook to load-test too (its formula cells are the targets)")  # fmt: skip
    ap.add_argument("--requests", type=int, default=500, help="suggest calls per setting")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds they are split in")
    ap.add_argument("--warmup", type=int, default=200, help="cycle requests before the 1st RSS")
    ap.add_argument("--cycle-requests", type=int, default=2000, help="cycle requests measured")
    ap.add_argument("--max-seconds", type=float, default=240.0, help="bound on each loop")
    ap.add_argument("--json", type=Path, help="write results and targets here")
    args = ap.parse_args()
    from fortap.suggest.engine import Suggester

    folder = Path(tempfile.mkdtemp(prefix="fortap-bench-serve-"))
    sales = folder / "sales.xlsx"
    books = [(sales, build_book(sales))]
    books += [(p, formula_targets(Suggester.open(p))) for p in args.book]
    rows: list[dict] = []
    server = Server()
    try:
        for path, targets in books:
            rows += compare(server, path, targets, args)
    finally:
        server.stop()
    # memory on a fresh server, so the comparison's workbooks do not sit in the first reading
    server = Server()
    try:
        data, sales_targets = sales.read_bytes(), books[0][1]
        warm, warm_errors = cycles(
            server, data, "sales.xlsx", sales_targets, args.warmup, args.max_seconds
        )
        rss_warm = server.rss_mb()
        done, cycle_errors = cycles(
            server, data, "sales.xlsx", sales_targets, args.cycle_requests, args.max_seconds
        )
        rss_end = server.rss_mb()
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    errors = sum(r["errors"] for r in rows) + warm_errors + cycle_errors
    growth = rss_end / rss_warm - 1
    complete = all(r["n"] >= args.requests - args.rounds for r in rows)
    complete = complete and done >= args.cycle_requests
    memory = {"warmup_requests": warm, "rss_warm_mb": rss_warm,
              "cycle_requests": done, "rss_end_mb": rss_end, "growth": growth}  # fmt: skip
    base_rows = [r for r in rows if r["setting"] == "in-process"]
    targets_out = book_targets([r for r in rows if r["setting"] == "http"], base_rows)
    targets_out += [
        {"name": "errors (and every loop complete)", "value": errors, "target": 0,
         "met": errors == 0 and complete},
        {"name": "RSS growth over the cycles", "value": growth, "target": RSS_GROWTH,
         "met": abs(growth) <= RSS_GROWTH},
    ]  # fmt: skip
    print_report(rows, base_rows, memory, targets_out)
    if args.json:
        out = {"results": rows, "memory": memory, "targets": targets_out}
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
