"""psycopg2 through the proxy: run by Psycopg2Test, see harness.py for the conventions.

psycopg2 binds parameters on the client and sends everything as simple Query messages.
"""
import io
import select

import psycopg2
import psycopg2.errors
import psycopg2.extras

from harness import POOL_MODE, TRANSACTIONS, cancelled, check, in_threads, main, one_line, refused, scenario


def connect(autocommit=True, **kwargs):
    kwargs.setdefault("connect_timeout", 10)
    c = psycopg2.connect(**kwargs)
    c.autocommit = autocommit
    return c


def one(conn, query, params=None):
    with conn.cursor() as cur:
        cur.execute(query, params)
        return cur.fetchone()


def table(name, columns):
    """A fresh table of this pool mode's own."""
    t = f"pg2_{POOL_MODE}_{name}"
    c = connect()
    try:
        with c.cursor() as cur:
            cur.execute(f"DROP TABLE IF EXISTS {t}; CREATE TABLE {t} ({columns})")
    finally:
        c.close()
    return t


@scenario()
def login():
    c = connect()
    try:
        user, n = one(c, "SELECT current_user, 1")
        check(n == 1, f"SELECT 1 gave {n}")
        return f"user={user}"
    finally:
        c.close()


@scenario()
def logical_replication():
    """A LogicalReplicationConnection gets a walsender of its own: a test_decoding slot streams a change."""
    t = table("replicated", "a int")
    r = psycopg2.connect(connection_factory=psycopg2.extras.LogicalReplicationConnection, connect_timeout=10)
    try:
        cur = r.cursor()
        # TEMPORARY: the slot goes with the connection
        cur.execute(f"CREATE_REPLICATION_SLOT pg2_{POOL_MODE}_slot TEMPORARY LOGICAL test_decoding")
        cur.start_replication(slot_name=f"pg2_{POOL_MODE}_slot", decode=True)
        c = connect()
        try:
            with c.cursor() as insert:
                insert.execute(f"INSERT INTO {t} VALUES (7)")
        finally:
            c.close()
        for _ in range(300):
            message = cur.read_message()
            if message is None:
                select.select([cur], [], [], 0.1)
            elif "INSERT" in message.payload:
                check(message.payload.endswith("INSERT: a[integer]:7"), message.payload)
                return "change=INSERT a=7"
        raise AssertionError("no change streamed within 30 s")
    finally:
        r.close()


@scenario()
def wrong_password():
    return refused(connect, psycopg2.OperationalError)


@scenario()
def simple_query():
    c = connect()
    try:
        first = one(c, "SELECT 1 + 1")[0]
        # psycopg2 keeps the last result of a multi-statement query
        second = one(c, "SELECT 'one'; SELECT 'two'")[0]
        return f"results={first},{second}"
    finally:
        c.close()


@scenario()
def client_side_binding():
    t = table("binding", "id int, name text, tags text[]")
    c = connect()
    try:
        with c.cursor() as cur:
            cur.execute("SELECT %(a)s + %(b)s, %(s)s, %(bytes)s, %(x)s::text IS NULL",
                        {"a": 20, "b": 22, "s": "it's", "bytes": psycopg2.Binary(b"\x00\xff"), "x": None})
            total, text, raw, null = cur.fetchone()
            check((text, bytes(raw), null) == ("it's", b"\x00\xff", True), f"got {text!r} {raw!r} {null}")
            psycopg2.extras.execute_values(cur, f"INSERT INTO {t} VALUES %s",
                                           [(i, f"v{i}", ["a", "b"]) for i in range(50)])
            psycopg2.extras.execute_batch(cur, f"INSERT INTO {t} VALUES (%s, %s, %s)",
                                          [(i, f"v{i}", []) for i in range(50, 100)])
            cur.execute(f"SELECT count(*), sum(id) FROM {t} WHERE name = 'v' || id")
            count, id_sum = cur.fetchone()
        return f"row={total} inserted={count} sum={id_sum}"
    finally:
        c.close()


@scenario("session", "transaction")
def transactions():
    t = table("transactions", "id int")
    c = connect(autocommit=False)
    try:
        cur = c.cursor()
        cur.execute(f"INSERT INTO {t} VALUES (1)")
        c.commit()
        cur.execute(f"INSERT INTO {t} VALUES (2)")
        c.rollback()
        cur.execute(f"INSERT INTO {t} VALUES (3)")
        cur.execute("SAVEPOINT s")
        cur.execute(f"INSERT INTO {t} VALUES (4)")
        try:
            cur.execute("SELECT 1 / 0")
        except psycopg2.errors.DivisionByZero as e:
            division = e.pgcode
        cur.execute("ROLLBACK TO SAVEPOINT s")
        c.commit()
        cur.execute(f"INSERT INTO {t} VALUES (5)")
        try:
            cur.execute("SELECT * FROM no_such_table")
        except psycopg2.errors.UndefinedTable:
            pass
        try:
            cur.execute("SELECT 1")
        except psycopg2.errors.InFailedSqlTransaction as e:
            in_failed = e.pgcode
        c.rollback()
        cur.execute(f"SELECT string_agg(id::text, ',' ORDER BY id) FROM {t}")
        ids = cur.fetchone()[0]
        c.commit()
        return f"ids={ids} savepoint_error={division} in_failed={in_failed}"
    finally:
        c.close()


@scenario()
def syntax_error():
    c = connect()
    try:
        try:
            one(c, "SELEC 1")
            raise AssertionError("no error")
        except psycopg2.errors.SyntaxError as e:
            state = e.pgcode
        after = one(c, "SELECT 1")[0]
        return f"sqlstate={state} after={after}"
    finally:
        c.close()


class _FailingReader(io.RawIOBase):
    """A COPY source that breaks after its first chunk: psycopg2 then sends CopyFail."""

    def __init__(self):
        self.calls = 0

    def readable(self):
        return True

    def read(self, size=-1):
        self.calls += 1
        if self.calls > 1:
            raise OSError("the source broke")
        return b"-1\tnever stored\n"


@scenario()
def copy():
    t = table("copy", "id int, name text")
    data = "".join(f"{i}\trow {i}\\twith tab\n" for i in range(5000))
    c = connect()
    try:
        with c.cursor() as cur:
            cur.copy_expert(f"COPY {t} (id, name) FROM STDIN", io.StringIO(data))
            copied_in = cur.rowcount
            out = io.StringIO()
            cur.copy_expert(f"COPY (SELECT id, name FROM {t} ORDER BY id) TO STDOUT", out)
            check(out.getvalue() == data, "COPY TO gave other rows than COPY FROM took")
            try:
                cur.copy_expert(f"COPY {t} FROM STDIN", _FailingReader())
                raise AssertionError("a broken COPY source went unnoticed")
            except (OSError, psycopg2.errors.QueryCanceled):
                pass
            try:
                cur.copy_expert(f"COPY {t} FROM STDIN", io.StringIO("not a number\tx\n"))
                raise AssertionError("bad COPY data accepted")
            except psycopg2.errors.InvalidTextRepresentation as e:
                bad_data = e.pgcode
            cur.execute(f"SELECT count(*) FROM {t}")
            count = cur.fetchone()[0]
        return f"copied_in={copied_in} copied_out={out.getvalue().count(chr(10))} bad_data={bad_data} count={count}"
    finally:
        c.close()


@scenario()
def large_result():
    c = connect()
    try:
        with c.cursor() as cur:
            cur.execute("SELECT g, repeat('x', 50) FROM generate_series(1, 100000) g")
            rows = cur.fetchall()
        return f"rows={len(rows)} sum={sum(r[0] for r in rows)}"
    finally:
        c.close()


@scenario("session", "transaction")
def server_cursor():
    # a named cursor is DECLAREd in a transaction and FETCHed from in batches of itersize
    c = connect(autocommit=False)
    try:
        with c.cursor("big") as cur:
            cur.itersize = 5000
            cur.execute("SELECT g FROM generate_series(1, 100000) g")
            fetched = 0
            for (g,) in cur:
                fetched += 1
                check(g == fetched, f"row {fetched} is {g}")
        c.commit()
        return f"rows={fetched}"
    finally:
        c.close()


@scenario()
def held_cursor():
    # a named cursor WITH HOLD outlives its transaction: in autocommit each FETCH is a transaction of its own,
    # and in transaction and statement mode the server holding the cursor must stay with the client
    c = connect()
    try:
        with c.cursor("held", withhold=True) as cur:
            cur.itersize = 2
            cur.execute("SELECT g FROM generate_series(1, 5) g")
            got = [g for (g,) in cur]
        check(got == [1, 2, 3, 4, 5], f"rows {got}")
        return f"rows={len(got)}"
    finally:
        c.close()


@scenario()
def concurrency():
    t = table("concurrency", "worker int, i int")
    workers, rounds = 20, 10

    def work(w):
        c = connect(autocommit=not TRANSACTIONS)
        try:
            with c.cursor() as cur:
                for i in range(rounds):
                    if TRANSACTIONS:
                        cur.execute("SELECT set_config('application_name', %s, true)", (f"worker {w}",))
                        cur.execute(f"INSERT INTO {t} VALUES (%s, %s)", (w, i))
                        cur.execute(f"SELECT count(*), current_setting('application_name') FROM {t} "
                                    "WHERE worker = %s", (w,))
                        seen, name = cur.fetchone()
                        c.commit()
                        check(seen == i + 1 and name == f"worker {w}",
                              f"worker {w} round {i} saw {seen} rows, application_name {name!r}")
                    else:
                        cur.execute(f"INSERT INTO {t} VALUES (%s, %s) RETURNING worker, i", (w, i))
                        got = cur.fetchone()
                        check(got == (w, i), f"worker {w} round {i} got {got}")
        finally:
            c.close()

    in_threads(work, workers)
    c = connect()
    try:
        count, distinct = one(c, f"SELECT count(*), count(DISTINCT (worker, i)) FROM {t}")
    finally:
        c.close()
    return f"workers={workers} rows={count} distinct={distinct}"


@scenario()
def notify():
    listener, notifier = connect(), connect()
    try:
        listener.cursor().execute("LISTEN pgmux_channel")
        notifier.cursor().execute("NOTIFY pgmux_channel, 'hello'")
        # the notification arrives while the listener sends nothing
        readable, _, _ = select.select([listener], [], [], 5)
        check(readable, "no notification within 5 s")
        listener.poll()
        check(listener.notifies, "readable, but no notification")
        n = listener.notifies.pop(0)
        return f"channel={n.channel} payload={n.payload}"
    finally:
        listener.close()
        notifier.close()


@scenario("statement")
def transaction_refused():
    c = connect(autocommit=False)
    try:
        one(c, "SELECT 1")  # psycopg2 sends BEGIN first
        raise AssertionError("a transaction block ran in statement mode")
    except psycopg2.OperationalError as e:
        error = one_line(e)
    finally:
        c.close()
    d = connect()
    try:
        after = one(d, "SELECT 1")[0]
    finally:
        d.close()
    return f"after={after} error={error}"


# Last: a cancel has been seen to land late, in a later statement on the same server connection (README).
@scenario()
def cancel():
    c = connect()
    try:
        state = cancelled(c.cancel, lambda: one(c, "SELECT pg_sleep(20)"), psycopg2.errors.QueryCanceled).pgcode
        after = one(c, "SELECT 1")[0]
        return f"sqlstate={state} after={after}"
    finally:
        c.close()


if __name__ == "__main__":
    main()
