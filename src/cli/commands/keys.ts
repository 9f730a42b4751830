// `domain-intel keys add|list|use|remove|verify`. A key is read from stdin or a hidden prompt, never argv.
import { UsageError } from '../../api/errors.js';
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { renderTable } from '../output/table.js';
import { readSecret } from '../prompt.js';

export default async function keys(ctx: Context): Promise<number> {
  const { addKey, listKeys, removeKey, useKey, maskKey } = await import('../../config/keys.js');
  const settings = await ctx.settings();
  const name = ctx.args.name as string | undefined;
  switch (ctx.args.sub) {
    case 'add': {
      const key = await readSecret(ctx.io.stdin, ctx.io.stderr, `API key for "${name ?? 'default'}": `);
      if (key === '') throw new UsageError('no key given: pipe it in (domain-intel keys add NAME < keyfile) or type it at the prompt');
      const r = await addKey(settings, name, key);
      ctx.logger.info(
        `${r.replaced ? 'replaced' : 'stored'} key "${r.name}" (${maskKey(key)})${r.active ? ', active' : `; \`domain-intel keys use ${r.name}\` to use it`} in ${settings.path}`,
      );
      return EXIT.OK;
    }
    case 'list': {
      const list = listKeys(settings);
      if (ctx.io.env.DOMAIN_INTEL_API_KEY) ctx.logger.info('DOMAIN_INTEL_API_KEY is set and overrides the stored keys');
      if (list.length === 0) {
        ctx.logger.info('no stored keys; add one with `domain-intel keys add NAME` (reads stdin)');
        return EXIT.OK;
      }
      if (ctx.io.stdout.isTTY) {
        ctx.io.stdout.write(
          `${renderTable(
            list.map((k) => ({ active: k.active ? '*' : '', name: k.name, key: k.masked })),
            [{ key: 'active', header: ' ' }, { key: 'name' }, { key: 'key' }],
            { style: ctx.outStyle },
          )}\n`,
        );
      } else {
        for (const k of list) ctx.io.stdout.write(`${k.active ? '*' : ' '} ${k.name}\t${k.masked}\n`);
      }
      return EXIT.OK;
    }
    case 'use':
      await useKey(settings, name as string);
      ctx.logger.info(`now using key "${name}"`);
      return EXIT.OK;
    case 'remove': {
      const r = await removeKey(settings, name as string);
      ctx.logger.info(`removed key "${name}"${r.active ? `; active key is now "${r.active}"` : '; no key is active'}`);
      return EXIT.OK;
    }
    case 'verify': {
      const client = await ctx.client();
      // The catalog is free and needs a valid key: a check that costs no lookup.
      await client.catalog();
      const config = await ctx.config();
      ctx.logger.info(`key ${config.key ? maskKey(config.key.key) : ''} accepted by ${client.baseUrl}`);
      return EXIT.OK;
    }
  }
  throw new UsageError(`unknown keys subcommand ${String(ctx.args.sub)}`);
}
