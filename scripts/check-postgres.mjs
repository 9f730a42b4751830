// CI's check that the PostgreSQL the store tests use is there (DOMAIN_INTEL_TEST_POSTGRES): one line and a
// failure when it is not, so CI never passes with those tests skipped. Run after npm ci (it needs pg).
import pg from 'pg';

const url = process.env.DOMAIN_INTEL_TEST_POSTGRES;
if (!url) {
  console.error('check-postgres: DOMAIN_INTEL_TEST_POSTGRES is not set');
  process.exit(1);
}
// As config/store-url.ts masks it: the password never reaches a log.
const shown = url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*):[^/?#]*@/i, '$1:***@').replace(/([?&]password=)[^&#]*/gi, '$1***');
const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
try {
  await client.connect();
  const { rows } = await client.query('SHOW server_version');
  console.log(`PostgreSQL ${rows[0].server_version} at ${shown}: the store tests run against it`);
} catch (err) {
  console.error(`check-postgres: cannot reach PostgreSQL at ${shown} (${err.message}); the store tests need it (DOMAIN_INTEL_TEST_POSTGRES)`);
  process.exitCode = 1;
} finally {
  await client.end().catch(() => {});
}
