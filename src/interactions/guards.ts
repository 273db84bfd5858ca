/**
 * Type guards for interactions, by `kind` (so they also work across copies of the package).
 *
 * @module
 */

import type {
  AutocompleteInteraction,
  CommandInteraction,
  ComponentInteraction,
  Interaction,
  ModalSubmitInteraction,
  PingInteraction,
  UnknownInteraction,
} from './interaction.js';

/** Whether the interaction is a slash command. */
export const isCommandInteraction = (interaction: Interaction): interaction is CommandInteraction => interaction.kind === 'command';
/** Whether the interaction asks for autocomplete results. */
export const isAutocompleteInteraction = (interaction: Interaction): interaction is AutocompleteInteraction => interaction.kind === 'autocomplete';
/** Whether the interaction comes from a message component. */
export const isComponentInteraction = (interaction: Interaction): interaction is ComponentInteraction => interaction.kind === 'component';
/** Whether the interaction is a submitted modal form. */
export const isModalSubmitInteraction = (interaction: Interaction): interaction is ModalSubmitInteraction => interaction.kind === 'modalSubmit';
/** Whether the interaction is a ping. */
export const isPingInteraction = (interaction: Interaction): interaction is PingInteraction => interaction.kind === 'ping';
/** Whether the interaction is of a type the SDK does not know. */
export const isUnknownInteraction = (interaction: Interaction): interaction is UnknownInteraction => interaction.kind === 'unknown';
