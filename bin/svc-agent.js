#!/usr/bin/env node
// The daemon runs from its bundle everywhere (scripts/bundle-sandbox.ts), so what a host runs is what a sandbox runs.
import '../dist/sandbox/svc-agent.mjs';
