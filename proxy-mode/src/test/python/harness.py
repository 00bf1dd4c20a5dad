"""Runs a client library's scenarios against the proxy and reports each on one line.

The proxy's address and credentials come from libpq's environment variables (PGHOST, PGPORT, PGDATABASE,
PGUSER, PGPASSWORD); PGMUX_POOL_MODE names its pool mode. Arguments name the scenarios to run, by default
every scenario that applies to the pool mode. Each prints "OK <name> <facts>" or "FAIL <name> <error>"
followed by its traceback; the exit code is the number of failures.

Below the runner, what the scenarios of more than one client script share.
"""
import os
import sys
import threading
import time
import traceback

POOL_MODE = os.environ.get("PGMUX_POOL_MODE", "session")
ALL_MODES = ("session", "transaction", "statement")
# Statement mode refuses transaction blocks: there, connections run in autocommit only.
TRANSACTIONS = POOL_MODE != "statement"
_scenarios = {}


def scenario(*modes):
    """Registers a function as a scenario for the given pool modes (all of them when none are given)."""
    def register(fn):
        _scenarios[fn.__name__] = (fn, modes or ALL_MODES)
        return fn
    return register


def named_scenario(fn):
    """Registers a function as a scenario that runs only when named: it needs a proxy set up for it."""
    _scenarios[fn.__name__] = (fn, ())
    return fn


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def main():
    names = sys.argv[1:] or [n for n, (_, modes) in _scenarios.items() if POOL_MODE in modes]
    failures = 0
    for name in names:
        fn, _ = _scenarios[name]
        try:
            facts = fn()
            print(f"OK {name} {facts or ''}".rstrip(), flush=True)
        except BaseException as e:  # noqa: BLE001 - every failure is reported, including KeyboardInterrupt
            failures += 1
            print(f"FAIL {name} {type(e).__name__}: {e}".replace("\n", " "), flush=True)
            for line in traceback.format_exc().splitlines():
                print(f"  {line}", flush=True)
    sys.exit(min(failures, 100))


def one_line(error):
    """An error's text on one line, as a report line wants it."""
    return " ".join(str(error).split())


def refused(connect, error):
    """The text of the error (of class error) that logging in with a wrong password raised."""
    try:
        connect(password="not-the-password").close()
    except error as e:
        return "refused: " + one_line(e)
    raise AssertionError("logged in with a wrong password")


def in_threads(work, workers, seconds=60):
    """Runs work(0) to work(workers - 1) each in its own thread, all at once; fails with every worker's error."""
    failures = []

    def run(w):
        try:
            work(w)
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append(f"worker {w}: {e!r}")

    threads = [threading.Thread(target=run, args=(w,)) for w in range(workers)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(seconds)
    check(not any(th.is_alive() for th in threads), f"workers still running after {seconds} s")
    check(not failures, "; ".join(failures))


def cancelled(cancel, run, error):
    """The error (of class error) that run() raised once cancel() was called half a second in, within 10 s."""
    timer = threading.Timer(0.5, cancel)
    timer.start()
    start = time.monotonic()
    try:
        run()
        raise AssertionError("the query was not cancelled")
    except error as e:
        raised = e
    finally:
        timer.cancel()
    elapsed = time.monotonic() - start
    check(elapsed < 10, f"cancelled after {elapsed:.1f} s")
    return raised
