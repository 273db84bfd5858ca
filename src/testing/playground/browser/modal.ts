/**
 * Modals the bot opens for this page's own interactions: shown as a
 * dialog with a focus trap, submitted as a type-5 interaction.
 *
 * @module
 */

import { api, byId, h, hint, maybeById, messageOf, ui } from './dom.js';
import type { PictureComponent, PictureInteraction, Sent } from './picture.js';

const TEXT_INPUT = 4;
const PARAGRAPH = 2;

function field(c: PictureComponent): HTMLElement {
  const common = { name: c.custom_id, required: c.required !== false, placeholder: c.placeholder, minlength: c.min_length, maxlength: c.max_length };
  return h(
    'label',
    {},
    c.label ?? c.custom_id,
    c.style === PARAGRAPH ? h('textarea', { ...common, rows: 4, text: c.value ?? '' }) : h('input', { ...common, value: c.value ?? '' }),
  );
}

function openModal(interaction: PictureInteraction): void {
  const modal = interaction.modal ?? {};
  const dialog = byId('modal', HTMLDialogElement);
  byId('modal-title').textContent = modal.title ?? 'Form';
  const fields = (modal.components ?? []).flatMap((row) => (row.components ?? []).filter((c) => c.type === TEXT_INPUT));
  byId('modal-fields').replaceChildren(...fields.map(field));
  dialog.dataset['interaction'] = interaction.id;
  const active = document.activeElement;
  dialog.dataset['returnTo'] = active instanceof HTMLElement && active.id ? active.id : 'composer-input';
  dialog.showModal();
  dialog.querySelector<HTMLElement>('input,textarea')?.focus();
}

function returnFocus(): void {
  maybeById(byId('modal').dataset['returnTo'] ?? 'composer-input')?.focus();
}

function closeModal(): void {
  const dialog = byId('modal', HTMLDialogElement);
  if (dialog.open) dialog.close();
  returnFocus();
}

/** Opens the modals the bot opened for this page's interactions, once each. */
export function checkModals(): void {
  for (const i of ui.picture?.interactions ?? []) {
    if (i.status === 'modal' && i.modal && ui.mine.has(i.id) && !ui.modalsShown.has(i.id)) {
      ui.modalsShown.add(i.id);
      if (!byId('modal', HTMLDialogElement).open) openModal(i);
    }
  }
}

/** Marks an interaction as this page's own; a modal the bot opened for it before the page heard the answer opens now. */
export function claim(id: string): void {
  ui.mine.add(id);
  if (ui.picture) checkModals();
}

/** Wires the dialog: the focus trap, cancel, and submit. */
export function wireModal(): void {
  const dialog = byId('modal', HTMLDialogElement);
  dialog.addEventListener('keydown', (event) => {
    if (event.key !== 'Tab') return;
    const focusable = [...dialog.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLButtonElement>('input,textarea,button')].filter(
      (el) => !el.disabled,
    );
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last?.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first?.focus();
    }
  });
  dialog.addEventListener('close', returnFocus);
  byId('modal-cancel').addEventListener('click', closeModal);
  byId('modal-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const fields: Record<string, string> = {};
    for (const el of byId('modal-fields').querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input,textarea')) fields[el.name] = el.value;
    const interactionId = dialog.dataset['interaction'];
    closeModal();
    try {
      const answer = await api<Sent>('modal', { interactionId, fields, userId: ui.userId });
      claim(answer.id);
      hint('Form sent to the bot');
    } catch (error) {
      hint(messageOf(error), true);
    }
  });
}
