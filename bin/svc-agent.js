#!/usr/bin/env node
import { main } from '../dist/src/daemon/svc-agent.js';

await main(process.argv.slice(2));
