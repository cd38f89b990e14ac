import { ObjectError, unlessNotFound } from '../../storage/errors';

describe('unlessNotFound', () => {
  it('gives what the read gives', async () => {
    await expect(unlessNotFound(Promise.resolve({ name: 'a' }))).resolves.toEqual({ name: 'a' });
  });

  it('gives undefined when the object is not there', async () => {
    await expect(unlessNotFound(Promise.reject(new ObjectError('NotFound', 'not found', { name: 'a' })))).resolves.toBe(
      undefined,
    );
  });

  it('passes every other error on as it is', async () => {
    const conflict = new ObjectError('Conflict', 'changed', { name: 'a' });
    await expect(unlessNotFound(Promise.reject(conflict))).rejects.toBe(conflict);
    const broken = new Error('connection lost');
    await expect(unlessNotFound(Promise.reject(broken))).rejects.toBe(broken);
  });
});
