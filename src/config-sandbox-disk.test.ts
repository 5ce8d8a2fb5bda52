/** The sandbox disk settings as `svc serve` reads them from its environment. */
import { describe, expect, test } from 'vitest';
import { loadConfig } from './config.js';

describe('SVC_SANDBOX_DISK_MB and SVC_SANDBOX_MAX_DISK_MB', () => {
  test('default to 10 GiB each: a project may ask for less disk, and for more only when the operator allows it', () => {
    expect(loadConfig({}).sessions).toMatchObject({ diskMb: 10_240, maxDiskMb: 10_240 });
    expect(loadConfig({ SVC_SANDBOX_DISK_MB: '2048', SVC_SANDBOX_MAX_DISK_MB: '51200' }).sessions).toMatchObject({ diskMb: 2048, maxDiskMb: 51_200 });
    expect(loadConfig({ SVC_SANDBOX_DISK_MB: '20480' }).sessions).toMatchObject({ diskMb: 20_480, maxDiskMb: 20_480 });
  });

  test('a maximum below the default is refused at start, saying which to change', () => {
    expect(() => loadConfig({ SVC_SANDBOX_MAX_DISK_MB: '1024' })).toThrow(
      'SVC_SANDBOX_MAX_DISK_MB (1024) is less than the default SVC_SANDBOX_DISK_MB (10240); raise the maximum or lower the default',
    );
    expect(() => loadConfig({ SVC_SANDBOX_DISK_MB: '10' })).toThrow(/SVC_SANDBOX_DISK_MB/);
  });
});
