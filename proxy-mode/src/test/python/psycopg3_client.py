"""psycopg 3 through the proxy: run by Psycopg3Test, see harness.py for the conventions."""
import asyncio
import select
import threading

import psycopg
from psycopg import errors

from harness import (POOL_MODE, TRANSACTIONS, cancelled, check, in_threads, main, named_scenario, one_line, refused,
                     scenario)


def connect(**kwargs):
    kwargs.setdefault("autocommit", True)
    kwargs.setdefault("connect_timeout", 10)
    return psycopg.connect(**kwargs)


def table(name, columns):
    """A fresh table of this pool mode's own."""
    t = f"pg3_{POOL_MODE}_{name}"
    with connect() as c:
        c.execute(f"DROP TABLE IF EXISTS {t}")
        c.execute(f"CREATE TABLE {t} ({columns})")
    return t


@scenario()
def login():
    with connect() as c:
        user, one = c.execute("SELECT current_user, 1").fetchone()
        check(one == 1, f"SELECT 1 gave {one}")
        return f"user={user}"


@scenario()
def wrong_password():
    return refused(connect, psycopg.OperationalError)


@scenario()
def simple_query():
    with connect() as c:
        # without parameters psycopg sends a simple Query; two statements give two results
        cur = c.execute("SELECT 1 + 1; SELECT 'two'")
        first = cur.fetchone()[0]
        check(cur.nextset(), "no second result")
        second = cur.fetchone()[0]
        return f"results={first},{second}"


@scenario()
def server_side_binding():
    t = table("binding", "id int, name text")
    with connect() as c:
        row = c.execute("SELECT %s::int + %s, %s::text, %s::text", (20, 22, "it's", None)).fetchone()
        check(row == (42, "it's", None), f"text parameters gave {row}")
        binary = c.cursor(binary=True).execute("SELECT %s::bigint * 2, %b::bytea", (21, b"\x00\xff")).fetchone()
        check(binary == (42, b"\x00\xff"), f"binary parameters gave {binary}")
        c.cursor().executemany(f"INSERT INTO {t} VALUES (%s, %s)", [(i, f"v{i}") for i in range(100)])
        count, total = c.execute(f"SELECT count(*), sum(id) FROM {t} WHERE name = 'v' || id").fetchone()
        return f"row={row[0]} binary={binary[0]} inserted={count} sum={total}"


@scenario()
def prepared():
    with connect() as a, connect() as b:
        a.prepare_threshold = 0
        results = [a.execute("SELECT %s::int * 2", (i,)).fetchone()[0] for i in range(5)]
        if TRANSACTIONS:
            # b keeps a server connection in its transaction: a must run its statement on another one
            b.execute("BEGIN")
            b.execute("SELECT %s::int * 2", (100,), prepare=True)
        results += [a.execute("SELECT %s::int * 2", (i,)).fetchone()[0] for i in range(5, 10)]
        if TRANSACTIONS:
            b.execute("COMMIT")
        results += [b.execute("SELECT %s::int * 2", (i,), prepare=True).fetchone()[0] for i in range(10, 15)]
        check(results == [i * 2 for i in range(15)], f"results {results}")
        names = a.execute("SELECT %s::text", ("named",), prepare=True).fetchone()[0]
        return f"results={len(results)} last={results[-1]} text={names}"


@scenario("session", "transaction")
def transactions():
    t = table("transactions", "id int")
    with connect(autocommit=False) as c:
        c.execute(f"INSERT INTO {t} VALUES (1)")
        c.commit()
        c.execute(f"INSERT INTO {t} VALUES (2)")
        c.rollback()
        with c.transaction():
            c.execute(f"INSERT INTO {t} VALUES (3)")
            try:
                with c.transaction():  # a savepoint
                    c.execute(f"INSERT INTO {t} VALUES (4)")
                    c.execute("SELECT 1 / 0")
            except errors.DivisionByZero as e:
                division = e.sqlstate
        c.execute(f"INSERT INTO {t} VALUES (5)")
        try:
            c.execute("SELECT * FROM no_such_table")
        except errors.UndefinedTable:
            pass
        try:
            c.execute("SELECT 1")
        except errors.InFailedSqlTransaction as e:
            in_failed = e.sqlstate
        c.rollback()
        ids = c.execute(f"SELECT string_agg(id::text, ',' ORDER BY id) FROM {t}").fetchone()[0]
        c.commit()
        return f"ids={ids} savepoint_error={division} in_failed={in_failed}"


@scenario()
def syntax_error():
    with connect() as c:
        try:
            c.execute("SELEC 1")
            raise AssertionError("no error")
        except errors.SyntaxError as e:
            simple = e.sqlstate
        after = c.execute("SELECT 1").fetchone()[0]
        return f"sqlstate={simple} after={after}"


@scenario()
def syntax_error_extended():
    with connect() as c:
        try:
            c.execute("SELEC %s", (1,))
            raise AssertionError("no error")
        except errors.SyntaxError as e:
            state = e.sqlstate
        after = c.execute("SELECT %s::int", (1,)).fetchone()[0]
        return f"sqlstate={state} after={after}"


@scenario()
def copy():
    t = table("copy", "id int, name text")
    rows = [(i, f"row {i}\twith tab") for i in range(5000)]
    with connect() as c, c.cursor() as cur:
        with cur.copy(f"COPY {t} (id, name) FROM STDIN") as cp:
            for r in rows:
                cp.write_row(r)
        copied_in = cur.rowcount
        out = []
        with cur.copy(f"COPY (SELECT id, name FROM {t} ORDER BY id) TO STDOUT") as cp:
            cp.set_types(["int4", "text"])
            out.extend(cp.rows())
        check(out == rows, "COPY TO gave other rows than COPY FROM took")
        try:
            with cur.copy(f"COPY {t} FROM STDIN") as cp:
                cp.write_row((-1, "never stored"))
                raise RuntimeError("the client gives up")  # psycopg sends CopyFail
        except (RuntimeError, errors.QueryCanceled):  # psycopg 3.1 raises the server's 57014
            pass
        try:
            with cur.copy(f"COPY {t} FROM STDIN") as cp:
                cp.write("not a number\tx\n")
            raise AssertionError("bad COPY data accepted")
        except errors.InvalidTextRepresentation as e:
            bad_data = e.sqlstate
        count = c.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
        return f"copied_in={copied_in} copied_out={len(out)} bad_data={bad_data} count={count}"


@scenario()
def large_result():
    with connect() as c:
        rows = c.execute("SELECT g, repeat('x', 50) FROM generate_series(1, 100000) g").fetchall()
        return f"rows={len(rows)} sum={sum(r[0] for r in rows)}"


@scenario()
def streamed_result():
    with connect() as c:
        streamed = 0
        for (g,) in c.cursor().stream("SELECT g FROM generate_series(1, %s) g", (100000,)):
            streamed += 1
            check(g == streamed, f"row {streamed} is {g}")
        after = c.execute("SELECT 1").fetchone()[0]
        return f"rows={streamed} after={after}"


@scenario()
def concurrency():
    t = table("concurrency", "worker int, i int")
    workers, rounds = 20, 10

    def work(w):
        with connect(autocommit=not TRANSACTIONS) as c:
            for i in range(rounds):
                if TRANSACTIONS:
                    with c.transaction():
                        c.execute("SELECT set_config('application_name', %s, true)", (f"worker {w}",))
                        c.execute(f"INSERT INTO {t} VALUES (%s, %s)", (w, i))
                        seen = c.execute(f"SELECT count(*) FROM {t} WHERE worker = %s", (w,)).fetchone()[0]
                        name = c.execute("SELECT current_setting('application_name')").fetchone()[0]
                        check(seen == i + 1 and name == f"worker {w}",
                              f"worker {w} round {i} saw {seen} rows, application_name {name!r}")
                else:
                    got = c.execute(f"INSERT INTO {t} VALUES (%s, %s) RETURNING worker, i", (w, i)).fetchone()
                    check(got == (w, i), f"worker {w} round {i} got {got}")

    in_threads(work, workers)
    with connect() as c:
        count, per_worker = c.execute(
            f"SELECT count(*), count(DISTINCT (worker, i)) FROM {t}").fetchone()
    return f"workers={workers} rows={count} distinct={per_worker}"


@scenario()
def pipeline():
    with connect() as c:
        with c.pipeline() as p:
            cursors = [c.execute("SELECT %s::int * 3", (i,)) for i in range(20)]
            p.sync()
            cursors.append(c.execute("SELECT %s::int", (60,)))
        results = [cur.fetchone()[0] for cur in cursors]
        check(results == [i * 3 for i in range(21)], f"results {results}")
        try:
            with c.pipeline():
                c.execute("SELECT %s::int / 0", (1,))
                c.execute("SELECT %s::int", (2,))
            raise AssertionError("no error from the pipeline")
        except errors.DivisionByZero as e:
            state = e.sqlstate
        after = c.execute("SELECT %s::int", (1,)).fetchone()[0]
        return f"results={len(results)} error={state} after={after}"


@scenario()
def async_connections():
    async def one(i):
        async with await psycopg.AsyncConnection.connect(autocommit=True, connect_timeout=10) as c:
            cur = await c.execute("SELECT %s::int, pg_sleep(0.05)", (i,))
            return (await cur.fetchone())[0]

    async def run():
        return await asyncio.gather(*(one(i) for i in range(10)))

    got = asyncio.run(run())
    check(got == list(range(10)), f"results {got}")
    return f"connections={len(got)}"


@scenario()
def notify():
    with connect() as listener, connect() as notifier:
        listener.execute("LISTEN pgmux_channel")
        notifier.execute("SELECT pg_notify(%s, %s)", ("pgmux_channel", "hello"))
        # the notification arrives while the listener sends nothing
        readable, _, _ = select.select([listener.fileno()], [], [], 5)
        check(readable, "no notification within 5 s")
        received = listener.notifies()
        n = next(received)
        received.close()
        return f"channel={n.channel} payload={n.payload}"


@scenario("statement")
def transaction_refused():
    c = connect(autocommit=False)
    try:
        c.execute("SELECT 1")  # psycopg sends BEGIN first
        raise AssertionError("a transaction block ran in statement mode")
    except psycopg.OperationalError as e:
        error = one_line(e)
    finally:
        c.close()
    with connect() as d:
        after = d.execute("SELECT 1").fetchone()[0]
    return f"after={after} error={error}"


# Last: a cancel has been seen to land late, in a later statement on the same server connection (README).
@scenario()
def cancel():
    with connect() as c:
        state = cancelled(c.cancel, lambda: c.execute("SELECT pg_sleep(%s)", (20,)), errors.QueryCanceled).sqlstate
        after = c.execute("SELECT 1").fetchone()[0]
        return f"sqlstate={state} after={after}"



@named_scenario
def pooler_notices():
    """Run with a pool of one server and query_wait_notify = 1: the second client is told it is queued."""
    queued = threading.Event()
    with connect() as holder, connect() as waiter:
        holder.autocommit = False
        holder.execute("SELECT 1")
        notices = []

        def heard(diag):
            notices.append(f"{diag.severity} {diag.sqlstate}: {diag.message_primary}")
            queued.set()
        waiter.add_notice_handler(heard)
        result = []
        t = threading.Thread(target=lambda: result.append(waiter.execute("SELECT 2").fetchone()[0]))
        t.start()
        check(queued.wait(30), "no notice while queued")
        holder.rollback()
        t.join(30)
        check(result == [2], f"the waiter got {result}")
        return "notice=" + notices[0]

if __name__ == "__main__":
    main()
