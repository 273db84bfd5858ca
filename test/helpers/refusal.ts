/**
 * The `ValidationError` a call throws, for tests of what is refused: fails when the call throws nothing or another error.
 */
import { ValidationError } from '../../src/errors/index.js';

/** Runs `run` and returns the `ValidationError` it threw. */
export function validationRefusal(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError, got none');
}
