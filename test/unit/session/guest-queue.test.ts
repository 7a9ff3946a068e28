/**
 * GuestQueue (forge mcp --mount with run_command): a guest's operations wait their turn on the
 * host queue, except while a host operation admits them; admitted operations still run one at a
 * time, and admit() returns only once the admitted ones have settled.
 */
import { describe, expect, it } from 'vitest';
import { GuestQueue, SerialQueue } from '../../../src/session/serial-queue';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('GuestQueue', () => {
  it('a guest operation waits for the host operation running, in arrival order', async () => {
    const host = new SerialQueue();
    const guest = new GuestQueue(host);
    const order: string[] = [];
    let release!: () => void;
    const hostOp = host.run(async () => {
      order.push('host start');
      await new Promise<void>((resolve) => (release = resolve));
      order.push('host end');
    });
    const guestOp = guest.run(async () => {
      order.push('guest');
    });
    await tick();
    expect(order).toEqual(['host start']);
    release();
    await Promise.all([hostOp, guestOp]);
    expect(order).toEqual(['host start', 'host end', 'guest']);
  });

  it('while a host operation admits the guest, its operations run inside it, one at a time, and admit waits for them', async () => {
    const host = new SerialQueue();
    const guest = new GuestQueue(host);
    const order: string[] = [];
    let running = 0;
    let overlapped = false;
    const guestOp = (name: string) =>
      guest.run(async () => {
        running++;
        if (running > 1) overlapped = true;
        order.push(`${name} start`);
        await tick();
        order.push(`${name} end`);
        running--;
      });
    let late: Promise<void> | undefined;
    await host.run(() =>
      guest.admit(async () => {
        // Without admission these would wait for this very operation: a deadlock.
        await Promise.all([guestOp('a'), guestOp('b')]);
        late = guestOp('c'); // still admitted: admit() waits for it
      }),
    );
    expect(order).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
    expect(overlapped).toBe(false);
    await late;
    // Admission is over: the guest waits for the host again.
    let release!: () => void;
    const hostOp = host.run(() => new Promise<void>((resolve) => (release = resolve)));
    let after = false;
    const afterOp = guest.run(async () => {
      after = true;
    });
    await tick();
    expect(after).toBe(false);
    release();
    await Promise.all([hostOp, afterOp]);
    expect(after).toBe(true);
  });
});
