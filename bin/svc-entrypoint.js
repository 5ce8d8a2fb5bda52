#!/usr/bin/env node
// The entrypoint runs from its bundle, which starts the svc-agent bundle beside it (scripts/bundle-sandbox.ts).
import '../dist/sandbox/svc-entrypoint.mjs';
