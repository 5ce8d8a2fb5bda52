export const CAPABILITIES = [
  'project.read',
  'project.write',
  'project.gitops.push',
  'project.gitops.merge',
  'project.admin',
  'dashboards.publish',
  'sessions.write',
  'triggers.fire',
] as const;

export type Capability = (typeof CAPABILITIES)[number];

export function isCapability(value: string): value is Capability {
  return (CAPABILITIES as readonly string[]).includes(value);
}

/**
 * What a project role holds (contract §2). A member does the project's work; settings, secrets, tokens,
 * members and deletion (`project.admin`) are for the project's admins and the account's administrators.
 */
export const MEMBER_CAPABILITIES: readonly Capability[] = CAPABILITIES.filter((capability) => capability !== 'project.admin');

export function capabilitiesOfRole(role: 'member' | 'admin'): readonly Capability[] {
  return role === 'admin' ? CAPABILITIES : MEMBER_CAPABILITIES;
}
