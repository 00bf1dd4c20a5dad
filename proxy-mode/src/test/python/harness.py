"""Runs a client library's scenarios against the proxy and reports each on one line.

The proxy's address and credentials come from libpq's environment variables (PGHOST, PGPORT, PGDATABASE,
PGUSER, PGPASSWORD); PGMUX_POOL_MODE names its pool mode. Arguments name the scenarios to run, by default
every scenario that applies to the pool mode. Each prints "OK <name> <facts>" or "FAIL <name> <error>"
followed by its traceback; the exit code is the number of failures.
"""
import os
import sys
import traceback

POOL_MODE = os.environ.get("PGMUX_POOL_MODE", "session")
ALL_MODES = ("session", "transaction", "statement")
_scenarios = {}


def scenario(*modes):
    """Registers a function as a scenario for the given pool modes (all of them when none are given)."""
    def register(fn):
        _scenarios[fn.__name__] = (fn, modes or ALL_MODES)
        return fn
    return register


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
