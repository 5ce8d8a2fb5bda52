#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { runEntrypoint } from '../dist/src/daemon/svc-entrypoint.js';

runEntrypoint(fileURLToPath(new URL('./svc-agent.js', import.meta.url)), process.argv.slice(2));
