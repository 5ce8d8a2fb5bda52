/**
 * What a project secret may be called: an environment variable's name that svc does not inject itself. The API
 * refuses any other name; the CLI checks it before it asks for the value, so nobody types a secret for nothing.
 */
const SECRET_NAME_PATTERN = /^[A-Z_][A-Z0-9_]*$/;
const MAX_SECRET_NAME_LENGTH = 128;

export interface SecretNameProblem {
  /** A good name in the SVC_ prefix, which svc keeps for the variables it injects. */
  reserved: boolean;
  message: string;
}

export function secretNameProblem(name: string): SecretNameProblem | null {
  if (!SECRET_NAME_PATTERN.test(name) || name.length > MAX_SECRET_NAME_LENGTH) {
    return {
      reserved: false,
      message: `The secret name ${JSON.stringify(name)} is invalid: use 1-${MAX_SECRET_NAME_LENGTH} upper-case letters, digits and underscores, not starting with a digit (for example GIT_TOKEN).`,
    };
  }
  if (name.startsWith('SVC_')) {
    return { reserved: true, message: `The prefix SVC_ is reserved for variables svc injects; rename ${name} (for example to ${name.slice(4) || 'MY_SECRET'}).` };
  }
  return null;
}
