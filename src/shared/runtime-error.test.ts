import { describe, expect, it } from 'vitest';
import { failureKept, runtimeErrorText } from './runtime-error.js';

describe('runtimeErrorText', () => {
  it("says why the runtime's built-in provider failed and what to configure instead (as opencode reports an unreachable model)", () => {
    const info = {
      role: 'assistant',
      providerID: 'opencode',
      modelID: 'big-pickle',
      error: { name: 'APIError', data: { message: 'Cannot connect to API: Was there a typo in the url or port?', isRetryable: true, metadata: { url: 'https://opencode.ai/zen/v1/chat/completions' } } },
    };
    expect(runtimeErrorText(info)).toBe(
      'APIError (model opencode/big-pickle at https://opencode.ai/zen/v1/chat/completions): Cannot connect to API: Was there a typo in the url or port? ' +
        "That is the agent runtime's built-in provider, used when the repository's .svc/runtime/opencode.json names no model: name a provider and model there, and set its key as a project secret.",
    );
  });

  it('names a configured model without the hint, ends the reason as a sentence, and says when the reply was stopped', () => {
    expect(runtimeErrorText({ providerID: 'anthropic', modelID: 'claude', error: { name: 'ProviderAuthError', data: { providerID: 'anthropic', message: 'No API key' } } })).toBe(
      'ProviderAuthError (model anthropic/claude): No API key.',
    );
    expect(runtimeErrorText({ error: { name: 'UnknownError', data: {} } })).toBe('UnknownError: the runtime gave no reason.');
    expect(runtimeErrorText({ error: { name: 'MessageAbortedError', data: { message: 'Aborted' } } })).toBe('The reply was stopped before it finished.');
    expect(runtimeErrorText({ role: 'assistant' })).toBeNull();
    expect(runtimeErrorText(undefined)).toBeNull();
  });

  it('names the endpoint without its query, where a provider may take its key', () => {
    const error = { name: 'APIError', data: { message: 'Quota exceeded', metadata: { url: 'https://models.example.com/v1/generate?key=secret-key' }, responseBody: 'secret-key' } };
    expect(runtimeErrorText({ error })).toBe('APIError (https://models.example.com/v1/generate): Quota exceeded.');
    expect(failureKept(error)).toEqual({ name: 'APIError', data: { message: 'Quota exceeded', metadata: { url: 'https://models.example.com/v1/generate' } } });
  });
});
