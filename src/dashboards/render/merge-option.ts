/**
 * Deep-merges a spec's `chart.option` over the option the renderer generated, the way ECharts merges
 * `setOption` calls: objects key by key, arrays element by element (series[0] merges into the first
 * generated series), anything else replaces.
 *
 * The spec is untrusted JSON. Keys that reach an object's prototype are skipped, and nesting is bounded
 * (the validator already caps it at MAX_OPTION_DEPTH; the bound here keeps the merge safe on its own).
 */
import { MAX_OPTION_DEPTH } from '../spec-schema.js';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

type JsonObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A copy of a JSON value without prototype-reaching keys; deeper values than the bound are dropped. */
function sanitize(value: unknown, depth: number): unknown {
  if (depth > MAX_OPTION_DEPTH) return undefined;
  if (Array.isArray(value)) return value.map((item) => sanitize(item, depth + 1));
  if (isPlainObject(value)) {
    const copy: JsonObject = {};
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_KEYS.has(key)) continue;
      const item = sanitize(value[key], depth + 1);
      if (item !== undefined) copy[key] = item;
    }
    return copy;
  }
  return value;
}

function mergeValue(base: unknown, override: unknown, depth: number): unknown {
  if (depth > MAX_OPTION_DEPTH) return base;
  if (isPlainObject(base) && isPlainObject(override)) return mergeObjects(base, override, depth);
  if (Array.isArray(base) && Array.isArray(override)) {
    const length = Math.max(base.length, override.length);
    const merged: unknown[] = [];
    for (let index = 0; index < length; index += 1) {
      merged.push(index < override.length ? mergeValue(base[index], override[index], depth + 1) : base[index]);
    }
    return merged;
  }
  return override === undefined ? base : sanitize(override, depth);
}

function mergeObjects(base: JsonObject, override: JsonObject, depth: number): JsonObject {
  const merged: JsonObject = { ...base };
  for (const key of Object.keys(override)) {
    if (FORBIDDEN_KEYS.has(key)) continue;
    merged[key] = mergeValue(base[key], override[key], depth + 1);
  }
  return merged;
}

/** `base` with `override` merged over it; neither argument is modified. */
export function mergeOption(base: JsonObject, override: JsonObject | undefined): JsonObject {
  if (!override) return base;
  return mergeObjects(base, override, 0);
}
