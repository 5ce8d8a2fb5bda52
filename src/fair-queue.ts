/**
 * A queue that shares threads fairly between whose items they are, so that one owner with many heavy
 * items waiting cannot hold back another's light one. An item is pushed under a path of owners,
 * outermost first (an account, then a request of that account). Each level gives its next item to the
 * owner that has lately used the least thread time (`charge`, halved every USAGE_HALF_LIFE_MS), and
 * among equals to the one it served least recently: a page whose jobs take milliseconds goes before
 * checks whose drawings take seconds each, whether they are another account's or its own, and an
 * account with twenty requests waiting gets no more than an account with one.
 *
 * Items of one owner leave in the order they came. Items without a path are one owner of their own.
 */

/** How fast past use is forgiven: an owner that drew for 5 s counts as half that 10 s later. */
export const USAGE_HALF_LIFE_MS = 10_000;

/**
 * Owners with nothing waiting whose use each level remembers, so that one whose items come one at a
 * time (a page's next job arrives only once its last is done) is not taken for a newcomer each time.
 */
const REMEMBERED_IDLE_OWNERS = 256;

/** Where an owner's own items wait: a child of its own, so that they take turns with its children. */
const OWN_ITEMS = '\u0000items';

class Owner<T> {
  readonly items: T[] = [];
  /** Children with items waiting. */
  readonly children = new Map<string, Owner<T>>();
  /** Children with nothing waiting, kept for their use, the longest idle first. */
  readonly idle = new Map<string, Owner<T>>();
  /** Items here and below. */
  size = 0;
  /** Milliseconds of thread time, as of `at`. */
  used = 0;
  at = 0;
  /** The turn in which the owner last gave an item; -1 for never. */
  servedAt = -1;

  constructor(readonly key: string) {}

  /** The child `key`, waiting or idle. */
  child(key: string): Owner<T> | undefined {
    return this.children.get(key) ?? this.idle.get(key);
  }
}

function decayed(usage: Owner<unknown>, now: number): number {
  return usage.used * 2 ** (-(now - usage.at) / USAGE_HALF_LIFE_MS);
}

export class FairQueue<T> {
  private readonly root = new Owner<T>('');
  private turn = 0;

  /** `now` in milliseconds (performance.now by default; tests pass their own clock). */
  constructor(private readonly now: () => number = () => performance.now()) {}

  get size(): number {
    return this.root.size;
  }

  push(path: readonly string[], item: T): void {
    let owner = this.root;
    owner.size += 1;
    for (const key of [...path, OWN_ITEMS]) {
      let child = owner.children.get(key);
      if (!child) {
        child = owner.idle.get(key) ?? new Owner<T>(key);
        owner.idle.delete(key);
        owner.children.set(key, child);
      }
      child.size += 1;
      owner = child;
    }
    owner.items.push(item);
  }

  /** The next item: at each level, the owner that has used least lately, then the one served least recently. */
  shift(): T | undefined {
    if (this.root.size === 0) return undefined;
    this.turn += 1;
    const now = this.now();
    let owner = this.root;
    for (;;) {
      owner.size -= 1;
      if (owner.children.size === 0) return owner.items.shift();
      let next: Owner<T> | undefined;
      let nextUsed = Infinity;
      for (const child of owner.children.values()) {
        const used = decayed(child, now);
        if (!next || used < nextUsed || (used === nextUsed && child.servedAt < next.servedAt)) {
          next = child;
          nextUsed = used;
        }
      }
      const chosen = next as Owner<T>;
      chosen.servedAt = this.turn;
      if (chosen.size === 1) this.setIdle(owner, chosen);
      owner = chosen;
    }
  }

  /** Counts `ms` of thread time against each owner on `path` (a job of theirs has run that long). */
  charge(path: readonly string[], ms: number): void {
    const now = this.now();
    let owner = this.root;
    for (const key of [...path, OWN_ITEMS]) {
      const child = owner.child(key);
      // Forgotten (long idle): nothing to count against.
      if (!child) return;
      child.used = decayed(child, now) + ms;
      child.at = now;
      owner = child;
    }
  }

  /** Takes `item`, pushed under `path`, out of the queue; false when it is not there. */
  remove(path: readonly string[], item: T): boolean {
    const owners = [this.root];
    for (const key of [...path, OWN_ITEMS]) {
      const child = owners[owners.length - 1]?.children.get(key);
      if (!child) return false;
      owners.push(child);
    }
    const items = (owners[owners.length - 1] as Owner<T>).items;
    const index = items.indexOf(item);
    if (index < 0) return false;
    items.splice(index, 1);
    for (const owner of owners) owner.size -= 1;
    for (let depth = owners.length - 1; depth > 0; depth -= 1) {
      const owner = owners[depth] as Owner<T>;
      if (owner.size === 0) this.setIdle(owners[depth - 1] as Owner<T>, owner);
    }
    return true;
  }

  /** Every item, emptying the queue. */
  drain(): T[] {
    const items: T[] = [];
    for (let item = this.shift(); item !== undefined; item = this.shift()) items.push(item);
    return items;
  }

  /** `child` of `parent` has nothing left waiting: it is kept only for its use. */
  private setIdle(parent: Owner<T>, child: Owner<T>): void {
    parent.children.delete(child.key);
    parent.idle.set(child.key, child);
    if (parent.idle.size > REMEMBERED_IDLE_OWNERS) parent.idle.delete(parent.idle.keys().next().value as string);
  }
}
