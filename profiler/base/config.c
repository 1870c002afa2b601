/* Event specifications: see config.h. */
#include "base/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *knit_event_name(knit_event_kind kind)
{
  switch (kind) {
  case KNIT_EVENT_CPUTIME: return "CPUTIME";
  case KNIT_EVENT_REALTIME: return "REALTIME";
  case KNIT_EVENT_PROBE: return "PROBE";
  }
  return "?";
}

bool knit_event_parse(const char *spec, knit_event *out, char *err, size_t errlen)
{
  const char *at = strchr(spec, '@');
  size_t name_len = at ? (size_t)(at - spec) : strlen(spec);
  static const knit_event_kind kinds[] = {KNIT_EVENT_CPUTIME, KNIT_EVENT_REALTIME,
                                          KNIT_EVENT_PROBE};
  bool found = false;
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
    const char *name = knit_event_name(kinds[i]);
    if (strlen(name) == name_len && strncmp(spec, name, name_len) == 0) {
      out->kind = kinds[i];
      found = true;
    }
  }
  if (!found) {
    snprintf(err, errlen, "unknown event '%.*s' (CPUTIME, REALTIME or PROBE)", (int)name_len, spec);
    return false;
  }
  if (out->kind == KNIT_EVENT_PROBE) {
    out->period_ns = 0;
    if (at) {
      snprintf(err, errlen, "PROBE takes no period ('%s')", spec);
      return false;
    }
    return true;
  }
  out->period_ns = KNIT_DEFAULT_PERIOD_NS;
  if (!at)
    return true;
  const char *p = at + 1;
  bool rate = *p == 'f';
  if (rate)
    p++;
  char *endp = NULL;
  unsigned long long v = strtoull(p, &endp, 10);
  if (!*p || *endp || v == 0 || *p == '-') {
    snprintf(err, errlen, "bad period in '%s': expected @<microseconds> or @f<samples per second>",
             spec);
    return false;
  }
  if (rate) {
    if (v > KNIT_MAX_RATE_PER_S) {
      snprintf(err, errlen,
               "rate %llu/s in '%s' is above the highest rate knit samples at, %llu/s per thread",
               v, spec, KNIT_MAX_RATE_PER_S);
      return false;
    }
    out->period_ns = 1000000000ull / v;
  } else {
    if (v > 3600ull * 1000000) {
      snprintf(err, errlen, "period %llu us in '%s' is above one hour", v, spec);
      return false;
    }
    out->period_ns = v * 1000ull;
    if (out->period_ns < KNIT_MIN_PERIOD_NS) {
      snprintf(err, errlen,
               "period %llu us in '%s' is below the shortest period knit samples at, %llu us "
               "(%llu/s per thread)",
               v, spec, KNIT_MIN_PERIOD_NS / 1000ull, KNIT_MAX_RATE_PER_S);
      return false;
    }
  }
  return true;
}
