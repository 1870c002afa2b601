/* What `knit record` asked for, read from the environment once at start-up:
 *   KNIT_EVENT    CPUTIME@<us> | CPUTIME@f<per second> | REALTIME@... | PROBE
 *   KNIT_OUTPUT   the measurement directory
 * The command line is parsed by `knit record`, which checks the same syntax
 * with the same parser before it starts the program. */
#ifndef KNIT_CORE_CONFIG_H
#define KNIT_CORE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum knit_event_kind {
  KNIT_EVENT_CPUTIME = 0,
  KNIT_EVENT_REALTIME = 1,
  KNIT_EVENT_PROBE = 2,
} knit_event_kind;

typedef struct knit_event {
  knit_event_kind kind;
  uint64_t period_ns; /* 0 for PROBE */
} knit_event;

#define KNIT_DEFAULT_PERIOD_NS 5000000ull /* 200 samples per second */

/* The highest rate a timer event may ask for, per thread, and so the
 * shortest period. Measured (the log's "sampling:" lines, REALTIME on a
 * loop): natively 0.2-0.3 us in the handler and 1.2 us of signal delivery
 * a sample, 3% of a thread's time at 20 kHz and 30% at 200 kHz; under
 * QEMU (aarch64) 2.5-3.7 us and 3.8 us, 13% at 20 kHz. The benchmarks
 * sample at 10 kHz. At 500 kHz and more the program made no progress. */
#define KNIT_MAX_RATE_PER_S 20000ull
#define KNIT_MIN_PERIOD_NS  (1000000000ull / KNIT_MAX_RATE_PER_S)

/* The share of a thread's time (percent) knit's sample handler may take
 * before knit lengthens that thread's period (core/sampler.c). */
#define KNIT_MAX_SAMPLING_PERCENT 25

/* Parses an event specification. Returns false with a message in err. */
bool knit_event_parse(const char *spec, knit_event *out, char *err, size_t errlen);

/* The event's name as written in measurements: "CPUTIME", "REALTIME", "PROBE". */
const char *knit_event_name(knit_event_kind kind);

#endif /* KNIT_CORE_CONFIG_H */
