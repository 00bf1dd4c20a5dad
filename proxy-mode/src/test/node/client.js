'use strict';
// node-postgres through the proxy: run by NodePostgresTest. The proxy's address and credentials come from libpq's
// environment variables (PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD), which pg reads too; PGMUX_POOL_MODE
// names its pool mode. Arguments name the scenarios to run, by default all that apply to the pool mode. Each
// prints "OK <name> <facts>" or "FAIL <name> <error>" followed by its stack; the exit code counts the failures.
const pg = require('pg');

const POOL_MODE = process.env.PGMUX_POOL_MODE || 'session';
const ALL_MODES = ['session', 'transaction', 'statement'];
// Statement mode refuses transaction blocks.
const TRANSACTIONS = POOL_MODE !== 'statement';
const POOL_SIZE = 3; // the proxy's: in session mode a pg.Pool must not keep more clients than it has servers
const scenarios = new Map();

function scenario(name, modes, fn) {
  scenarios.set(name, { fn, modes: modes || ALL_MODES });
}

function check(condition, message) {
  if (!condition) {
    throw new Error(message);
  }
}

async function connect(config) {
  const client = new pg.Client({ connectionTimeoutMillis: 10000, ...config });
  client.on('error', () => {}); // a connection the proxy closes is reported by the query that was running
  await client.connect();
  return client;
}

async function withClient(fn) {
  const client = await connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function table(name, columns) {
  const t = `node_${POOL_MODE}_${name}`;
  await withClient((c) => c.query(`DROP TABLE IF EXISTS ${t}; CREATE TABLE ${t} (${columns})`));
  return t;
}

async function sqlstateOf(promise) {
  try {
    await promise;
  } catch (e) {
    return e.code;
  }
  throw new Error('no error');
}

scenario('login', null, () => withClient(async (c) => {
  const { rows } = await c.query('SELECT current_user AS user, 1 AS one');
  check(rows[0].one === 1, `SELECT 1 gave ${rows[0].one}`);
  return `user=${rows[0].user}`;
}));

scenario('wrong_password', null, async () => {
  let client;
  try {
    client = await connect({ password: 'not-the-password' });
  } catch (e) {
    return `refused: ${e.code} ${e.message}`;
  }
  await client.end();
  throw new Error('logged in with a wrong password');
});

scenario('simple_query', null, () => withClient(async (c) => {
  // without parameters pg sends a simple Query; two statements give two results
  const results = await c.query("SELECT 1 + 1 AS a; SELECT 'two' AS b");
  return `results=${results[0].rows[0].a},${results[1].rows[0].b}`;
}));

scenario('parameterised', null, () => withClient(async (c) => {
  const t = await table('parameterised', 'id int, name text, data bytea');
  const { rows } = await c.query('SELECT $1::int + $2 AS total, $3::text AS text, $4::text AS nothing, $5::bytea AS data',
    [20, 22, "it's", null, Buffer.from([0, 255])]);
  const row = rows[0];
  check(row.text === "it's" && row.nothing === null && row.data.equals(Buffer.from([0, 255])), JSON.stringify(row));
  for (let i = 0; i < 100; i++) {
    await c.query(`INSERT INTO ${t} VALUES ($1, $2, $3)`, [i, `v${i}`, Buffer.from([i])]);
  }
  const array = await c.query({
    text: `SELECT count(*)::int, sum(id)::int FROM ${t} WHERE name = $1 || id`, values: ['v'], rowMode: 'array',
  });
  return `row=${row.total} inserted=${array.rows[0][0]} sum=${array.rows[0][1]}`;
}));

scenario('named', null, async () => {
  const a = await connect();
  const b = await connect();
  try {
    const double = (c, i) => c.query({ name: 'double', text: 'SELECT $1::int * 2 AS v', values: [i] })
      .then((r) => r.rows[0].v);
    const results = [];
    for (let i = 0; i < 5; i++) {
      results.push(await double(a, i));
    }
    if (TRANSACTIONS) {
      // b keeps a server connection in its transaction: a must run its statement on another one
      await b.query('BEGIN');
      await double(b, 100);
    }
    for (let i = 5; i < 10; i++) {
      results.push(await double(a, i));
    }
    if (TRANSACTIONS) {
      await b.query('COMMIT');
    }
    for (let i = 10; i < 15; i++) {
      results.push(await double(b, i));
    }
    check(JSON.stringify(results) === JSON.stringify([...Array(15).keys()].map((i) => i * 2)), `results ${results}`);
    const text = (await a.query({ name: 'text', text: 'SELECT $1::text AS t', values: ['named'] })).rows[0].t;
    return `results=${results.length} last=${results[14]} text=${text}`;
  } finally {
    await a.end();
    await b.end();
  }
});

scenario('named_after_error', null, () => withClient(async (c) => {
  const t = `node_${POOL_MODE}_created_later`;
  await c.query(`DROP TABLE IF EXISTS ${t}`);
  const query = { name: 'later', text: `SELECT count(*)::int AS n FROM ${t} WHERE id = $1`, values: [1] };
  const first = await sqlstateOf(c.query(query));
  await c.query(`CREATE TABLE ${t} (id int)`);
  const { rows } = await c.query(query);
  return `first=${first} then=${rows[0].n}`;
}));

scenario('startup_parameters', null, async () => {
  const c = await connect({
    application_name: 'node app', statement_timeout: 500, options: '-c search_path=pgmux_missing,public',
  });
  const other = await connect();
  try {
    const seen = new Set();
    for (let i = 0; i < 3; i++) {
      if (TRANSACTIONS) {
        await other.query(i % 2 === 0 ? 'BEGIN' : 'COMMIT'); // moves c to another server connection
      }
      const { rows } = await c.query("SELECT current_setting('application_name') AS a,"
        + " current_setting('statement_timeout') AS t, current_schema() AS s");
      seen.add(`application_name=${rows[0].a} statement_timeout=${rows[0].t} current_schema=${rows[0].s}`);
    }
    if (TRANSACTIONS) {
      await other.query('ROLLBACK');
    }
    check(seen.size === 1, `settings differ between queries: ${[...seen]}`);
    const timeout = await sqlstateOf(c.query('SELECT pg_sleep(5)'));
    return `${[...seen][0]} timeout=${timeout}`;
  } finally {
    await c.end();
    await other.end();
  }
});

scenario('transactions', ['session', 'transaction'], () => withClient(async (c) => {
  const t = await table('transactions', 'id int');
  await c.query('BEGIN');
  await c.query(`INSERT INTO ${t} VALUES (1)`);
  await c.query('COMMIT');
  await c.query('BEGIN');
  await c.query(`INSERT INTO ${t} VALUES (2)`);
  await c.query('ROLLBACK');
  await c.query('BEGIN');
  await c.query(`INSERT INTO ${t} VALUES (3)`);
  await c.query('SAVEPOINT s');
  await c.query(`INSERT INTO ${t} VALUES ($1)`, [4]);
  const division = await sqlstateOf(c.query('SELECT 1 / $1::int', [0]));
  await c.query('ROLLBACK TO SAVEPOINT s');
  await c.query('COMMIT');
  await c.query('BEGIN');
  await c.query(`INSERT INTO ${t} VALUES (5)`);
  await sqlstateOf(c.query('SELECT * FROM no_such_table'));
  const inFailed = await sqlstateOf(c.query('SELECT 1'));
  await c.query('ROLLBACK');
  const { rows } = await c.query(`SELECT string_agg(id::text, ',' ORDER BY id) AS ids FROM ${t}`);
  return `ids=${rows[0].ids} savepoint_error=${division} in_failed=${inFailed}`;
}));

scenario('syntax_error', null, () => withClient(async (c) => {
  const state = await sqlstateOf(c.query('SELEC 1'));
  const { rows } = await c.query('SELECT 1 AS one');
  return `sqlstate=${state} after=${rows[0].one}`;
}));

scenario('syntax_error_extended', null, () => withClient(async (c) => {
  const state = await sqlstateOf(c.query('SELEC $1::int', [1]));
  const { rows } = await c.query('SELECT $1::int AS one', [1]);
  return `sqlstate=${state} after=${rows[0].one}`;
}));

scenario('large_result', null, () => withClient(async (c) => {
  const { rows } = await c.query({
    text: "SELECT g, repeat('x', 50) FROM generate_series(1, 100000) g", rowMode: 'array',
  });
  const sum = rows.reduce((s, r) => s + r[0], 0);
  return `rows=${rows.length} sum=${sum}`;
}));

scenario('concurrency', null, async () => {
  const t = await table('concurrency', 'worker int, i int');
  const workers = 20;
  const rounds = 10;
  // In session mode each worker has a connection of its own while it runs; in the others they share a pg.Pool.
  const pool = POOL_MODE === 'session' ? null : new pg.Pool({ max: workers, connectionTimeoutMillis: 10000 });
  const work = async (w) => {
    const c = pool ? await pool.connect() : await connect();
    try {
      for (let i = 0; i < rounds; i++) {
        if (TRANSACTIONS) {
          await c.query('BEGIN');
          await c.query("SELECT set_config('application_name', $1, true)", [`worker ${w}`]);
          await c.query(`INSERT INTO ${t} VALUES ($1, $2)`, [w, i]);
          const { rows } = await c.query({
            text: `SELECT count(*)::int AS seen, current_setting('application_name') AS name FROM ${t} WHERE worker = $1`,
            values: [w],
            name: 'seen',
          });
          await c.query('COMMIT');
          check(rows[0].seen === i + 1 && rows[0].name === `worker ${w}`,
            `worker ${w} round ${i} saw ${rows[0].seen} rows, application_name ${rows[0].name}`);
        } else {
          const { rows } = await c.query(`INSERT INTO ${t} VALUES ($1, $2) RETURNING worker, i`, [w, i]);
          check(rows[0].worker === w && rows[0].i === i, `worker ${w} round ${i} got ${JSON.stringify(rows[0])}`);
        }
      }
    } finally {
      if (pool) {
        c.release();
      } else {
        await c.end();
      }
    }
  };
  try {
    await Promise.all([...Array(workers).keys()].map(work));
  } finally {
    if (pool) {
      await pool.end();
    }
  }
  return withClient(async (c) => {
    const { rows } = await c.query(`SELECT count(*)::int AS n, count(DISTINCT (worker, i))::int AS d FROM ${t}`);
    return `workers=${workers} rows=${rows[0].n} distinct=${rows[0].d}`;
  });
});

scenario('pool', null, async () => {
  const t = await table('pool', 'id int');
  const pool = new pg.Pool({ max: POOL_SIZE, connectionTimeoutMillis: 10000 });
  try {
    const sums = await Promise.all([...Array(10).keys()].map((i) => pool.query('SELECT $1::int + 1 AS v', [i])
      .then((r) => r.rows[0].v)));
    check(JSON.stringify(sums) === JSON.stringify([...Array(10).keys()].map((i) => i + 1)), `results ${sums}`);
    if (TRANSACTIONS) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`INSERT INTO ${t} VALUES (1)`);
        await client.query('ROLLBACK');
        await client.query('BEGIN');
        await client.query(`INSERT INTO ${t} VALUES (2)`);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    } else {
      await pool.query(`INSERT INTO ${t} VALUES (2)`);
    }
    const ids = (await pool.query(`SELECT string_agg(id::text, ',') AS ids FROM ${t}`)).rows[0].ids;
    return `queries=${sums.length} ids=${ids}`;
  } finally {
    await pool.end();
  }
});

scenario('notify', null, async () => {
  const listener = await connect();
  const notifier = await connect();
  try {
    const received = new Promise((resolve, reject) => {
      listener.on('notification', resolve);
      setTimeout(() => reject(new Error('no notification within 5 s')), 5000).unref();
    });
    await listener.query('LISTEN pgmux_channel');
    await notifier.query("NOTIFY pgmux_channel, 'hello'");
    const n = await received; // it arrives while the listener sends nothing
    return `channel=${n.channel} payload=${n.payload}`;
  } finally {
    await listener.end();
    await notifier.end();
  }
});

scenario('transaction_refused', ['statement'], async () => {
  const c = await connect();
  let error;
  try {
    await c.query('BEGIN');
    await c.query('SELECT 1');
    throw new Error('a transaction block ran in statement mode');
  } catch (e) {
    error = `${e.code} ${e.message}`;
  } finally {
    await c.end().catch(() => {});
  }
  const after = await withClient(async (d) => (await d.query('SELECT 1 AS one')).rows[0].one);
  return `after=${after} error=${error}`;
});

function withTimeout(promise, millis, name) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} still running after ${millis / 1000} s`)), millis);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function main() {
  const names = process.argv.length > 2 ? process.argv.slice(2)
    : [...scenarios.keys()].filter((n) => scenarios.get(n).modes.includes(POOL_MODE));
  let failures = 0;
  for (const name of names) {
    try {
      const facts = await withTimeout(scenarios.get(name).fn(), 60000, name);
      console.log(`OK ${name} ${facts || ''}`.trimEnd());
    } catch (e) {
      failures++;
      console.log(`FAIL ${name} ${String(e && e.message).replace(/\n/g, ' ')}`);
      for (const line of String(e && e.stack).split('\n')) {
        console.log(`  ${line}`);
      }
    }
  }
  process.exit(Math.min(failures, 100));
}

main();
