/**
 * An in-memory OpenTelemetry `MeterProvider` for the tests (no SDK dependency): it implements `@opentelemetry/api`'s
 * `MeterProvider`, `Meter` and instrument interfaces, records every value given to a synchronous instrument, and runs the
 * observable instruments' callbacks when the test calls `collect()`.
 */
import type {
  Attributes,
  BatchObservableCallback,
  Counter,
  Gauge,
  Histogram,
  Meter,
  MeterProvider,
  MetricOptions,
  ObservableCallback,
  ObservableCounter,
  ObservableGauge,
  ObservableResult,
  ObservableUpDownCounter,
  UpDownCounter,
} from '@opentelemetry/api';

/** One value recorded or observed. */
export interface Recorded {
  readonly name: string;
  readonly value: number;
  readonly attributes: Attributes;
}

/** A meter provider that keeps what it is given. */
export class MemoryMeterProvider implements MeterProvider {
  /** Values given to synchronous instruments, in order. */
  readonly recorded: Recorded[] = [];
  /** Each instrument created: its name and options. */
  readonly instruments = new Map<string, MetricOptions | undefined>();
  /** The meters asked for: name and version. */
  readonly meters: string[] = [];
  readonly #callbacks = new Map<string, Set<ObservableCallback>>();

  getMeter(name: string, version?: string): Meter {
    this.meters.push(`${name}@${version ?? ''}`);
    const sync = (name: string, options?: MetricOptions) => {
      this.instruments.set(name, options);
      const record = (value: number, attributes: Attributes = {}) => void this.recorded.push({ name, value, attributes });
      return { record, add: record };
    };
    const observable = (name: string, options?: MetricOptions) => {
      this.instruments.set(name, options);
      const callbacks = new Set<ObservableCallback>();
      this.#callbacks.set(name, callbacks);
      return {
        addCallback: (callback: ObservableCallback) => void callbacks.add(callback),
        removeCallback: (callback: ObservableCallback) => void callbacks.delete(callback),
      };
    };
    return {
      createHistogram: (name: string, options?: MetricOptions) => sync(name, options) as Histogram,
      createCounter: (name: string, options?: MetricOptions) => sync(name, options) as Counter,
      createUpDownCounter: (name: string, options?: MetricOptions) => sync(name, options) as UpDownCounter,
      createGauge: (name: string, options?: MetricOptions) => sync(name, options) as Gauge,
      createObservableGauge: (name: string, options?: MetricOptions) => observable(name, options) as ObservableGauge,
      createObservableCounter: (name: string, options?: MetricOptions) => observable(name, options) as ObservableCounter,
      createObservableUpDownCounter: (name: string, options?: MetricOptions) => observable(name, options) as ObservableUpDownCounter,
      addBatchObservableCallback: (_callback: BatchObservableCallback) => undefined,
      removeBatchObservableCallback: (_callback: BatchObservableCallback) => undefined,
    };
  }

  /** Values given to the synchronous instrument `name`. */
  values(name: string): Recorded[] {
    return this.recorded.filter((entry) => entry.name === name);
  }

  /** Runs every observable callback now, as a metric reader's collection does; what each observed, by instrument name. */
  async collect(): Promise<Map<string, Recorded[]>> {
    const observed = new Map<string, Recorded[]>();
    for (const [name, callbacks] of this.#callbacks) {
      const list: Recorded[] = [];
      const result: ObservableResult = { observe: (value: number, attributes: Attributes = {}) => void list.push({ name, value, attributes }) };
      for (const callback of callbacks) await callback(result);
      observed.set(name, list);
    }
    return observed;
  }
}
