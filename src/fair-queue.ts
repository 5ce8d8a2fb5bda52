/**
 * A queue that takes turns between whose items they are, so that one owner with many items waiting
 * cannot hold back another's one. An item is pushed under a path of owners, outermost first (an
 * account, then a request of that account): each level gives its next item to the owner it served
 * least recently (an owner never served goes first). Owners at one level share that
 * level's turns whatever they hold below it, so an account with twenty requests waiting gets the same
 * turns as an account with one; within an account its requests take turns the same way.
 *
 * Items without a path, and items of one owner, leave in the order they came.
 */

/**
 * Owners with nothing waiting whose last turn each level remembers, so that one whose items come one at a
 * time (a page's next job arrives only once its last is done) is not taken for a newcomer each time.
 */
const REMEMBERED_IDLE_OWNERS = 1000;

class Owner<T> {
  /** Items pushed with the path ending here, oldest first. */
  readonly items: T[] = [];
  readonly children = new Map<string, Owner<T>>();
  /** The last turn of children with nothing waiting, the longest idle first. */
  readonly idle = new Map<string, number>();
  /** Items here and below. */
  size = 0;
  /** The turn in which this owner last gave an item; -1 for never (a newcomer goes first). */
  servedAt = -1;
  /** The same for `items`, which take turns with the children. */
  itemsServedAt = -1;

  constructor(readonly key: string) {}
}

export class FairQueue<T> {
  private readonly root = new Owner<T>('');
  private turn = 0;

  get size(): number {
    return this.root.size;
  }

  push(path: readonly string[], item: T): void {
    let owner = this.root;
    owner.size += 1;
    for (const key of path) {
      let child = owner.children.get(key);
      if (!child) {
        child = new Owner<T>(key);
        child.servedAt = owner.idle.get(key) ?? -1;
        owner.idle.delete(key);
        owner.children.set(key, child);
      }
      child.size += 1;
      owner = child;
    }
    owner.items.push(item);
  }

  /** The next item by turns, or undefined when the queue is empty. */
  shift(): T | undefined {
    if (this.root.size === 0) return undefined;
    this.turn += 1;
    let owner = this.root;
    for (;;) {
      owner.size -= 1;
      let next: Owner<T> | undefined;
      let nextServedAt = owner.items.length > 0 ? owner.itemsServedAt : Infinity;
      for (const child of owner.children.values()) {
        if (child.servedAt < nextServedAt) {
          next = child;
          nextServedAt = child.servedAt;
        }
      }
      if (!next) {
        owner.itemsServedAt = this.turn;
        return owner.items.shift();
      }
      next.servedAt = this.turn;
      if (next.size === 1) this.setIdle(owner, next);
      owner = next;
    }
  }

  /** Takes `item`, pushed under `path`, out of the queue; false when it is not there. */
  remove(path: readonly string[], item: T): boolean {
    const owners = [this.root];
    for (const key of path) {
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

  /** `child` of `parent` has nothing left waiting: only its last turn is kept. */
  private setIdle(parent: Owner<T>, child: Owner<T>): void {
    parent.children.delete(child.key);
    parent.idle.set(child.key, child.servedAt);
    if (parent.idle.size > REMEMBERED_IDLE_OWNERS) parent.idle.delete(parent.idle.keys().next().value as string);
  }

  /** Every item, emptying the queue. */
  drain(): T[] {
    const items: T[] = [];
    for (let item = this.shift(); item !== undefined; item = this.shift()) items.push(item);
    return items;
  }
}
