export const CAPABILITIES = [
  'project.read',
  'project.write',
  'project.gitops.push',
  'project.gitops.merge',
  'dashboards.publish',
  'sessions.write',
  'triggers.fire',
] as const;

export type Capability = (typeof CAPABILITIES)[number];

export function isCapability(value: string): value is Capability {
  return (CAPABILITIES as readonly string[]).includes(value);
}
