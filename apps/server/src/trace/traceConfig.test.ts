import { describe, expect, it } from 'vitest';
import { TRACE_DEFAULTS, traceValuesOf } from './traceConfig.ts';

// `--trace-config` read as Triton's command line reads it.

describe('traceValuesOf (--trace-config)', () => {
  it("takes Triton's global and triton-mode settings, levels adding up and OFF anywhere turning tracing off", () => {
    expect(traceValuesOf([])).toEqual(TRACE_DEFAULTS);
    expect(
      traceValuesOf([
        'triton,file=trace.json',
        'triton,log-frequency=50',
        'rate=100',
        'level=TIMESTAMPS',
        'level=tensors',
        'count=100',
        'mode=triton',
      ]),
    ).toEqual({ level: 3, rate: 100, count: 100, logFrequency: 50, file: 'trace.json' });
    expect(traceValuesOf(['level=TIMESTAMPS', 'level=OFF', 'rate=1']).level).toBe(0);
    expect(traceValuesOf(['level=on']).level).toBe(1);
  });

  it("refuses malformed flags in Triton's words, and the OpenTelemetry mode", () => {
    expect(() => traceValuesOf([',file=x'])).toThrow('No trace mode specified. --trace-config option format is');
    expect(() => traceValuesOf(['rate'])).toThrow(
      "--trace-config option format is '<trace mode>,<setting>=<value>'. Got rate",
    );
    expect(() => traceValuesOf(['rate='])).toThrow("--trace-config option format is '<trace mode>,<setting>=<value>'");
    expect(() => traceValuesOf(['zipkin,file=x'])).toThrow(
      'invalid value for trace mode option: zipkin. Available options are "triton" and "opentelemetry"',
    );
    expect(() => traceValuesOf(['rate=fast'])).toThrow(
      'Bad option: "--trace-config rate".\nInvalid option value. Got fast',
    );
    expect(() => traceValuesOf(['triton,log-frequency=9999999999'])).toThrow(
      'Bad option: "--trace-config triton,log-frequency".\nProvided option value is out of bound. Got 9999999999',
    );
    expect(() => traceValuesOf(['level=loud'])).toThrow('invalid value for trace level option: loud');
    expect(() => traceValuesOf(['opentelemetry,url=localhost:4318'])).toThrow('Triton trace files only');
    expect(() => traceValuesOf(['mode=opentelemetry'])).toThrow('Triton trace files only');
  });
});
