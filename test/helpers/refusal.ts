/**
 * The ValidationError `run` throws, for tests of what a constructor or a check refuses; anything else thrown is
 * thrown again, and no throw at all fails the test.
 */
import { ValidationError } from '../../src/errors/local.js';

/** The `ValidationError` that `run` throws. */
export function refusal(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError, got none');
}
