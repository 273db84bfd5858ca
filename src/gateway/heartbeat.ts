/**
 * The connection's clocks: heartbeats of one socket at a time (a jittered
 * first beat, then one each interval; a beat due while the previous one is
 * still unacknowledged means the connection is a zombie), and the one-shot
 * timers it clears together.
 *
 * @module
 */

/** Heartbeat timers, latency and the ACK state. */
export class Heartbeat {
  /** Milliseconds between the last beat and its ACK. */
  latency: number | undefined;
  /** When the last ACK arrived, epoch milliseconds. */
  lastAckAt: number | undefined;
  readonly #now: () => number;
  readonly #random: () => number;
  #first: ReturnType<typeof setTimeout> | undefined;
  #interval: ReturnType<typeof setInterval> | undefined;
  #awaitingAck = false;
  #lastBeatAt = 0;

  constructor(now: () => number, random: () => number) {
    this.#now = now;
    this.#random = random;
  }

  /**
   * Starts beating every `intervalMs` (which the caller has validated), the
   * first beat after a random part of it, so that many clients reconnecting
   * at once do not beat in step. Calls `onZombie` (and stops) when a beat is
   * due and the previous one has no ACK.
   */
  start(intervalMs: number, send: () => void, onZombie: () => void): void {
    this.stop();
    this.#awaitingAck = false;
    this.#first = setTimeout(
      () => {
        this.#first = undefined;
        this.beat(send);
        this.#interval = setInterval(() => {
          if (this.#awaitingAck) {
            this.stop();
            onZombie();
            return;
          }
          this.beat(send);
        }, intervalMs);
      },
      Math.floor(intervalMs * this.#random()),
    );
  }

  /** Sends one beat now (also when the server asks for one). */
  beat(send: () => void): void {
    this.#lastBeatAt = this.#now();
    this.#awaitingAck = true;
    send();
  }

  /** Records a heartbeat ACK. */
  ack(): void {
    const now = this.#now();
    this.#awaitingAck = false;
    this.lastAckAt = now;
    this.latency = now - this.#lastBeatAt;
  }

  /** Stops both timers (the first beat's too). */
  stop(): void {
    if (this.#first !== undefined) clearTimeout(this.#first);
    if (this.#interval !== undefined) clearInterval(this.#interval);
    this.#first = this.#interval = undefined;
  }
}

/** One-shot timers that can all be cleared at once (the connection's Hello, READY, reconnect and close timers). */
export class TimerSet {
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();

  /** Runs `fn` after `ms`. */
  set(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    this.#timers.add(timer);
    return timer;
  }

  /** Cancels one timer. */
  clear(timer: ReturnType<typeof setTimeout> | undefined): void {
    if (timer === undefined) return;
    clearTimeout(timer);
    this.#timers.delete(timer);
  }

  /** Cancels every timer. */
  clearAll(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}
