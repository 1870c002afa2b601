/* Faults while unwinding, and faults of the program.
 *
 * Unwinding reads stack memory that a corrupt or foreign stack may not have
 * mapped. The guard's SIGSEGV/SIGBUS handler turns a fault during an unwind
 * into a jump back to the sample handler, which keeps the frames found so
 * far as a partial path. Any other fault is the program's: the measurement
 * is written (so a crash loses nothing that was collected), and the fault
 * goes on to the handler the program had, or kills the process as it would
 * have without knit.
 */
#ifndef KNIT_CORE_FAULT_GUARD_H
#define KNIT_CORE_FAULT_GUARD_H

#include <stdbool.h>

bool knit_fault_guard_install(void);

#endif /* KNIT_CORE_FAULT_GUARD_H */
