/**
 * Where the emulator's Gateway is.
 *
 * @module
 */

import { API_PREFIX } from '../../routes.js';

/** The Gateway's ws:// URL for an emulator at `baseUrl`. */
export function gatewayUrlOf(baseUrl: string): string {
  return `${baseUrl.replace(/^http/, 'ws')}${API_PREFIX}/gateway`;
}
