/**
 * What a StorageClass or VolumeAttributesClass may hand its provisioner or driver: the
 * reference's validateParameters bounds the parameters' bytes at 256 KiB (keys and values
 * counted in UTF-8). The count bound and the empty key are in the recorded fixture
 * (registry/fixtures/storage-answers.json); a body over 256 KiB is too large to record there.
 */
import { fieldErrorText, type FieldError } from '../../../server/status/field-error';
import { validateStorageClass, validateVolumeAttributesClass } from '../../../server/validation/storage';

const storageClass = (parameters: Record<string, string>) => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: 'fast' },
  provisioner: 'example.com/p',
  volumeBindingMode: 'Immediate',
  parameters,
});

const attributesClass = (parameters: Record<string, string>) => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'VolumeAttributesClass',
  metadata: { name: 'fast' },
  driverName: 'example.com',
  parameters,
});

const errorsOf = (errors: readonly FieldError[]) => errors.map(fieldErrorText);

describe('class parameters', () => {
  const atLimit = { k: 'v'.repeat(256 * 1024 - 1) };
  const overLimit = { k: 'v'.repeat(256 * 1024) };
  // Two UTF-8 bytes a character: the bound is on bytes, not on characters.
  const overInBytes = { k: 'é'.repeat(128 * 1024) };

  it('takes 256 KiB of keys and values, not a byte more', () => {
    expect(errorsOf(validateStorageClass(storageClass(atLimit)))).toEqual([]);
    expect(errorsOf(validateVolumeAttributesClass(attributesClass(atLimit)))).toEqual([]);
    const tooLong = ['parameters: Too long: may not be more than 262144 bytes'];
    expect(errorsOf(validateStorageClass(storageClass(overLimit)))).toEqual(tooLong);
    expect(errorsOf(validateStorageClass(storageClass(overInBytes)))).toEqual(tooLong);
    expect(errorsOf(validateVolumeAttributesClass(attributesClass(overLimit)))).toEqual(tooLong);
  });

  it('reports an empty key and the size together, in that order', () => {
    expect(errorsOf(validateStorageClass(storageClass({ '': 'v'.repeat(256 * 1024 + 1) })))).toEqual([
      'parameters: Invalid value: "": field can not be empty.',
      'parameters: Too long: may not be more than 262144 bytes',
    ]);
  });
});
