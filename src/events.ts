/**
 * What happened in this process, for the parts that react to it without the emitter knowing them
 * (the web UI pre-renders a dashboard that was just published). Delivery is in-process and best
 * effort: work that must reach other replicas or survive a crash is a row in an outbox table instead.
 */
/** One version of one dashboard; a slug deleted and published again starts a new dashboard (and versions from 1). */
export interface DashboardVersionRef {
  accountId: string;
  slug: string;
  createdAt: string;
  version: number;
}

export interface DomainEvents {
  /** `createdAt` tells a dashboard from an earlier one of the same slug that was deleted. */
  'dashboard.published': DashboardVersionRef;
  /** The page of a published version was drawn ahead of its first visitor. */
  'dashboard.prerendered': DashboardVersionRef;
  /** A session's status or sandbox state changed in this process (other replicas' changes are read from the database). */
  'session.status': SessionStatusEvent;
  /** A project's default branch moved here (a merge, a push, a mirror's fetch): its triggers are read again. */
  'project.branch-moved': { projectId: string };
  /** A project's trigger set was stored anew: the scheduler looks at its next fires. */
  'triggers.changed': { projectId: string };
  /** Trigger fires were recorded here and wait for their sessions. */
  'triggers.fired': { fireIds: string[] };
}

export interface SessionStatusEvent {
  sessionId: string;
  projectId: string;
  status: string;
  sandboxState: string | null;
  at: string;
}

type Listener<Name extends keyof DomainEvents> = (event: DomainEvents[Name]) => void;

export class DomainEventBus {
  private readonly listeners: { [Name in keyof DomainEvents]?: Array<Listener<Name>> } = {};

  /** Adds a listener; the returned function removes it. */
  on<Name extends keyof DomainEvents>(name: Name, listener: Listener<Name>): () => void {
    const list = (this.listeners[name] ??= []) as Array<Listener<Name>>;
    list.push(listener);
    return () => {
      const index = list.indexOf(listener);
      if (index >= 0) list.splice(index, 1);
    };
  }

  /** Calls every listener. A listener that throws is reported to `onError` and does not stop the emitter. */
  emit<Name extends keyof DomainEvents>(name: Name, event: DomainEvents[Name], onError?: (error: unknown) => void): void {
    for (const listener of (this.listeners[name] ?? []) as Array<Listener<Name>>) {
      try {
        listener(event);
      } catch (error) {
        onError?.(error);
      }
    }
  }
}
