/* Libraries unloaded while the program runs, counted.
 *
 * An unload is the one change of the loaded code after which an address
 * that held one function may hold another: a library loaded later may be
 * mapped where an unloaded one was. Loads only add code where there was
 * none. knit wraps dlclose (not dlopen, which must keep its caller: see
 * docs/design-notes.md) to count unloads that have begun and that have
 * ended, so that a result worked out from the code at some addresses (a
 * remembered region path, ompt/capture_cache.h) can be known to still
 * describe the code there. The C library's own unloads (of its character
 * set converters) do not pass through dlclose; their code never calls out,
 * so it is never on the stack of a thread that opens a parallel region.
 */
#ifndef KNIT_CORE_UNLOADS_H
#define KNIT_CORE_UNLOADS_H

#include <stdbool.h>
#include <stdint.h>

/* The number of unloads that have ended, in *count; false while an unload
 * is under way (the count is then not one to rely on). Async-signal-safe:
 * two atomic loads. */
bool knit_unloads_settled(uint64_t *count);

#endif /* KNIT_CORE_UNLOADS_H */
