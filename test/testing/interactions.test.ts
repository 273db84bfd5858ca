import { describe, expect, it } from 'vitest';
import { createTestGateway } from '../../src/testing/index.js';

describe('createTestGateway().invoke', () => {
  it('resolves when the handlers have settled, however long they take: a reply after a timer and a second await is in the answers', async () => {
    const { gateway, invoke } = createTestGateway();
    gateway.onCommand('slow', async (interaction) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      await Promise.resolve();
      await interaction.reply('late but there');
    });
    gateway.onCommand('boom', async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      throw new Error('handler failed late');
    });
    const slow = await invoke({ name: 'slow' });
    expect(slow.responses).toEqual([{ interaction_type: 4, data: { content: 'late but there' } }]);
    const boom = await invoke({ name: 'boom' });
    expect(boom.errors.map((error) => (error as Error).message)).toEqual(['handler failed late']);
  });
});
