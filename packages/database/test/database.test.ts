import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { sql, type Generated, type Kysely } from 'kysely';
import {
  DatabaseUnreachableError,
  DatabaseUrlError,
  longTextType,
  MigrationError,
  migrateToLatest,
  openDatabase,
  parseDatabaseUrl,
  withIdColumn,
  type Database,
  type ProductMigration,
} from '../src/index.ts';
import { testDatabaseTargets, type ThrowawayDatabase } from '../src/testing.ts';

interface Schema {
  widget: { id: Generated<number>; name: string; in_stock: boolean | number; price: number };
}

const widgetMigrations: Record<string, ProductMigration> = {
  '0001_widget': {
    up: async (db, dialect) => {
      await withIdColumn(db.schema.createTable('widget'), dialect)
        .addColumn('name', 'varchar(100)', (c) => c.notNull().unique())
        .addColumn('in_stock', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('price', 'decimal(12, 2)', (c) => c.notNull())
        .execute();
    },
  },
};

describe('database URLs', () => {
  test('accepts the three dialects', () => {
    assert.deepEqual(parseDatabaseUrl('sqlite::memory:'), { dialect: 'sqlite', path: ':memory:' });
    assert.deepEqual(parseDatabaseUrl('sqlite:data/x.sqlite'), { dialect: 'sqlite', path: 'data/x.sqlite' });
    assert.equal(parseDatabaseUrl('postgresql://u@h:5432/db').dialect, 'postgres');
    assert.equal(parseDatabaseUrl('mariadb://u@h/db').dialect, 'mysql');
  });

  test('rejects a bad URL with the reason, and hides the password', () => {
    assert.throws(() => parseDatabaseUrl(''), /empty/);
    assert.throws(
      () => parseDatabaseUrl('oracle://x/y'),
      (e: Error) => e instanceof DatabaseUrlError && /"oracle:" is not supported/.test(e.message),
    );
    assert.throws(
      () => parseDatabaseUrl('mysql://root:hunter2@localhost'),
      (e: Error) => /database name is missing/.test(e.message) && !e.message.includes('hunter2'),
    );
    assert.throws(() => parseDatabaseUrl('just-a-path'), /no scheme/);
  });

  test('an unreachable server names the server and the reason', async () => {
    await assert.rejects(openDatabase('postgres://u:secret@127.0.0.1:1/db', { connectTimeoutMs: 2000 }), (e: Error) => {
      assert.ok(e instanceof DatabaseUnreachableError);
      assert.match(e.message, /PostgreSQL at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db/);
      assert.match(e.message, /ECONNREFUSED/);
      return true;
    });
    await assert.rejects(openDatabase('mysql://root@127.0.0.1:1/db', { connectTimeoutMs: 2000 }), /MariaDB\/MySQL at .*ECONNREFUSED/);
  });
});

for (const target of await testDatabaseTargets()) {
  describe(`database layer on ${target.name}`, { skip: target.skip }, () => {
    let throwaway: ThrowawayDatabase;
    let database: Database<Schema>;
    let db: Kysely<Schema>;

    before(async () => {
      throwaway = await target.create();
      database = await openDatabase<Schema>(throwaway.url);
      db = database.db;
    });
    after(async () => {
      await database?.close();
      await throwaway?.drop();
    });

    test('migrations run once, and again do nothing', async () => {
      assert.deepEqual(await migrateToLatest(database, 'widgets', widgetMigrations), ['0001_widget']);
      assert.deepEqual(await migrateToLatest(database, 'widgets', widgetMigrations), []);
    });

    test('rows come back with the same types on every database', async () => {
      const inserted = await db.insertInto('widget').values({ name: 'bolt', in_stock: true, price: 12.5 }).executeTakeFirstOrThrow();
      assert.ok(Number(inserted.insertId ?? 1) >= 1);
      const row = await db.selectFrom('widget').selectAll().where('name', '=', 'bolt').executeTakeFirstOrThrow();
      assert.equal(typeof row.id, 'number');
      assert.equal(Boolean(row.in_stock), true);
      assert.equal(row.price, 12.5);
      const { n } = await db
        .selectFrom('widget')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(n, 1);
    });

    test('a transaction that throws leaves nothing behind', async () => {
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          await trx.insertInto('widget').values({ name: 'nut', in_stock: false, price: 1 }).execute();
          throw new Error('abort');
        }),
        /abort/,
      );
      assert.equal(await db.selectFrom('widget').select('id').where('name', '=', 'nut').executeTakeFirst(), undefined);
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('widget').values({ name: 'nut', in_stock: false, price: 1 }).execute();
      });
      assert.ok(await db.selectFrom('widget').select('id').where('name', '=', 'nut').executeTakeFirst());
    });

    test('constraints hold: a duplicate unique value is refused', async () => {
      await assert.rejects(db.insertInto('widget').values({ name: 'bolt', in_stock: true, price: 2 }).execute());
    });

    test('two products keep separate migration books in one database', async () => {
      const other: Record<string, ProductMigration> = {
        '0001_gadget': { up: async (k, dialect) => void (await withIdColumn(k.schema.createTable('gadget'), dialect).execute()) },
      };
      assert.deepEqual(await migrateToLatest(database, 'gadgets', other), ['0001_gadget']);
      assert.deepEqual(await migrateToLatest(database, 'widgets', widgetMigrations), []);
    });

    test("a long-text column keeps a text past 64 KB (MariaDB's TEXT would refuse or cut it)", async () => {
      await withIdColumn(db.schema.createTable('essay'), target.dialect)
        .addColumn('body', longTextType(target.dialect), (c) => c.notNull())
        .execute();
      const body = `${'long text é '.repeat(10_000)}end`;
      await sql`insert into essay (body) values (${body})`.execute(db);
      const got = await sql<{ body: string }>`select body from essay`.execute(db);
      assert.equal(got.rows[0]?.body, body);
    });

    test('a failing migration names its step and applies nothing after it', async () => {
      const broken: Record<string, ProductMigration> = {
        ...widgetMigrations,
        '0002_bad': { up: async (k) => void (await sql`this is not sql`.execute(k)) },
        '0003_after': { up: async (k) => void (await k.schema.createTable('after_bad').addColumn('x', 'integer').execute()) },
      };
      await assert.rejects(
        migrateToLatest(database, 'widgets', broken),
        (e: Error) => e instanceof MigrationError && /0002_bad/.test(e.message),
      );
      await assert.rejects(sql`select * from after_bad`.execute(db));
    });

    if (target.dialect === 'postgres') {
      test('a server that kills idle connections does not crash the process', async () => {
        const broken: Error[] = [];
        const own = await openDatabase<Schema>(throwaway.url, { onConnectionError: (e) => broken.push(e) });
        try {
          await sql`select 1`.execute(own.db);
          const name = new URL(throwaway.url).pathname.slice(1);
          await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`.execute(db);
          for (let i = 0; i < 50 && broken.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
          assert.ok(broken.length > 0, 'the pool reported the broken idle connection');
          const again = await sql<{ n: number }>`select 1 as n`.execute(own.db);
          assert.equal(again.rows[0]?.n, 1);
        } finally {
          await own.close();
        }
      });
    }

    if (target.dialect === 'sqlite') {
      test('SQLite runs with WAL, a busy timeout and foreign keys on', async () => {
        const mode = await sql<{ journal_mode: string }>`PRAGMA journal_mode`.execute(db);
        assert.equal(mode.rows[0]?.journal_mode, 'wal');
        const fk = await sql<{ foreign_keys: number }>`PRAGMA foreign_keys`.execute(db);
        assert.equal(fk.rows[0]?.foreign_keys, 1);
        const busy = await sql<{ timeout: number }>`PRAGMA busy_timeout`.execute(db);
        assert.ok((busy.rows[0]?.timeout ?? 0) >= 1000);
      });
    }
  });
}

describe('TEST_DATABASES narrows the matrix for a quick local loop', () => {
  const targetsWith = (env: Record<string, string>): { status: number | null; out: string; err: string } => {
    const script = `import { testDatabaseTargets } from ${JSON.stringify(new URL('../src/testing.ts', import.meta.url).href)};
      console.log(JSON.stringify((await testDatabaseTargets()).map((t) => [t.name, t.skip])));`;
    const { REQUIRE_ALL_DATABASES: _, ...rest } = process.env;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...rest, ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { status: run.status, out: run.stdout, err: run.stderr };
  };

  test('TEST_DATABASES=sqlite skips PostgreSQL and MariaDB, each with its reason', () => {
    const run = targetsWith({ TEST_DATABASES: 'sqlite' });
    assert.equal(run.status, 0, run.err);
    assert.deepEqual(JSON.parse(run.out), [
      ['SQLite', false],
      ['PostgreSQL', 'PostgreSQL left out by TEST_DATABASES=sqlite'],
      ['MariaDB', 'MariaDB left out by TEST_DATABASES=sqlite'],
    ]);
  });

  test('the databases go by the names people give them: mariadb or mysql, postgres or postgresql', () => {
    for (const given of ['mariadb,postgresql', 'MySQL, Postgres']) {
      const run = targetsWith({ TEST_DATABASES: given });
      assert.equal(run.status, 0, run.err);
      assert.deepEqual((JSON.parse(run.out) as [string, unknown][])[0], ['SQLite', `SQLite left out by TEST_DATABASES=${given}`]);
    }
  });

  test('a misspelt database, or leaving one out where all are required, stops the run', () => {
    assert.match(
      targetsWith({ TEST_DATABASES: 'sqlite,postgrse' }).err,
      /TEST_DATABASES names postgrse; it takes sqlite, postgres and mariadb/,
    );
    assert.match(targetsWith({ TEST_DATABASES: 'constructor' }).err, /TEST_DATABASES names constructor/);
    assert.match(
      targetsWith({ TEST_DATABASES: 'sqlite', REQUIRE_ALL_DATABASES: '1' }).err,
      /TEST_DATABASES leaves databases out, and REQUIRE_ALL_DATABASES=1/,
    );
  });
});
