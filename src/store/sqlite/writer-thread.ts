// The cache writer's thread (writer.ts): the bundle's entry dist/sqlite-writer.js (scripts/build.mjs), started
// by writer-client.ts at a cache's first write.
import { parentPort } from 'node:worker_threads';
import { serveWriter } from './writer.js';

if (parentPort !== null) serveWriter(parentPort);
